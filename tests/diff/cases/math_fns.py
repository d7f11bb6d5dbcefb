# math.* functions on float64 and on float32 (compiled Numba calls the float32 version,
# e.g. sinf, for a float32 argument and returns float32; the simulator computes in
# float64 and the store rounds: hence the few-ulp tolerance of the float32 cases), and
# the ones returning int64 in compiled Numba (floor, ceil, trunc) or bool (isnan...).
# Arguments stay inside each function's domain: outside it the simulator raises
# ValueError (Python's math module) where compiled Numba returns nan or inf.
import math

from numba import cuda
import numpy as np


@cuda.jit
def math_f64(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]                 # in [-1, 1)
        b = y[i]                 # in [-1, 1)
        p = abs(a) + 0.5         # positive
        out[i, 0] = math.sin(a)
        out[i, 1] = math.cos(a)
        out[i, 2] = math.tan(a)
        out[i, 3] = math.asin(a)
        out[i, 4] = math.acos(a)
        out[i, 5] = math.atan(a)
        out[i, 6] = math.atan2(a, b)
        out[i, 7] = math.sinh(a)
        out[i, 8] = math.cosh(a)
        out[i, 9] = math.tanh(a)
        out[i, 10] = math.exp(a)
        out[i, 11] = math.expm1(a)
        out[i, 12] = math.log(p)
        out[i, 13] = math.log10(p)
        out[i, 14] = math.log2(p)
        out[i, 15] = math.log1p(a)
        out[i, 16] = math.sqrt(p)
        out[i, 17] = math.pow(p, b)
        out[i, 18] = math.hypot(a, b)
        out[i, 19] = math.fabs(a)
        out[i, 20] = math.copysign(p, b)
        out[i, 21] = math.fmod(a, 0.3)
        out[i, 22] = math.erf(a)
        out[i, 23] = math.erfc(a)
        out[i, 24] = math.exp(a) * math.cos(b) - math.sqrt(p * p + b * b)
        out[i, 25] = math.asinh(a)
        out[i, 26] = math.acosh(p + 1.0)
        out[i, 27] = math.atanh(a * 0.9)
        out[i, 28] = math.degrees(a)
        out[i, 29] = math.radians(a * 180.0)


@cuda.jit
def math_int_results(x, out):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i] * 10.0
        out[i, 0] = math.floor(a)
        out[i, 1] = math.ceil(a)
        out[i, 2] = math.trunc(a)
        out[i, 3] = math.floor(-a) + math.ceil(-a)
        out[i, 4] = math.isnan(a)
        out[i, 5] = math.isinf(a)
        out[i, 6] = math.isfinite(a)
        out[i, 7] = math.floor(a) // 3


