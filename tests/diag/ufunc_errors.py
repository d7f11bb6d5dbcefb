from numba import cuda
import numpy as np

C = np.arange(4.0)


@cuda.jit("void(float64[:], int64[:], float64[:, :], float64)")
def k(a, ints, m, x):
    s = np.sin(a)                      # no output array: a kernel cannot allocate one
    np.sin(a, ints)                    # an int output of a float function
    np.hypot(a, m, m)                  # 1-d input, 2-d output
    np.sin(a, C)                       # a constant array
    np.sin(x, a, a)                    # too many arguments
    t = np.sin(x)                      # a scalar: fine
