# Warp operations whose mask names lanes that never arrive: the lanes of the upper half of the
# warp wait at a barrier while the lower half shuffles with a full mask. The fixed kernel
# shuffles in every lane; `ordered` checks that a syncwarp orders the shared-memory accesses of
# the lanes that took part (no race is reported there); `shuffle_between` that a shuffle does
# not (CUDA promises memory ordering for __syncwarp only), and `warp_sum_published` a lane that
# publishes a shuffle reduction through shared memory for the others, ordered by a syncwarp.
#
# sanitize-run: buggy --grid 1 --block 32 arange:float32[32] zeros:float32[32]
# sanitize-expect: warp operation 39:13
# sanitize-run: fixed --grid 1 --block 32 arange:float32[32] zeros:float32[32]
# sanitize-expect: clean
# sanitize-run: ordered --grid 2 --block 64 arange:float32[128] zeros:float32[128]
# sanitize-expect: clean
# sanitize-run: unordered --grid 2 --block 64 arange:float32[128] zeros:float32[128]
# sanitize-expect: shared-memory race 57:5 58:25
# sanitize-run: shuffle_between --grid 2 --block 64 arange:float32[128] zeros:float32[128]
# sanitize-expect: shared-memory race 65:5 67:25
# sanitize-run: warp_sum_published --grid 2 --block 64 arange:float32[128] zeros:float32[128]
# sanitize-expect: clean
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


@cuda.jit
def shuffle_between(x, out):
    s = cuda.shared.array(64, dtype=np.float32)
    t = cuda.threadIdx.x
    s[t] = x[cuda.grid(1)]
    v = cuda.shfl_xor_sync(0xFFFFFFFF, s[t], 1)
    out[cuda.grid(1)] = s[t ^ 1] + v


@cuda.jit
def warp_sum_published(x, out):
    s = cuda.shared.array(2, dtype=np.float32)
    t = cuda.threadIdx.x
    v = x[cuda.grid(1)]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if t % 32 == 0:
        s[t // 32] = v
    cuda.syncwarp()
    out[cuda.grid(1)] = s[t // 32]
