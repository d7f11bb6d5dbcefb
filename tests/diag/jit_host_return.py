# args: --sig 'halves(float64[::1])' --sig 'first_and_all(float64[::1])'
import numba
from numba import njit


@njit
def halves(a):
    return a[: a.shape[0] // 2]


@numba.jit(nopython=True)
def first_and_all(a):
    return a[0], a
