# Stores of a scalar into a slice or a row (p2c_fill) are writes the checker sees: a local array
# filled through views is initialized (no false uninitialized read), a slice that every thread
# fills is a global-memory race, and one filled by one thread, then read after a barrier by
# the others, is clean.
#
# sanitize-run: local_rows --grid 1 --block 4 zeros:float64[4]
# sanitize-expect: clean
# sanitize-run: racy_fill --grid 1 --block 4 zeros:float64[8]
# sanitize-expect: global-memory race 31:5
# sanitize-run: shared_fill --grid 1 --block 32 zeros:float64[32]
# sanitize-expect: clean
from numba import cuda
import numpy as np


@cuda.jit
def local_rows(out):
    loc = cuda.local.array((3, 4), dtype=np.float64)
    loc[:, :] = 1.0
    loc[1] = 2.0
    s = 0.0
    for r in range(3):
        for c in range(4):
            s += loc[r, c]
    out[cuda.threadIdx.x] = s


@cuda.jit
def racy_fill(a):
    i = cuda.grid(1)
    a[0:4] = i


@cuda.jit
def shared_fill(out):
    buf = cuda.shared.array((2, 32), dtype=np.float64)
    t = cuda.threadIdx.x
    if t == 0:
        buf[0] = 3.0
        buf[1, ::2] = 1.0
        buf[1, 1::2] = 2.0
    cuda.syncthreads()
    out[t] = buf[0, t] + buf[1, t]
