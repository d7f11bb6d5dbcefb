from numba import cuda

@cuda.jit("void(int32[:])")
def k(a):
    s = "éé"; a[0] = nope
