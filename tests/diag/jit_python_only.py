# args: --sig 'listy(float64[:])' --sig 'cs(float64[:])'
# Python pyk2cuda does not compile, in a @jit function: named as such (the Python package's fallback
# warning repeats the message), and in a kernel as a kernel's.
import numpy as np
from numba import njit, cuda


@njit
def listy(a):
    xs = [x * 2 for x in a]
    return xs[0]


@njit
def cs(a):
    return np.cumsum(a)


@cuda.jit
def k(a):
    xs = [x for x in a]
