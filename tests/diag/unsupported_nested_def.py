from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    @cuda.jit(device=True)
    def g():
        pass
    a[0] = 1
