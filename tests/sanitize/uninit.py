# Shared and local memory read before anything was written there: a block's partial sums
# accumulated into shared memory that was never zeroed (static and dynamic shared arrays), and
# a local array summed before it is filled.
#
# sanitize-run: buggy_static --grid 2 --block 32 arange:float32[64] zeros:float32[64]
# sanitize-expect: uninitialized read 34:5
# sanitize-run: fixed_static --grid 2 --block 32 arange:float32[64] zeros:float32[64]
# sanitize-expect: clean
# sanitize-run: buggy_dynamic --grid 2 --block 32 --shared 128 arange:float32[64] zeros:float32[64]
# sanitize-expect: uninitialized read 54:25
# sanitize-run: fixed_dynamic --grid 2 --block 32 --shared 128 arange:float32[64] zeros:float32[64]
# sanitize-expect: clean
# sanitize-run: buggy_local --grid 1 --block 16 arange:float32[16] zeros:float32[16]
# sanitize-expect: uninitialized read 77:14
# sanitize-run: fixed_local --grid 1 --block 16 arange:float32[16] zeros:float32[16]
# sanitize-expect: clean
from numba import cuda
import numpy as np


@cuda.jit
def fixed_static(x, out):
    acc = cuda.shared.array(32, dtype=np.float32)
    t = cuda.threadIdx.x
    acc[t] = 0
    acc[t] += x[cuda.grid(1)]
    out[cuda.grid(1)] = acc[t]


@cuda.jit
def buggy_static(x, out):
    acc = cuda.shared.array(32, dtype=np.float32)
    t = cuda.threadIdx.x
    acc[t] += x[cuda.grid(1)]
    out[cuda.grid(1)] = acc[t]


@cuda.jit
def fixed_dynamic(x, out):
    acc = cuda.shared.array(0, dtype=np.float32)
    t = cuda.threadIdx.x
    acc[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = acc[(t + 1) % 32]


@cuda.jit
def buggy_dynamic(x, out):
    acc = cuda.shared.array(0, dtype=np.float32)
    t = cuda.threadIdx.x
    if t < 16:
        acc[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = acc[(t + 1) % 32]


@cuda.jit
def fixed_local(x, out):
    tmp = cuda.local.array(4, dtype=np.float32)
    i = cuda.grid(1)
    for k in range(4):
        tmp[k] = x[i] * k
    s = 0.0
    for k in range(4):
        s += tmp[k]
    out[i] = s


@cuda.jit
def buggy_local(x, out):
    tmp = cuda.local.array(4, dtype=np.float32)
    i = cuda.grid(1)
    for k in range(3):
        tmp[k] = x[i] * k
    s = 0.0
    for k in range(4):
        s += tmp[k]
    out[i] = s
