from numba import cuda
import numpy as np

TABLE = np.arange(8, dtype=np.int32)
N = 4


@cuda.jit("void(int32[:])")
def k(a):
    c = cuda.const.array_like(a)
    d = cuda.const.array_like(N)
    TABLE[0] = 1
    t = cuda.const.array_like(TABLE)
    t[1] = 2
    cuda.atomic.add(TABLE, 0, 1)
    e = cuda.local.array(0, np.int32)
    f = cuda.shared.array((0, 4), np.int32)
    r = TABLE[2:]
    r[0] = 1
    cuda.atomic.add(TABLE[1:], 0, 1)
