"""The check of each numba.cuda.libdevice function's values (test_libdevice.py): what libdevice
gives for the inputs, from libdevice_reference.py, and how closely the simulator must match it
(exactly, or within a number of units in the last place)."""
import math
import re

import mpmath
import numpy as np
import scipy.special as sp

import libdevice_reference as ref



def _mp(fn):
    """An mpmath function as a float64 one (NaN where mpmath refuses or is complex)."""
    def f(x):
        try:
            with mpmath.workprec(160):
                v = fn(mpmath.mpf(float(x)))
            return float(v) if not isinstance(v, mpmath.mpc) else math.nan
        except (ValueError, ZeroDivisionError, OverflowError):
            return math.nan
    return f


def _remainder(x, y):
    try:
        return math.remainder(x, y)
    except ValueError:
        return math.nan


def _round_half_away(x):
    if not math.isfinite(x):
        return x
    q = ref._exact(x)
    r = math.floor(abs(q) + ref.Fraction(1, 2))
    return math.copysign(float(r), x)


def _fdim(x, y):
    if x != x or y != y:
        return math.nan
    return x - y if x > y else 0.0


def _logb(x):
    if x != x:
        return x
    if math.isinf(x):
        return math.inf
    if x == 0:
        return -math.inf
    return float(math.frexp(x)[1] - 1)


def _ilogb(x):
    if x != x or x == 0:
        return -2 ** 31
    if math.isinf(x):
        return 2 ** 31 - 1
    return math.frexp(x)[1] - 1


def _rsqrt_exact(x, fmt):
    if x != x or x < 0:
        return fmt[3](math.nan)
    if x == 0:
        return fmt[3](math.copysign(math.inf, x))
    if math.isinf(x):
        return fmt[3](0.0)
    with mpmath.workprec(300):
        man, exp = (1 / mpmath.sqrt(mpmath.mpf(float(x)))).man_exp
    q = ref.Fraction(man) * ref.Fraction(2) ** exp
    return ref.round_fraction(q, fmt, "rn")


def _lgamma(x):
    """log|gamma(x)| (mpmath: SciPy's gammaln overflows for denormals); +inf at the poles."""
    if x != x or math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return x if x != x else math.inf
    return _mp(lambda v: mpmath.log(abs(mpmath.gamma(v))))(x)


def _tgamma(x):
    """gamma(x); NaN at the negative integers and -inf, as C's tgamma and CUDA's."""
    if x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan
    return sp.gamma(x)


def _erfcinv(y):
    """SciPy's erfcinv, which is infinite below about 1e-300: there mpmath's root of
    log(erfc(x)) = log(y)."""
    if 0 < y < 1e-280:
        with mpmath.workprec(160):
            return float(mpmath.findroot(lambda t: mpmath.log(mpmath.erfc(t)) - mpmath.log(y), 26))
    return sp.erfcinv(y)


def _bessel(fn, first_kind):
    """A Bessel function of SciPy with C's (and CUDA's) limits: 0 at the infinities, and Y's
    overflow to -inf near 0 (where SciPy answers NaN)."""
    def f(*xs):
        x = xs[-1]
        if math.isinf(x) and (first_kind or x > 0):
            return 0.0
        v = fn(*xs)
        return -math.inf if (v != v and not first_kind and x > 0) else v
    return f


# float64 functions of float64s and their float32 versions (name + "f"): the reference value
UNARY = {
    "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "cbrt": np.cbrt, "ceil": np.ceil, "cos": np.cos,
    "cosh": np.cosh, "erf": sp.erf, "erfc": sp.erfc, "erfcinv": lambda y: _erfcinv(y), "erfcx": sp.erfcx,
    "erfinv": sp.erfinv, "exp": np.exp, "exp10": lambda x: np.power(10.0, x), "exp2": np.exp2,
    "expm1": np.expm1, "fabs": np.fabs, "floor": np.floor, "j0": _bessel(sp.j0, True),
    "j1": _bessel(sp.j1, True), "y0": _bessel(sp.y0, False), "y1": _bessel(sp.y1, False), "lgamma": lambda x: _lgamma(x), "tgamma": lambda x: _tgamma(x), "log": np.log, "log10": np.log10,
    "log1p": np.log1p, "log2": np.log2, "logb": _logb, "nearbyint": np.rint, "rint": np.rint,
    "round": _round_half_away, "rcbrt": lambda x: 1.0 / np.cbrt(x), "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh,
    "trunc": np.trunc, "normcdf": lambda x: x if x != x else 0.0 if x < -40 else 1.0 if x > 40 else _mp(mpmath.ncdf)(x), "normcdfinv": sp.ndtri, "sinpi": _mp(mpmath.sinpi),
    "cospi": _mp(mpmath.cospi),
}
BINARY = {
    "atan2": np.arctan2, "copysign": np.copysign, "fdim": _fdim, "fmax": np.fmax, "fmin": np.fmin,
    "fmod": np.fmod, "hypot": np.hypot, "nextafter": np.nextafter, "pow": np.power,
    "remainder": _remainder,
}
# exact (0 ulp) where IEEE or C define the value exactly; otherwise the ulps allowed
EXACT = {"ceil", "floor", "fabs", "nearbyint", "rint", "round", "trunc", "sqrt", "copysign",
         "fdim", "fmax", "fmin", "fmod", "nextafter", "remainder", "logb"}
