"""@jit/@njit functions called from the host (issue 33), printed one result a line: run under
pyk2cuda (`python3 -m pyk2cuda cpu_jit.py`, where numba is pyk2cuda) and under Numba's CPU JIT
(Debian's python3-numba) the lines must be the same (test_cpu_jit.py). Floats are printed with
repr, so equal lines mean equal bits; every loop here adds in the same order in both."""
import math

import numpy as np
import numba
from numba import jit, njit, prange


@jit
def total(a):                      # the talk's sum
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@jit(nopython=True)
def count_positive(a):
    n = 0
    for i in range(a.size):
        if a[i] > 0:
            n += 1
    return n


@njit(parallel=True, cache=True, fastmath=False)
def scale(a, f):                   # in place, returns nothing
    for i in range(a.shape[0]):
        a[i] *= f


@njit
def smooth(x, out):                # the talk's 2-D smoothing, into a given array
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1] + x[i, j] +
                         x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) / 9


@njit("float64(float64, int64)")
def powi(x, n):                    # a declared signature: arguments converted to it
    r = 1.0
    for _ in range(n):
        r *= x
    return r


@njit
def hypot_all(xs, ys):
    m = 0.0
    for i in range(xs.shape[0]):
        m = max(m, math.sqrt(xs[i] * xs[i] + ys[i] * ys[i]))
    return m


@njit
def twice_total(a):                # calls another jitted function
    return 2 * total(a)


@njit
def is_sorted(a):
    for i in range(1, a.shape[0]):
        if a[i - 1] > a[i]:
            return False
    return True


@njit
def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@njit
def mixed(i, f, b):
    return i * f if b else i - f


@njit
def int_ops(a, b):
    return a // b + a % b - (a << 3) + (a ^ b)


@njit
def complex_abs2(z):
    w = z * z
    return w.real + w.imag


@njit
def f32_sum(a):
    s = np.float32(0)
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit
def min_max(a):                    # a tuple result
    lo = a[0]
    hi = a[0]
    for i in range(1, a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi, hi - lo > 1


@njit
def nested(z, k):                  # nested tuples, complex and small ints
    return (z.real, (z.imag, abs(z))), np.int8(k), np.uint16(k)


@njit
def divmod_all(a, d):
    q = 0
    r = 0
    for i in range(a.shape[0]):
        q += a[i] // d
        r += a[i] % d
    return q, r


@njit(parallel=True)
def squares(a, out):               # numba.prange: pyk2cuda runs it as range
    total = 0
    for i in numba.prange(a.shape[0]):
        out[i] = a[i] * a[i]
        total += a[i]
    return total


@njit(parallel=True)
def count_even(a):
    n = 0
    for i in prange(a.shape[0]):
        if a[i] % 2 == 0:
            n += 1
    return n


@njit
def doubled_pair(a):               # a list: pyk2cuda runs it as Python (one warning on stderr)
    xs = [x * 2 for x in a]
    return xs[0] + xs[-1]


@njit
def conjugated(x):                 # an array's .conjugate(): pyk2cuda runs that call as Python only
    return x.conjugate()


def show(name, value):
    print(name, type(value).__name__, repr(value))


def main():
    a = np.arange(10, dtype=np.float64) * 0.1
    show("total", total(a))
    show("total_int", total(np.arange(7, dtype=np.int64)))
    show("total_strided", total(a[::3]))
    show("count_positive", count_positive(np.array([1, -2, 3, 0, 5], dtype=np.int32)))
    b = np.linspace(0, 1, 7).astype(np.float32)
    r = scale(b, 2.5)
    show("scale", r)
    print("scale_b", b.tolist())
    x = (np.arange(36, dtype=np.float64).reshape(6, 6) ** 1.5) % 7
    out = np.zeros_like(x)
    smooth(x, out)
    print("smooth", [repr(v) for v in out.ravel()])
    xf = x.astype(np.float32)
    outf = np.zeros_like(xf)
    smooth(xf, outf)
    print("smooth_f32", [repr(float(v)) for v in outf.ravel()])
    show("powi", powi(1.5, 3))
    show("powi_int", powi(2, 10))
    show("hypot_all", hypot_all(np.array([3.0, 1.0]), np.array([4.0, 12.0])))
    show("twice_total", twice_total(a))
    show("is_sorted", is_sorted(np.array([1, 2, 2, 5])))
    show("is_sorted_no", is_sorted(np.array([1.0, 0.5])))
    show("collatz", collatz(27))
    show("mixed_t", mixed(3, 0.5, True))
    show("mixed_f", mixed(3, 0.5, False))
    show("int_ops", int_ops(-17, 5))
    show("complex_abs2", complex_abs2(1.5 - 2j))
    show("f32_sum", f32_sum(np.array([0.1, 0.2, 0.3], dtype=np.float32)))
    show("uint", count_positive(np.array([1, 0, 3], dtype=np.uint8)))
    show("min_max", min_max(np.array([4, -3, 9, 2], dtype=np.int32)))
    show("min_max_f", min_max(np.array([0.5, 1.25])))
    show("nested", nested(3 - 4j, -7))
    show("divmod_all", divmod_all(np.arange(-5, 9), 4))
    ints = np.arange(-6, 11, dtype=np.int64)
    sq = np.zeros_like(ints)
    show("squares", squares(ints, sq))
    print("squares_out", sq.tolist())
    show("count_even", count_even(ints))
    # as Python its result is NumPy's float64, where Numba boxes a Python float: the value only
    print("doubled_pair", repr(float(doubled_pair(np.array([1.25, 3.5, 4.0])))))
    # per argument types: the scalars' calls compile (before and after the array's, which runs as
    # Python: a NumPy array either way)
    show("conjugated_f", conjugated(2.5))
    print("conjugated_a", conjugated(np.array([1 + 2j, -3j])).tolist())
    show("conjugated_c", conjugated(1.5 - 2j))
    show("conjugated_i", conjugated(-7))


main()
