"""Tuples as kernel arguments, as Numba passes them (by value; typed UniTuple, Tuple or
NamedTuple): indexed with constants and at run time, len(), iterated, unpacked, fields read by
name, nested, empty, holding arrays (written through) and scalars of every kind, passed on to
device functions, and a kernel specialized once per tuple type.
Run with pyk2cuda (test_tuple_args.py) and under Numba's simulator (numba_shim.py), which must
print the same lines."""
from collections import namedtuple

import numpy as np

from pyk2cuda import cuda

np.set_printoptions(linewidth=200)
Point = namedtuple("Point", ("x", "y", "r"))
Pair = namedtuple("Pair", ("lo", "hi"))


def report(name, *arrays):
    print("%s: %s" % (name, " | ".join(np.array2string(np.asarray(a)) for a in arrays)))


@cuda.jit
def unituple(r, x):
    i = cuda.grid(1)
    if i < len(x):
        r[i] = x[i] * 2           # a runtime index: UniTuples only
    if i == 0:
        s = 0
        for v in x:
            s += v
        r[len(x)] = s


@cuda.jit
def mixed(r1, r2, x):
    a, b, c, d = x
    r1[0] = a
    r1[1] = b
    r2[0] = c
    r2[1] = d + x[-1]


@cuda.jit
def named(r1, r2, p):
    r1[0] = p.x
    r1[1] = p.y
    r1[2] = len(p)
    r2[0] = p.r
    r2[1] = p[2] * 2


@cuda.jit
def nested(r, x):
    r[0] = len(x)
    r[1] = len(x[0])
    r[2] = x[1][0] + x[1][1]
    r[3] = x[2].lo * 10 + x[2].hi
    r[4] = len(x[3])


@cuda.jit(device=True)
def axpy(t, i):
    a, xs, ys = t
    return a * xs[i] + ys[i]


@cuda.jit
def arrays(out, t):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = axpy(t, i)
        t[2][i] = -t[2][i]        # written through the tuple, copied back


@cuda.jit
def kinds(r, t):
    for k in range(len(r)):
        r[k] = 0
    r[0] = t[0]
    r[1] = t[1]
    r[2] = t[2]
    r[3] = t[3]
    r[4] = t[4]


@cuda.jit
def total(r, t):
    r[0] = len(t)
    s = 0.0
    for v in t:
        s += v
    r[1] = s


@cuda.jit
def empty(r, t):
    r[0] = len(t)


def main():
    r = np.zeros(4, np.int64)
    unituple[1, 4](r, (5, 6, 7))
    report("unituple", r)

    r1, r2 = np.zeros(2, np.int64), np.zeros(2)
    mixed[1, 1](r1, r2, (1, 2, 4.5, 5.5))
    report("mixed", r1, r2)

    r1, r2 = np.zeros(3, np.int64), np.zeros(2)
    named[1, 1](r1, r2, Point(3, 4, 2.5))
    report("named", r1, r2)

    r = np.zeros(5, np.int64)
    nested[1, 1](r, ((), (5, 6), Pair(7, 8), ((), ())))
    report("nested", r)

    xs, ys = np.arange(8, dtype=np.float64), np.ones(8)
    out = np.zeros(8)
    arrays[1, 8](out, (0.5, xs, ys))
    report("arrays", out, ys)
    d_ys = cuda.to_device(np.full(8, 2.0))
    arrays[2, 4](out, (2.0, cuda.to_device(xs), d_ys))
    report("device arrays", out, d_ys.copy_to_host())

    r = np.zeros(5)
    kinds[1, 1](r, (True, np.int8(-3), np.uint32(7), np.float32(1.5), 2**40))
    report("kinds", r)

    r = np.zeros(2)
    total[1, 1](r, (1.5, 2.5))          # one specialization per tuple type
    total[1, 1](r, (1.5, 2.5, 3.0))
    report("total 3", r)
    total[1, 1](r, (1, 2))
    report("total ints", r)
    empty[1, 1](r, ())
    report("empty", r)


main()
