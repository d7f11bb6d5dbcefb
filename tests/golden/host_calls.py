# `pyk2cuda emit` of @jit functions without a signature (issue 33): each is typed by the calls the
# file's host code makes of it, where their arguments' types can be told from the text (a note
# at each call names the signature; tests/python/test_emit_host_calls.py checks each one against
# the types Numba's dispatcher gives the same calls). `skipped` is called only with values this
# cannot type (a slice, a function's parameter), so it keeps the note that asks for --sig.
import numpy as np
from numba import njit, prange

N = 8
SCALE = 0.5


@njit
def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit(parallel=True)
def smooth(x, out):
    for i in prange(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1]) / 4


@njit
def affine(a, f, k):
    return a * f + k


@njit
def ramp(n, step):
    r = np.empty(n)
    for i in range(n):
        r[i] = i * step
    return r


@njit
def corner(m):
    return m[0, 0] + m[m.shape[0] - 1, m.shape[1] - 1]


@njit
def skipped(a):
    return a


def main(count):
    rng = np.random.default_rng(3)
    img = rng.random((N, 2 * N))
    out = np.zeros_like(img)
    smooth(img, out)
    print(total(np.arange(10.0)), total(img[0]), out[1, 1] > 0)
    print(corner(np.ones((3, 4), order="F")), corner(np.full((2, 2), 7, np.int16)),
          corner(np.arange(12).reshape(3, 4).astype(np.float32)))
    skipped(count)


a = np.ones(N, dtype=np.float32)
print(total(a), affine(2.5, np.float32(3), -1), ramp(N, SCALE)[-1])
for k in range(3):
    print(affine(k, 1.0, True), ramp(k, 2)[-1:])
print(skipped(a[1:])[0])
if __name__ == "__main__":
    main(4)
