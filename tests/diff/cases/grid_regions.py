# Cooperative kernels that pyk2cuda's simulator cuts at their grid syncs (docs/simulator.md, "Grid
# regions"): each run of statements between grid syncs runs for every block of the grid before
# the next one starts, so a grid of any size runs, not only the blocks fibers can hold at once.
# What a block keeps across a grid sync is what these kernels check: a thread's values (v, nxt,
# a local array), the block's shared memory (static and dynamic), uniform values (step), and
# loops and branches holding grid syncs, whose bounds are the same in every block.
#
# Numba 0.56's simulator runs a cooperative grid of one block (its sync() is a block barrier), so
# the cases in tests/diff/cases.txt launch one block against it; the same kernels run at an
# H200's occupancy (1,056 blocks of 256 threads) against NumPy in tests/gpu/cases.txt (the
# *_expected functions below) and in tests/python/test_cooperative.py.
import numpy as np
from numba import cuda, int64


@cuda.jit
def grid_sum(x, partial, out):
    # A block's tree sum in shared memory, then every thread adds every block's partial sum; its
    # own grid-stride sum (v) and the block's sum (sm[0]) are still there after the grid sync.
    sm = cuda.shared.array(256, int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    v = 0
    for k in range(i, x.shape[0], cuda.gridsize(1)):
        v += x[k]
    sm[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = sm[0]
    cuda.cg.this_grid().sync()
    total = 0
    for b in range(cuda.gridDim.x):
        total += partial[b]
    out[i, 0] = total
    out[i, 1] = v
    out[i, 2] = sm[0]


def grid_sum_expected(x, partial, out):
    threads, grid = out.shape[0], partial.shape[0]
    padded = np.zeros(-(-x.size // threads) * threads, np.int64)
    padded[:x.size] = x
    v = padded.reshape(-1, threads).sum(axis=0)
    partial[:] = v.reshape(grid, -1).sum(axis=1)
    out[:, 0] = partial.sum()
    out[:, 1] = v
    out[:, 2] = np.repeat(partial, threads // grid)


@cuda.jit
def grid_smooth(a, b, iters):
    # A loop of a parameter's count holding two grid syncs: read the neighbours, sync, write back,
    # sync; a block that ran ahead would read its neighbours' new values.
    i = cuda.grid(1)
    n = a.shape[0]
    g = cuda.cg.this_grid()
    for it in range(iters):
        if i < n:
            left = a[i - 1] if i > 0 else a[i]
            right = a[i + 1] if i + 1 < n else a[i]
            b[i] = (left + a[i] + right) // 3 + it
        g.sync()
        if i < n:
            a[i] = b[i]
        g.sync()


def grid_smooth_expected(a, b, iters):
    for it in range(iters):
        left = np.concatenate([a[:1], a[:-1]])
        right = np.concatenate([a[1:], a[-1:]])
        b[:] = (left + a + right) // 3 + it
        a[:] = b


@cuda.jit
def grid_scan(x):
    # An inclusive prefix sum over the whole grid (Hillis and Steele): a while loop holding grid
    # syncs, its stride the same in every block; v, read before a grid sync, added after it.
    i = cuda.grid(1)
    n = x.shape[0]
    g = cuda.cg.this_grid()
    step = 1
    while step < n:
        v = 0
        if i < n and i >= step:
            v = x[i - step]
        g.sync()
        if i < n:
            x[i] += v
        g.sync()
        step *= 2


def grid_scan_expected(x):
    x[:] = np.cumsum(x)


@cuda.jit
def grid_dynamic(x, out):
    # The block's dynamic shared memory and the thread's local array, written before a grid sync
    # and read after it (the neighbour's element of the shared memory; blocks of an even size).
    dyn = cuda.shared.array(0, int64)
    loc = cuda.local.array(3, int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    dyn[tid] = x[i] * 2
    for k in range(3):
        loc[k] = x[i] + k
    cuda.cg.this_grid().sync()
    out[i] = dyn[tid ^ 1] + loc[0] + loc[1] + loc[2]


def grid_dynamic_expected(x, out):
    neighbours = x.reshape(-1, 2)[:, ::-1].reshape(-1)
    out[:] = neighbours * 2 + 3 * x + 3


@cuda.jit
def grid_blocks_2d(out, flag):
    # A 2-D grid of 2-D blocks; a branch on a parameter holding a grid sync (once per grid); each
    # block reads the next block's number, written before the first grid sync, and keeps it across
    # the second.
    g = cuda.cg.this_grid()
    t = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
    nb = cuda.gridDim.x * cuda.gridDim.y
    b = cuda.blockIdx.x + cuda.blockIdx.y * cuda.gridDim.x
    if t == 0:
        out[b, 0] = b
    g.sync()
    if flag > 0:
        nxt = out[(b + 1) % nb, 0]
        g.sync()
        if t == 1:
            out[b, 1] = nxt * 100000 + cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x
    else:
        if t == 1:
            out[b, 1] = -1


def grid_blocks_2d_expected(out, flag):
    nb = out.shape[0]
    b = np.arange(nb)
    out[:, 0] = b
    out[:, 1] = (b + 1) % nb * 100000 + b if flag > 0 else -1
