# @stencil functions of 1 to 3 dimensions, as `pyk2cuda emit` shows them: each a kernel of the
# stencil's name taking its inputs and the result array (frontend/stencil.c).
import numba
from numba import stencil


@stencil
def avg3(a):                      # 1-D, int: // keeps int64; no cval: the border is left alone
    return (a[-1] + 2 * a[0] + a[1]) // 4


@numba.stencil
def blur(a):                      # 2-D: the neighbourhood ((-1, 1), (-1, 1)) from the offsets
    return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) * 0.25


@numba.stencil(cval=1.5)
def lap3(u):                      # 3-D, float32 in, float64 out (6 * a float32), the border 1.5
    return u[0, 0, -1] + u[0, 0, 1] + u[0, -1, 0] + u[0, 1, 0] + u[-1, 0, 0] + u[1, 0, 0] - 6 * u[0, 0, 0]


@numba.stencil
def forward(a):                   # only ahead: the interior starts at 0 in dimension 0
    return a[0, 2] - a[1, 0]
