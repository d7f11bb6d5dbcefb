from numba import cuda
@cuda.jit(device=True)
def f(a, b=None):
    if b is None:
        b = 2.0
    return a + b
@cuda.jit("void(float64[:])")
def k(out):
    out[0] = f(1.5)
