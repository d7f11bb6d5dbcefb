# Kernels of the GPU benchmarks (bench/gpu.c) that are not samples.
from numba import cuda, float32


@cuda.jit
def empty():
    pass


@cuda.jit
def copy(dst, src):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i]


@cuda.jit
def block_sum(x, out):
    # A grid-stride sum into shared memory, then a tree reduction over the block.
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
