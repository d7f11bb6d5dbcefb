from numba import cuda


@cuda.jit("void(float32[:], float32[:], int64)")
def k(a, b, n):
    p = a is b                 # arrays: Numba compares their data and shape
    q = a[0] is not b          # two types: never the same object, as in Numba (no error)
