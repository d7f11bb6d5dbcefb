from numba import cuda

@cuda.jit(device=True)
def two(x):
    return x, x + 1

@cuda.jit("void(int64[:])")
def k(a):
    p, q, r = two(a[0])
    a[0] = p
