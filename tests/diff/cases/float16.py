# float16: arithmetic that stays float16 (+ - * /, unary minus, abs: each rounds once to
# float16), promotion with other types (int8 keeps float16, int16 gives float32, int32 and
# float64 give float64, float32 gives float32), comparisons, truth, min/max, conversions to
# and from floats and ints, the cuda.fp16 intrinsics, and float16 scalar arguments.
#
# half_exact uses expect=: compiled Numba's hfma rounds once (the simulator multiplies and adds
# in float16, rounding twice), hdiv is missing from Numba 0.56's simulator, and float16 to int
# rounds to nearest and saturates (Numba's cvt.rni) where the simulator's NumPy truncates and
# wraps. The expected values are computed with NumPy in float64, where the product and sum of
# float16 values in [-4, 4] are exact, so one final rounding to float16 is the exact result.
import math

from numba import cuda
import numpy as np


@cuda.jit
def half_arith(a, b, i8, i16, i32, out16, out32, out64):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out16[i, 0] = x + y
        out16[i, 1] = x * y - x
        out16[i, 2] = x / y
        out16[i, 3] = -x + abs(y)
        out16[i, 4] = max(x, y) - min(x, y)
        out16[i, 5] = x + i8[i]                 # float16 + int8: float16
        out16[i, 6] = np.float16(a[i]) * np.float16(0.5)
        v = x                                   # a float16 variable widened by float32
        if i % 2 == 0:
            v = x * np.float32(3.0)
        out32[i, 0] = v
        out32[i, 1] = x + i16[i]                # float16 + int16: float32
        out32[i, 2] = x * np.float32(1.5)
        out32[i, 3] = (x < y) + (x <= y) * 2 + (x == y) * 4 + (x != y) * 8 + (x > 1.5) * 16
        out64[i, 0] = x + i32[i]                # float16 + int32: float64
        out64[i, 1] = x * 0.1                   # a float64 literal
        out64[i, 2] = float(x) + float(y)
        if x:
            out64[i, 3] = 1.0


@cuda.jit
def fp16_intrinsics(a, b, out, flags):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = cuda.fp16.hadd(x, y)
        out[i, 1] = cuda.fp16.hsub(x, y)
        out[i, 2] = cuda.fp16.hmul(x, y)
        out[i, 3] = cuda.fp16.hneg(x)
        out[i, 4] = cuda.fp16.habs(x)
        out[i, 5] = cuda.fp16.hmax(x, y)
        out[i, 6] = cuda.fp16.hmin(x, y)
        flags[i, 0] = cuda.fp16.heq(x, y)
        flags[i, 1] = cuda.fp16.hne(x, y)
        flags[i, 2] = cuda.fp16.hgt(x, y)
        flags[i, 3] = cuda.fp16.hge(x, y)
        flags[i, 4] = cuda.fp16.hlt(x, y)
        flags[i, 5] = cuda.fp16.hle(x, y)


@cuda.jit
def half_exact(a, b, c, out, ints):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = cuda.fp16.hfma(a[i], b[i], c[i])
        out[i, 1] = cuda.fp16.hdiv(a[i], b[i])
        ints[i, 0] = int(a[i] * np.float16(10))
        ints[i, 1] = np.int8(a[i] * np.float16(100))
        ints[i, 2] = np.uint8(a[i] * np.float16(50))


def half_exact_expected(a, b, c, out, ints):
    x, y, z = (v.astype(np.float64) for v in (a, b, c))
    out[:, 0] = (x * y + z).astype(np.float16)          # exact in float64, one rounding
    out[:, 1] = (x / y).astype(np.float16)              # a double rounding that cannot differ
    tens = (a * np.float16(10)).astype(np.float64)      # float16 products, as the kernel rounds them
    hundreds = (a * np.float16(100)).astype(np.float64)
    fifties = (a * np.float16(50)).astype(np.float64)
    ints[:, 0] = np.rint(tens).astype(np.int64)
    ints[:, 1] = np.clip(np.rint(hundreds), -128, 127).astype(np.int64)
    ints[:, 2] = np.clip(np.rint(fifties), 0, 255).astype(np.int64)


