# Kernels for test_readonly.py: which parameters each one writes is what the launch checks a
# read-only array against (P2cParam.written, src/analysis/writes.c).
from pyk2cuda import cuda, vectorize


@cuda.jit(device=True)
def load(a, i):
    return a[i]


@cuda.jit(device=True)
def store(a, i, v):
    a[i] = v


@cuda.jit
def scale(src, dst, k):
    """Reads src (directly and in a device function), writes dst."""
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i] * k + load(src, i) - src[i]


@cuda.jit('void(float64[:, ::1], float64[::1])')
def row_sums(m, out):
    """Reads a 2-d array through a row view and len()."""
    i = cuda.grid(1)
    if i < len(out):
        acc = 0.0
        for v in m[i]:
            acc += v
        out[i] = acc


@cuda.jit
def through_device(a, i):
    """Writes a only in a device function."""
    if cuda.grid(1) == 0:
        store(a, i, 5.0)


@cuda.jit
def atomic_count(counter, x):
    """Writes counter only by an atomic."""
    i = cuda.grid(1)
    if i < x.size and x[i] > 0:
        cuda.atomic.add(counter, 0, 1)


@cuda.jit
def aliased(a, out):
    """Only reads a, but through another name: counted as a store (the analysis does not follow
    names)."""
    b = a
    i = cuda.grid(1)
    if i < out.size:
        out[i] = b[i]


@vectorize(['float64(float64, float64)'], target='cuda')
def vhypot(x, y):
    return (x * x + y * y) ** 0.5
