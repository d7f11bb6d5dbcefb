from numba import cuda

@cuda.jit("void(float64[:])")
def k(a):
    i = 1
    t = (1, 2.5)
    a[1] = t[i]
