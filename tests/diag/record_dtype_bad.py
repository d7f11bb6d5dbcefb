import numpy as np
from numba import cuda

UNALIGNED = np.dtype([("a", np.int8), ("b", np.float64)])          # b at offset 1
PADDED_END = np.dtype([("b", np.float64), ("a", np.int8)])         # itemsize 9
DICT_FORM = np.dtype({"names": ["a"], "formats": [np.int32]})      # not evaluated here
NESTED = np.dtype([("p", np.dtype([("q", np.int32)]))])             # a record inside a record
OK = np.dtype([("a", np.int32), ("b", np.float64)], align=True)


@cuda.jit("void(float64[:])")
def k(out):
    s = cuda.shared.array(4, dtype=UNALIGNED)
    r = cuda.local.array(4, PADDED_END)
    t = cuda.shared.array(4, dtype=DICT_FORM)
    u = cuda.local.array(4, NESTED)
    v = cuda.local.array(4, OK)
    v[0].b = 1.5
    out[0] = v[0].b
