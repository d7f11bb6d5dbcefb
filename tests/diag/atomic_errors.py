from numba import cuda
import numpy as np


@cuda.jit("void(int32[:], float32[:], int16[:], int32[:, :], int64)")
def k(a, f, s, m, n):
    cuda.atomic.add(n, 0, 1)
    cuda.atomic.inc(a, 0, 1)
    cuda.atomic.and_(f, 0, 1)
    cuda.atomic.add(s, 0, 1)
    cuda.atomic.add(m, 0, 1)
    cuda.atomic.add(m, (0, 1, 2), 1)
    cuda.atomic.add(a, 1.5, 1)
    loc = cuda.local.array(4, np.int32)
    cuda.atomic.add(loc, 0, 1)
    cuda.atomic.compare_and_swap(m, 0, 1)
    cuda.atomic.add(a, 0, (1, 2))
    cuda.atomic.add(a, 0)
    cuda.atomic.exch(f, 0, 1.0)
