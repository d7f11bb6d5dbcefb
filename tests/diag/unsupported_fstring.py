from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    print(f"{a[0]}")
