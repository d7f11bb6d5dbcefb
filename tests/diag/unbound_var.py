from numba import cuda

@cuda.jit("void(int64[:])")
def k(a):
    a[0] = y
    y = 1
