from numba import cuda

@cuda.jit("void(float64[:])")
def k(a):
    for a[0] in range(3):
        pass
