# Memories: module-level NumPy arrays in constant memory (cuda.const.array_like, and the global
# itself, which Numba freezes the same way), dynamic shared memory (cuda.shared.array(0, ...),
# sized by the launch's shared bytes; several such arrays alias the same bytes, as in Numba),
# and multi-dimensional local and shared arrays. Dynamic arrays use Numba's types for their
# dtype: Numba 0.56's simulator cannot size them from a NumPy type.
from numba import cuda, float64, int32, int64, uint32
import numpy as np

WEIGHTS = np.array([0.25, -1.5, 3.0, 0.1], dtype=np.float32)
TABLE = np.arange(12).reshape(3, 4)
STEPS = np.arange(0.0, 1.0, 0.125)
FLAGS = np.array([True, False, True])
SMALL = np.array([[1, -2], [300, 4]], dtype=np.int16)
FULL7 = np.full((2, 3), 7, dtype=np.uint8)
SCALED = np.zeros((2, 2), np.float32)


@cuda.jit
def const_arrays(x, out):
    i = cuda.grid(1)
    if i < x.size:
        w = cuda.const.array_like(WEIGHTS)
        t = cuda.const.array_like(TABLE)
        out[i, 0] = x[i] * w[i % 4]
        out[i, 1] = t[i % 3, i % 4] + TABLE[2, 3]
        out[i, 2] = STEPS[i % 8]
        out[i, 3] = FLAGS[i % 3]
        out[i, 4] = SMALL[i % 2, (i // 2) % 2]
        out[i, 5] = FULL7[1, 2] + len(w) + t.shape[1] + TABLE.size
        s = 0.0
        for v in w:
            s += v
        out[i, 6] = s
        out[i, 7] = SCALED[1, 1]


@cuda.jit(device=True)
def dot4(a, b, i):
    return a[0] * b[i] + a[1] * b[i + 1]


@cuda.jit
def const_to_device(x, out):
    """A constant array passed to a device function."""
    i = cuda.grid(1)
    if i < out.size:
        out[i] = dot4(cuda.const.array_like(WEIGHTS), x, i)


@cuda.jit
def dynamic_shared(x, out, sizes):
    """Two dynamic shared arrays share their bytes: ints written through one are read back as
    the same bits through the other. Their lengths come from the launch (--shared)."""
    ints = cuda.shared.array(0, int32)
    words = cuda.shared.array(0, uint32)
    wide = cuda.shared.array(0, dtype=int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    ints[t] = x[i]
    cuda.syncthreads()
    out[i] = words[cuda.blockDim.x - 1 - t]
    if i == 0:
        sizes[0] = len(ints)
        sizes[1] = wide.size
        sizes[2] = words.shape[0]


@cuda.jit
def dynamic_shared_reverse(x, out):
    buf = cuda.shared.array(0, float64)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = buf[n - 1 - t] * 2.0


@cuda.jit
def multidim(x, out):
    """A 2-D local array and a 3-D shared array, filled and read back crosswise."""
    loc = cuda.local.array((3, 4), np.float64)
    sh = cuda.shared.array((2, 4, 8), np.int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    for r in range(3):
        for c in range(4):
            loc[r, c] = x[i] * r + c
    sh[t // 32, (t // 8) % 4, t % 8] = i
    cuda.syncthreads()
    acc = 0.0
    for r in range(3):
        for c in range(4):
            acc += loc[r, c] * (r - c)
    out[i, 0] = acc
    out[i, 1] = sh[1 - t // 32, 3 - (t // 8) % 4, 7 - t % 8]
    out[i, 2] = loc[2][3] + sh.shape[1] + loc.size


@cuda.jit
def const_views(out):
    """Rows of a constant array, and iteration over its rows: views stay in constant memory."""
    i = cuda.grid(1)
    if i < 4:
        row = TABLE[2]
        s = 0
        for r in TABLE:
            s += r[i]
        out[i, 0] = row[i] + TABLE[1][i]
        out[i, 1] = s
        out[i, 2] = TABLE[1:, 1:][1, i % 3]


@cuda.jit
def local_constant_shapes(x, out):
    # test_sync's form: a local variable with one definition, a constant, is a shape (Numba
    # reads it as the constant); the tuple may mix it with literals
    N = 32
    ROWS = 2 * 2
    sm = cuda.shared.array(N, int64)
    loc = cuda.local.array((ROWS, 3), float64)
    i = cuda.threadIdx.x
    sm[i] = x[cuda.grid(1)]
    cuda.syncthreads()
    for r in range(ROWS):
        for c in range(3):
            loc[r, c] = sm[(i + r * 3 + c) % N]
    out[cuda.grid(1)] = loc[ROWS - 1, 2] - loc[0, 0]


@cuda.jit
def aligned_arrays(x, out):
    # numba-cuda's alignment= of shared and local arrays (bytes: a power of two, a multiple of
    # 8), by keyword and by position: the declarations carry alignas(N); the values are the
    # same as without. Numba 0.56's simulator has no alignment=, so the case uses expect=.
    s = cuda.shared.array(32, dtype=np.uint8, alignment=64)
    loc = cuda.local.array((2, 3), np.float64, 32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    for r in range(2):
        for c in range(3):
            loc[r, c] = t * 10 + r * 3 + c
    cuda.syncthreads()
    out[t] = s[31 - t] + loc[1, 2]


def aligned_arrays_expected(x, out):
    t = np.arange(32)
    out[:] = x[::-1].astype(np.float64) + t * 10 + 5


# Arrays of records as constants (Numba's test_constmem): NumPy's layout, packed and aligned,
# a nested array field, an empty one; read by field name.
PAIRS = np.array([(1.0, 2), (3.0, 4), (-0.5, -6)], dtype=[("x", float), ("y", int)])
ALIGNED = np.array([(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
                   dtype=np.dtype(dtype=[("a", np.uint8), ("b", np.uint8), ("x", np.uint8),
                                         ("y", np.uint32), ("z", np.uint8)], align=True))
VECS = np.array([(1, [1.5, 2.5, 3.5]), (2, [4.0, 5.0, 6.0])], dtype=[("i", np.int32), ("v", np.float32, (3,))])
NONE = np.array([], dtype=[("x", float), ("y", int)])


@cuda.jit
def const_records(out):
    i = cuda.grid(1)
    if i < 6:
        p = cuda.const.array_like(PAIRS)
        out[i, 0] = p[i % 3]["x"] * p[i % 3]["y"]
        out[i, 1] = ALIGNED[i % 2]["y"] + ALIGNED[i % 2]["z"] - ALIGNED[i % 2]["a"]
        out[i, 2] = VECS[i % 2]["v"][i % 3] + VECS[i % 2]["i"]
        out[i, 3] = len(NONE) + len(PAIRS)


@cuda.jit
def copies(x, out):
    # a.copy() of arrays whose shape is known when compiling: constant arrays (1-D and 2-D), a
    # local and a shared array. Each copy is a new local array: stores into it, or into the
    # array it was copied from, leave the other as it was.
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    w = WEIGHTS.copy()
    tab = TABLE.copy()
    loc = cuda.local.array(3, np.float64)
    for k in range(3):
        loc[k] = x[i] * (k + 1)
    sh = cuda.shared.array((8, 2), np.float64)
    sh[t, 0] = x[i]
    sh[t, 1] = -x[i]
    cuda.syncthreads()
    loc2 = loc.copy()
    sh2 = sh.copy()
    loc[0] = 100.0
    w[1] = x[i]
    again = w.copy()
    w[2] = 0.0
    out[i, 0] = loc2[0] + loc2[2] + loc[0]
    out[i, 1] = sh2[(t + 1) % 8, 0] + sh2[t, 1]
    out[i, 2] = w[1] + w[2] + again[2] + WEIGHTS[1]
    out[i, 3] = tab[2, 3] + tab[t % 3, 1]


@cuda.jit(device=True)
def sum_in_local(x):
    t = cuda.local.array(8192, float64)   # 64 KiB more on the call path
    for k in range(0, 8192, 1024):
        t[k] = x + k
    s = 0.0
    for k in range(0, 8192, 1024):
        s += t[k]
    return s


@cuda.jit
def big_local_barrier(a, out):
    # 512 KiB of local array (the compiler's limit for one) and a barrier: the simulator runs
    # each thread as a fiber, whose stack is sized from the kernel's local arrays on its deepest
    # call path (576 KiB here); a 64 KiB stack overflowed ("overflowed its 64 KiB simulator
    # stack"). The pages are touched sparsely: the simulator's stack probes reach all of them.
    buf = cuda.local.array(65536, float64)
    i = cuda.grid(1)
    j = cuda.threadIdx.x
    for k in range(0, 65536, 4096):
        buf[k] = a[i] * k
    buf[65535] = a[i] + 0.5
    cuda.syncthreads()
    s = buf[65535]
    for k in range(0, 65536, 4096):
        s += buf[k]
    out[i] = s + sum_in_local(a[i]) + j
