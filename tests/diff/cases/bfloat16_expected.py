# The expected values of the bfloat16 cases (bfloat16.py), computed with NumPy, rounding as IEEE's
# round-to-nearest-even (and the directed modes) define it. A float64 is rounded to bfloat16
# once, as cuda_bf16.h's __double2bfloat16 does: first to float32 rounding to odd, which keeps
# every bit a second rounding to 8 significant bits needs, then to nearest even. Sums and
# products of bfloat16 values in [-4, 4] are exact in float64. The quotient is cuda_bf16.h's:
# float32's, rounded to bfloat16. rne_from_float32 and rne_from_float64 were checked against
# ml_dtypes' bfloat16 conversions (the numba-cuda venv's ml_dtypes 0.6.0, numba-cuda's own
# oracle in its tests) on 2^16 float32 values, every int16 and 10^5 float64 values.
import sys
import types

import numpy as np

# Numba 0.56 has no numba.cuda.bf16: the names bfloat16.py imports, as placeholders, so that the
# case file loads here (run_diff reads its kernels' parameters; only pyk2cuda compiles them).
try:
    import numba.cuda.bf16  # noqa: F401
except ImportError:
    _stub = types.ModuleType("numba.cuda.bf16")
    _stub.__getattr__ = lambda name: None
    sys.modules["numba.cuda.bf16"] = _stub


def rne_from_float32(f):
    """float32 values (an array) to bfloat16 bits (int16), to nearest even; NaN -> 0x7fff."""
    u = np.asarray(f, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    r[np.isnan(np.asarray(f, np.float32))] = 0x7fff
    return r.view(np.int16)


def round_to_odd_float32(x):
    """float64 values to float32 rounding to odd (round toward zero, then set the last bit when
    inexact), as cuda_bf16.h's __double2bfloat16 does before its rounding to bfloat16."""
    x = np.asarray(x, np.float64)
    f = x.astype(np.float32)
    u = f.view(np.uint32).copy()
    away = np.abs(f.astype(np.float64)) > np.abs(x)
    u[away] -= 1
    inexact = (u.view(np.float32).astype(np.float64) != x) & ~np.isnan(x)
    u[inexact] |= 1
    return u.view(np.float32)


def rne_from_float64(x):
    return rne_from_float32(round_to_odd_float32(x))


def value(bits):
    """bfloat16 bits (int16) as float64 values (exact)."""
    u = np.asarray(bits, np.int16).view(np.uint16).astype(np.uint32) << 16
    return u.view(np.float32).astype(np.float64)


def bf16_arith_expected(a, b, bits):
    x, y = value(rne_from_float32(a)), value(rne_from_float32(b))
    bits[:, 0] = rne_from_float64(x)
    bits[:, 1] = rne_from_float64(x + y)
    bits[:, 2] = rne_from_float64(x - y)
    bits[:, 3] = rne_from_float64(x * y)
    bits[:, 4] = rne_from_float32(x.astype(np.float32) / y.astype(np.float32))
    bits[:, 5] = rne_from_float64(x * y + x)
    z = value(rne_from_float64(x + y))
    bits[:, 6] = rne_from_float64(z * y)
    bits[:, 7] = rne_from_float64(-x)
    bits[:, 8] = rne_from_float64(np.abs(x))
    bits[:, 9] = rne_from_float64(-y)


def directed(a, mode):
    """float32 values to bfloat16 bits toward zero (rz), down (rd) or up (ru)."""
    u = np.asarray(a, np.float32).view(np.uint32)
    hi, low, neg = (u >> 16).astype(np.int64), u & 0xffff, (u >> 31) == 1
    up = {"rz": np.zeros(u.shape, bool), "rd": (low != 0) & neg, "ru": (low != 0) & ~neg}[mode]
    return (hi + up).astype(np.uint16).view(np.int16)


def int_to_bf16(n, mode):
    """int32 values to bfloat16 bits in a mode, from the exact value (float64 holds it)."""
    x = np.asarray(n, np.float64)
    if mode == "rn":
        return rne_from_float64(x)
    return directed(x.astype(np.float32), mode)   # the float32 is exact: |n| < 2^24 here


def bf16_convert_expected(a, n, bits, ints):
    bits[:, 0] = directed(a, "rz")
    bits[:, 1] = directed(a, "rd")
    bits[:, 2] = directed(a, "ru")
    bits[:, 3] = rne_from_float64(a.astype(np.float64) * 1.000000001)
    for k, mode in enumerate(("rn", "rz", "rd", "ru")):
        bits[:, 4 + k] = int_to_bf16(n, mode)
    bits[:, 8] = rne_from_float64(n.astype(np.float64))
    x = value(rne_from_float32(a * np.float32(100)))
    ints[:, 0] = np.rint(x)
    ints[:, 1] = np.trunc(x)
    ints[:, 2] = np.floor(x)
    ints[:, 3] = np.ceil(x)
    ints[:, 4] = np.trunc(x)
    big = value(rne_from_float32(a * np.float32(1e6)))
    ints[:, 5] = np.clip(np.trunc(big), -32768, 32767)
    ints[:, 6] = 1


def bf16_intrinsics_expected(a, b, bits, flags):
    xb, yb = rne_from_float32(a), rne_from_float32(b)
    x, y = value(xb), value(yb)
    nan = np.int16(0x7fff)
    bits[:, 0] = np.where(x >= y, xb, yb)
    bits[:, 1] = np.where(x <= y, xb, yb)
    bits[:, 2] = yb
    bits[:, 3] = nan
    bits[:, 4] = np.where(x >= y, xb, yb)
    sat = lambda v: rne_from_float64(np.clip(v, 0.0, 1.0))
    bits[:, 5] = sat(value(rne_from_float64(x + y)))
    bits[:, 6] = sat(value(rne_from_float64(x - y)))
    bits[:, 7] = sat(value(rne_from_float64(x * y)))
    bits[:, 8] = rne_from_float64(np.maximum(x * y + x, 0.0))
    bits[:, 9] = rne_from_float32(np.sqrt(np.abs(x).astype(np.float32)))
    bits[:, 10] = rne_from_float64(np.floor(x))
    bits[:, 11] = rne_from_float64(np.trunc(y))
    flags[:, 0] = x == y
    flags[:, 1] = x < y
    flags[:, 2] = x <= y
    flags[:, 3] = x != y
    flags[:, 4] = True
    flags[:, 5] = True
    with np.errstate(over="ignore", invalid="ignore"):
        big = value(rne_from_float32(a * np.float32(1e38)))
        flags[:, 6] = np.isinf(value(rne_from_float64(big * x)))
    flags[:, 7] = x != 0

