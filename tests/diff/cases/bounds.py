# Bounds checking (pyk2cuda run --check-bounds) against Numba's simulator, where every array is
# a NumPy array: the same indices are valid (negative ones count from the end, once), and the
# same access fails, with NumPy's "index I is out of bounds for axis A with size S". The
# out-of-bounds kernels make exactly one thread fail, so both sides report the same access.
from numba import cuda, float32, int32


@cuda.jit
def gather(a, idx, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[idx[i]]


@cuda.jit
def gather2(a, r, c, out, counts):
    # The counts go to an array of their own, through an atomic: several threads meet at one
    # element, and a plain `+=` on `a` raced with the other threads' reads (run --sanitize).
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[r[i], c[i]]
        cuda.atomic.add(counts, (-r[i] - 1, c[i]), 1)


@cuda.jit
def read_one(a, out, who, k):
    if cuda.grid(1) == who:
        out[0] = a[k]


@cuda.jit
def write_one3(a, who, i, j, k):
    x, y = cuda.grid(2)
    if x * 1000 + y == who:
        a[i, j, k] = 1


@cuda.jit
def shared_before_barrier(out, k):
    sm = cuda.shared.array((4, 8), float32)
    t = cuda.threadIdx.x
    sm[t // 8, t % 8] = t
    if t == 3:
        out[0] = sm[k, 3]
    cuda.syncthreads()
    out[t + 1] = sm[(31 - t) // 8, (31 - t) % 8]


@cuda.jit
def local_array(out, who, k):
    loc = cuda.local.array(5, int32)
    t = cuda.grid(1)
    for q in range(5):
        loc[q] = q + t
    if t < out.size:
        out[t] = loc[k] if t == who else loc[-1]


@cuda.jit
def view_row(m, out, r):
    if cuda.grid(1) == 0:
        v = m[r]
        s = 0.0
        for x in v:
            s += x
        out[0] = s


@cuda.jit
def view_column(m, out, c):
    if cuda.grid(1) == 0:
        out[0] = m[1:3, c][0]
