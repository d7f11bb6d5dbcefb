# normalize_pinned.py -- scale an array so its elements sum to 1, with three kernels (partial
# sums reduced in shared memory, a one-thread total, an in-place divide), pinned host memory
# and device arrays that stay on the device between the kernels.
# Run: python3 samples/python/normalize_pinned.py
import sys

import numpy as np
from pyk2cuda import cuda, float32

TPB = 256


@cuda.jit
def partial_sums(x, partials):
    buf = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[k]
    buf[tid] = acc
    cuda.syncthreads()
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
        acc = float32(0.0)
        for k in range(partials.size):
            acc += partials[k]
        total[0] = acc


@cuda.jit
def divide(x, total):
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        x[k] /= total[0]


n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
blocks = 16
host = cuda.pinned_array(n, dtype=np.float32)
host[:] = np.random.default_rng(7).random(n, dtype=np.float32)
original = host.copy()
stream = cuda.stream()
d_x = cuda.to_device(host, stream=stream)
d_partials = cuda.device_array(blocks, dtype=np.float32)
d_total = cuda.device_array(1, dtype=np.float32)
partial_sums[blocks, TPB, stream](d_x, d_partials)
total_sum[1, 1, stream](d_partials, d_total)
divide[blocks, TPB, stream](d_x, d_total)
d_x.copy_to_host(host, stream=stream)
stream.synchronize()

total = d_total.copy_to_host()[0]
assert np.isclose(total, original.astype(np.float64).sum(), rtol=1e-4), total
assert np.allclose(host, original / total, rtol=1e-6)
assert abs(host.astype(np.float64).sum() - 1.0) < 1e-3
print("normalize_pinned: ok (sum %.6f)" % host.astype(np.float64).sum())
