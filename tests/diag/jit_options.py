# args: --sig 'f(float64)'
import numba


@numba.jit(nopython=True, forceobj=True)
def f(x):
    return x + 1
