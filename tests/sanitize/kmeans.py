# The k-means-style write-after-read race: thread 0 puts each centroid into shared memory in
# turn and the block compares its points with it, but nothing stops thread 0 from writing the
# next centroid while other threads still read the last one.
#
# sanitize-run: buggy --grid 2 --block 64 arange:float32[128] arange:float32[4] zeros:float32[128]
# sanitize-expect: shared-memory race 38:29 36:13
# sanitize-run: fixed --grid 2 --block 64 arange:float32[128] arange:float32[4] zeros:float32[128]
# sanitize-expect: clean
from numba import cuda
import numpy as np


@cuda.jit
def fixed(points, centroids, nearest):
    c = cuda.shared.array(1, dtype=np.float32)
    i = cuda.grid(1)
    best = 1e30
    for k in range(centroids.shape[0]):
        if cuda.threadIdx.x == 0:
            c[0] = centroids[k]
        cuda.syncthreads()
        d = abs(points[i] - c[0])
        if d < best:
            best = d
        cuda.syncthreads()   # every thread has read c[0] before thread 0 writes the next one
    nearest[i] = best


@cuda.jit
def buggy(points, centroids, nearest):
    c = cuda.shared.array(1, dtype=np.float32)
    i = cuda.grid(1)
    best = 1e30
    for k in range(centroids.shape[0]):
        if cuda.threadIdx.x == 0:
            c[0] = centroids[k]
        cuda.syncthreads()
        d = abs(points[i] - c[0])
        if d < best:
            best = d
    nearest[i] = best
