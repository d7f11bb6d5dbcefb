from numba import cuda

@cuda.jit("void(int64[:])")
def k(a):
    t = (1, 2)
    if t < (2, 3):
        a[0] = 1
