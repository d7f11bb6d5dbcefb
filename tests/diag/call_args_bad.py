from numba import cuda


@cuda.jit(device=True)
def g():
    return 1


@cuda.jit(device=True)
def f(x, y=2, z=(1, 2)):
    return x + y + z[0]


@cuda.jit("void(float64[:])")
def k(out):
    out[0] = f(1, w=2)               # no such parameter
    out[1] = f(1, 2, x=3)            # x given twice
    out[2] = f(y=2)                  # x missing
    out[3] = f(1, 2, (3, 4), 4)      # too many
    out[4] = f(y=g(), x=g())         # calls in keyword arguments out of order
    out[5] = f(z=(0, 0), x=1)        # out of order without calls: fine
