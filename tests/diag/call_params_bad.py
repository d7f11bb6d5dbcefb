from numba import cuda


@cuda.jit(device=True)
def g():
    return 1


@cuda.jit(device=True)
def f(x, y=2, z=g):                  # a default that is not a constant
    return x + y


@cuda.jit(device=True)
def h(x, y=1.5, *rest):              # *args: the extra arguments, a tuple
    return x


@cuda.jit("void(float64[:], int64)")
def k(out, n=3):                     # a kernel takes every argument
    out[0] = f(1, w=2)               # no such parameter
    out[1] = f(1, 2, x=3)            # x given twice
    out[2] = f(y=2)                  # x missing
    out[3] = f(1, 2, 3, 4)           # too many
    out[4] = f(y=g(), x=g())         # calls in keyword arguments out of order
