# A tree reduction in shared memory missing the barrier inside its loop: a thread reads its
# partner's partial sum while the partner may still be writing it.
#
# sanitize-run: buggy --grid 4 --block 128 arange:float32[512] zeros:float32[4]
# sanitize-expect: shared-memory race 37:13 37:21
# sanitize-run: fixed --grid 4 --block 128 arange:float32[512] zeros:float32[4]
# sanitize-expect: clean
from numba import cuda
import numpy as np


@cuda.jit
def fixed(x, sums):
    s = cuda.shared.array(128, dtype=np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = s[0]


@cuda.jit
def buggy(x, sums):
    s = cuda.shared.array(128, dtype=np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = s[0]
