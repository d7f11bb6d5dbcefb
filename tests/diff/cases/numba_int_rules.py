# Numba's integer and bool operator rules where C's (or a naive widening) differ (issue 26):
# unary - and ~ at the operand's width for narrow ints, ~ of a bool as logical not, and
# comparisons of a uint64 with a signed integer through float64. The simulator agrees with
# compiled Numba on each of these (NumPy scalars keep the operand's width; NumPy compares
# uint64 with int64 as float64; ~ of np.bool_ is logical not); the kernels where it does not
# (INT64_MIN // -1, 0 ** -n) are in sim_differs.py.
import numpy as np
from numba import cuda


@cuda.jit
def narrow_unary(u8, u32, i8, i32, out):
    i = cuda.grid(1)
    if i < u8.size:
        out[i, 0] = -u8[i]            # uint64 in Numba, computed in uint8: -1 is 255
        out[i, 1] = ~u8[i]
        out[i, 2] = -u32[i]
        out[i, 3] = ~u32[i]
        out[i, 4] = -i8[i]            # int64, computed in int8: -(-128) stays -128
        out[i, 5] = ~i8[i]
        out[i, 6] = -i32[i]           # -(-2**31) stays -2**31
        out[i, 7] = ~i32[i] + -i32[i] * 2   # the results are int64: no wrap after the unary


@cuda.jit
def bool_invert(b, out, n):
    i = cuda.grid(1)
    if i < b.size:
        out[i, 0] = ~b[i]             # logical not, a bool
        out[i, 1] = ~~b[i]
        x = ~b[i]
        n[i, 0] = x + 1               # bool + int: 1 or 2, never -1 or 0
        if ~b[i]:
            n[i, 1] = 7


@cuda.jit
def mixed_sign_compare(u, s, out):
    i = cuda.grid(1)
    if i < u.size:
        x, y = u[i], s[i]
        out[i, 0] = x < y
        out[i, 1] = x <= y
        out[i, 2] = x > y
        out[i, 3] = x >= y
        out[i, 4] = x == y
        out[i, 5] = x != y
        out[i, 6] = y < x < np.uint64(18446744073709551615)
        out[i, 7] = (x, y) == (y, x)
