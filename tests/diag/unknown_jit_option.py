from numba import cuda

@cuda.jit("void(int64[:])", turbo=True)
def k(a):
    a[0] = 1
