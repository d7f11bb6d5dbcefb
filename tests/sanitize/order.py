# Races that the simulator's own order hides: it runs the threads of a block one after another
# (x fastest) up to each barrier or warp operation, and the blocks one after another, so in
# each kernel below the access that would expose the race in a checker that only looks back at
# the last write runs first. A GPU may run them the other way round: each must be found.
#
# war_shared: thread 0 reads s[0] before thread 63 overwrites it (no barrier between).
# sanitize-run: war_shared --grid 1 --block 64 zeros:float32[64]
# sanitize-expect: shared-memory race 42:13 44:9
# sanitize-run: war_shared_fixed --grid 1 --block 64 zeros:float32[64]
# sanitize-expect: clean
#
# war_blocks: block 0 reads x[0], which block 3 writes later; blocks are never ordered.
# sanitize-run: war_blocks --grid 4 --block 32 arange:float32[4] zeros:float32[128]
# sanitize-expect: global-memory race 68:18 70:9
#
# raw_reversed: thread 1 fills s[0], thread 0 reads it with no barrier between; in the
# simulator the read runs first and sees nothing written, but that is the race, not an
# uninitialized read (a GPU may run thread 1 first).
# sanitize-run: raw_reversed --grid 1 --block 32 zeros:float32[32]
# sanitize-expect: shared-memory race 80:18 78:9
#
# readers_other_warp: threads 1 and 2 (warp 0) and 40 (warp 1) read s[0]; after a syncwarp,
# thread 1 overwrites it. The syncwarp orders the write after the reads of warp 0, not after
# thread 40's: the race is with thread 40, whose read the simulator ran last.
# sanitize-run: readers_other_warp --grid 1 --block 64 zeros:float32[64]
# sanitize-expect: shared-memory race 95:9 92:13
# sanitize-run: readers_other_warp_fixed --grid 1 --block 64 zeros:float32[64]
# sanitize-expect: clean
from numba import cuda
import numpy as np


@cuda.jit
def war_shared(out):
    s = cuda.shared.array(1, dtype=np.float32)
    t = cuda.threadIdx.x
    if t == 5:
        s[0] = 1.0
    cuda.syncthreads()
    v = 0.0
    if t == 0:
        v = s[0]
    if t == 63:
        s[0] = 2.0
    out[t] = v


@cuda.jit
def war_shared_fixed(out):
    s = cuda.shared.array(1, dtype=np.float32)
    t = cuda.threadIdx.x
    if t == 5:
        s[0] = 1.0
    cuda.syncthreads()
    v = 0.0
    if t == 0:
        v = s[0]
    cuda.syncthreads()
    if t == 63:
        s[0] = 2.0
    out[t] = v


@cuda.jit
def war_blocks(x, out):
    i = cuda.grid(1)
    if cuda.blockIdx.x == 0 and cuda.threadIdx.x == 0:
        out[i] = x[0]
    if cuda.blockIdx.x == 3 and cuda.threadIdx.x == 0:
        x[0] = 5.0


@cuda.jit
def raw_reversed(out):
    s = cuda.shared.array(1, dtype=np.float32)
    t = cuda.threadIdx.x
    if t == 1:
        s[0] = 1.0
    if t == 0:
        out[0] = s[0]


@cuda.jit
def readers_other_warp(out):
    s = cuda.shared.array(1, dtype=np.float32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 1.0
    cuda.syncthreads()
    v = 0.0
    if t == 1 or t == 2 or t == 40:
        v = s[0]
    cuda.syncwarp()
    if t == 1:
        s[0] = 2.0
    out[t] = v


@cuda.jit
def readers_other_warp_fixed(out):
    s = cuda.shared.array(1, dtype=np.float32)
    t = cuda.threadIdx.x
    if t == 0:
        s[0] = 1.0
    cuda.syncthreads()
    v = 0.0
    if t == 1 or t == 2 or t == 40:
        v = s[0]
    cuda.syncthreads()
    if t == 1:
        s[0] = 2.0
    out[t] = v