@cuda.jit
def half_scalar(a, s, out):
    """A float16 scalar argument (float16:VALUE on the command line, np.float16 in Python)."""
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] + s
        out[i, 1] = cuda.fp16.hmul(a[i], s)
        out[i, 2] = s


@cuda.jit
def fp16_converted_args(a, n, out):
    # bool, int and float arguments of the fp16 intrinsics convert to float16, as Numba's
    # overload resolution converts them (Numba's test_casting: hmul(np.float16(x), 2)).
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = cuda.fp16.hmul(a[i], 2)
        out[i, 1] = cuda.fp16.hmul(a[i], 2.5)
        out[i, 2] = cuda.fp16.hadd(a[i], n[i])
        out[i, 3] = cuda.fp16.hsub(True, a[i])


# float16 math (numba-cuda's cuda.fp16 math functions and its math.* of float16, which return
# float16): the float32 function of the exact value, rounded once to float16, as NumPy computes
# float16 functions and numba-cuda's simulator computes them. Debian's Numba 0.56 has neither,
# so the expectation is NumPy's (half_math_expected).
@cuda.jit
def half_math(x, pos, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        p = pos[i]
        out[i, 0] = cuda.fp16.hsin(v)
        out[i, 1] = cuda.fp16.hcos(v)
        out[i, 2] = cuda.fp16.hexp(v)
        out[i, 3] = cuda.fp16.hexp2(v)
        out[i, 4] = cuda.fp16.hexp10(v)
        out[i, 5] = cuda.fp16.hlog(p)
        out[i, 6] = cuda.fp16.hlog2(p)
        out[i, 7] = cuda.fp16.hlog10(p)
        out[i, 8] = cuda.fp16.hsqrt(p)
        out[i, 9] = cuda.fp16.hrsqrt(p)
        out[i, 10] = cuda.fp16.hrcp(p)
        out[i, 11] = cuda.fp16.hceil(v)
        out[i, 12] = cuda.fp16.hfloor(v)
        out[i, 13] = cuda.fp16.htrunc(v)
        out[i, 14] = cuda.fp16.hrint(v)
        out[i, 15] = math.sin(v)            # float16 in, float16 out
        out[i, 16] = math.floor(v)          # float16, not int64, for a float16
        out[i, 17] = math.fabs(v) + math.sqrt(p)
        out[i, 18] = math.exp2(v)


def half_math_expected(x, pos, out):
    h = np.float16
    out[:, 0] = np.sin(x, dtype=h)
    out[:, 1] = np.cos(x, dtype=h)
    out[:, 2] = np.exp(x, dtype=h)
    out[:, 3] = np.exp2(x, dtype=h)
    out[:, 4] = np.power(np.float32(10), x.astype(np.float32)).astype(h)
    out[:, 5] = np.log(pos, dtype=h)
    out[:, 6] = np.log2(pos, dtype=h)
    out[:, 7] = np.log10(pos, dtype=h)
    out[:, 8] = np.sqrt(pos, dtype=h)
    out[:, 9] = (np.float32(1) / np.sqrt(pos.astype(np.float32))).astype(h)
    out[:, 10] = np.reciprocal(pos, dtype=h)
    out[:, 11] = np.ceil(x, dtype=h)
    out[:, 12] = np.floor(x, dtype=h)
    out[:, 13] = np.trunc(x.astype(np.float32)).astype(h)
    out[:, 14] = np.rint(x, dtype=h)
    out[:, 15] = np.sin(x, dtype=h)
    out[:, 16] = np.floor(x, dtype=h)
    out[:, 17] = np.abs(x) + np.sqrt(pos, dtype=h)
    out[:, 18] = np.exp2(x, dtype=h)
