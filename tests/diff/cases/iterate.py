# for loops over enumerate() and zip() of ranges, 1-D arrays (views too) and tuples: the
# counter and the elements, enumerate's start (positional and keyword), zip stopping at the
# shortest iterable, nested targets (for i, (x, y) in enumerate(zip(a, b))), a target that is
# a tuple variable, negative range steps, iteration over a UniTuple, and a body that writes
# ahead of the iteration (the next element is read when the iteration starts); iteration over
# module-level tuple constants (Numba's test_lang: enumerate and zip of globals).
from numba import cuda
import numpy as np

WEIGHTS = (1.0, 2.5, 3.0)
STEPS = (1, 2, 3, 4)


@cuda.jit
def enumerate_zip(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for k, x in enumerate(a):
            acc += k * x
        out[i, 0] = acc
        acc = 0.0
        for k, x in enumerate(b, 10):
            acc += k * x
        out[i, 1] = acc
        acc = 0.0
        for x, y in zip(a, b):
            acc += x * y
        out[i, 2] = acc
        acc = 0.0
        for k, (x, y) in enumerate(zip(a, range(i, 100, 3)), start=i):
            acc += k + x * y
        out[i, 3] = acc
        acc = 0.0
        for p in zip(range(10, i - 5, -2), b):
            acc += p[0] * p[1]
        out[i, 4] = acc
        n = 0
        for k, r in enumerate(range(i)):
            n += k * r
        out[i, 5] = n
        t = (3, 1, 4, 1, 5)
        n = 0
        for v in t:
            n = n * 10 + v
        out[i, 6] = n
        n = 0
        for j, v in enumerate(t):
            n += j * v
        out[i, 7] = n
        n = 0
        for u, v, w in zip(t, range(5, 0, -1), t):
            n += u * v - w
        out[i, 8] = n


@cuda.jit
def write_ahead(a, out):
    if cuda.grid(1) == 0:
        for k, x in enumerate(a):
            if k + 1 < a.size:
                a[k + 1] += x
            out[k] = x


@cuda.jit
def global_tuples(a, out):
    i = cuda.grid(1)
    if i < a.size:
        acc = 0.0
        for w in WEIGHTS:
            acc += w * a[i]
        out[i, 0] = acc
        acc = 0.0
        for k, w in enumerate(WEIGHTS):
            acc += k * w + a[i]
        out[i, 1] = acc
        acc = 0.0
        for s, w in zip(STEPS, WEIGHTS):
            acc += s * w - a[i]
        out[i, 2] = acc
