from numba import cuda

@cuda.jit("void(UniTuple(int64 x 0))")
def k(t):
    pass
