from numba import cuda
import math

@cuda.jit("void(int64[:])")
def k(a):
    a[0] = math.factorial(5)
