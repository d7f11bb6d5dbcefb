"""@stencil functions called inside @njit functions (issue 33), each result printed with its dtype,
one a line: under pyk2cuda (`python3 -m pyk2cuda stencils_njit.py`: each call compiles into its
@njit function as a loop nest, docs/python.md "Stencils") and under Numba (Debian's python3-numba,
whose njit compiles the stencil's own loop nest) the lines must be the same (test_stencil.py).
Floats are printed with repr, so equal lines mean equal bits."""
import math

import numpy as np
import numba
from numba import stencil, njit


def show(name, result):
    print(name, result.dtype, result.shape, repr(result.tolist()))


@stencil
def avg3(a):                                  # 1-d float, inferred neighbourhood (-1, 1)
    return (a[-1] + a[0] + a[1]) / 3


@stencil
def smooth9(x):                               # the talk's 2-d smoothing
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] + x[0, -1] + x[0, 0] + x[0, 1] +
            x[1, -1] + x[1, 0] + x[1, 1]) / 9


@stencil(cval=-1)
def laplace_int(a):                           # int32 in, int64 out, cval -1
    return 4 * a[0, 0] - a[-1, 0] - a[1, 0] - a[0, -1] - a[0, 1]


@stencil
def grad3(a):                                 # 3-d float32: the result stays float32
    return a[0, 0, 1] - a[0, 0, -1] + a[0, 1, 0] - a[-1, 0, 0]


@stencil(cval=2.5)
def mean6(a):                                 # 3-d, a border of cval
    return (a[1, 0, 0] + a[-1, 0, 0] + a[0, 1, 0] + a[0, -1, 0] + a[0, 0, 1] + a[0, 0, -1]) / 6.0


@stencil(neighborhood=((-2, 2),))
def window5(a):                               # offsets from a loop: the neighbourhood is given
    s = 0.0
    for i in range(-2, 3):
        s += a[i]
    return s / 5


@stencil(neighborhood=((-1, 1), (-2, 2)))
def box(a):                                   # 2-d int loops over the given neighbourhood
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
def behind(a):                                # only negative offsets, int16
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
def small_ints(a):                            # int8 + int8: int64
    return a[-1] + a[1]


@stencil
def branchy(a):                               # two returns, an if on the neighbours
    if a[0, 0] > a[-1, 0]:
        return a[0, 0] - a[-1, 0]
    return a[1, 1] + 0.5


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


@njit
def bigger(x, y):
    return max(x, y)


@stencil
def calls(a):                                 # math and an @njit function in the body
    return math.sqrt(a[-1]) + bigger(a[0], a[1])


lam = stencil(lambda a: a[0, 1] - a[0, -1])   # a lambda as the stencil function


@njit
def one(a):                                   # the simplest caller: returns the stencil's result
    return avg3(a)


@njit
def talk(x, n):                               # the talk's smoothing, repeated
    for _ in range(n):
        x = smooth9(x)
    return x


@njit
def ints_2d(a):
    return laplace_int(a), box(a)


@njit
def three_d(c):
    return grad3(c), mean6(c)


@njit
def several(f, img, ints16, i64, b, w):
    return (window5(f), weighted(f, w), product(img, b),
            scaled(f, 3), scaled(f, 2.5), ahead(i64), behind(ints16))


@njit
def odd_types(f, img, i8, c):
    return rising(f), int_cval(np.arange(6)), nan_border(img), small_ints(i8), branchy(img), cmplx(c)


@njit
def outs(a, b, o1, o2, o3):
    r = into_out(a, out=o1)
    into_out_no_cval(a, out=o2)
    into_out_no_cval(b, out=o3[1:])        # a view of a bigger array
    return r


@njit
def more(img, f):
    return local_offsets(img), calls(f), lam(img), smooth9(img[::2, ::-1]), avg3(f[::2])


@njit
def tiny(t):
    return smooth9(t), avg3(np.ones(1)), avg3(np.ones(0))


@njit
def combined(img):                            # a stencil's result used in the same function
    s = smooth9(img)
    total = 0.0
    for i in range(s.shape[0]):
        for j in range(s.shape[1]):
            s[i, j] -= img[i, j]
            total += s[i, j]
    return s, total


@njit(parallel=True)
def in_parallel(img):                         # Numba makes the stencil a parfor; pyk2cuda a loop nest
    return smooth9(img)


f64 = np.arange(12.0) ** 1.5
img = (np.arange(42.0).reshape(6, 7) * 0.37) % 3.1
ints = (np.arange(30, dtype=np.int32).reshape(5, 6) * 7) % 11
cube = ((np.arange(60, dtype=np.float32).reshape(3, 4, 5) * 1.25) % 7).astype(np.float32)
show("one", one(f64))
show("one_float32", one(np.arange(7, dtype=np.float32)))
show("talk", talk(img, 3))
for name, r in zip(("laplace_int", "box"), ints_2d(ints)):
    show(name, r)
for name, r in zip(("grad3", "mean6"), three_d(cube)):
    show(name, r)
for name, r in zip(("window5", "weighted", "product", "scaled", "scaled_float", "ahead", "behind"),
                   several(f64, img, np.arange(9, dtype=np.int16), np.arange(9, dtype=np.int64),
                           np.ones((7, 9)), np.array([0.25, 0.5, 0.25]))):
    show(name, r)
for name, r in zip(("rising", "int_cval", "nan_border", "small_ints", "branchy", "cmplx"),
                   odd_types(np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]), img,
                             np.array([100, 120, -128, 127, 5], dtype=np.int8), np.arange(6) * (1 + 2j))):
    show(name, r)
o1, o2, o3 = np.full(8, -5.0), np.full(8, -5.0), np.full(10, 0.5)
show("out_cval", outs(np.arange(8.0), np.arange(8.0) / 3, o1, o2, o3))
show("out_cval_array", o1)
show("out_no_cval", o2)
show("out_view", o3)
for name, r in zip(("local_offsets", "calls", "lambda", "strided_2d", "strided_1d"), more(img, f64)):
    show(name, r)
for name, r in zip(("tiny", "one_element", "empty"), tiny(np.ones((2, 3)))):
    show(name, r)
diff, total = combined(img)
show("combined", diff)
print("combined_total", repr(total))
show("fortran", one(np.asfortranarray(f64)))
show("parallel", in_parallel(img))
show("from_python_too", smooth9(img))      # the same stencil called from Python
