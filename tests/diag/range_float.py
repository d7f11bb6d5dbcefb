from numba import cuda

@cuda.jit("void(float32[:])")
def k(a):
    for i in range(2.5):
        a[0] = 1
