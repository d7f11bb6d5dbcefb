# normalize.py -- scale a float32 array so that its elements sum to 1.
#
# Shows three kernels launched one after the other:
#   partial_sums  a grid-stride loop (cuda.gridsize) that accumulates in a
#                 register, then a tree reduction in shared memory with
#                 cuda.syncthreads(); thread 0 of each block writes one
#                 partial sum per block,
#   total_sum     a single thread adds up the partial sums
#                 (`for k in range(partials.size)`),
#   divide        an in-place, grid-stride divide by the total.
# np.float32(...) keeps the accumulators in single precision.
#
# Run it with pyk2cuda, one kernel per command (here on 10000 ones, 8 blocks):
#   pyk2cuda run samples/normalize.py partial_sums --grid 8 --block 256 ones:float32[10000] zeros:float32[8]
#   pyk2cuda run samples/normalize.py total_sum --grid 1 --block 1 partials.npy zeros:float32[1]
#   pyk2cuda run samples/normalize.py divide --grid 8 --block 256 ones:float32[10000] total.npy
# (each command writes its array parameters to <parameter name>.npy, so the
# second and third commands read what the previous ones wrote.)
# Run it with Numba's CUDA simulator (no GPU needed):
#   NUMBA_ENABLE_CUDASIM=1 python3 samples/normalize.py

from numba import cuda
import numpy as np

TPB = 256   # threads per block; also the size of the shared buffer


@cuda.jit
def partial_sums(x, partials):
    buf = cuda.shared.array(TPB, dtype=np.float32)
    tid = cuda.threadIdx.x

    # Grid-stride loop: each thread sums every gridsize-th element.
    acc = np.float32(0.0)
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(start, x.size, stride):
        acc += x[k]
    buf[tid] = acc
    cuda.syncthreads()

    # Tree reduction in shared memory: halve the active threads each step.
    s = TPB // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2

    if tid == 0:
        partials[cuda.blockIdx.x] = buf[0]


@cuda.jit
def total_sum(partials, total):
    if cuda.grid(1) == 0:
        acc = np.float32(0.0)
        for k in range(partials.size):
            acc += partials[k]
        total[0] = acc


@cuda.jit
def divide(x, total):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(start, x.size, stride):
        x[k] /= total[0]


if __name__ == "__main__":
    rng = np.random.default_rng(7)
    n = 5000
    x = rng.random(n, dtype=np.float32)
    original = x.copy()

    blocks = 4
    partials = np.zeros(blocks, dtype=np.float32)
    total = np.zeros(1, dtype=np.float32)

    partial_sums[blocks, TPB](x, partials)
    total_sum[1, 1](partials, total)
    divide[blocks, TPB](x, total)

    expected_total = original.astype(np.float64).sum()
    assert np.isclose(total[0], expected_total, rtol=1e-5), (total[0], expected_total)
    assert np.allclose(x, original / total[0], rtol=1e-6), x
    assert abs(x.astype(np.float64).sum() - 1.0) < 1e-4, x.sum()
    print("normalize: ok")
