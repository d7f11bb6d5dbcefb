# A barrier inside `if cuda.threadIdx.x < 16`: half the block waits at it, the other half
# never reaches it (CUDA leaves that undefined).
#
# sanitize-run: buggy --grid 2 --block 32 arange:float32[64] zeros:float32[64]
# sanitize-expect: divergent barrier 31:9
# sanitize-expect: shared-memory race 32:25 29:9
# sanitize-run: fixed --grid 2 --block 32 arange:float32[64] zeros:float32[64]
# sanitize-expect: clean
from numba import cuda
import numpy as np


@cuda.jit
def fixed(x, out):
    s = cuda.shared.array(32, dtype=np.float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[cuda.grid(1)] * 2
        s[t + 16] = x[cuda.grid(1) + 16] * 2
    cuda.syncthreads()
    out[cuda.grid(1)] = s[31 - t]


@cuda.jit
def buggy(x, out):
    s = cuda.shared.array(32, dtype=np.float32)
    t = cuda.threadIdx.x
    if t < 16:
        s[t] = x[cuda.grid(1)] * 2
        s[t + 16] = x[cuda.grid(1) + 16] * 2
        cuda.syncthreads()
    out[cuda.grid(1)] = s[31 - t]
