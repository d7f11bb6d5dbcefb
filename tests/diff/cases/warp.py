# Warp operations: shuffles, votes, match, activemask, lanemask_lt, syncwarp. Numba 0.56's
# simulator has none of them (only cuda.laneid and cuda.warpsize: lane_ids is compared with
# it), so each other kernel has a *_expected function computing the result with NumPy from CUDA's definitions: a warp is 32
# consecutive threads in linear order (x fastest), a shuffle reads another lane's value or,
# when that lane is out of range, returns the thread's own. Results do not depend on the order
# in which lanes run. Every warp here is full except in partial_warp (a block of 48 threads:
# its second warp has 16 lanes, and the lanes that do not exist take no part).
from numba import cuda
import numpy as np

FULL = 0xffffffff


def warps(n):
    """(first thread, lanes) of each warp of a block of n threads, linear order."""
    return [(w, min(32, n - w)) for w in range(0, n, 32)]


def as_i32(bits):
    return np.int64(np.uint32(bits).astype(np.int32))


@cuda.jit
def shuffles(x, out):
    i = cuda.grid(1)
    v = x[i]
    lane = cuda.laneid
    out[i, 0] = cuda.shfl_sync(FULL, v, (lane * 7 + 3) % 32)
    out[i, 1] = cuda.shfl_up_sync(FULL, v, 3)
    out[i, 2] = cuda.shfl_down_sync(FULL, v, 5)
    out[i, 3] = cuda.shfl_xor_sync(FULL, v, 6)
    out[i, 4] = cuda.shfl_sync(FULL, v, lane + 32)   # the source lane is taken modulo 32
    out[i, 5] = cuda.shfl_xor_sync(FULL, v, 37)      # 37 ^ lane is beyond the warp: own value


def shuffles_expected(x, out):
    for b in range(0, x.size, 32):
        v = x[b:b + 32]
        for lane in range(32):
            out[b + lane, 0] = v[(lane * 7 + 3) % 32]
            out[b + lane, 1] = v[lane - 3] if lane >= 3 else v[lane]
            out[b + lane, 2] = v[lane + 5] if lane + 5 < 32 else v[lane]
            out[b + lane, 3] = v[lane ^ 6]
            out[b + lane, 4] = v[lane]
            out[b + lane, 5] = v[lane]


