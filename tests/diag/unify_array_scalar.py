from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    acc = 0
    if a[0] > 0:
        acc = a
    a[0] = acc          # reads both: one variable, which cannot be both
