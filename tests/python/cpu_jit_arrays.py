"""NumPy array creation in @jit functions called from the host, and arrays returned to Python
(issue 33): run under `python3 -m pyk2cuda` and under Numba's CPU JIT (Debian's python3-numba);
tests/python/test_cpu_jit.py requires the same output. Each array is printed with its dtype,
shape, layout flags and elements (no uninitialized element of np.empty is ever printed)."""
import numpy as np
from numba import njit


@njit
def creations(n, m):
    a = np.zeros((n, m), np.float32)
    b = np.ones(n)
    c = np.full((2, n, m), 7, np.int16)
    d = np.full(n, 2.5)
    e = np.empty((n, m), dtype=np.int32)
    for i in range(n):
        for j in range(m):
            e[i, j] = i * 10 + j
    f = np.zeros(n, dtype=np.bool_)
    g = np.ones((n,), dtype=np.complex128)
    h = np.full((n, 2), True)
    return a, b, c, d, e, f, g, h


@njit
def likes(x):
    a = np.empty_like(x)
    a[:] = 3
    return a, np.zeros_like(x), np.ones_like(x), np.full_like(x, 4.75), np.zeros_like(x, np.int8), \
        np.full_like(x, 9, dtype=np.uint16)


@njit
def ranges(n, x):
    return np.arange(n), np.arange(2, n), np.arange(n, 0, -3), np.arange(0.5, x, 0.25), \
        np.arange(1, 2.0, 0.1), np.arange(n, dtype=np.float32), np.arange(-n), np.arange(3, n, 4)


@njit
def smooth_new(img):
    out = np.zeros_like(img)
    for i in range(1, img.shape[0] - 1):
        for j in range(1, img.shape[1] - 1):
            out[i, j] = (img[i - 1, j] + img[i + 1, j] + img[i, j - 1] + img[i, j + 1] + img[i, j]) / 5
    return out


@njit
def shape_of(x):
    return np.zeros(x.shape), np.ones((x.shape[1], x.shape[0]), np.int64)


@njit
def temporaries(n):
    s = 0.0
    for k in range(100):
        t = np.full(n, k * 0.5)    # freed when the call ends: only the result is kept
        s += t[n - 1]
    return s


@njit
def views(n):
    a = np.arange(n * 4)
    return a[2:], a[::-1], a[1::3], a


@njit
def of_argument(x):
    return x, x[1:], x[::2]


@njit
def cumulative(x):
    out = np.empty(x.shape[0] + 1)
    out[0] = 0
    for i in range(x.shape[0]):
        out[i + 1] = out[i] + x[i]
    return out


@njit
def fortran_like(x):
    return np.zeros_like(x), np.full_like(x, 1.5)


def show(name, value):
    if isinstance(value, tuple):
        for i, v in enumerate(value):
            show("%s[%d]" % (name, i), v)
        return
    if isinstance(value, np.ndarray):
        print(name, value.dtype, value.shape, value.flags.c_contiguous, value.flags.f_contiguous,
              value.flags.writeable, [repr(v) for v in value.ravel().tolist()])
        return
    print(name, type(value).__name__, repr(value))


def main():
    show("creations", creations(3, 2))
    x = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.5
    show("likes", likes(x))
    show("likes_i32", likes(np.arange(5, dtype=np.int32)))
    show("ranges", ranges(10, 2.1))
    show("ranges_empty", ranges(0, 0.25))
    img = (np.arange(30, dtype=np.float64).reshape(5, 6) ** 1.5) % 7
    show("smooth_new", smooth_new(img))
    show("shape_of", shape_of(x))
    show("temporaries", temporaries(4))
    show("views", views(3))
    y = np.arange(7, dtype=np.int64)
    r = of_argument(y)
    show("of_argument", r)
    r[0][0] = 100                       # a view of the argument: writes reach it, as in Numba
    print("argument_after", y.tolist(), np.shares_memory(r[2], y))
    show("cumulative", cumulative(np.array([1.5, 2.0, -0.25])))
    show("fortran_like", fortran_like(np.asfortranarray(x)))
    keep = creations(2, 2)[4]           # the tuple's other arrays are freed, this one lives on
    print("kept", keep.tolist(), keep.base is not None)


main()
