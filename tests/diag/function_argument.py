# A device function passed as an argument and called through its parameter (Numba compiles this;
# pyk2cuda does not yet): a diagnostic at the argument, never an internal error.
from numba import cuda


@cuda.jit(device=True)
def apply(f, x):
    return f(x)


@cuda.jit(device=True)
def twice(x):
    return 2 * x


@cuda.jit("void(float32[::1])")
def kern(a):
    i = cuda.grid(1)
    a[i] = apply(twice, a[i])
