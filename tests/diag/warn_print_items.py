from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    print(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
    print(a[0], "three", 3.5, True)
