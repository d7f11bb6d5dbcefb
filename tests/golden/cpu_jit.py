# @jit functions called from the host (issue 33): each signature given is a host entry, a kernel
# <name>_host that one thread runs (docs/generated-code.md); a kernel calls `total` as a device
# function. row_peaks's prange loop runs over the cores (a p2c_prange lambda: a private j, the
# reductions total and top). cpu_jit_c_form.cu is the same module's C form, the first tier's (ramp's
# arrays made by the prelude's C macros, row_peaks's chunks run in turn, cut as the lambda's).
import numba
import numpy as np
from numba import cuda, jit, njit, prange


@jit
def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit(parallel=True, cache=True, fastmath=True)
def scale(a, f):
    for i in range(a.shape[0]):
        a[i] *= f


@njit("float64(float64, int64)")
def powi(x, n):
    r = 1.0
    for _ in range(n):
        r *= x
    return r


@numba.jit(nopython=True)
def min_max(a):
    lo = a[0]
    hi = a[0]
    for i in range(1, a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi, hi - lo > 1


@njit
def parts(z):
    return z.real, (z.imag, abs(z))


@cuda.jit
def sums(rows, out):
    i = cuda.grid(1)
    if i < rows.shape[0]:
        out[i] = total(rows[i])


@njit("float64[:, ::1](int64, int64)")
def ramp(n, m):
    g = np.zeros((n, m))
    for i in range(n):
        r = np.arange(m)
        for j in range(m):
            g[i, j] = r[j] * 0.5 + i
    return g


@njit("float64(float64[:, ::1])", parallel=True)
def row_peaks(m):
    total = 0.0
    top = m[0, 0]
    for i in prange(m.shape[0]):
        for j in range(m.shape[1]):
            total += m[i, j]
            top = max(top, m[i, j])
    return total + top


@njit("float64(float64, int64)")
def mean_of(total, n):
    # a host function's raise is always reported and its division checked (Numba's njit raises)
    if n < 0:
        raise ValueError("negative count")
    return total / n
