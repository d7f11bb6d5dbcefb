from numba import cuda

@cuda.jit("void(float32[:])")
def k(a):
    for i in range(0, 10, 0):
        a[0] = 1
