from numba import cuda

@cuda.jit("void(int64[:])")
def k(a):
    i = a[0]
    a[1] = a.shape[i]
