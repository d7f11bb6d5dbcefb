# The expected values of the fp8 cases (fp8.py), with NumPy: every value of a format from its
# bits, then the nearest to each input (ties to the even bits), past the largest finite the
# largest finite (cuda_fp8.h's SATFINITE constructors); e8m0 the power of two at or above the
# magnitude (2^-127 to 2^127). The value tables were checked against ml_dtypes' float8_e5m2,
# float8_e4m3fn and float8_e8m0fnu (the numba-cuda venv's ml_dtypes 0.6.0).
import sys
import types

import numpy as np

# Numba 0.56 lacks these modules: placeholders for those missing, so that fp8.py loads here.
for _name in ("numba.cuda.bf16", "numba.cuda._internal", "numba.cuda._internal.cuda_fp8"):
    try:
        __import__(_name)
    except ImportError:
        _stub = types.ModuleType(_name)
        _stub.__getattr__ = lambda name: None
        sys.modules[_name] = _stub


def table(mant, bias, e4m3):
    """(values, bits) of the finite non-negative values of E5M2 (mant 2) or E4M3FN (mant 3)."""
    values, bits = [], []
    for b in range(128):
        e, m = b >> mant, b & ((1 << mant) - 1)
        if (not e4m3 and e == (1 << (7 - mant)) - 1) or (e4m3 and b == 0x7f):
            continue   # infinities and NaN
        v = m * 2.0 ** (1 - bias - mant) if e == 0 else (m + (1 << mant)) * 2.0 ** (e - bias - mant)
        values.append(v)
        bits.append(b)
    return np.array(values), np.array(bits)


def nearest(x, mant, bias, e4m3):
    """float64 values to the nearest value of the format, ties to even bits, saturating."""
    values, bits = table(mant, bias, e4m3)
    a = np.minimum(np.abs(x), values[-1])
    hi = np.clip(np.searchsorted(values, a), 0, len(values) - 1)
    lo = np.clip(hi - 1, 0, len(values) - 1)
    dl, dh = a - values[lo], values[hi] - a
    pick = np.where(dl < dh, lo, np.where(dh < dl, hi, np.where(bits[lo] % 2 == 0, lo, hi)))
    return np.copysign(values[pick], x)


def e5m2(x):
    return nearest(np.asarray(x, np.float64), 2, 15, False)


def e4m3(x):
    return nearest(np.asarray(x, np.float64), 3, 7, True)


def e8m0(x):
    a = np.abs(np.asarray(x, np.float64))
    with np.errstate(divide="ignore"):
        return 2.0 ** np.clip(np.ceil(np.log2(np.maximum(a, 2.0 ** -127))), -127, 127)


def fp8_convert_expected(a, n, out, ints):
    x = a.astype(np.float64)
    out[:, 0] = e5m2(x)
    out[:, 1] = e4m3(x)
    out[:, 2] = e8m0(x)
    out[:, 3] = e5m2(x * 1000.0)
    out[:, 4] = e4m3(x * 1000.0)
    out[:, 5] = e4m3(n.astype(np.float32).astype(np.float64))
    out[:, 6] = e5m2(a.astype(np.float16).astype(np.float64))
    u = a.view(np.uint32).astype(np.uint64)   # bfloat16(a): to nearest even
    bf = (((u + 0x7fff + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    out[:, 7] = e4m3(bf.astype(np.float64))
    out[:, 8] = e4m3(x)
    out[:, 9] = e5m2(x)
    ints[:, 0] = np.trunc(e4m3((a * np.float32(10)).astype(np.float64)))
    ints[:, 1] = np.clip(np.trunc(e5m2((a * np.float32(10000)).astype(np.float64))), -32768, 32767)
    ints[:, 2] = np.trunc(e8m0((a * np.float32(4)).astype(np.float64)))
    ints[:, 3] = e5m2(x) != 0
