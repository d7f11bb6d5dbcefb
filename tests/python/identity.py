"""`is` and `is not` of numbers, None and arrays, which compiled Numba decides by the operands' types
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


def array_identities(a, b, c, out):
    out[0] = a is b            # one type: the same data, shape and strides
    out[1] = a is not b
    out[2] = a is a[:]         # a view of all of a is a
    out[3] = a is a[1:]
    out[4] = a is c            # the same data, another shape


if "--njit" in sys.argv:
    from numba import njit

    run, run_arrays = njit(identities), njit(array_identities)
else:
    from pyk2cuda import cuda

    kernel, array_kernel = cuda.jit(identities), cuda.jit(array_identities)

    def run(*args):
        kernel[1, 1](*args)

    def run_arrays(*args):
        array_kernel[1, 1](*args)

for args in [(5, 5, np.int32(5), True, float("nan")), (4, 5, np.int32(4), False, 1.5)]:
    out = np.zeros(13, np.bool_)
    run(*args, out)
    print(out.astype(int).tolist())
x = np.arange(6.0)
for a, b in [(x, x), (x, x.copy()), (x[::2], x[::2])]:
    out = np.zeros(5, np.bool_)
    run_arrays(a, b, x.reshape(2, 3)[0], out)
    print(out.astype(int).tolist())
