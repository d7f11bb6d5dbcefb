# Stencils called in @jit functions the host calls, as Numba allows (frontend/stencil.c): each call
# is a call of the stencil's loops, NAME_call (a new result) or NAME_loops (out=), on the CPU.
import numpy as np
import numba


@numba.stencil(cval=-1.0)
def blur(a):
    return (a[-1, 0] + a[1, 0]) * 0.5


@numba.stencil(neighborhood=((-2, 2),), standard_indexing=("w",))
def window(a, w, scale):
    s = 0.0
    for i in range(-2, 3):
        s += w[i + 2] * a[i]
    return s * scale


@numba.stencil
def avg(a):
    return (a[-1] + a[1]) // 2


@numba.njit
def both(img, f, w, out):
    window(f, w, 2, out=out)
    return blur(img)


@numba.njit
def ints(x):
    return avg(x)
