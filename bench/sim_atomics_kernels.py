# Kernels of bench/sim_atomics.py: histograms with cuda.atomic.add, into global memory and through a
# shared-memory histogram per block.
from numba import cuda
import numpy as np


@cuda.jit
def histogram(x, hist):
    # every thread adds its elements' bins into the one histogram
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(hist, x[i], 1)


@cuda.jit
def histogram_shared(x, hist):
    # a histogram per block in shared memory (256 threads, 256 bins), added into the global one
    sh = cuda.shared.array(256, dtype=np.int32)
    t = cuda.threadIdx.x
    sh[t] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(sh, x[i], 1)
    cuda.syncthreads()
    cuda.atomic.add(hist, t, sh[t])
