from numba import cuda

@cuda.jit("void(float64[:], int64)")
def k(a, n):
    for i, j in range(n):
        a[0] = i
    for x in n:
        a[0] = x
    for x in (1, 2.5):
        a[0] = x
    for i, x in enumerate(a, 1.5):
        a[0] = x
    for x, y in zip(a, a, strict=True):
        a[0] = x
    e = enumerate(a)
