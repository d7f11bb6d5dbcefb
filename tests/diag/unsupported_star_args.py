from numba import cuda

@cuda.jit(device=True)
def g(*xs):
    return 1

@cuda.jit(device=True)
def h(x, *rest, **kw):          # their uses below add no "not defined" errors
    return x + rest[0] + kw['a']
