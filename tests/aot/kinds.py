# One kernel of each way pyk2cuda's simulator runs kernels (docs/simulator.md), for a bundle's
# simulator part (tests/aot/kinds.c): plain blocks (scale), a grid-stride loop in lockstep
# (stride_scale), barriers as regions with shared memory (block_sum, static and dynamic shared
# memory), a cooperative kernel cut at its grid syncs (grid_rotate: grid regions), and fibers
# (warp_reduce: warp shuffles and a counting barrier; ring: a barrier in a device function).
from numba import cuda, float32, int64


@cuda.jit
def scale(x, out, k):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * k + 1


@cuda.jit
def stride_scale(x, out):
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    for i in range(start, x.size, step):
        out[i] = x[i] * 3 - i


@cuda.jit
def block_sum(x, sums):
    tile = cuda.shared.array(128, dtype=int64)
    extra = cuda.shared.array(0, dtype=int64)   # dynamic: one element per thread
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0
    extra[t] = t
    cuda.syncthreads()
    width = cuda.blockDim.x // 2
    while width > 0:
        if t < width:
            tile[t] += tile[t + width]
        cuda.syncthreads()
        width //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = tile[0] + extra[cuda.blockDim.x - 1]


@cuda.jit
def grid_rotate(x, out, partial):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = x.size
    if i < n:
        x[i] = x[i] * 2
    g.sync()
    if i < n:
        out[i] = x[(i + 1) % n]   # another block's element, written before the grid sync
    g.sync()
    if i == 0:
        total = float32(0)
        for j in range(n):
            total += out[j]
        partial[0] = total


@cuda.jit
def warp_reduce(x, out, counts):
    # fibers: warp shuffles and a counting barrier (the bundle's simulator part runs the block's
    # threads as fibers on the calling thread)
    tile = cuda.shared.array(4, dtype=int64)   # one partial sum per warp of a 128-thread block
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, off)
        off //= 2
    if t % 32 == 0:
        tile[t // 32] = v
    n = cuda.syncthreads_count(v > 0)
    if t == 0:
        out[cuda.blockIdx.x] = tile[0] + tile[1] + tile[2] + tile[3]
        counts[cuda.blockIdx.x] = n


@cuda.jit(device=True)
def ring_stage(tile, t, v):
    tile[t] = v
    cuda.syncthreads()
    return tile[(t + 1) % cuda.blockDim.x]


@cuda.jit
def ring(x, out):
    # fibers: a barrier inside a device function, then a counting barrier
    tile = cuda.shared.array(128, dtype=int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0
    w = ring_stage(tile, t, v)
    n = cuda.syncthreads_count(w > 0)
    if i < x.size:
        out[i] = w * 1000 + n
