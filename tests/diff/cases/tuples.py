# Tuples as values: returned from device functions (UniTuple and heterogeneous Tuple), passed
# to them, indexed with constants (negative too) and with runtime indices (UniTuple only),
# unpacked (nested targets too), unified across assignments ((int64, int64) then
# (float64, int64)), concatenated, chosen by a conditional expression, holding arrays
# (a shared array too); an element read from a tuple literal still runs the device call in
# the literal's other element.
from numba import cuda
import numpy as np


@cuda.jit(device=True)
def divmod_(a, b):
    return a // b, a % b


@cuda.jit(device=True)
def stats(t):
    return t[0] + t[1], t[0] * 0.5


@cuda.jit(device=True)
def swap(p):
    return p[1], p[0]


@cuda.jit(device=True)
def bump(arr, i):
    arr[i, 11] += 1
    return 7


@cuda.jit(device=True)
def pick(pair, i):
    arr, col = pair
    return arr[i, col]


@cuda.jit
def tuple_values(a, out):
    i = cuda.grid(1)
    if i < a.size:
        q, r = divmod_(a[i], 7)
        out[i, 0] = q
        out[i, 1] = r
        t = divmod_(a[i], 3)
        out[i, 2] = t[0] * 10 + t[-1]
        s, h = stats(t)
        out[i, 3] = s + h
        u = (1, 2, 3)
        out[i, 4] = u[i % 3] + u[-(i % 3) - 1] * 100
        v = swap((a[i], 2.5))
        out[i, 5] = v[0] + v[1]
        w = (1, 2)
        if a[i] > 0:
            w = (1.5, 2)
        out[i, 6] = w[0] + w[1]
        n = (a[i], (2, 3.5))
        (x, (y, z)) = n
        out[i, 7] = x + y + z + n[1][1]
        c = u + (4,)
        out[i, 8] = c[3] + c[i % 4]
        p = (i, 2 * i) if a[i] % 2 == 0 else divmod_(a[i], 5)
        out[i, 9] = p[0] - p[1]
        out[i, 10] = (bump(out, i), 2.5)[1]
        out[i, 12] = stats(divmod_(a[i], 4))[1]


@cuda.jit
def tuple_arrays(a, out):
    sm = cuda.shared.array((4, 3), np.float64)
    i = cuda.grid(1)
    if i < 4:
        for j in range(3):
            sm[i, j] = a[i, j] * 2.0
    cuda.syncthreads()
    if i < 4:
        out[i, 0] = pick((a, 1), i)
        out[i, 1] = pick((sm, 2), i)
        pair = (a, i % 3)
        out[i, 2] = pick(pair, i)


@cuda.jit
def tuple_of_tuple(a, out):
    # tuple(t) of a tuple is t: iterated, measured, indexed, of vector types too
    i = cuda.grid(1)
    if i < a.size:
        t = tuple((a[i], a[i] * 2, a[i] - 1))
        s = 0
        for v in tuple(t):
            s += v
        out[i, 0] = s
        out[i, 1] = len(tuple(t)) + tuple(t)[2]
        p = tuple((cuda.int64x2(a[i], 1), cuda.int64x2(2, a[i])))
        out[i, 2] = p[0].x * p[1].y + p[1].x


@cuda.jit(device=True)
def bumped(x, k):
    return (x, x + k)


@cuda.jit
def tuple_compare(x, y, out):
    # Tuples compared as Numba compares them: == and != element by element (tuples of two
    # lengths are unequal), orderings by the first position whose elements differ, else by the
    # lengths; elements of mixed types (int with float), nested tuples, chains, a device call
    # among the operands (evaluated once).
    i = cuda.grid(1)
    if i < x.size:
        a = (x[i], y[i])
        b = (y[i], float(x[i]))
        out[i, 0] = a == b
        out[i, 1] = a != (x[i], y[i])
        out[i, 2] = a < b
        out[i, 3] = a <= (x[i], y[i])
        out[i, 4] = b > (y[i],)
        out[i, 5] = (x[i], y[i]) >= (x[i], y[i], 0)
        out[i, 6] = a == (x[i], y[i], 0)
        out[i, 7] = ((x[i], 1), 2) < ((x[i], y[i] % 3), 0)
        out[i, 8] = bumped(x[i], 1) == (x[i], x[i] + 1) <= (x[i], y[i])
        out[i, 9] = a is not None and (1, 2) != (1.0, 2.0)
        out[i, 10] = () == () and () < (1,)


@cuda.jit
def membership(x, grid, out):
    # x in t and x not in t: of a UniTuple (elements compared with ==, an int with floats too,
    # the empty tuple), of 1-D arrays (rows, a local array), and in a chain with a device call.
    # (x in a 2-D array walks every element, as Numba's np.nditer does; the simulator iterates
    # rows there: tests/python/test_membership.py checks it against NumPy.)
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        t = (1, 3, -2)
        loc = cuda.local.array(3, np.int64)
        for k in range(3):
            loc[k] = k * 2
        out[i, 0] = v in t
        out[i, 1] = v not in (0.5, 2.0, 3.0)
        out[i, 2] = v in ()
        out[i, 3] = v in grid[0]
        out[i, 4] = v not in grid[1]
        out[i, 5] = v in loc
        out[i, 6] = bumped(v, 1)[1] in t and v - 1 not in t
