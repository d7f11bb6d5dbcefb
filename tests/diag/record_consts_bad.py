import numpy as np
from numba import cuda

SHORT = np.array([(1.0,)], dtype=[("x", float), ("y", int)])                 # a value missing
HALF = np.array([(2, 1.0)], dtype=np.dtype([("y", int), ("x", np.float16)], align=True))  # float16
BIG = np.array([(300, 1)], dtype=np.dtype([("b", np.uint8), ("a", np.int32)], align=True))  # 300 in uint8
SHAPE = np.array([([1, 2],)], dtype=[("v", np.int32, (3,))])               # 2 values for 3


@cuda.jit("void(float64[:])")
def k(out):
    out[0] = SHORT[0]["x"] + HALF[0]["y"] + BIG[0]["a"] + SHAPE[0]["v"][0]
