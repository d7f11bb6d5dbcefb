# args: --sig 'k(float64[:, ::1], float64[:, ::1])' --sig 'arity(float64[:, ::1])' --sig 'keyword(float64[:, ::1])'
# A @stencil function is a kernel the host launches, and a @jit function the host calls may call
# it (frontend/stencil.c); a kernel may not (Numba's CUDA target has no stencils: E-stencil), and
# a call takes the inputs by position and out= only.
import numba
from numba import cuda


@numba.stencil(cval=0.0)
def blur(a):
    return (a[-1, 0] + a[1, 0]) * 0.5


@cuda.jit
def k(x, y):
    y[0, 0] = blur(x)[0, 0]


@numba.njit
def arity(x):
    return blur(x, x)


@numba.njit
def keyword(x):
    return blur(x, cval=1.0)
