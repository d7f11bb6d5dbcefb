# args: --sig 'pick(float64[:], float64)' --sig 'shift(Tuple(int64, float64), int64)'
# A @jit function the host calls, given types it cannot take: a CompileError at the Python line
# (exit 1), for the command line's --sig as for the Python package's lazy specialization.
import numba


@numba.njit
def pick(a, i):
    return a[i]


@numba.njit
def shift(t, k):
    return t + k


# one error: the body's (the return it leaves untyped is not a second one, E-signature)
@numba.njit("float64[:](float64[:])")
def conj(x):
    return x.conjugate()
