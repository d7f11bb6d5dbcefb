"""`is` and `is not` of numbers and None, which compiled Numba decides by the operands' types
(one type: compared with ==; two types: never the same object), unlike CPython's object
identity, which Numba's CUDA simulator shows. With `--njit` the same function runs under
Numba's CPU compiler, which follows the same rule; test_identity.py compares the two."""
import sys

import numpy as np


def identities(x, y, z, b, fx, out):
    out[0] = x is 5
    out[1] = x is y
    out[2] = x is not y
    out[3] = b is True
    out[4] = x is None
    out[5] = x is not None
    out[6] = None is None
    out[7] = fx is fx          # NaN: == says no
    out[8] = x is z            # int64 and int32: two types
    out[9] = x is y is not None
    out[10] = fx is 1.5
    out[11] = (x, y) is (y, x)   # tuples of one type: == there
    out[12] = (x, fx) is (x, y)  # of two types: never


if "--njit" in sys.argv:
    from numba import njit

    run = njit(identities)
else:
    from pyk2cuda import cuda

    kernel = cuda.jit(identities)

    def run(*args):
        kernel[1, 1](*args)

for args in [(5, 5, np.int32(5), True, float("nan")), (4, 5, np.int32(4), False, 1.5)]:
    out = np.zeros(13, np.bool_)
    run(*args, out)
    print(out.astype(int).tolist())
