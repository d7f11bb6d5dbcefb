from numba import cuda, float32

@cuda.jit("void(float32[:], int64)")
def k(a, n):
    s = cuda.shared.array(n, dtype=float32)
    a[0] = s[0]
