# args: --sig 'halves(float64[::1])' --sig 'pair(float64)'
import numba
from numba import njit


@njit
def halves(a):
    return a[: a.shape[0] // 2]


@numba.jit(nopython=True)
def pair(x):
    return x, x
