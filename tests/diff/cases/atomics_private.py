# Atomics the simulator runs on a worker's private copy of the array (docs/simulator.md,
# "Atomics"): array parameters used only by atomic statements of one integer operation whose
# results are unused. Each kernel runs enough blocks for several chunks on every worker, in
# grid-stride loops (the lockstep entry), in plain blocks and as regions; each result is
# independent of the order in which threads run, so it must equal Numba's exactly.
from numba import cuda
import numpy as np


@cuda.jit
def ops(x, add, sub, and_, or_, xor, mx, mn):
    """One array per operation, bins picked by the data; every array starts with arbitrary
    values (so the identity of each operation is tested against real contents)."""
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        v = x[i]
        b = i % add.shape[0]
        cuda.atomic.add(add, b, v)
        cuda.atomic.sub(sub, b, v)
        cuda.atomic.and_(and_, b, v)
        cuda.atomic.or_(or_, b, v)
        cuda.atomic.xor(xor, b, v)
        cuda.atomic.max(mx, b, v)
        cuda.atomic.nanmin(mn, b, v)


@cuda.jit
def hist_plain(x, hist, hist2):
    """One element per thread (no loop): a 1-D histogram whose bin count comes from its shape,
    and a 2-D one with tuple indices; adds and subs mixed on the same array."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        cuda.atomic.add(hist, v % len(hist), 1)
        cuda.atomic.sub(hist, (v + 1) % hist.shape[0], 2)
        cuda.atomic.add(hist2, (v % hist2.shape[0], v // 7 % hist2.shape[1]), v)


@cuda.jit
def hist_regions(x, hist, out):
    """A kernel with barriers (regions): a block sum in shared memory, then bins in the global
    histogram; out is also written plainly, so it stays shared."""
    buf = cuda.shared.array(32, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.shape[0] else 0
    buf[t] = v
    cuda.syncthreads()
    if t == 0:
        s = 0
        for k in range(32):
            s += buf[k]
        out[cuda.blockIdx.x] = s
    cuda.atomic.add(hist, v % hist.shape[0], 1)
    cuda.atomic.max(out, 0, v)


@cuda.jit
def kept_shared(x, hist, seen):
    """Not privatized: hist's old values are used, and seen is read."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        old = cuda.atomic.add(hist, x[i] % hist.shape[0], 1)
        cuda.atomic.add(seen, old % seen.shape[0], 1)
        if seen[0] < 0:
            seen[1] = 0
