from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    f = lambda x: x
    a[0] = 1
