"""What each numba.cuda.libdevice function gives, computed in Python, for test_libdevice.py:
exactly where libdevice's result is defined exactly (integers, conversions, operations rounded in
a named mode, with Python's fractions and ints), and otherwise NumPy's, SciPy's or mpmath's value
with the tolerance in units in the last place that the comparison allows (libdevice's functions
are within a few ulp of the exact value, and so is the C library the simulator uses)."""
import math
from fractions import Fraction

import numpy as np

F64 = (53, -1022, 1023, np.float64)
F32 = (24, -126, 127, np.float32)


def _exact(v):
    return Fraction(float(v))


def round_fraction(q, fmt, mode):
    """The value of format fmt nearest q in rounding mode rn, rz, ru or rd (overflow included)."""
    p, emin, emax, dtype = fmt
    if q == 0:
        return dtype(0.0)
    sign = -1 if q < 0 else 1
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)                     # subnormals share emin's quantum
    quantum = Fraction(2) ** (e - p + 1)
    n, r = divmod(a, quantum)
    n = int(n)
    up = {"rn": r > quantum / 2 or (r == quantum / 2 and n % 2 == 1), "rz": False,
          "ru": r > 0 and sign > 0, "rd": r > 0 and sign < 0}[mode]
    n += up
    v = n * quantum
    biggest = (2 ** p - 1) * Fraction(2) ** (emax - p + 1)
    if v > biggest:
        to_inf = mode == "rn" or (mode == "ru" and sign > 0) or (mode == "rd" and sign < 0)
        return dtype(sign * math.inf) if to_inf else dtype(sign * float(biggest))
    return dtype(sign * float(v)) if dtype is np.float64 else np.float32(sign * float(v))


def _zero_sum_sign(mode, *zero_signs):
    """The sign of an exact zero sum: the operands' common sign, else -0 only when rounding down."""
    if zero_signs and all(s == zero_signs[0] for s in zero_signs):
        return zero_signs[0]
    return -1 if mode == "rd" else 1


def rounded_op(op, args, fmt, mode):
    """op ('add', 'sub', 'mul', 'div', 'rcp', 'sqrt', 'fma') of float args in mode, IEEE's way."""
    dtype = fmt[3]
    with np.errstate(all="ignore"):
        if not all(np.isfinite(a) for a in args):
            x = [dtype(a) for a in args]
            plain = {"add": lambda: x[0] + x[1], "sub": lambda: x[0] - x[1], "mul": lambda: x[0] * x[1],
                     "div": lambda: x[0] / x[1], "rcp": lambda: dtype(1) / x[0], "sqrt": lambda: np.sqrt(x[0]),
                     "fma": lambda: dtype(np.float64(x[0]) * np.float64(x[1]) + np.float64(x[2]))
                     if np.isfinite(x[0] * x[1]) else x[0] * x[1] + x[2]}[op]()
            return dtype(plain)
    q = [_exact(a) for a in args]
    if op == "sqrt":
        return _rounded_sqrt(args[0], fmt, mode)
    if op in ("div", "rcp") and q[-1] == 0:
        num = 1 if op == "rcp" else q[0]
        if num == 0:
            return dtype(math.nan)
        s = math.copysign(1, args[-1]) * (1 if op == "rcp" else math.copysign(1, args[0]))
        return dtype(s * math.inf)
    exact = {"add": lambda: q[0] + q[1], "sub": lambda: q[0] - q[1], "mul": lambda: q[0] * q[1],
             "div": lambda: q[0] / q[1], "rcp": lambda: 1 / q[0], "fma": lambda: q[0] * q[1] + q[2]}[op]()
    if exact != 0:
        return round_fraction(exact, fmt, mode)
    sgn = [math.copysign(1, a) for a in args]
    if op == "mul" or op == "div":
        return dtype(math.copysign(0.0, sgn[0] * sgn[1]))
    if op == "add":
        z = _zero_sum_sign(mode, *(sgn if q[0] == 0 and q[1] == 0 else []))
    elif op == "sub":
        z = _zero_sum_sign(mode, *([sgn[0], -sgn[1]] if q[0] == 0 and q[1] == 0 else []))
    else:   # fma
        prod_zero = q[0] * q[1] == 0
        z = _zero_sum_sign(mode, *([sgn[0] * sgn[1], sgn[2]] if prod_zero and q[2] == 0 else []))
    return dtype(math.copysign(0.0, z))


