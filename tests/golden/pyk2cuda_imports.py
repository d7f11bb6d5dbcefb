# The Python package's spellings: `from pyk2cuda import ...`, `import pyk2cuda` and
# `import pyk2cuda as numba` mean what the numba spellings mean.
import math

from pyk2cuda import cuda, float32, vectorize
import pyk2cuda
import pyk2cuda as numba


@cuda.jit('void(float32[::1], float32)')
def scale(x, a):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * a + float32(1)


@pyk2cuda.cuda.jit(pyk2cuda.void(pyk2cuda.float64[:, ::1]))
def rows(m):
    i, j = pyk2cuda.cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        m[i, j] = math.sqrt(m[i, j])


@numba.cuda.jit(device=True)
def twice(v):
    return 2 * v


@numba.cuda.jit('void(int64[::1])')
def doubled(x):
    i = numba.cuda.grid(1)
    if i < x.size:
        x[i] = twice(x[i])


@vectorize(['float32(float32, float32)'], target='cuda')
def lerp(a, b):
    return a + (b - a) * float32(0.5)
