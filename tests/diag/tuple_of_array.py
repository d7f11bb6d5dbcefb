from numba import cuda


@cuda.jit("void(float64[:], int64)")
def k(a, n):
    t = tuple(a)          # tuple() of an array: its length is not known when compiling
    u = tuple(n)          # of a number
    v = tuple((n, n))     # of a tuple: fine
