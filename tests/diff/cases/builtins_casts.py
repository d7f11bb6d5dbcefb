# Built-ins and casts: round() (half to even, returns an int), round(x, ndigits) beyond
# 22 digits either way (Numba's algorithm), min/max with two and three arguments and mixed
# int/float operands, abs of ints and floats, int() and float(), np.float32 / np.float64 /
# np.int32 / np.int64 casts, len().
from numba import cuda
import numpy as np


@cuda.jit
def rounding(a, x, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = round(a[i] / 2)           # exact halves: ties go to the even integer
        out[i, 1] = round(a[i] / 4)
        out[i, 2] = round(x[i] * 10.0)
        out[i, 3] = round(np.float32(a[i]) / np.float32(2.0))   # round of a float32
        out[i, 4] = round(-2.5) + round(3.5) + round(0.5)
        out[i, 5] = int(x[i] * 10.0)          # truncates toward zero
        out[i, 6] = int(a[i] / 3)
        out[i, 7] = int(-7.9)


@cuda.jit
def round_digits(x, nd, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = round(x[i], nd[i])
        out[i, 1] = round(x[i] * 1e-15, 23)    # over 22 digits: 10**23 as two factors
        out[i, 2] = round(x[i] * 1e-15, nd[i] + 30)
        out[i, 3] = round(x[i] * 1e30, -25)    # under -22 digits


@cuda.jit
def min_max_abs(a, b, x, out_i, out_f):
    i = cuda.grid(1)
    if i < a.size:
        out_i[i, 0] = min(a[i], b[i])
        out_i[i, 1] = max(a[i], b[i])
        out_i[i, 2] = max(a[i], b[i], 0)
        out_i[i, 3] = min(a[i], -b[i], 5, 2 * a[i])
        out_i[i, 4] = abs(a[i])
        out_i[i, 5] = abs(a[i] - b[i]) + abs(-3)
        out_f[i, 0] = min(x[i], 0.25)
        out_f[i, 1] = max(x[i], a[i])          # mixed int/float: the value is kept
        out_f[i, 2] = abs(x[i])
        out_f[i, 3] = max(abs(x[i]), 0.5) - min(x[i], -x[i])


@cuda.jit
def casts(a, x, out_f, out_i):
    i = cuda.grid(1)
    if i < a.size:
        out_f[i, 0] = float(a[i])
        out_f[i, 1] = float(a[i]) / 7
        out_f[i, 2] = np.float32(x[i])                       # rounds to float32
        out_f[i, 3] = np.float32(x[i]) * np.float32(3.0)     # float32 product
        out_f[i, 4] = np.float64(np.float32(a[i]) / np.float32(7.0))
        out_f[i, 5] = np.float32(a[i]) + x[i]                # float32 + float64: float64
        out_i[i, 0] = np.int32(x[i] * 100.0)                 # truncates
        out_i[i, 1] = np.int64(a[i]) * 3
        out_i[i, 2] = int(np.float32(x[i]) * np.float32(1000.0))
        out_i[i, 3] = len(a) + len(out_i)