def _rounded_sqrt(x, fmt, mode):
    dtype = fmt[3]
    if x == 0 or x != x:
        return dtype(x)
    if x < 0:
        return dtype(math.nan)
    q = _exact(x)
    c = dtype(math.sqrt(float(x)) if dtype is np.float64 else np.sqrt(np.float64(x)))
    # the candidates around c, and the exact comparison of their squares with q
    cands = sorted({np.nextafter(c, dtype(-1)), c, np.nextafter(c, dtype(math.inf)),
                    np.nextafter(np.nextafter(c, dtype(math.inf)), dtype(math.inf)),
                    np.nextafter(np.nextafter(c, dtype(-1)), dtype(-1))}, key=float)
    below = max((v for v in cands if _exact(v) ** 2 <= q), key=float)
    above = min((v for v in cands if _exact(v) ** 2 >= q), key=float)
    if below == above or mode in ("rd", "rz"):
        return below
    if mode == "ru":
        return above
    mid = (_exact(below) + _exact(above)) / 2
    if mid ** 2 == q:
        even = int(np.array([below]).view(np.int64 if dtype is np.float64 else np.int32)[0]) % 2 == 0
        return below if even else above
    return below if q < mid ** 2 else above


INTEGRAL = {"rn": lambda q: round(q), "rz": lambda q: int(q), "ru": lambda q: math.ceil(q),
            "rd": lambda q: math.floor(q)}


def to_int(x, mode, bits, signed):
    """PTX's cvt of float x to an integer: rounded in mode, clamped to the type, NaN 0; the
    result as libdevice's (Numba's) signed type of that width."""
    if x != x:
        v = 0
    else:
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        v = hi if x == math.inf else lo if x == -math.inf else INTEGRAL[mode](_exact(x))
        v = min(max(v, lo), hi)
    return wrap(v, bits)


def wrap(v, bits):
    """v as a signed integer of `bits` bits (two's complement)."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def u(v, bits):
    return v & ((1 << bits) - 1)


def byte_perm(x, y, s):
    v = u(y, 32) << 32 | u(x, 32)
    return wrap(sum(((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i) for i in range(4)), 32)


def sad(x, y, z, signed):
    a, b = (x, y) if signed else (u(x, 32), u(y, 32))
    return wrap(z + abs(a - b), 32)


def brev(x, bits):
    return wrap(int(format(u(x, bits), "0%db" % bits)[::-1], 2), bits)


def clz(x, bits):
    return bits - u(x, bits).bit_length()


def ffs(x, bits):
    v = u(x, bits)
    return (v & -v).bit_length()


def hadd(x, y, signed, rounded):
    a, b = (x, y) if signed else (u(x, 32), u(y, 32))
    return wrap((a + b + (1 if rounded else 0)) >> 1, 32)


def mul24(x, y, signed):
    a, b = u(x, 24), u(y, 24)
    if signed:
        a, b = wrap(a, 24), wrap(b, 24)
    return wrap(a * b, 32)


def mulhi(x, y, bits, signed):
    a, b = (x, y) if signed else (u(x, bits), u(y, bits))
    return wrap((a * b) >> bits, bits)


def half_bits(f):
    """float2half_rn: the float16 nearest f (NumPy's conversion rounds to nearest even); a NaN
    is the canonical 0x7fff."""
    if f != f:
        return 0x7fff
    with np.errstate(all="ignore"):
        return int(np.array([np.float16(np.float32(f))]).view(np.int16)[0])


def half_value(bits):
    h = np.array([bits], np.int16).view(np.float16)[0]
    return np.float32(h)


def powi(x, n, dtype):
    """libdevice's powi: square and multiply in dtype, the reciprocal for a negative n."""
    e, r, x = abs(n), dtype(1), dtype(x)
    with np.errstate(all="ignore"):
        while True:
            if e & 1:
                r = dtype(r * x)
            e >>= 1
            if e == 0:
                return dtype(dtype(1) / r) if n < 0 else r
            x = dtype(x * x)
