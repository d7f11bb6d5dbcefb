from numba import cuda

@cuda.jit("void(float32[:])")
def k(a):
    s = cuda.shared.array(16, dtype=a)
    a[0] = s[0]
