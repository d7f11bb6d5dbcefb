# The "last block" pattern: each block writes its partial result, fences (cuda.threadfence) and
# counts itself with an atomic; the block that counts last reads every partial result. CUDA's
# memory model orders those reads after the other blocks' writes through the fence and the two
# atomics on the counter (docs/simulator.md, "Sanitizer", threadfence): no race.
#
# last_block: thread 0 writes, fences, counts; the last block's thread 0 reads.
# sanitize-run: last_block --grid 4 --block 32 arange:float32[128] zeros:float32[4] zeros:uint32[1] zeros:float32[1]
# sanitize-expect: clean
#
# other_threads: thread 31 writes the partial result before the block's barrier, thread 0 fences
# and counts after it; in the last block thread 0 counts and thread 5 reads after a barrier.
# sanitize-run: other_threads --grid 4 --block 32 arange:float32[128] zeros:float32[4] zeros:uint32[1] zeros:float32[1]
# sanitize-expect: clean
#
# no_fence: the same without the fence: the atomics alone publish nothing.
# sanitize-run: no_fence --grid 4 --block 32 arange:float32[128] zeros:float32[4] zeros:uint32[1] zeros:float32[1]
# sanitize-expect: global-memory race 92:23 86:9
#
# peek: each block reads the block before's partial result before its own atomic: nothing
# orders that read after the write.
# sanitize-run: peek --grid 4 --block 32 zeros:float32[4] zeros:uint32[1] zeros:float32[4]
# sanitize-expect: global-memory race 100:22 101:9
from numba import cuda
import numpy as np


@cuda.jit
def last_block(x, partial, count, out):
    s = cuda.shared.array(32, dtype=np.float32)
    last = cuda.shared.array(1, dtype=np.int32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        acc = np.float32(0)
        for k in range(32):
            acc += s[k]
        partial[b] = acc
        cuda.threadfence()
        done = cuda.atomic.add(count, 0, 1)
        last[0] = 1 if done == cuda.gridDim.x - 1 else 0
    cuda.syncthreads()
    if last[0] == 1 and t == 0:
        total = np.float32(0)
        for k in range(cuda.gridDim.x):
            total += partial[k]
        out[0] = total


@cuda.jit
def other_threads(x, partial, count, out):
    s = cuda.shared.array(32, dtype=np.float32)
    last = cuda.shared.array(1, dtype=np.int32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 31:
        acc = np.float32(0)
        for k in range(32):
            acc += s[k]
        partial[b] = acc
    cuda.syncthreads()
    if t == 0:
        cuda.threadfence()
        done = cuda.atomic.add(count, 0, 1)
        last[0] = 1 if done == cuda.gridDim.x - 1 else 0
    cuda.syncthreads()
    if last[0] == 1 and t == 5:
        total = np.float32(0)
        for k in range(cuda.gridDim.x):
            total += partial[k]
        out[0] = total


@cuda.jit
def no_fence(x, partial, count, out):
    s = cuda.shared.array(32, dtype=np.float32)
    last = cuda.shared.array(1, dtype=np.int32)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    s[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        partial[b] = s[0] + s[31]
        done = cuda.atomic.add(count, 0, 1)
        last[0] = 1 if done == cuda.gridDim.x - 1 else 0
    cuda.syncthreads()
    if last[0] == 1 and t == 0:
        for k in range(cuda.gridDim.x):
            out[0] += partial[k]


@cuda.jit
def peek(partial, count, out):
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        if b > 0:
            out[b] = partial[b - 1]
        partial[b] = b + 1.0
        cuda.threadfence()
        cuda.atomic.add(count, 0, 1)
