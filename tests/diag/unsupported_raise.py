from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    raise ValueError("no")