BESSEL = {"j0", "j1", "y0", "y1", "jn", "yn"}
LOOSE = {"j0", "j1", "y0", "y1", "jn", "yn", "lgamma", "tgamma", "erfcinv", "erfinv", "normcdfinv",
         "erfcx", "pow", "exp10"}


def _same(a, b, ulps, dtype, atol=0.0):
    """Whether a and b agree: both NaN, equal (the sign of zero too when ulps is 0), or within
    `ulps` units in the last place of b (or atol)."""
    a, b = dtype(a), dtype(b)
    if np.isnan(b) or np.isnan(a):
        return bool(np.isnan(a) and np.isnan(b))
    if ulps == 0:
        return a == b and np.signbit(a) == np.signbit(b)
    if np.isinf(b) or np.isinf(a):
        return a == b or (np.isinf(a) and abs(float(b)) >= float(np.finfo(dtype).max) * 0.999)
    with np.errstate(all="ignore"):
        return abs(float(a) - float(b)) <= max(ulps * float(np.spacing(np.abs(b))), atol)


def _ulps(name):
    if name in EXACT:
        return 0, 0.0
    if name in BESSEL:
        return 16, 1e-9   # absolute: far from 0 their values are tiny, and their zeros many
    if name in LOOSE:
        return 16, 1e-13
    return 4, 0.0


def _value_case(base, is_f, args, got):
    """Expected values of a float function from UNARY/BINARY (is_f: the float32 version)."""
    dtype = np.float32 if is_f else np.float64
    fn = UNARY.get(base) or BINARY.get(base)
    ulps, atol = _ulps(base)
    if is_f:
        atol = atol and 2e-6
        ulps = max(ulps, 0)
    out = []
    with np.errstate(all="ignore"):
        for k in range(len(got[0])):
            xs = [float(a[k]) for a in args]
            try:
                e = fn(*xs)
            except (ValueError, OverflowError, ZeroDivisionError):
                e = math.nan
            if is_f and base in ("ceil", "floor", "trunc", "rint", "nearbyint", "round", "fabs",
                                 "copysign", "fmax", "fmin", "fdim", "fmod", "remainder", "logb", "sqrt"):
                e = _exact_f32(base, xs, e)
            elif is_f and base == "nextafter":
                e = np.nextafter(np.float32(xs[0]), np.float32(xs[1]))
            out.append((k, xs, dtype(e), got[0][k], ulps, atol))
    return out, dtype


def _exact_f32(base, xs, e):
    """float32 results that are exact in float64 too, rounded once (sqrt rounded as IEEE's)."""
    if base == "sqrt":
        return ref.rounded_op("sqrt", [np.float32(xs[0])], ref.F32, "rn")
    return np.float32(e)


ROUNDED = re.compile(r"^(d|f)(add|sub|mul|div|rcp|sqrt)_(rn|rz|ru|rd)$")
FMA = re.compile(r"^fma(f?)_(rn|rz|ru|rd)$")
TO_FLOAT = re.compile(r"^(int|uint|ll|ull|double)2(float|double)_(rn|rz|ru|rd)$")
TO_INT = re.compile(r"^(double|float)2(int|uint|ll|ull)_(rn|rz|ru|rd)$")
INT_BITS = {"int": (32, True), "uint": (32, False), "ll": (64, True), "ull": (64, False)}


