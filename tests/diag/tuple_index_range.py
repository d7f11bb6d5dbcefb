from numba import cuda

@cuda.jit("void(float64[:])")
def k(a):
    t = (1, 2.5)
    a[0] = t[2]
    a[1] = t[-3]
