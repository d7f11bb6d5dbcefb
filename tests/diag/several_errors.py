from numba import cuda

@cuda.jit("void(int64[:])")
def k(a):
    a[0] = nope1
    a[1] = nope2
    with x:
        pass
