# Integer arithmetic: Python's floor division and modulo (result takes the sign of the
# divisor) with negative operands, `/` on integers (true division, float64), int32
# operands (compiled Numba computes int32 // int32 in int64; the values are the same).
import numba
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


BIG = 100000 * 100000


@cuda.jit
def literal_int64(n, out):
    # Integer literals are int64 as in Python: arithmetic on literals alone and `1 << n` must not
    # be computed in C's 32-bit int (100000 * 100000 overflowed there; 1 << 40 was undefined).
    i = cuda.grid(1)
    if i < n.size:
        out[i, 0] = 100000 * 100000
        out[i, 1] = 1 << 40
        out[i, 2] = (1 << n[i]) - 1
        out[i, 3] = -(2147483647 + 1) * 2
        out[i, 4] = 3 * 1000000000 - 7 + BIG
        out[i, 5] = abs(-100000) * 100000
        out[i, 6] = -(-2147483647 - 1)
        out[i, 7] = 4 * 32 + (7 >> n[i])


@cuda.jit
def int_literal_like_overloads(x, n, out):
    # // and % of operands that C writes as `int` (len of a tuple, a.ndim, a shared array's
    # shape and size, `x if c else y` of literals), beside a float // and %, so that the int64 and
    # the double helpers both exist: each call must pick the int64 one (fuzz_kernels findings)
    i = cuda.grid(1)
    if i < out.shape[0]:
        t = (1, 2, 3)
        s = cuda.shared.array((4, 8), dtype=numba.float32)
        k = n[i]
        out[i, 0] = len(t) // -k
        out[i, 1] = -len(t) // -2 + (-out.ndim) % -3
        out[i, 2] = (1 if x[i] > 0 else 0) % -3 - (-(1 if x[i] > 0.5 else 0)) % 4
        out[i, 3] = s.size // -5 + (s.shape[0] + 1) // -2 + s.shape[1] % -3
        out[i, 4] = int(x[i] // 0.25 + x[i] % 0.75)
