# Self-recursive device functions, typed as Numba types them: the return type comes from the
# paths that do not recurse (fact, fib; the recursive return may come first, as in
# power_sum), widens when the recursive path computes in a wider type (halves: int64 base,
# float64 overall), or comes from an explicit signature (gcd_sig; its int returns convert to
# the declared float64). Recursion over array views (sum_view: a[1:]), returning tuples
# (fib_pair), and a device function called with two argument types (two recursive
# specializations).
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@cuda.jit(device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit(device=True)
def power_sum(x, n):
    if n > 0:
        return x ** n + power_sum(x, n - 1)
    return 1


@cuda.jit(device=True)
def halves(n):
    if n <= 0:
        return 0
    return halves(n - 1) + 0.5


@cuda.jit("float64(int64, int64)", device=True)
def gcd_sig(a, b):
    if b == 0:
        return a
    return gcd_sig(b, a % b)


@cuda.jit(device=True)
def sum_view(v):
    if v.size == 0:
        return 0.0
    return v[0] + sum_view(v[1:])


@cuda.jit(device=True)
def fib_pair(n):
    if n == 0:
        return 0, 1
    a, b = fib_pair(n - 1)
    return b, a + b


@cuda.jit
def recursion(n, x, out):
    i = cuda.grid(1)
    if i < n.size:
        k = n[i]
        out[i, 0] = fact(k)
        out[i, 1] = fib(k)
        out[i, 2] = power_sum(x[i], k % 5)
        out[i, 3] = halves(k)
        out[i, 4] = gcd_sig(k * 6, 84)
        out[i, 5] = sum_view(x[: k % 7])
        p = fib_pair(k)
        out[i, 6] = p[0] * 1000 + p[1]
        out[i, 7] = fib(k * 0.5)
