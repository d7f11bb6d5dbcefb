# Integer arithmetic: Python's floor division and modulo (result takes the sign of the
# divisor) with negative operands, `/` on integers (true division, float64), int32
# operands (compiled Numba computes int32 // int32 in int64; the values are the same).
from numba import cuda
import numpy as np


@cuda.jit
def floordiv_mod(a, b, q, r):
    i = cuda.grid(1)
    if i < a.size and b[i] != 0:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


@cuda.jit
def floordiv_mod_const(a, q, r):
    # constant divisors of both signs, and a negative literal dividend
    i = cuda.grid(1)
    if i < a.size:
        q[i, 0] = a[i] // 7
        q[i, 1] = a[i] // -7
        q[i, 2] = -7 // (i + 1)
        r[i, 0] = a[i] % 7
        r[i, 1] = a[i] % -7
        r[i, 2] = -7 % (i + 1)


@cuda.jit
def true_div(a, b, out):
    i = cuda.grid(1)
    if i < a.size and b[i] != 0:
        out[i] = a[i] / b[i]          # int / int is float64


@cuda.jit
def int_ops(a, b, out):
    # + - * on mixed-sign ints, unary minus, integer division inside expressions
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y * 3 - (x - y)
        out[i, 1] = -x * y
        out[i, 2] = (x + 1000) // 3 - x % 4
        out[i, 3] = (x * x) % 97 - (y * y) // 13
