from numba import cuda, float64

@cuda.jit("void(float64[:])")
def k(a):
    s = cuda.shared.array((1024, 1024), dtype=float64)
    a[0] = s[0, 0]