@cuda.jit
def math_f32(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        out[i, 0] = math.sin(a)
        out[i, 1] = math.cos(a)
        out[i, 2] = math.exp(a)
        out[i, 3] = math.log(abs(a) + np.float32(0.5))
        out[i, 4] = math.sqrt(abs(b))
        out[i, 5] = math.atan2(a, b)
        out[i, 6] = math.tanh(a)
        out[i, 7] = math.fabs(a)


# math.ldexp(x, i) = x * 2**i, exactly: compiled Numba calls ldexp (float64) or ldexpf
# (float32, for a float32 x) with i as an int32; an integer x is a float64. The simulator
# computes in float64 and the store rounds once, as ldexpf does, so results agree to the bit.
# (Python's math.ldexp takes only a Python int as i, not a NumPy integer: hence int(e[i]).)
@cuda.jit
def math_ldexp(x, e, out):
    i = cuda.grid(1)
    if i < x.size:
        k = int(e[i])
        out[i, 0] = math.ldexp(x[i], k)
        out[i, 1] = math.ldexp(x[i], 3)
        out[i, 2] = math.ldexp(1.0, k)
        out[i, 3] = math.ldexp(e[i], -2)
        out[i, 4] = math.ldexp(x[i], True)



@cuda.jit
def math_exp2(x, out):
    # numba-cuda's addition math.exp2 (Python 3.11): exp2, or exp2f for float32
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = math.exp2(x[i])
        out[i, 1] = math.exp2(3)


@cuda.jit
def math_nextafter(x, y, out):
    # numba-cuda's addition math.nextafter: nextafter, or nextafterf for float32, whose next
    # float32 the simulator (computing in float64) does not give: that case uses expect=
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = math.nextafter(x[i], y[i])
        out[i, 1] = math.nextafter(x[i], x[i])

@cuda.jit
def bit_count(u8, u16, u32, u64, i64, out):
    # int.bit_count() is numba-cuda's cuda.popc: the set bits of the value's own width
    # (NumPy's bit_count counts those of |x|: the two agree on what this case passes, x >= 0)
    i = cuda.grid(1)
    if i < u8.size:
        out[i, 0] = u8[i].bit_count()
        out[i, 1] = u16[i].bit_count()
        out[i, 2] = u32[i].bit_count()
        out[i, 3] = u64[i].bit_count()
        out[i, 4] = i64[i].bit_count()



def nextafter_f32_expected(x, y, out):
    out[:, 0] = np.nextafter(x, y)
    out[:, 1] = x


@cuda.jit
def numpy_scalars(x, p, n, out, flags):
    # NumPy's ufuncs called on scalars compute as NumPy's loops do: float32 in float32, an
    # integer in float64, and floor/ceil/trunc/rint keep the float type; abs keeps an int.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        q = p[i]                  # in (1, 2): inside every domain below
        out[i, 0] = np.arcsin(v / 4) + np.arccos(v / 4) + np.arctan(v)
        out[i, 1] = np.sinh(v) + np.cosh(v) + np.arcsinh(v)
        out[i, 2] = np.arccosh(q) + np.arctanh(v / 4)
        out[i, 3] = np.exp2(v) + np.expm1(v)
        out[i, 4] = np.log2(q) + np.log10(q) + np.log1p(q)
        out[i, 5] = np.cbrt(v) + np.fabs(v)
        out[i, 6] = np.floor(v) + np.ceil(v) * 10 + np.trunc(v) * 100 + np.rint(v) * 1000
        out[i, 7] = np.deg2rad(v) + np.rad2deg(v)
        out[i, 8] = np.hypot(v, q) + np.copysign(q, v)
        out[i, 9] = np.abs(v) + np.absolute(n[i])
        out[i, 10] = np.floor(n[i]) + np.sqrt(n[i] * n[i])
        flags[i, 0] = np.isnan(v)
        flags[i, 1] = np.isinf(v / 0.0 if v == 0.0 else v)
        flags[i, 2] = np.isfinite(v)
        flags[i, 3] = np.abs(n[i]) == abs(n[i])


@cuda.jit
def ufunc_out(a, b, m, row, r, r2, r3, q):
    # NumPy's ufuncs on arrays with an output array (numba-cuda compiles them in kernels; Numba's
    # simulator cannot run them: its kernel arrays are not ndarrays, so this case uses expect=):
    # 1-d and 2-d, a scalar input, a row of extent 1 broadcast over a 2-d output, a float32
    # output of float64 inputs, and an output that is also the input (in place).
    if cuda.grid(1) == 0:
        np.sin(a, r)
        np.hypot(a, 2.0, r2)
        np.arctan2(row, m, r3)
        np.sqrt(r3, r3)
        np.floor(m, q)
        np.exp2(b, q[0])
        np.floor(r2[:-1], r2[1:])      # the output a shifted view of the input: walked backwards
        np.ceil(r[1:], r[:-1])         # ... and forwards


def ufunc_out_expected(a, b, m, row, r, r2, r3, q):
    np.sin(a, r)
    np.hypot(a, 2.0, r2)
    np.arctan2(row, m, r3)
    np.sqrt(r3, r3)
    np.floor(m, q)
    np.exp2(b.astype(np.float64), q[0])
    np.floor(r2[:-1], r2[1:])
    np.ceil(r[1:], r[:-1])
