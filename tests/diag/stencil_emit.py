# args: --sig 'smooth_rows(float64[:, ::1])'
# A @stencil function is compiled by the Python package (stencil.py), in a @jit function too;
# the command line names it and says where to see its code (E-stencil), not E-undefined.
import numba


@numba.stencil(cval=0.0)
def blur(a):
    return (a[-1, 0] + a[1, 0]) * 0.5


@numba.njit
def smooth_rows(x):
    return blur(x)
