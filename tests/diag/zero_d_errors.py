# 0-d arrays: a[()] is their element; an integer index, len() and iteration are refused as
# NumPy and Numba refuse them, and a 0-d array of floats is no index.
from numba import cuda

@cuda.jit("void(float32[()], float64[:], float64[()])")
def k(a, b, f):
    a[0] = 1.0
    x = len(a)
    b[f] = 2.0
    for v in a:
        b[0] = v
