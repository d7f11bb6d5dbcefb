from numba import cuda


@cuda.jit("void(float64[:], complex128, int64)")
def k(a, z, n):
    p = (n, 1) == n            # a tuple and a number
    q = (z, 1) < (z, 2)        # complex numbers have no order
    r = (a, n) == (a, n)       # arrays are not compared with ==
    s = (n, (1, 2)) < (n, 3)   # a nested tuple and a number
