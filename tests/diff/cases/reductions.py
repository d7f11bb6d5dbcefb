# NumPy's reductions of whole arrays in kernels and device functions (np.sum(a), a.min(),
# np.nanmean(a), ...), against compiled Numba on the CPU (numba.njit), whose implementations
# the CUDA target shares: the expected values are njit's (reductions_expected.py; the
# simulator computes with NumPy, whose pairwise sums and float32 means are not Numba's). Arguments of every dtype family,
# strided and 2-D views, a 3-D array, and module-level tuples of arrays of
# different dtypes and shapes walked with literal_unroll (NaN, inf, -0.0, empty arrays).
import numpy as np
from numba import cuda, literal_unroll

NAN = float("nan")
INF = float("inf")
FLOATS = (np.array([1.0, 2.0, 0.0, -0.0, 1.0, -1.5]),
          np.array([-1.5, 2.5, INF, -INF]),
          np.array([NAN, -1.5, 2.5, NAN, 3.0]),
          np.array([NAN, NAN]),
          np.array([[1.0, 1.5], [INF, NAN]]),
          np.array([[0.0, -0.0], [1.5, 0.0]], dtype=np.float32))
MIXED = (np.array([3, -1, 0, 7], dtype=np.int8),
         np.array([[4, 0], [2, 9]], dtype=np.uint16),
         np.array([True, False, True]),
         np.array([], dtype=np.float64),
         np.array([2.5, -0.5, 4.0], dtype=np.float32),
         np.array(7, dtype=np.int32))                 # 0-d


@cuda.jit(device=True)
def totals(a, out, k):
    out[k, 0] = np.sum(a)
    out[k, 1] = np.prod(a)
    out[k, 5] = np.nanmean(a)
    out[k, 6] = np.nansum(a)
    out[k, 7] = np.nanprod(a)
    out[k, 8] = np.count_nonzero(a)
    out[k, 9] = np.all(a)
    out[k, 10] = np.any(a)


# mean, var and std of an empty array are NaN (0 / 0 in NumPy's error model): that is the
# CUDA target's, not njit's (which raises ZeroDivisionError), so only non-empty arrays here.
@cuda.jit(device=True)
def moments(a, out, k):
    out[k, 2] = np.mean(a)
    out[k, 3] = np.var(a)
    out[k, 4] = np.std(a)


@cuda.jit(device=True)
def extrema(a, out, k):
    out[k, 11] = np.min(a)
    out[k, 12] = np.max(a)
    out[k, 13] = np.nanmin(a)
    out[k, 14] = np.nanmax(a)


@cuda.jit(device=True)
def each(a, out, k):
    totals(a, out, k)
    moments(a, out, k)
    extrema(a, out, k)


# One thread reduces each array parameter (a 1-D float64, an int32, a uint8, a bool, a
# float32 2-D array, its strided view and a 3-D float64 array) with every function.
@cuda.jit
def reduce_args(f, i, u, b, m, g, out):
    if cuda.grid(1) == 0:
        each(f, out, 0)
        each(i, out, 1)
        each(u, out, 2)
        each(b, out, 3)
        each(m, out, 4)
        each(m[1:, ::2], out, 5)
        each(g, out, 6)


# The array methods: a.sum(), a.prod(), a.mean(), a.var(), a.std(), a.min(), a.max(),
# a.all(), a.any(), each thread on its own row.
@cuda.jit
def methods(m, out):
    r = cuda.grid(1)
    if r < m.shape[0]:
        a = m[r]
        out[r, 0] = a.sum()
        out[r, 1] = a.prod()
        out[r, 2] = a.mean()
        out[r, 3] = a.var()
        out[r, 4] = a.std()
        out[r, 5] = a.min()
        out[r, 6] = a.max()
        out[r, 7] = a.all()
        out[r, 8] = a.any()


# Module-level tuples of arrays of different dtypes and shapes, walked with literal_unroll:
# one copy of the body per element, as Numba unrolls it.
@cuda.jit
def constant_tuples(out, counts):
    if cuda.grid(1) == 0:
        k = 0
        for a in literal_unroll(FLOATS):
            each(a, out, k)
            k += 1
        for a in literal_unroll(MIXED):
            totals(a, out, k)
            counts[k] = a.size
            k += 1
