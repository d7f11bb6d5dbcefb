# `check` without signatures: a device function whose shared array takes its shape and dtype
# from parameters is not refused (a caller may pass constants: docs/semantics.md, "Functions,
# dtypes and literals as arguments"); the same array in a kernel is, since a kernel's
# parameters are never constants.
from numba import cuda, uint32


@cuda.jit(device=True)
def fill(out, dt, n, shape):
    sm = cuda.shared.array(n, dt)
    tile = cuda.local.array(shape, dtype=dt)
    sm[0] = 1
    tile[0, 0] = 2
    out[0] = sm[0] + tile[0, 0]


@cuda.jit
def good(out):
    fill(out, uint32, 32, (2, 3))


@cuda.jit
def bad(out, n):
    sm = cuda.shared.array(n, uint32)
    out[0] = sm[0]
