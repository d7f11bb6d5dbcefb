"""What the first tier's C form covers (issue 33; docs/simulator.md, "Host functions: two tiers"),
printed one result a line: run under pyk2cuda's first tier, its optimized tier only
($PYK2CUDA_LIBTCC=0) and Numba's CPU JIT (Debian's python3-numba), the lines must be the same
(test_cpu_tiers.py). Floats are printed with repr: equal lines mean equal bits. Python's //, %
and ** on every integer and float width (the overloaded helpers' C forms), min, max and abs on
every number type (the template helpers' C forms, written apart: this is their test
against the C++ ones), libm's functions in float32 and float64, integer wraparound, layouts,
module constants, calls between functions, while loops and early returns."""
import math

import numpy as np
from numba import njit

LIMIT = 7
SCALE = 0.25


@njit
def floor_ops(a, b):
    return a // b, a % b


@njit
def int_pow(a, b):
    return a ** b


@njit
def float_pow(x, n):
    return x ** n


@njit
def minmax_abs(a, b):
    return min(a, b), max(a, b), abs(a), min(a, b, a), max(b, a)


@njit
def maths64(x):
    return (math.sqrt(x) + math.sin(x) + math.exp(-x) + math.log1p(x) + math.atan2(x, 3.0) +
            math.floor(x * 3.5) + math.hypot(x, 2.0) + math.copysign(x, -0.3) + math.tanh(x))


@njit
def maths32(x):
    y = np.float32(x)
    return math.sqrt(y) * math.cos(y) + math.log(y + np.float32(1)) - math.ceil(y)


@njit
def wraps(a):
    b = a * np.int8(100)
    c = np.uint8(250) + np.uint8(a)
    return b, c, -a, ~a


@njit
def dot_layouts(m, v):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            s += m[i, j] * v[j] * SCALE
    return s


@njit
def first_over(a, limit):
    i = 0
    while i < a.shape[0]:
        if a[i] > limit:
            return i
        i += 1
    return -1


@njit
def helper(x):
    return x * LIMIT + 1


@njit
def calls(a):
    t = 0
    for i in range(-3, a.shape[0], 2):
        t += helper(a[i])
    return t


@njit
def flags(a, threshold):
    n = 0
    any_neg = False
    for i in range(a.shape[0]):
        if a[i] >= threshold and not any_neg:
            n += 1
        any_neg = any_neg or a[i] < 0
    return n, any_neg


def show(*values):
    print(" ".join(repr(v) if not isinstance(v, tuple) else " ".join(repr(x) for x in v) for v in values))


def main():
    ints = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (-128, -1)]   # no zero divisor: Numba's CPU
    # target raises ZeroDivisionError, pyk2cuda's gives 0 as its CUDA target (docs/python.md)
    for t in (np.int64, np.uint64, np.int32, np.int8):
        for a, b in ints:
            if (np.dtype(t).kind == "u" and (a < 0 or b < 0)) or (t == np.uint64 and a == -128):
                continue
            show(t.__name__, floor_ops(t(a), t(b)))
    for t in (np.float64, np.float32):
        for a, b in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-0.0, 3.0), (1e30, 1e-3), (0.1, 0.01)]:
            show(t.__name__, floor_ops(t(a), t(b)))
    for a, b in [(3, 35), (-2, 63), (2, -1), (1, -3), (-1, -3), (7, 0), (-3, 5)]:
        show("pow", int_pow(a, b), int_pow(np.uint64(abs(a)), np.uint64(abs(b))))
    for x, n in [(1.5, 7), (2.0, -3), (-0.5, 5), (1.1, 40)]:
        show("powi", float_pow(x, n), float_pow(np.float32(x), n))
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        show(t.__name__, minmax_abs(t(3), t(1)), minmax_abs(t(1), t(1)))
    for t in (np.float32, np.float64):
        # no NaN or signed zeros: min and max of two floats are fmin and fmax in pyk2cuda (its CUDA
        # target's meaning), which differ from Numba's CPU target there (docs/semantics.md)
        show(t.__name__, minmax_abs(t(-2.5), t(1.0)), minmax_abs(t(1.0), t(-7.25)), minmax_abs(t(3.0), t(3.0)))
    for x in (0.1, 1.0, 2.75, 10.0):
        show("maths", maths64(x), maths32(x))
    for a in (np.int8(3), np.int8(-100), np.int8(127)):
        show("wraps", wraps(a))
    m = np.arange(12.0).reshape(3, 4)
    v = np.linspace(0.0, 1.0, 4)
    show("layouts", dot_layouts(m, v), dot_layouts(np.asfortranarray(m), v), dot_layouts(m[:, ::-1], v[::-1]),
         dot_layouts(m.astype(np.float32), v.astype(np.float32)))
    a = np.array([1, 5, 9, 2, 12], dtype=np.int64)
    show("while", first_over(a, 8), first_over(a, 20), calls(a), flags(a, 3), flags(-a, -4))


main()
