# Comparisons and boolean logic: chained comparisons (each operand evaluated once,
# checked with a counting device function), and/or yielding one of their operands (not
# a bool), short-circuit evaluation, `not`, conditional expressions, if/elif/else.
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def counted(x, counter, i):
    counter[i] += 1
    return x


@cuda.jit
def chained(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = 1 if a[i] < b[i] < c[i] else 0
        out[i, 1] = 1 if a[i] <= b[i] <= c[i] else 0
        out[i, 2] = 1 if a[i] < b[i] > c[i] != a[i] else 0
        out[i, 3] = 1 if -50 < a[i] < 0 < b[i] < 50 else 0
        out[i, 4] = 1 if a[i] == b[i] == c[i] else 0


@cuda.jit
def chained_once(a, flags, counts):
    # the middle operand is evaluated exactly once; the last one only if needed
    i = cuda.grid(1)
    if i < a.size:
        if -20 <= counted(a[i], counts, i) < counted(20, counts, i + a.size):
            flags[i] = 1


@cuda.jit
def and_or_values(a, b, out, outf):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] or b[i]
        out[i, 1] = a[i] and b[i]
        out[i, 2] = a[i] % 3 or b[i] % 5 or 99
        out[i, 3] = (a[i] > 0) and (b[i] > 0)
        out[i, 4] = not a[i]
        out[i, 5] = not (a[i] > b[i] or a[i] == 0)
        outf[i] = a[i] or 2.5              # int64 or float64: the value is kept


@cuda.jit
def short_circuit(a, b, out, counts):
    i = cuda.grid(1)
    if i < a.size:
        # the division is never evaluated when b is 0
        if b[i] != 0 and a[i] // b[i] > 1:
            out[i, 0] = 1
        # the second call runs only when the first operand is falsy
        out[i, 1] = counted(a[i] % 2, counts, i) or counted(7, counts, i)
        # ... and for `and`, only when it is truthy
        out[i, 2] = counted(b[i] % 2, counts, i) and counted(9, counts, i)


@cuda.jit
def classify(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v < -0.5:
            out[i, 0] = -2
        elif v < 0.0:
            out[i, 0] = -1
        elif v == 0.0:
            out[i, 0] = 0
        elif v <= 0.5:
            out[i, 0] = 1
        else:
            out[i, 0] = 2
        out[i, 1] = 10 if v > 0 else (20 if v > -0.5 else 30)
        if not v > 0.25:
            out[i, 2] = 1
