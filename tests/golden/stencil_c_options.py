# Numba's stencil options as `pyk2cuda emit` compiles them (frontend/stencil.c): neighborhood=,
# standard_indexing=, scalar arguments, several inputs, cval=, the mode, and offsets given by
# local constants or a tuple given whole.
import numba
import numpy as np

CVAL = -1


@numba.stencil(neighborhood=((-2, 2),), standard_indexing=("w",), cval=0.0)
def window(a, w, scale):          # an index that is not constant needs neighborhood=
    s = 0.0
    for i in range(-2, 3):
        s += w[i + 2] * a[i]
    return s * scale


@numba.stencil("constant", cval=CVAL)
def diff2(a, b):                  # two relatively indexed inputs: b is checked against a's shape
    return a[0, 1] - b[-1, 0]


@numba.stencil
def shifted(a):                   # offsets from locals bound once, a tuple given whole
    k = 2
    idx = (-1, 1)
    return a[k, 0] + a[idx]


@numba.stencil(cval=np.nan)
def nan_border(a):                # a named constant as cval
    return a[1] - a[-1]
