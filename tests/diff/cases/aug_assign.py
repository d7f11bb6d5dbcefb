# Augmented assignment on array elements (1-D and 2-D, negative indices) and on locals,
# with every operator of the subset: += -= *= /= //= %= **=.
from numba import cuda
import numpy as np


@cuda.jit
def aug_elements(a, f, m):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 5
        a[i] -= 2 * i
        a[i] *= 3
        a[i] //= 4
        a[i] %= 11
        a[i] **= 2
        f[i] /= 4.0
        f[i] **= 2
        f[i] -= 0.5
        f[i] += a[i]
        f[i] //= 0.125
        f[i] %= 0.75
        m[i, 0] += 1
        m[i, 1] -= i
        m[i, -1] *= -2            # negative index inside an augmented assignment
        m[i - a.size, 2] += 100   # row i, through a negative index


@cuda.jit
def aug_locals(a, out):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        v += 3
        v *= v
        v //= -5
        v %= 13
        out[i, 0] = v
        w = a[i] * 0.5
        w -= 0.25
        w /= 3
        w **= 2
        out[i, 1] = int(w * 1000)


@cuda.jit
def aug_int32(a):
    # int32 element += int32: compiled Numba adds in int64 and the store truncates, the
    # simulator adds in int32; the stored value is the same (two's complement wrap)
    i = cuda.grid(1)
    if i < a.size:
        a[i] += a[i]
        a[i] *= 3
