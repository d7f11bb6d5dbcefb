# Float arithmetic: floor division and modulo of floats with negative operands
# (Python semantics: floor, and the remainder has the sign of the divisor), true
# division, and single precision that stays single precision (float32 op float32 is
# float32 both in compiled Numba and in the simulator).
from numba import cuda
import numpy as np


@cuda.jit
def float_floordiv_mod(x, y, q, r):
    i = cuda.grid(1)
    if i < x.size and y[i] != 0.0:
        q[i] = x[i] // y[i]
        r[i] = x[i] % y[i]


@cuda.jit
def float_floordiv_mod_const(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] // 0.25
        out[i, 1] = x[i] // -0.25
        out[i, 2] = x[i] % 0.25
        out[i, 3] = x[i] % -0.25
        out[i, 4] = -7.5 // (x[i] + 2.0)
        out[i, 5] = -7.5 % (x[i] + 2.0)


@cuda.jit
def float32_ops(x, y, out):
    # every operation rounds to float32: a result computed in float64 and rounded once
    # at the end differs in the last bit for some inputs, and the test is exact
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        out[i, 0] = a * b + a
        out[i, 1] = a / b - b
        out[i, 2] = (a - b) * (a + b)
        out[i, 3] = a // b
        out[i, 4] = a % b
