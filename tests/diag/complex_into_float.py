from numba import cuda

@cuda.jit("void(float64[:])")
def k(a):
    a[0] = 1j
