# `check` on kernels without a signature (the usual Numba style) still runs the checks that
# need no types; each kernel also gets a note that its types were not checked.
from numba import cuda


@cuda.jit
def returns(a):
    return a[0]


@cuda.jit
def arity(a):
    a[0] = abs(a[0], 2)


@cuda.jit(device=True)
def never_called(x):
    s = "x" + "y"
    return x
