# math.modf, math.frexp and math.remainder take real numbers, not complex ones.
import math

from numba import cuda


@cuda.jit("void(complex128[:], float64[:])")
def k(z, a):
    f, w = math.modf(z[0])
    m, e = math.frexp(z[1])
    a[2] = math.remainder(z[0], 2.0)
