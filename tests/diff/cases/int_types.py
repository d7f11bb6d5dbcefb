# Narrow and unsigned integer arrays where the result is stored back at the same width:
# compiled Numba computes in 64 bits and truncates on the store, the simulator wraps in
# the narrow type; the stored values agree (two's complement), so the oracle is right.
# Where they do not agree (a narrow result stored into a wider array) see
# sim_differs.py.
from numba import cuda
import numpy as np


@cuda.jit
def narrow_same_width(u8, i16, u32, out_u8, out_i16, out_u32):
    i = cuda.grid(1)
    if i < u8.size:
        out_u8[i] = u8[i] * 3 + 7
        out_i16[i] = i16[i] * i16[i] - 5
        out_u32[i] = u32[i] * 2 + 1
        u8[i] += 200
        i16[i] -= 30000


@cuda.jit
def mixed_int_float(u8, i16, out):
    i = cuda.grid(1)
    if i < u8.size:
        out[i, 0] = u8[i] / 4
        out[i, 1] = i16[i] / 3
        out[i, 2] = u8[i] * 0.5 + i16[i]
        out[i, 3] = u8[i] // 3 - i16[i] // 7
