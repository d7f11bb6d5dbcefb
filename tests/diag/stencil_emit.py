# args: --sig 'smooth_rows(float64[:, ::1])'
# A @stencil function is a kernel the host launches (frontend/stencil.c); its call inside a @jit
# function is compiled by the Python package (stencil.py) only: the command line says so
# (E-stencil), not E-undefined.
import numba


@numba.stencil(cval=0.0)
def blur(a):
    return (a[-1, 0] + a[1, 0]) * 0.5


@numba.njit
def smooth_rows(x):
    return blur(x)