@cuda.jit
def warp_reduce(x, sums, maxes):
    """A tree sum with shfl_down_sync (lane 0 holds it) and a butterfly max with
    shfl_xor_sync (every lane holds it)."""
    i = cuda.grid(1)
    s = x[i]
    m = x[i]
    off = 16
    while off > 0:
        s += cuda.shfl_down_sync(FULL, s, off)
        m = max(m, cuda.shfl_xor_sync(FULL, m, off))
        off //= 2
    if cuda.laneid == 0:
        sums[i // 32] = s
    maxes[i] = m


def warp_reduce_expected(x, sums, maxes):
    for w in range(x.size // 32):
        sums[w] = x[w * 32:(w + 1) * 32].sum()
        maxes[w * 32:(w + 1) * 32] = x[w * 32:(w + 1) * 32].max()


@cuda.jit
def votes(x, out):
    i = cuda.grid(1)
    lane = cuda.laneid
    p = x[i] > 0
    out[i, 0] = cuda.all_sync(FULL, p)
    out[i, 1] = cuda.any_sync(FULL, x[i] > 80)
    out[i, 2] = cuda.eq_sync(FULL, p)
    out[i, 3] = cuda.ballot_sync(FULL, p)
    out[i, 4] = cuda.all_sync(FULL, x[i] > -1000)
    out[i, 5] = cuda.eq_sync(FULL, x[i] > -1000)
    if lane < 16:
        out[i, 6] = cuda.ballot_sync(0x0000ffff, p)
    else:
        out[i, 6] = cuda.any_sync(0xffff0000, p)
    out[i, 7] = cuda.activemask()


def votes_expected(x, out):
    for b in range(0, x.size, 32):
        v = x[b:b + 32]
        p = v > 0
        ballot = sum(1 << k for k in range(32) if p[k])
        lo = sum(1 << k for k in range(16) if p[k])
        for lane in range(32):
            o = out[b + lane]
            o[0] = p.all()
            o[1] = (v > 80).any()
            o[2] = p.all() or not p.any()
            o[3] = as_i32(ballot)
            o[4] = 1
            o[5] = 1
            o[6] = lo if lane < 16 else p[16:].any()
            o[7] = 0xffffffff


@cuda.jit
def matches(x, out):
    i = cuda.grid(1)
    v = x[i] % 4
    out[i, 0] = cuda.match_any_sync(FULL, v)
    m, p = cuda.match_all_sync(FULL, v)
    out[i, 1] = m
    out[i, 2] = p
    m2, p2 = cuda.match_all_sync(FULL, cuda.threadIdx.x // 32)
    out[i, 3] = m2
    out[i, 4] = p2
    out[i, 5] = cuda.match_any_sync(FULL, np.float32(v) * np.float32(0.5))
    out[i, 6] = cuda.match_all_sync(FULL, x[i] * 0 + 7)[1]


def matches_expected(x, out):
    for b in range(0, x.size, 32):
        v = x[b:b + 32] % 4
        for lane in range(32):
            same = sum(1 << k for k in range(32) if v[k] == v[lane])
            o = out[b + lane]
            o[0] = as_i32(same)
            alike = (v == v[0]).all()
            o[1] = as_i32(0xffffffff) if alike else 0
            o[2] = alike
            o[3] = -1
            o[4] = 1
            o[5] = as_i32(same)
            o[6] = 1


@cuda.jit
def lanes(out):
    """laneid, lanemask_lt and warpsize in a 2-D block: lanes follow the linear thread index."""
    x, y = cuda.grid(2)
    t = cuda.threadIdx.x + cuda.blockDim.x * cuda.threadIdx.y
    out[y, x, 0] = cuda.laneid
    out[y, x, 1] = cuda.lanemask_lt()
    out[y, x, 2] = cuda.warpsize
    out[y, x, 3] = cuda.shfl_sync(FULL, t, 0)


def lanes_expected(out):
    h, w = out.shape[0], out.shape[1]
    for y in range(h):
        for x in range(w):
            t = x + w * y   # one block covers the grid here
            out[y, x] = (t % 32, (1 << (t % 32)) - 1, 32, t - t % 32)


@cuda.jit
def lane_ids(out):
    """cuda.laneid and cuda.warpsize, which Numba 0.56's simulator has: compared with it."""
    x, y, z = cuda.grid(3)
    out[z, y, x, 0] = cuda.laneid
    out[z, y, x, 1] = cuda.warpsize


@cuda.jit
def warp_exchange(x, out):
    """Shared memory written by one lane and read by another, ordered by syncwarp."""
    sh = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = x[i]
    cuda.syncwarp()
    out[i] = sh[t ^ 1] + sh[(t + 1) % 32 + t // 32 * 32]
    cuda.syncwarp(FULL)
    sh[t] = 0


def warp_exchange_expected(x, out):
    for i in range(x.size):
        t = i % 64
        b = i - t
        out[i] = x[b + (t ^ 1)] + x[b + (t + 1) % 32 + t // 32 * 32]


@cuda.jit
def partial_warp(x, out):
    """A block of 48 threads: warp 1 has 16 lanes; the full mask names lanes that do not exist."""
    i = cuda.grid(1)
    v = x[i]
    out[i, 0] = cuda.shfl_xor_sync(FULL, v, 8)
    out[i, 1] = cuda.ballot_sync(FULL, v > 0)
    out[i, 2] = cuda.activemask()
    out[i, 3] = cuda.shfl_down_sync(FULL, v, 8)
    # match_all_sync's mask names the lanes that take part (a GPU's answer: Numba's
    # test_match_all_sync launches 10 threads and expects 0b1111111111, not the full mask).
    out[i, 4] = cuda.match_all_sync(FULL, cuda.blockIdx.x)[0]
    out[i, 5] = cuda.match_any_sync(FULL, v % 2)


def partial_warp_expected(x, out):
    for blk in range(0, x.size, 48):
        for first, n in warps(48):
            v = x[blk + first:blk + first + n]
            ballot = sum(1 << k for k in range(n) if v[k] > 0)
            for lane in range(n):
                o = out[blk + first + lane]
                o[0] = v[lane ^ 8]
                o[1] = as_i32(ballot)
                o[2] = (1 << n) - 1
                o[3] = v[lane + 8] if lane + 8 < n else v[lane]
                o[4] = as_i32((1 << n) - 1)
                o[5] = as_i32(sum(1 << k for k in range(n) if v[k] % 2 == v[lane] % 2))


@cuda.jit
def divergent(x, out):
    """Warp operations inside branches: each half of the warp uses its own mask; activemask in
    a branch names the lanes that took it."""
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    if lane % 2 == 0:
        out[i, 0] = cuda.shfl_xor_sync(0x55555555, v, 2)
        out[i, 1] = cuda.activemask()
    else:
        out[i, 0] = cuda.shfl_down_sync(0xaaaaaaaa, v, 2)
        out[i, 1] = cuda.activemask()


def divergent_expected(x, out):
    for b in range(0, x.size, 32):
        v = x[b:b + 32]
        for lane in range(32):
            o = out[b + lane]
            if lane % 2 == 0:
                o[0] = v[lane ^ 2]
                o[1] = 0x55555555
            else:
                o[0] = v[lane + 2] if lane + 2 < 32 else v[lane]
                o[1] = 0xaaaaaaaa
