from numba import cuda

@cuda.jit("void(float64[:])")
def k(a):
    été = 1.0
    a[0] = été