def _int_expect(name, a):
    """Integer helpers: the exact result of arguments a (Python ints)."""
    table = {
        "abs": lambda x: ref.wrap(abs(x), 32), "llabs": lambda x: ref.wrap(abs(x), 64),
        "brev": lambda x: ref.brev(x, 32), "brevll": lambda x: ref.brev(x, 64),
        "byte_perm": ref.byte_perm, "clz": lambda x: ref.clz(x, 32), "clzll": lambda x: ref.clz(x, 64),
        "ffs": lambda x: ref.ffs(x, 32), "ffsll": lambda x: ref.ffs(x, 64),
        "popc": lambda x: bin(ref.u(x, 32)).count("1"), "popcll": lambda x: bin(ref.u(x, 64)).count("1"),
        "hadd": lambda x, y: ref.hadd(x, y, True, False), "rhadd": lambda x, y: ref.hadd(x, y, True, True),
        "uhadd": lambda x, y: ref.hadd(x, y, False, False), "urhadd": lambda x, y: ref.hadd(x, y, False, True),
        "mul24": lambda x, y: ref.mul24(x, y, True), "umul24": lambda x, y: ref.mul24(x, y, False),
        "mulhi": lambda x, y: ref.mulhi(x, y, 32, True), "umulhi": lambda x, y: ref.mulhi(x, y, 32, False),
        "mul64hi": lambda x, y: ref.mulhi(x, y, 64, True), "umul64hi": lambda x, y: ref.mulhi(x, y, 64, False),
        "sad": lambda x, y, z: ref.sad(x, y, z, True), "usad": lambda x, y, z: ref.sad(x, y, z, False),
        "max": max, "min": min, "llmax": max, "llmin": min,
        "umax": lambda x, y: x if ref.u(x, 32) > ref.u(y, 32) else y,
        "umin": lambda x, y: x if ref.u(x, 32) < ref.u(y, 32) else y,
        "ullmax": lambda x, y: x if ref.u(x, 64) > ref.u(y, 64) else y,
        "ullmin": lambda x, y: x if ref.u(x, 64) < ref.u(y, 64) else y,
    }
    return table[name](*a) if name in table else None


def _bits_expect(name, x):
    """Predicates, bit casts, float16 and the other exactly defined one-argument functions."""
    table = {
        "isinfd": lambda v: int(math.isinf(v)), "isinff": lambda v: int(math.isinf(v)),
        "isnand": lambda v: int(v != v), "isnanf": lambda v: int(v != v),
        "isfinited": lambda v: int(math.isfinite(v)), "finitef": lambda v: int(math.isfinite(v)),
        "signbitd": lambda v: int(math.copysign(1, v) < 0), "signbitf": lambda v: int(math.copysign(1, v) < 0),
        "double_as_longlong": lambda v: int(np.array([v], np.float64).view(np.int64)[0]),
        "float_as_int": lambda v: int(np.array([v], np.float32).view(np.int32)[0]),
        "longlong_as_double": lambda v: np.array([int(v)], np.int64).view(np.float64)[0],
        "int_as_float": lambda v: np.array([int(v)], np.int32).view(np.float32)[0],
        "double2hiint": lambda v: int(np.array([v], np.float64).view(np.int32)[1]),
        "double2loint": lambda v: int(np.array([v], np.float64).view(np.int32)[0]),
        "float2half_rn": ref.half_bits, "half2float": lambda v: ref.half_value(int(v)),
        "int2double_rn": float, "uint2double_rn": lambda v: float(ref.u(int(v), 32)),
        "ilogb": _ilogb, "ilogbf": _ilogb,
        "llrint": lambda v: ref.to_int(v, "rn", 64, True), "llrintf": lambda v: ref.to_int(v, "rn", 64, True),
        "llround": lambda v: ref.to_int(_round_half_away(v), "rz", 64, True),
        "llroundf": lambda v: ref.to_int(_round_half_away(v), "rz", 64, True),
        "saturatef": lambda v: np.float32(0.0 if v != v or v <= 0 else min(v, 1.0)),
        "frsqrt_rn": lambda v: _rsqrt_exact(v, ref.F32), "rsqrtf": lambda v: _rsqrt_exact(v, ref.F32),
    }
    return table[name](x) if name in table else None


