# Tuple assignment and unpacking: swaps, the Fibonacci update `x, y = y, x + y` (the
# right side is evaluated before anything is assigned), unpacking of .shape, and of
# cuda.grid(2).
from numba import cuda
import numpy as np


@cuda.jit
def unpack(a, out):
    n, m = a.shape
    i = cuda.grid(1)
    if i < n:
        x, y = 0, 1
        for k in range(m + 10):
            x, y = y, x + y
        out[i, 0] = x
        p, q = a[i, 0], a[i, m - 1]
        p, q = q, p
        out[i, 1] = p - q
        u, v, w = a[i, 0], a[i, 1], a[i, 2]
        u, v, w = w, u, v                  # rotate
        out[i, 2] = u * 10000 + v * 100 + w
        s, t = a[i, 1] * 2, a[i, 1]        # both sides read the old values
        s, t = t, s
        out[i, 3] = s - t


@cuda.jit
def unpack_grid(out):
    row, col = cuda.grid(2)
    nrow, ncol = out.shape
    if row < nrow and col < ncol:
        out[row, col] = row - col
