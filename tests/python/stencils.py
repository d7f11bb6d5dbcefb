"""@stencil functions (issue 33), each result printed with its dtype, one a line: run under pyk2cuda
(`python3 -m pyk2cuda stencils.py`, where numba is pyk2cuda: a generated kernel on the GPU or the
simulator) and under Numba's CPU stencils (Debian's python3-numba) the lines must be the same
(test_stencil.py). Floats are printed with repr, so equal lines mean equal bits: every stencil
here computes each element by the same operations in the same order in both."""
import math

import numpy as np
import numba
from numba import stencil, njit


def show(name, result):
    print(name, result.dtype, result.shape, repr(result.tolist()))


@stencil
def avg3(a):                                  # 1-d, inferred neighbourhood (-1, 1), cval 0
    return (a[-1] + a[0] + a[1]) / 3


@numba.stencil
def smooth9(x):                               # the talk's 2-d smoothing
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] + x[0, -1] + x[0, 0] + x[0, 1] +
            x[1, -1] + x[1, 0] + x[1, 1]) / 9


@stencil(cval=-1)
def laplace_int(a):                           # int32 in, int64 out (Numba widens), cval -1
    return 4 * a[0, 0] - a[-1, 0] - a[1, 0] - a[0, -1] - a[0, 1]


@stencil
def grad3(a):                                 # 3-d float32: the result stays float32
    return a[0, 0, 1] - a[0, 0, -1] + a[0, 1, 0] - a[-1, 0, 0]


@stencil
def mean6(a):                                 # 3-d: float32 and a float64 literal: float64
    return (a[1, 0, 0] + a[-1, 0, 0] + a[0, 1, 0] + a[0, -1, 0] + a[0, 0, 1] + a[0, 0, -1]) / 6.0


@stencil(neighborhood=((-2, 2),))
def window5(a):                               # offsets from a loop: the neighbourhood is given
    s = 0.0
    for i in range(-2, 3):
        s += a[i]
    return s / 5


@stencil(neighborhood=((-1, 1), (-2, 2)))
def box(a):                                   # 2-d loops over the given neighbourhood
    s = 0
    for i in range(-1, 2):
        for j in range(-2, 3):
            s += a[i, j]
    return s


@stencil(standard_indexing=("w",))
def weighted(a, w):                           # w is indexed as usual
    return w[0] * a[-1] + w[1] * a[0] + w[2] * a[1]


@stencil
def product(a, b):                            # two relatively indexed arrays
    return a[-1, 0] * b[0, 1]


@stencil
def scaled(a, k):                             # a scalar argument
    return a[-1] * k + a[1]


@stencil
def ahead(a):                                 # only positive offsets: no border on the left
    return a[1] + 2 * a[2]


@stencil
def behind(a):                                # only negative offsets
    return a[-2] - a[-1]


@stencil
def rising(a):                                # a bool result
    return a[-1] < a[1]


@stencil(cval=1.5)
def int_cval(a):                              # a float cval into an int64 result: 1
    return a[-1] + a[1]


@stencil(cval=np.nan)
def nan_border(a):
    return a[0, -1] * 0.5 + a[0, 1]


@stencil
def small_ints(a):                            # int8 + int8: int64, as Numba types it
    return a[-1] + a[1]


@stencil
def branchy(a):                               # two returns, an if on the neighbours
    if a[0, 0] > a[-1, 0]:
        return a[0, 0] - a[-1, 0]
    return a[1, 1] + 0.5


@stencil("constant", cval=7)
def mode_given(a):
    return a[-1] - a[1]


@stencil
def cmplx(a):                                 # complex128
    return a[-1] * 1j + a[1]


@stencil(cval=3.0)
def into_out(a):
    return a[-1] + a[1]


@stencil
def into_out_no_cval(a):                      # out=: the border is left as it was
    return a[-1] + a[1]


@stencil
def local_offsets(a):                         # local variables bound once to constants
    k = 1
    idx = (0, -1)
    return a[k, 0] + a[idx] * 2


@stencil(neighborhood=((-1, 1), (0, 0)))
def tuple_loop(a):                            # a varying tuple index, the neighbourhood given
    s = 0.0
    for d in range(-1, 2):
        t = (d, 0)
        s += a[t]
    return s


@njit
def bigger(x, y):
    return max(x, y)


@stencil
def calls(a):                                 # math and an @njit function in the body
    return math.sqrt(a[-1]) + bigger(a[0], a[1])


lam = stencil(lambda a: a[0, 1] - a[0, -1])   # a lambda as the stencil function

f64 = np.arange(12.0) ** 1.5
show("avg3", avg3(f64))
img = (np.arange(42.0).reshape(6, 7) * 0.37) % 3.1
show("smooth9", smooth9(img))
ints = (np.arange(30, dtype=np.int32).reshape(5, 6) * 7) % 11
show("laplace_int", laplace_int(ints))
cube = ((np.arange(60, dtype=np.float32).reshape(3, 4, 5) * 1.25) % 7).astype(np.float32)
show("grad3", grad3(cube))
show("mean6", mean6(cube))
show("window5", window5(f64))
show("box", box(ints))
show("weighted", weighted(f64, np.array([0.25, 0.5, 0.25])))
show("product", product(img, img[::-1].copy()))
show("product_bigger_b", product(img, np.ones((7, 9))))
show("scaled", scaled(f64, 3))
show("scaled_float", scaled(ints[0], 2.5))
show("ahead", ahead(np.arange(9, dtype=np.int64)))
show("behind", behind(np.arange(9, dtype=np.int16)))
show("rising", rising(np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])))
show("int_cval", int_cval(np.arange(6)))
show("nan_border", nan_border(img))
show("small_ints", small_ints(np.array([100, 120, -128, 127, 5], dtype=np.int8)))
show("branchy", branchy(img))
show("mode_given", mode_given(np.arange(8.0)))
show("cmplx", cmplx(np.arange(6) * (1 + 2j)))
show("fortran", smooth9(np.asfortranarray(img)))
show("strided", avg3(f64[::2]))
show("tiny", smooth9(np.ones((2, 3))))
show("lambda", lam(img))
show("local_offsets", local_offsets(img))
show("tuple_loop", tuple_loop(img))
show("calls", calls(f64))
show("float32_in", avg3(np.arange(7, dtype=np.float32)))
out = np.full(8, -5.0)
show("out_cval", into_out(np.arange(8.0), out=out))
out = np.full(8, -5.0)
into_out_no_cval(np.arange(8.0), out=out)
show("out_no_cval", out)
out32 = np.zeros(8, np.float32)
show("out_float32", into_out_no_cval(np.arange(8.0) / 3, out=out32))


@njit
def smooth_in_jit(x):                         # a stencil called inside an @njit function
    return smooth9(x)


show("in_njit", smooth_in_jit(img))