def _fast_expect(name, xs):
    """The fast_ intrinsics as libdevice composes them, each approximate instruction exact."""
    f32 = np.float32
    with np.errstate(all="ignore"):
        x = f32(xs[0])
        y = f32(xs[1]) if len(xs) > 1 else None

        def div(a, b):
            r = 1.0 / np.float64(b) if b != 0 else math.copysign(math.inf, b)
            if abs(r) < 2.0 ** -126:
                r = math.copysign(0.0, r)
            return f32(np.float64(a) * r)

        ex2 = lambda v: f32(np.exp2(np.float64(v)))          # noqa: E731
        lg2 = lambda v: f32(np.log2(np.float64(v)))          # noqa: E731
        table = {
            "fast_sinf": lambda: f32(np.sin(np.float64(x))), "fast_cosf": lambda: f32(np.cos(np.float64(x))),
            "fast_tanf": lambda: div(f32(np.sin(np.float64(x))), f32(np.cos(np.float64(x)))),
            "fast_expf": lambda: ex2(f32(x * f32(1.44269502162933349609375))),
            "fast_exp10f": lambda: ex2(f32(x * f32(3.3219280242919921875))),
            "fast_log2f": lambda: lg2(x), "fast_logf": lambda: f32(f32(0.693147182464599609375) * lg2(x)),
            "fast_log10f": lambda: f32(f32(0.30103000998497009277) * lg2(x)),
            "fast_powf": lambda: ex2(f32(y * lg2(x))), "fast_fdividef": lambda: div(x, y),
        }
        return table[name]() if name in table else None


def check(name, args, got):
    """Failures (text) of function `name`: args its input arrays, got its result rows."""
    n = len(got[0])
    fails = []

    def bad(k, xs, e, g):
        fails.append("%s%s: got %r, expected %r" % (name, tuple(xs), g, e))

    def each(expect_fn, ulps=0, dtype=None, atol=0.0):
        for k in range(n):
            xs = [a[k].item() for a in args]
            e = expect_fn(xs)
            g = got[0][k]
            if dtype is None:
                if int(e) != int(g):
                    bad(k, xs, e, g)
            elif not _same(g, e, ulps, dtype, atol):
                bad(k, xs, e, g)
    m = ROUNDED.match(name)
    if m:
        fmt = ref.F64 if m.group(1) == "d" else ref.F32
        each(lambda xs: ref.rounded_op(m.group(2), xs, fmt, m.group(3)), 0, fmt[3])
        return fails
    m = FMA.match(name)
    if m:
        fmt = ref.F32 if m.group(1) else ref.F64
        each(lambda xs: ref.rounded_op("fma", xs, fmt, m.group(2)), 0, fmt[3])
        return fails
    if name in ("fma", "fmaf"):
        fmt = ref.F64 if name == "fma" else ref.F32
        each(lambda xs: ref.rounded_op("fma", xs, fmt, "rn"), 0, fmt[3])
        return fails
    m = TO_FLOAT.match(name)
    if m:
        fmt = ref.F32 if m.group(2) == "float" else ref.F64
        src = m.group(1)

        def conv(xs):
            v = xs[0]
            if src == "double" and v == 0:
                return fmt[3](v)
            if src == "double":
                return fmt[3](v) if not math.isfinite(v) else ref.round_fraction(ref._exact(v), fmt, m.group(3))
            bits, signed = INT_BITS[src]
            return ref.round_fraction(ref.Fraction(v if signed else ref.u(v, bits)), fmt, m.group(3))
        each(conv, 0, fmt[3])
        return fails
    m = TO_INT.match(name)
    if m:
        bits, signed = INT_BITS[m.group(2)]
        each(lambda xs: ref.to_int(xs[0], m.group(3), bits, signed))
        return fails
    if name in ("powi", "powif"):
        dtype = np.float64 if name == "powi" else np.float32
        each(lambda xs: ref.powi(xs[0], xs[1], dtype), 0, dtype)
        return fails
    if name in ("ldexp", "ldexpf", "scalbn", "scalbnf"):
        dtype = np.float32 if name.endswith("f") else np.float64
        with np.errstate(all="ignore"):
            each(lambda xs: dtype(np.ldexp(dtype(xs[0]), np.int32(xs[1]))), 0, dtype)
        return fails
    if name in ("jn", "jnf", "yn", "ynf"):
        dtype = np.float32 if name.endswith("f") else np.float64
        fn = _bessel(sp.jv, True) if name.startswith("j") else _bessel(sp.yn, False)
        with np.errstate(all="ignore"):
            each(lambda xs: fn(xs[0], xs[1]), 16, dtype, 1e-9 if dtype is np.float64 else 2e-6)
        return fails
    if name == "hiloint2double":
        each(lambda xs: np.array([(ref.u(xs[0], 32) << 32) | ref.u(xs[1], 32)], np.uint64).view(np.float64)[0],
             0, np.float64)
        return fails
    if name.startswith("fast_") and name != "fast_sincosf":
        each(lambda xs: _fast_expect(name, xs), 2, np.float32)
        return fails
    sample = [a[0].item() for a in args]
    if _int_expect(name, sample) is not None:
        each(lambda xs: _int_expect(name, xs))
        return fails
    if name in ("isinfd", "isinff", "isnand", "isnanf", "isfinited", "finitef", "signbitd", "signbitf",
                "double_as_longlong", "float_as_int", "double2hiint", "double2loint", "float2half_rn",
                "ilogb", "ilogbf", "llrint", "llrintf", "llround", "llroundf"):
        each(lambda xs: _bits_expect(name, xs[0]))
        return fails
    if name in ("longlong_as_double", "int2double_rn", "uint2double_rn"):
        each(lambda xs: _bits_expect(name, xs[0]), 0, np.float64)
        return fails
    if name in ("int_as_float", "half2float", "saturatef", "frsqrt_rn", "rsqrtf"):
        each(lambda xs: _bits_expect(name, xs[0]), 0, np.float32)
        return fails
    if name in ("sincos", "sincosf", "sincospi", "sincospif", "fast_sincosf", "frexp", "frexpf",
                "modf", "modff", "remquo", "remquof"):
        return _check_pairs(name, args, got)
    base, is_f = name, False
    if name not in UNARY and name not in BINARY and name.endswith("f") and (name[:-1] in UNARY or name[:-1] in BINARY):
        base, is_f = name[:-1], True
    if base in UNARY or base in BINARY:
        cases, dtype = _value_case(base, is_f, args, got)
        for k, xs, e, g, ulps, atol in cases:
            if not _same(g, e, ulps, dtype, atol):
                bad(k, xs, e, g)
        return fails
    return ["%s: no reference" % name]


