# Functions are values only as arguments of a device function (docs/semantics.md, "Functions,
# dtypes and literals as arguments"): storing one in a variable, choosing one at run time,
# returning one, reassigning a parameter that holds one, and calling a variable are refused at
# the place they are written, each once (no follow-on error where the variable is used).
import operator

from numba import cuda, float64


@cuda.jit(device=True)
def twice(x):
    return 2 * x


@cuda.jit(device=True)
def pick(f):
    return f


@cuda.jit(device=True)
def rebind(f, x):
    f = twice
    return f(x)


@cuda.jit(device=True)
def rebind_dtype(dt, x):
    dt = float64
    return x


@cuda.jit(device=True)
def call_value(g, x):
    return g(x)


@cuda.jit(device=True)
def add3(f, x):
    return f(x, x, x)


@cuda.jit("void(float64[::1], int64)")
def kern(a, n):
    i = cuda.grid(1)
    f = cuda.atomic.add
    f(a, 0, 1.0)
    g = twice if n > 0 else operator.sub
    a[i] = pick(twice)
    a[i] = rebind(twice, a[i])
    a[i] = rebind_dtype(float64, a[i])
    a[i] = call_value(n, a[i])
    a[i] = add3(operator.add, a[i])
    a[i] = twice
