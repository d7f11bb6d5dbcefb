# The ** operator: int ** non-negative int (int64 in compiled Numba), float ** int,
# float ** float, negative bases, zero exponents.
# Not covered (simulator and compiled Numba differ): int ** negative int is 0 in
# compiled Numba (int64 result) but raises ValueError in the simulator; float32 ** int
# is float32 in compiled Numba and float64 in the simulator (hence the tolerance on
# float32_pow: 1 ulp).
from numba import cuda
import numpy as np


@cuda.jit
def int_pow(a, e, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] ** e[i]
        out[i, 1] = a[i] ** 2
        out[i, 2] = (-a[i]) ** 3
        out[i, 3] = 2 ** e[i]
        out[i, 4] = a[i] ** 0


@cuda.jit
def float_pow(x, e, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] ** e[i]          # float64 ** int64
        out[i, 1] = x[i] ** 2
        out[i, 2] = (x[i] + 2.0) ** 0.5   # float ** float
        out[i, 3] = (x[i] + 2.0) ** -1.5
        out[i, 4] = x[i] ** 0
        out[i, 5] = 2.0 ** e[i]


@cuda.jit
def float32_pow(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] ** 2
        out[i, 1] = x[i] ** 3
