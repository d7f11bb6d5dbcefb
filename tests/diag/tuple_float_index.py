from numba import cuda

@cuda.jit("void(float64[:])")
def k(a):
    t = (1.0, 2.0)
    a[0] = t[a[1]]
