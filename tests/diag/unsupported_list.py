from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    xs = [1, 2, 3]
