# bfloat16 (numba-cuda's numba.cuda.bf16): conversions from float32, float64 and integers in each
# rounding mode, to integers in each mode, arithmetic (+ - * / fma, each rounding once), the
# intrinsics (abs, neg, max/min with NaN, saturating forms, comparisons), bit casts and math.
# Kernels see bfloat16 values as their bits (bfloat16_as_int16) or as float32 (exact).
#
# Debian's Numba 0.56 has no bfloat16, so every case uses expect=: the expected values come from
# NumPy, in bfloat16_expected.py (a file of its own, which Numba 0.56 can import).
import math

from numba import cuda, float32, float64, int32, int16
from numba.cuda.bf16 import (bfloat16, hfma, habs, hneg, hmax, hmin, hmax_nan, hmin_nan, hadd_sat,
                             hsub_sat, hmul_sat, hfma_relu, heq, hlt, hgeu, hisnan, hisinf,
                             bfloat16_as_int16, int16_as_bfloat16, float32_to_bfloat16_rz,
                             float32_to_bfloat16_rd, float32_to_bfloat16_ru, float64_to_bfloat16,
                             int32_to_bfloat16_rn, int32_to_bfloat16_rz, int32_to_bfloat16_rd,
                             int32_to_bfloat16_ru, bfloat16_to_int32_rn, bfloat16_to_int32_rz,
                             bfloat16_to_int32_rd, bfloat16_to_int32_ru, hsqrt, hfloor)
import numpy as np


@cuda.jit
def bf16_arith(a, b, bits):
    i = cuda.grid(1)
    if i < a.size:
        x = bfloat16(a[i])
        y = bfloat16(b[i])
        bits[i, 0] = bfloat16_as_int16(x)
        bits[i, 1] = bfloat16_as_int16(x + y)
        bits[i, 2] = bfloat16_as_int16(x - y)
        bits[i, 3] = bfloat16_as_int16(x * y)
        bits[i, 4] = bfloat16_as_int16(x / y)
        bits[i, 5] = bfloat16_as_int16(hfma(x, y, x))
        z = x
        z += y
        z *= y
        bits[i, 6] = bfloat16_as_int16(z)
        bits[i, 7] = bfloat16_as_int16(-x)
        bits[i, 8] = bfloat16_as_int16(habs(x))
        bits[i, 9] = bfloat16_as_int16(hneg(y))


@cuda.jit
def bf16_convert(a, n, bits, ints):
    i = cuda.grid(1)
    if i < a.size:
        bits[i, 0] = bfloat16_as_int16(float32_to_bfloat16_rz(a[i]))
        bits[i, 1] = bfloat16_as_int16(float32_to_bfloat16_rd(a[i]))
        bits[i, 2] = bfloat16_as_int16(float32_to_bfloat16_ru(a[i]))
        bits[i, 3] = bfloat16_as_int16(float64_to_bfloat16(float64(a[i]) * 1.000000001))
        bits[i, 4] = bfloat16_as_int16(int32_to_bfloat16_rn(n[i]))
        bits[i, 5] = bfloat16_as_int16(int32_to_bfloat16_rz(n[i]))
        bits[i, 6] = bfloat16_as_int16(int32_to_bfloat16_rd(n[i]))
        bits[i, 7] = bfloat16_as_int16(int32_to_bfloat16_ru(n[i]))
        bits[i, 8] = bfloat16_as_int16(bfloat16(n[i]))
        x = bfloat16(a[i] * float32(100))
        ints[i, 0] = bfloat16_to_int32_rn(x)
        ints[i, 1] = bfloat16_to_int32_rz(x)
        ints[i, 2] = bfloat16_to_int32_rd(x)
        ints[i, 3] = bfloat16_to_int32_ru(x)
        ints[i, 4] = int32(x)              # cuda_bf16.h's conversion operator: toward zero
        ints[i, 5] = int16(bfloat16(a[i] * float32(1e6)))   # saturates
        ints[i, 6] = int16_as_bfloat16(bfloat16_as_int16(x)) == x


@cuda.jit
def bf16_intrinsics(a, b, bits, flags):
    i = cuda.grid(1)
    if i < a.size:
        x = bfloat16(a[i])
        y = bfloat16(b[i])
        nan = bfloat16(float("nan"))
        bits[i, 0] = bfloat16_as_int16(hmax(x, y))
        bits[i, 1] = bfloat16_as_int16(hmin(x, y))
        bits[i, 2] = bfloat16_as_int16(hmax(nan, y))
        bits[i, 3] = bfloat16_as_int16(hmin_nan(x, nan))
        bits[i, 4] = bfloat16_as_int16(hmax_nan(x, y))
        bits[i, 5] = bfloat16_as_int16(hadd_sat(x, y))
        bits[i, 6] = bfloat16_as_int16(hsub_sat(x, y))
        bits[i, 7] = bfloat16_as_int16(hmul_sat(x, y))
        bits[i, 8] = bfloat16_as_int16(hfma_relu(x, y, x))
        bits[i, 9] = bfloat16_as_int16(hsqrt(habs(x)))
        bits[i, 10] = bfloat16_as_int16(hfloor(x))
        bits[i, 11] = bfloat16_as_int16(math.trunc(y))
        flags[i, 0] = heq(x, y)
        flags[i, 1] = hlt(x, y)
        flags[i, 2] = x <= y
        flags[i, 3] = x != y
        flags[i, 4] = hgeu(x, nan)
        flags[i, 5] = hisnan(nan) and not hisnan(x)
        flags[i, 6] = hisinf(bfloat16(a[i] * float32(1e38)) * x) != 0
        flags[i, 7] = bool(x)
