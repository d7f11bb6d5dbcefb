# Stencil functions whose relative indices pyk2cuda (and Numba) refuse, each at the index.
import numba


@numba.stencil
def not_constant(a, n):
    s = 0.0
    for i in range(n):
        s += a[i]                               # a loop variable: neighborhood= needed
    return s


@numba.stencil
def dims(a):
    return a[-1, 0] + a[1]                      # 2 offsets, then 1


@numba.stencil
def stores(a):
    a[0] = 1.0                                  # the inputs are read-only
    return a[1]


@numba.stencil(neighborhood=((-1, 1),))
def sliced(a):
    return a[-1:1].sum()


@numba.stencil
def no_access(a):
    return 1.0                                  # nothing to infer the neighbourhood from


@numba.stencil
def four(a):
    return a[0, 0, 0, -1]                       # pyk2cuda's kernels have 1 to 3 dimensions


@numba.stencil
def rebound(a):
    k = 1
    k = 2
    return a[k]                                 # bound twice: not a constant offset