def _check_pairs(name, args, got):
    """The functions that return two values."""
    fails = []
    is_f = name in ("sincosf", "sincospif", "fast_sincosf", "frexpf", "modff", "remquof")
    dtype = np.float32 if is_f else np.float64
    for k in range(len(got[0])):
        xs = [a[k].item() for a in args]
        g = [got[0][k], got[1][k]]
        with np.errstate(all="ignore"):
            if name.startswith("sincospi"):
                e, tol = [UNARY["sinpi"](xs[0]), UNARY["cospi"](xs[0])], 4
            elif name in ("sincos", "sincosf", "fast_sincosf"):
                e, tol = [np.sin(np.float64(xs[0])), np.cos(np.float64(xs[0]))], 4
            elif name.startswith("frexp"):
                fr, ex = np.frexp(dtype(xs[0]))
                e, tol = [fr, ex if np.isfinite(xs[0]) else g[1]], 0
            elif name.startswith("modf"):
                e, tol = list(np.modf(dtype(xs[0]))), 0
            else:
                r = _remainder(float(dtype(xs[0])), float(dtype(xs[1])))
                if r != r or not (math.isfinite(xs[0]) and math.isfinite(xs[1])):
                    e, tol = [r, g[1]], 0
                else:
                    q = round(ref._exact(dtype(xs[0])) / ref._exact(dtype(xs[1])))
                    quo = int(g[1])
                    ok = abs(quo) % 8 == abs(q) % 8 and (q == 0 or (quo < 0) == (q < 0))
                    e, tol = [r, quo if ok else "quotient %d" % q], 0
        first_ok = _same(g[0], e[0], tol, dtype)
        if isinstance(e[1], str):
            second_ok = False
        elif name.startswith(("frexp", "remquo")):
            second_ok = int(g[1]) == int(e[1])
        else:
            second_ok = _same(g[1], e[1], tol, dtype)
        if not (first_ok and second_ok):
            fails.append("%s%s: got %r, expected %r" % (name, tuple(xs), g, e))
    return fails
