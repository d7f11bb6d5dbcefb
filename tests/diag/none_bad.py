from numba import cuda


@cuda.jit("void(int64)")
def k(n):
    r = n < None               # None is an operand of is / is not only
    s = None                   # or of nothing else
    t = n is None is 3 < None  # None beside < as well
