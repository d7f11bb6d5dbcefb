# `is` of arrays, as Numba's array_is decides it: arrays of one type are the same object when
# their data, shape and strides are (p2c_same_array); a shared array and a view of all of it too.
from numba import cuda, float64


@cuda.jit("void(float64[:], float64[:], boolean[:])")
def arrays(a, b, out):
    s = cuda.shared.array(4, float64)
    out[0] = a is b
    out[1] = a is not a[1:]
    out[2] = s is s
    out[3] = a[::2] is b[::2]
