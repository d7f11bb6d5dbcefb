"""numba.prange in @njit(parallel=True) functions called from the host, whose iterations
pyk2cuda spreads over the CPU's cores (issue 33): run under `python3 -m pyk2cuda` and under
Numba's CPU JIT (Debian's python3-numba); tests/python/test_cpu_jit.py requires the same output.
Integer results are exact; a float sum is combined in another order than Numba's, so it is
printed rounded to 9 significant digits (its terms here are exact in binary: the same sum)."""
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def int_sum(a):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i] * a[i]
    return s


@njit(parallel=True)
def several(a):
    s = 0
    p = 1
    neg = 100
    f = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
        p *= 1 + a[i] % 2
        neg -= a[i]
        f += a[i] * 0.5
    return s, p, neg, f


@njit(parallel=True)
def smooth(img, out):
    for i in prange(1, img.shape[0] - 1):
        for j in range(1, img.shape[1] - 1):
            t = img[i - 1, j] + img[i + 1, j] + img[i, j - 1] + img[i, j + 1]
            out[i, j] = (t + img[i, j]) * 0.2


@njit(parallel=True)
def rows_with_temporaries(n, m):
    total = 0.0
    out = np.zeros((n, m))
    for i in prange(n):
        row = np.arange(m)
        for j in range(m):
            out[i, j] = row[j] * (i + 1)
        total += row[m - 1] * (i + 1)
    return out, total


@njit(parallel=True)
def started(n):
    s = 0
    for i in prange(3, n):
        s += i
    for i in prange(n, 0):      # no iteration
        s += 2 * i
    return s


@njit(parallel=True)
def histogram_rows(a, bins):
    out = np.zeros((a.shape[0], bins), np.int64)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, a[i, j] % bins] += 1
    return out


@njit(parallel=True)
def extremes(a):
    lo = a[0]
    hi = a[0]
    flo = 1e300
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(a[i], hi)
        flo = min(flo, a[i] * 0.25)
    return lo, hi, flo


@njit(parallel=True)
def written_out(a):
    s = 0
    p = 1
    d = 1000
    for i in prange(a.shape[0]):
        s = s + a[i]
        p = 3 * p
        d -= a[i]
    return s, p, d


@njit(parallel=True)
def grid_total(m):
    total = 0
    count = 0
    for i in prange(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] % 3 == 0:
                total += m[i, j]
                count += 1
    return total, count


@njit(parallel=True)
def float_sum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * 0.1
    return s


@njit(parallel=True)
def inner_prange(n):
    out = np.zeros((n, n), np.int64)
    for k in range(3):
        for i in prange(n):
            out[i, (i + k) % n] += k + 1
    return out


def main():
    a = np.arange(-500, 1500, dtype=np.int64)
    print("int_sum", int_sum(a))
    s, p, neg, f = several(np.arange(1, 40))
    print("several", s, p, neg, "%.9g" % f)
    img = (np.arange(40 * 30, dtype=np.float64).reshape(40, 30) ** 1.5) % 7
    out = np.zeros_like(img)
    smooth(img, out)
    print("smooth", [repr(v) for v in out[::7, ::5].ravel()])
    r, total = rows_with_temporaries(9, 5)
    print("rows", r.tolist(), total)
    print("started", started(101), started(0))
    h = histogram_rows(np.arange(60).reshape(6, 10) ** 2, 4)
    print("histogram", h.tolist())
    print("extremes", extremes(np.array([5, -3, 17, 2, 40, -8, 11], np.int64)))
    print("written_out", written_out(np.arange(1, 30)))
    print("grid_total", grid_total(np.arange(200).reshape(20, 10)))
    # the float sum's chunks combine in another order than Numba's: equal to 12 digits here
    print("float_sum", "%.12g" % float_sum(np.linspace(0.0, 1.0, 10001)))
    print("inner_prange", inner_prange(5).tolist())


main()
