# tests/aot/types.py: kernels taking the types a bundle passes in C layouts (docs/aot.md, "What
# is in the files"): complex64/complex128 arrays and scalars, float16 arrays and scalars,
# datetime64/timedelta64 arrays and scalars, tuples of numbers. tests/aot/types.c calls them
# through a bundle; types_numba.py runs them in Numba's CUDA simulator on the same inputs.
from numba import cuda


@cuda.jit
def cmul(out, z, w):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = z[i] * w + z[i].conjugate()


@cuda.jit
def hscale(h, a, out):
    i = cuda.grid(1)
    if i < h.size:
        out[i] = h[i] * a + h[i]


@cuda.jit
def shift(t, d, since):
    i = cuda.grid(1)
    if i < t.size:
        t[i] = t[i] + d
        since[i] = t[i] - t[0]


@cuda.jit
def affine(out, p, q):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = p[0] * i + p[1] + q[0] * q[1]
