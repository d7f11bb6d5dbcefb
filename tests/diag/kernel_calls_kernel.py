from numba import cuda

@cuda.jit("void(float32[:])")
def other(a):
    a[0] = 1.0

@cuda.jit("void(float32[:])")
def k(a):
    other(a)
