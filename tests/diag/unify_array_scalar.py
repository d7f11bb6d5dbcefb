from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    acc = 0
    acc = a
