# Calls of device functions that leave parameters to their default values, as Python binds
# them: defaults that are numbers, tuples, module constants and None (arguments by keyword,
# which Numba 0.56's simulator does not take, are checked in tests/python/test_call_args.py). A parameter left to its default None is None in the callee: `if b is None:` keeps the
# branch taken (Numba's dead-branch pruning), and what follows a branch that returns is not
# compiled, where it may use b as a number.
from numba import cuda

SCALE = 0.5


@cuda.jit(device=True)
def affine(x, a=2, b=(1.5, -1), c=SCALE):
    return x * a + b[0] * b[1] + c


@cuda.jit(device=True)
def offset(x, shift=None):
    if shift is None:
        return x
    return x + shift


@cuda.jit(device=True)
def scaled(x, scale=None, clamp=None):
    if scale is not None:
        x = x * scale
    if clamp is None:
        return x
    elif x > clamp:
        return clamp
    return x


@cuda.jit
def call_args(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = affine(v)
        out[i, 1] = affine(v, 3)
        out[i, 2] = affine(v, 4, (2.0, 2))
        out[i, 3] = affine(v, 4, (2.0, 2), -1.0)
        out[i, 4] = offset(v) + offset(v, 2.5) + offset(v, -1)
        out[i, 5] = scaled(v) + scaled(v, 2.0) + scaled(v, None, 0.25) + scaled(v, 3.0, 1.0)
