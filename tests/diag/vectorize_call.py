from numba import cuda, vectorize

@vectorize(["float32(float32)"], target="cuda")
def f(x):
    return x + 1

@cuda.jit("void(float32[::1])")
def k(a):
    a[0] = f(a[0])
