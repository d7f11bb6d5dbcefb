# Simulator cost of warp operations against barriers (docs/simulator.md, Numbers):
#   pyk2cuda run bench/sim_warp.py warp_sum  --device sim --grid 1024 --block 256 arange:int64[262144] zeros:int64[1] --time --repeat 5
#   pyk2cuda run bench/sim_warp.py block_sum --device sim --grid 1024 --block 256 arange:int64[262144] zeros:int64[1] --time --repeat 5
# Both sum 256 int64 per block; warp_sum with five shfl_down_sync steps per warp (ten
# rendezvous), block_sum with a shared-memory tree (nine barriers).
from numba import cuda
import numpy as np

@cuda.jit
def warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xffffffff, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, v)

@cuda.jit
def block_sum(x, out):
    sh = cuda.shared.array(256, np.int64)
    t = cuda.threadIdx.x
    sh[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, sh[0])
