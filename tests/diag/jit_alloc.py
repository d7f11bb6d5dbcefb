# args: --sig 'in_kernel(float64[::1])' --sig 'bad_shape(float64[::1])' --sig 'bad_dtype(int64)' --sig 'bad_like(int64)'
# NumPy's array creation: only in @jit functions the host calls (issue 33)
import numpy as np
from numba import cuda, njit


@cuda.jit
def in_kernel(out):
    a = np.zeros(4)
    out[0] = a[0]


@njit
def bad_shape(a):
    return np.zeros((2, 1.5)), np.empty(a)


@njit
def bad_dtype(n):
    return np.zeros(n, dtype="U3"), np.full(n, 1j, np.float64), np.arange(n, 1j)


@njit
def bad_like(n):
    return np.zeros_like(n), np.full(n)
