# Warp operations whose mask names lanes that never arrive: the lanes of the upper half of the
# warp wait at a barrier while the lower half shuffles with a full mask. The fixed kernel
# shuffles in every lane; `ordered` checks that a warp operation orders the shared-memory
# accesses of the lanes that took part (no race is reported there).
#
# sanitize-run: buggy --grid 1 --block 32 arange:float32[32] zeros:float32[32]
# sanitize-expect: warp operation 33:13
# sanitize-run: fixed --grid 1 --block 32 arange:float32[32] zeros:float32[32]
# sanitize-expect: clean
# sanitize-run: ordered --grid 2 --block 64 arange:float32[128] zeros:float32[128]
# sanitize-expect: clean
# sanitize-run: unordered --grid 2 --block 64 arange:float32[128] zeros:float32[128]
# sanitize-expect: shared-memory race 51:5 52:25
from numba import cuda
import numpy as np


@cuda.jit
def fixed(x, out):
    t = cuda.threadIdx.x
    v = x[t]
    w = cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    cuda.syncthreads()
    out[t] = w


@cuda.jit
def buggy(x, out):
    t = cuda.threadIdx.x
    v = x[t]
    w = v
    if t < 16:
        w = cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    cuda.syncthreads()
    out[t] = w


@cuda.jit
def ordered(x, out):
    s = cuda.shared.array(64, dtype=np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncwarp()
    out[cuda.grid(1)] = s[t ^ 1]


@cuda.jit
def unordered(x, out):
    s = cuda.shared.array(64, dtype=np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    out[cuda.grid(1)] = s[t ^ 1]
