"""NumPy's comparison, logical, bitwise and extremum ufuncs in kernels, and its math ufuncs of
complex numbers (docs/semantics.md, "NumPy's ufuncs").

On arrays with an output array, one thread does the work, as in math_fns.ufunc_out: Numba's
simulator cannot run a ufunc into its kernel arrays (they are not ndarrays), so that case takes
its expectation from NumPy itself (expect=). On numbers, every thread, against the simulator."""
import math

import numpy as np
from numba import cuda


def _with_nans(x):
    for j in range(0, x.size, 3):
        x[j] = math.nan


@cuda.jit
def elementwise_out(x, y, s, u, c, b, i8, ob, oi, of, oc):
    if cuda.grid(1) == 0:
        for j in range(0, x.size, 3):   # NaNs, where NumPy's NaN rules decide
            x[j] = math.nan
        np.less(x, y, ob[0])
        np.greater_equal(s, u, ob[1])      # an int64 with a uint64 compares exactly
        np.equal(c, c[::-1], ob[2])
        np.not_equal(i8, s, ob[3])
        np.logical_and(x, b, ob[4])
        np.logical_xor(c, s, ob[5])
        np.logical_not(c, ob[6])
        np.less_equal(c, c[0], ob[7])      # complex numbers in NumPy's order; a number input
        np.bitwise_and(s, i8, oi[0])
        np.bitwise_or(u, u[::-1], oi[1])   # uint64 into int64: same_kind casting wraps
        np.bitwise_xor(b, b[::-1], oi[2])
        np.invert(i8, oi[3])
        np.invert(b, oi[4])                # of bools: logical not
        np.bitwise_not(s, oi[5])
        np.maximum(x, y, of[0])            # a NaN wins
        np.minimum(y, x, of[1])
        np.fmax(x, y, of[2])               # a NaN loses
        np.fmin(y, x, of[3])
        np.sin(c, oc[0])
        np.log(c, oc[1])
        np.log2(c, oc[2])
        np.arctanh(c, oc[3])
        np.maximum(c, c[::-1], oc[4])


def elementwise_out_expected(x, y, s, u, c, b, i8, ob, oi, of, oc):
    _with_nans(x)
    np.less(x, y, ob[0])
    ob[1] = [int(p) >= int(q) for p, q in zip(s, u)]   # exactly, as NumPy 1.25 and later
    np.equal(c, c[::-1], ob[2])
    np.not_equal(i8, s, ob[3])
    np.logical_and(x, b, ob[4])
    np.logical_xor(c, s, ob[5])
    np.logical_not(c, ob[6])
    np.less_equal(c, c[0], ob[7])
    np.bitwise_and(s, i8, oi[0])
    np.bitwise_or(u, u[::-1], oi[1], casting="same_kind")
    np.bitwise_xor(b, b[::-1], oi[2])
    np.invert(i8, oi[3])
    np.invert(b, oi[4])
    np.bitwise_not(s, oi[5])
    np.maximum(x, y, of[0])
    np.minimum(y, x, of[1])
    np.fmax(x, y, of[2])
    np.fmin(y, x, of[3])
    np.sin(c, oc[0])
    np.log(c, oc[1])
    np.log2(c, oc[2])
    np.arctanh(c, oc[3])
    np.maximum(c, c[::-1], oc[4])


@cuda.jit
def elementwise_numbers(x, y, s, u, c, b, sb, si, sc):
    i = cuda.grid(1)
    n = x.size
    if i < n:
        sb[i, 0] = np.less(s[i], u[i])
        sb[i, 1] = np.greater(x[i], y[i])
        sb[i, 2] = np.logical_or(b[i], c[i])
        sb[i, 3] = np.logical_not(x[i])
        sb[i, 4] = np.invert(b[i])
        sb[i, 5] = np.not_equal(c[i], c[n - 1 - i])
        si[i, 0] = np.bitwise_and(s[i], 6)
        si[i, 1] = np.maximum(s[i], 3)
        si[i, 2] = np.invert(s[i])
        si[i, 3] = np.fmin(s[i], s[n - 1 - i])
        sc[i, 0] = np.sqrt(c[i])
        sc[i, 1] = np.cos(c[i])
        sc[i, 2] = np.minimum(c[i], c[n - 1 - i])
