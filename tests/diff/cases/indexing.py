# Indexing: negative constant and runtime indices on 1-D and 2-D arrays (wraparound),
# reading and writing through them, a[i, j] on 2-D and 3-D arrays, .shape, .size, len().
from numba import cuda
import numpy as np


@cuda.jit
def neg_index(a, m, out):
    i = cuda.grid(1)
    n = a.size
    if i < n:
        r, c = m.shape
        out[i, 0] = a[-1]
        out[i, 1] = a[i - n]              # a negative index at run time: a[i]
        out[i, 2] = a[-1 - i]             # reversed
        out[i, 3] = m[-1, -2]
        out[i, 4] = m[-(i % r) - 1, i % c - c]
        out[i - n, 5] = i                 # writing through a negative row index
        out[i, -1] = a[-n]                # first element, last column


@cuda.jit
def shapes(a3, out):
    i = cuda.grid(1)
    d0, d1, d2 = a3.shape
    if i < d0:
        s = 0
        for j in range(d1):
            for k in range(d2):
                s += a3[i, j, k] * (j + 1) - k
        out[i, 0] = s
        out[i, 1] = a3.size
        out[i, 2] = len(a3)
        out[i, 3] = a3.shape[2] * 100 + a3.shape[1]
        out[i, 4] = a3[i, -1, -1]
