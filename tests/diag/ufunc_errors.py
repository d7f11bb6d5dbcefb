from numba import cuda
import numpy as np

C = np.arange(4.0)


@cuda.jit("void(float64[:], int64[:], float64[:, :], float64, complex128[:], bool[:], uint64[:], float16[:])")
def k(a, ints, m, x, z, flags, u, h):
    s = np.sin(a)                      # no output array: a kernel cannot allocate one
    np.sin(a, ints)                    # an int output of a float function
    np.hypot(a, m, m)                  # 1-d input, 2-d output
    np.sin(a, C)                       # a constant array
    np.sin(x, a, a)                    # too many arguments
    t = np.sin(x)                      # a scalar: fine
    np.sin(z, a)                       # a complex result into a float array
    np.hypot(z, a, z)                  # no complex loop
    np.bitwise_and(a, ints, ints)      # no float loop
    np.bitwise_or(u, ints, u)          # uint64 with int64 promotes to float64: no loop either
    np.less(a, a, h)                   # a float16 output
    np.maximum(a, a, flags)            # a float result into a bool array
    w = np.invert(x)                   # of a number too
    q = np.logical_not(h[0])           # float16
    np.maximum(ints, ints, u)          # an int64 result into a uint64 array (NumPy's same_kind: no)
