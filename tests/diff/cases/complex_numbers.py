# complex64 and complex128: literals (2j), complex(), .real/.imag/.conjugate() (of reals too),
# + - * / ** and unary minus, NumPy's promotion (complex64 with float32 or int16 stays
# complex64; with int32, int64 or float64 it becomes complex128), == and != (also against
# reals), truth, abs, complex values in device functions, tuples and variables that widen
# from float to complex, and the cmath functions. Division follows CPython's algorithm as
# compiled Numba does (NumPy's, used by the simulator for NumPy scalars, differs in the last
# bit); ** follows Numba's CUDA algorithm (CPython multiplies for small integer powers):
# hence the tolerances in cases.txt.
from numba import cuda
import numpy as np
import cmath


@cuda.jit(device=True)
def mandel(c, n):
    z = 0j
    for k in range(n):
        z = z * z + c
        if abs(z) > 2.0:
            return k
    return n


@cuda.jit(device=True)
def rotate(z, quarter_turns):
    for _ in range(quarter_turns):
        z = z * 1j
    return z, abs(z)


@cuda.jit
def complex_arith(a, b, x, out, outr):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i]
        w = b[i]
        outr[i, 0] = z.real
        outr[i, 1] = z.imag
        outr[i, 2] = abs(z * w)
        outr[i, 3] = mandel(z, 20)
        out[i, 0] = z + w
        out[i, 1] = z - w * 2
        out[i, 2] = z / w
        out[i, 3] = z.conjugate() * 1j
        out[i, 4] = z ** 2
        out[i, 5] = z ** w
        out[i, 6] = -z + x[i]
        out[i, 7] = complex(x[i], 0.5) * z
        out[i, 8] = complex(x[i]) - 2.5j
        out[i, 9] = x[i] / z
        r, m = rotate(z, i % 4)
        out[i, 10] = r
        outr[i, 4] = m
        v = x[i]                       # float64, then complex128
        if i % 2 == 0:
            v = v * z
        out[i, 11] = v
        outr[i, 5] = (z == w) + (z != w) * 2 + (z == z.real) * 4 + (x[i] == complex(x[i], 0.0)) * 8
        if z * 0:
            outr[i, 6] = 1.0
        elif z:
            outr[i, 6] = 2.0
        outr[i, 7] = x[i].real + x[i].imag + x[i].conjugate()
        t = (z, x[i])
        out[i, 12] = t[0] * t[1]


@cuda.jit
def complex64_promote(a, f, h, j, out64, out128):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i]
        out64[i, 0] = z * f[i]            # complex64 * float32: complex64
        out64[i, 1] = z + h[i]            # complex64 + int16: complex64
        out64[i, 2] = z / z.conjugate()
        out64[i, 3] = np.complex64(f[i]) - z
        out64[i, 4] = abs(z) + z.imag
        out128[i, 0] = z * j[i]           # complex64 * int32: complex128
        out128[i, 1] = z * 0.5            # a float64 literal: complex128
        out128[i, 2] = z + 1j             # complex128 literal
        out128[i, 3] = np.complex128(z) * z
        out128[i, 4] = z ** 2             # the int64 exponent makes it complex128


@cuda.jit
def cmath_fns(a, out, outr):
    i = cuda.grid(1)
    if i < a.size:
        z = a[i]
        out[i, 0] = cmath.sqrt(z)
        out[i, 1] = cmath.exp(z)
        out[i, 2] = cmath.log(z)
        out[i, 3] = cmath.log10(z)
        out[i, 4] = cmath.sin(z)
        out[i, 5] = cmath.cos(z)
        out[i, 6] = cmath.tan(z)
        out[i, 7] = cmath.sinh(z)
        out[i, 8] = cmath.cosh(z)
        out[i, 9] = cmath.tanh(z)
        out[i, 10] = cmath.asin(z)
        out[i, 11] = cmath.acos(z)
        out[i, 12] = cmath.atan(z)
        out[i, 13] = cmath.asinh(z)
        out[i, 14] = cmath.acosh(z)
        out[i, 15] = cmath.atanh(z)
        out[i, 16] = cmath.log(z, 2 + 1j)
        out[i, 17] = cmath.rect(abs(z), 0.75)
        out[i, 18] = cmath.sqrt(z.real)          # a real argument
        r, p = cmath.polar(z)
        outr[i, 0] = r
        outr[i, 1] = p
        outr[i, 2] = cmath.phase(z)
        outr[i, 3] = cmath.isnan(z) + cmath.isinf(z) * 2 + cmath.isfinite(z) * 4
