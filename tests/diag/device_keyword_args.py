from numba import cuda

@cuda.jit(device=True)
def g(x):
    return x

@cuda.jit("void(int64[:])")
def k(a):
    a[0] = g(x=1)
