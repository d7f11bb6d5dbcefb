from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    def g():
        pass
    a[0] = 1
