# Tuples spread into arguments and indices: f(a, *t) with a tuple variable, a builtin's tuple
# result (complex(*cmath.polar(z)), as Numba's test_complex polar case) and a tuple literal;
# an array indexed by a tuple value (m[g] with g = cuda.grid(2), m[cuda.grid(2)], and
# an atomic's tuple index with old[gid] = ..., as numba-cuda's test_atomics 2-d cas does).
import cmath

from numba import cuda


@cuda.jit(device=True)
def weigh(a, b, c):
    return a + 10 * b + 100 * c


@cuda.jit(device=True)
def from_polar(z):
    return complex(*cmath.polar(z))


@cuda.jit
def unpack_args(z, out, w):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = from_polar(z[i])
        t = (i, i + 1)
        w[i, 0] = weigh(3, *t)
        w[i, 1] = weigh(*(i, 2, 5))
        w[i, 2] = weigh(*t, 7)
        r, phi = cmath.polar(z[i])
        w[i, 3] = weigh(*cmath.polar(z[i]), 1) - (r + 10 * phi + 100)


@cuda.jit
def tuple_index(m, res, old, ary, fill):
    # (cuda.atomic.cas, which numba-cuda's test uses, is missing from Numba 0.56's simulator)
    g = cuda.grid(2)
    if g[0] < m.shape[0] and g[1] < m.shape[1]:
        m[g] = g[0] * 10 + g[1]
        m[cuda.grid(2)] += 1
        old[g] = cuda.atomic.add(res, g, ary[g] + fill)
