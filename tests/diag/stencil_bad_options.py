# Stencil options Numba refuses, or pyk2cuda cannot read, each at its place (frontend/stencil.c).
import numba


@numba.stencil(cval=0, boundary="wrap")        # not one of Numba's options
def unknown(a):
    return a[-1]


@numba.stencil("reflect")                      # the only mode is 'constant'
def mode(a):
    return a[-1]


@numba.stencil(neighborhood=((-1, 1), (0,)))   # a pair per dimension
def pairs(a):
    return a[-1, 0]


@numba.stencil(standard_indexing=("w",))       # w is no parameter
def absent(a, b):
    return a[-1] + b[0]


@numba.stencil(standard_indexing="a")          # the first input is indexed relatively
def first(a, b):
    return a[0] + b[-1]


@numba.stencil(cval=[0])                       # cval is a number
def cval_list(a):
    return a[1]
