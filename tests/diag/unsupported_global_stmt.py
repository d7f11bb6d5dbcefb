from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    global X
    a[0] = 1
