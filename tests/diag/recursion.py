from numba import cuda

@cuda.jit(device=True)
def f(n):
    if n <= 1:
        return 1
    return n * f(n - 1)

@cuda.jit("void(int64[:])")
def k(a):
    a[0] = f(5)
