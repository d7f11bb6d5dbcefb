# Shared memory with cuda.syncthreads(): a tree reduction (sum) per block in int64,
# a float32 min/max reduction with two shared arrays, and a 2-D shared tile (numba dtype
# from `from numba import float32`) used to transpose a matrix.
from numba import cuda, float32, int32, uint8
import numpy as np

TPB = 64          # threads per block of the 1-D reductions
TILE = 8          # tile size of the transpose


@cuda.jit
def block_sum(x, out):
    buf = cuda.shared.array(TPB, dtype=np.int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = x[i] if i < x.size else 0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = buf[0]


@cuda.jit
def block_minmax(x, mins, maxs):
    lo = cuda.shared.array(TPB, dtype=np.float32)
    hi = cuda.shared.array(TPB, dtype=np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        lo[tid] = x[i]
        hi[tid] = x[i]
    else:
        lo[tid] = 1e30
        hi[tid] = -1e30
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            lo[tid] = min(lo[tid], lo[tid + s])
            hi[tid] = max(hi[tid], hi[tid + s])
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        mins[cuda.blockIdx.x] = lo[0]
        maxs[cuda.blockIdx.x] = hi[0]


@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, TILE + 1), dtype=float32)   # +1 avoids bank conflicts
    n, m = a.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    if row < n and col < m:
        tile[ty, tx] = a[row, col]
    cuda.syncthreads()
    # the block's tile is written out transposed
    ocol = cuda.blockIdx.y * TILE + tx
    orow = cuda.blockIdx.x * TILE + ty
    if orow < m and ocol < n:
        out[orow, ocol] = tile[tx, ty]


@cuda.jit
def narrow_thread_index(out, u):
    """A thread index narrowed to uint8 wraps in a block of 512 threads: `if tid < u` and
    `if tid == u` then hold for threads past 256 too, so the simulator's regions may not run
    only the first u threads (docs/simulator.md, "Regions")."""
    sm = cuda.shared.array(512, int32)
    t = cuda.threadIdx.x
    tid = uint8(t)
    sm[t] = 0
    cuda.syncthreads()
    if tid < u:
        sm[t] = 1 + t
    cuda.syncthreads()
    if tid == u:
        sm[t] = -1
    cuda.syncthreads()
    out[cuda.blockIdx.x * cuda.blockDim.x + t] = sm[t]


@cuda.jit
def dtype_of_array(x, out):
    # shared and local arrays of the argument's dtype (a.dtype as the dtype argument): each
    # specialization's arrays hold its own element type
    buf = cuda.shared.array(TPB, dtype=x.dtype)
    tmp = cuda.local.array(4, x.dtype)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = x[i] if i < x.size else 0
    for k in range(4):
        tmp[k] = buf[tid] * (k + 1)
    cuda.syncthreads()
    if i < x.size:
        out[i] = tmp[3] - buf[(tid + 1) % TPB]
