"""a.reshape(shape) in kernels (docs/semantics.md, "Array views"): a C-ordered view of a
C-contiguous array, its shape given as integers or a tuple, one extent -1; writes go through to
the array; of a shared array too."""
import numpy as np
from numba import cuda


@cuda.jit
def reshape_views(a, m, out, flat):
    i = cuda.grid(1)
    if i < 24:
        y = a.reshape(4, 6)
        z = a.reshape((2, -1, 3))
        shape = (3, 8)
        w = m.reshape(shape)
        out[i, 0] = y[i // 6, i % 6]
        out[i, 1] = z[i // 12, (i // 3) % 4, i % 3]
        out[i, 2] = w[i // 8, i % 8] + y.shape[1] * 100 + z.shape[1] * 1000
        s = cuda.shared.array(24, np.int64)
        s[i] = a[i] * 2
        cuda.syncthreads()
        t = s.reshape(6, -1)
        out[i, 3] = t[i % 6, i // 6]
        flat.reshape(2, 12)[i // 12, i % 12] = i + 7
