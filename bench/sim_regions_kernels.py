# Kernels of bench/sim_regions.py: a block reduction with shared memory (its tree in the kernel,
# and in a device function), a warp-shuffle reduction, and the tiled and naive matrix multiplies,
# all float32.
from numba import cuda, float32
import numpy as np

TPB = 16   # matmul tile


@cuda.jit
def block_sum(x, out):
    # bench/kernels.py's: a grid-stride sum into shared memory, then a tree over the block.
    buf = cuda.shared.array(256, dtype=float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        acc += x[i]
    buf[tid] = acc
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = buf[0]


@cuda.jit(device=True)
def tree_sum(buf, tid):
    # block_sum's tree as a device function: its barriers are the kernel's once inlined
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    return buf[0]


@cuda.jit
def block_sum_dev(x, out):
    # block_sum with its tree in a device function (regions inline it: docs/simulator.md)
    buf = cuda.shared.array(256, dtype=float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        acc += x[i]
    buf[tid] = acc
    cuda.syncthreads()
    total = tree_sum(buf, tid)
    if tid == 0:
        out[cuda.blockIdx.x] = total


@cuda.jit
def warp_sum(x, out):
    # a grid-stride sum per thread, then a shuffle tree per warp (regions: docs/simulator.md)
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        acc += x[i]
    off = 16
    while off > 0:
        acc += cuda.shfl_down_sync(0xffffffff, acc, off)
        off //= 2
    if cuda.threadIdx.x % 32 == 0:
        out[cuda.grid(1) // 32] = acc


@cuda.jit
def tiled_matmul(A, B, C):
    # samples/matmul.py's
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)
    col, row = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    M, K = A.shape
    N = B.shape[1]
    acc = np.float32(0.0)
    for t in range((K + TPB - 1) // TPB):
        k = t * TPB + tx
        if row < M and k < K:
            sA[ty, tx] = A[row, k]
        else:
            sA[ty, tx] = 0.0
        k = t * TPB + ty
        if k < K and col < N:
            sB[ty, tx] = B[k, col]
        else:
            sB[ty, tx] = 0.0
        cuda.syncthreads()
        for kk in range(TPB):
            acc += sA[ty, kk] * sB[kk, tx]
        cuda.syncthreads()
    if row < M and col < N:
        C[row, col] = acc


@cuda.jit
def naive_matmul(A, B, C):
    col, row = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = np.float32(0.0)
        for k in range(A.shape[1]):
            acc += A[row, k] * B[k, col]
        C[row, col] = acc
