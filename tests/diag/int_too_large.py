from numba import cuda

@cuda.jit("void(uint64[:])")
def k(a):
    a[0] = 18446744073709551616
