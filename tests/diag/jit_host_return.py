# args: --sig 'stamps(datetime64[ns][::1])' --sig 'first_and_all(datetime64[ns][::1])' --sig 'halves(float64[::1])'
import numba
from numba import njit


@njit
def stamps(a):
    return a[: a.shape[0] // 2]


@numba.jit(nopython=True)
def first_and_all(a):
    return a[0], a


@njit
def halves(a):          # an array of numbers: returned to the host as a NumPy array (no error)
    return a[: a.shape[0] // 2]
