from numba import cuda
import math

@cuda.jit("void(float64[:], float64[:], complex128[:])")
def k(a, b, z):
    a[0] = math.ldexp(a[0], b[0])
    a[1] = math.ldexp(z[0], 2)
    a[2] = math.ldexp(a[0])
