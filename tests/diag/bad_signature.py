from numba import cuda

@cuda.jit("void(flot32[:])")
def k(a):
    a[0] = 1
