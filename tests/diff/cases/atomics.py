# cuda.atomic.*: every operation on global and shared arrays, scalar and tuple indices,
# return values ignored and used. Every result is independent of the order in which threads
# run: integer sums, max/min and bit operations commute; float sums add integer multiples of
# 1/8, so each partial sum is exact; exch, inc, dec and cas are checked through the multiset
# of values they return, counted in histograms. Numba 0.56's simulator has no cuda.atomic.cas
# (only compare_and_swap): cas_add compares with cas_add_expected, computed with NumPy.
import math

from numba import cuda
import numpy as np


@cuda.jit
def arith(x, r):
    """add, sub, max, min, nanmax, nanmin into r[0..5] (r starts with arbitrary values)."""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.add(r, 0, v)
        cuda.atomic.sub(r, 1, v)
        cuda.atomic.max(r, 2, v)
        cuda.atomic.min(r, 3, v)
        cuda.atomic.nanmax(r, 4, v)
        cuda.atomic.nanmin(r, 5, v)


@cuda.jit
def arith_float(x, r):
    """The same on floats, with values rounded to multiples of 1/8 so that sums are exact."""
    i = cuda.grid(1)
    if i < x.size:
        v = math.floor(x[i] * 8.0) / 8.0
        cuda.atomic.add(r, 0, v)
        cuda.atomic.sub(r, 1, v)
        cuda.atomic.max(r, 2, v)
        cuda.atomic.min(r, 3, v)
        cuda.atomic.nanmax(r, 4, v)
        cuda.atomic.nanmin(r, 5, v)


@cuda.jit
def bitwise(x, r):
    """and_, or_, xor over the inputs; r starts with arbitrary bits."""
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.and_(r, 0, x[i])
        cuda.atomic.or_(r, 1, x[i])
        cuda.atomic.xor(r, 2, x[i])


@cuda.jit
def nan_rules(x, r):
    """Numba's NaN rules for float max/min (one block): max and min leave a NaN element alone
    and ignore a NaN value; nanmax and nanmin replace a NaN element and ignore a NaN value."""
    i = cuda.threadIdx.x
    if i == 0:
        for k in range(4):
            r[k] = math.nan
        r[4] = -1.0
        r[5] = 1.0
        r[6] = 0.0
        r[7] = 0.0
    cuda.syncthreads()
    v = x[i]
    if i % 7 == 3:
        v = math.nan
    cuda.atomic.max(r, 0, v)
    cuda.atomic.min(r, 1, v)
    cuda.atomic.nanmax(r, 2, v)
    cuda.atomic.nanmin(r, 3, v)
    cuda.atomic.max(r, 4, v)
    cuda.atomic.min(r, 5, v)
    cuda.atomic.nanmax(r, 6, v)
    cuda.atomic.nanmin(r, 7, v)


@cuda.jit
def tickets(n, counter, taken):
    """Return value used: every thread draws a distinct ticket from a counter."""
    i = cuda.grid(1)
    if i < n:
        t = cuda.atomic.add(counter, 0, 1)
        cuda.atomic.add(taken, t, 1)


@cuda.jit
def wrap(ctr, inc_olds, dec_olds):
    """inc wraps to 0 past its limit, dec wraps to its limit below 0: the returned old values
    form the same multiset in any order."""
    i = cuda.grid(1)
    if i < 50:
        old = cuda.atomic.inc(ctr, 0, 9)
        cuda.atomic.add(inc_olds, old, 1)
        old2 = cuda.atomic.dec(ctr, 1, 6)
        cuda.atomic.add(dec_olds, old2, 1)
        cuda.atomic.inc(ctr, 2, 1000)


@cuda.jit
def exch_cas(box, seen, lock, wins):
    """One block: exch hands every value on exactly once; compare_and_swap has one winner."""
    i = cuda.threadIdx.x
    old = cuda.atomic.exch(box, 0, i + 1)
    cuda.atomic.add(seen, old, 1)
    if cuda.atomic.compare_and_swap(lock, 0, i + 1) == 0:
        cuda.atomic.add(wins, 0, 1)
    cuda.syncthreads()
    if i == 0:
        cuda.atomic.add(seen, box[0], 1)
        box[0] = 0
        lock[0] = 1 if lock[0] != 0 else 0


@cuda.jit
def indices(x, grid2, hist2, mx, neg):
    """Tuple indices: a literal tuple, a tuple variable, cuda.grid(2); negative indices wrap."""
    i, j = cuda.grid(2)
    if i < grid2.shape[0] and j < grid2.shape[1]:
        cuda.atomic.add(grid2, cuda.grid(2), 1)
        v = x[i, j]
        cuda.atomic.add(hist2, (v % 3, v // 3 % 4), 1)
        ix = (j % 2, i % 5)
        cuda.atomic.max(mx, ix, v)
        cuda.atomic.add(neg, -1, 1)
        cuda.atomic.add(neg, (-(j % 3) - 1,), v)


@cuda.jit
def shared_hist(x, hist, hist2):
    """Atomics on shared memory (1-D and 2-D), then merged into global memory."""
    sh = cuda.shared.array(16, np.int32)
    sh2 = cuda.shared.array((4, 4), np.uint32)
    t = cuda.threadIdx.x
    if t < 16:
        sh[t] = 0
        sh2[t // 4, t % 4] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(sh, x[i] % 16, 1)
        cuda.atomic.add(sh2, (x[i] % 4, x[i] // 4 % 4), 2)
    cuda.syncthreads()
    if t < 16:
        cuda.atomic.add(hist, t, sh[t])
        cuda.atomic.add(hist2, (t // 4, t % 4), sh2[t // 4, t % 4])


@cuda.jit
def cas_add(a, x):
    """A lock-free add through cuda.atomic.cas(array, index, old, value) on a 2-D array."""
    i = cuda.grid(1)
    if i < x.size:
        r = i % a.shape[0]
        c = i % a.shape[1]
        while True:
            old = a[r, c]
            if cuda.atomic.cas(a, (r, c), old, old + x[i]) == old:
                break


def cas_add_expected(a, x):
    for i in range(x.size):
        a[i % a.shape[0], i % a.shape[1]] += x[i]
