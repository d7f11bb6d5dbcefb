# Kernels for the bounds-checking tests (tests/unit/test_sim.c, test_bounds_*): each makes
# one chosen thread index an array with indices given as arguments, so a test decides exactly
# which access is out of bounds. Line numbers are asserted by the tests: append, do not insert.
from numba import cuda, float32, int32


@cuda.jit
def pick(a, out, who, k):
    if cuda.grid(1) == who:
        out[0] = a[k]


@cuda.jit
def pick3(a, out, who, i, j, k):
    if cuda.grid(1) == who:
        out[0] = a[i, j, k]


@cuda.jit
def put3(a, who, i, j, k):
    if cuda.grid(1) == who:
        a[i, j, k] = 7.0


@cuda.jit
def shared_bail(out, k):
    sm = cuda.shared.array((4, 8), float32)
    t = cuda.threadIdx.x
    sm[t // 8, t % 8] = t
    if t == 3:
        out[0] = sm[k, 3]
    cuda.syncthreads()
    out[t + 1] = sm[(31 - t) // 8, (31 - t) % 8]


@cuda.jit
def local_pick(out, who, i, j):
    loc = cuda.local.array((2, 3), int32)
    for q in range(6):
        loc[q // 3, q % 3] = q * 10
    t = cuda.grid(1)
    if t == who:
        out[0] = loc[i, j]


@cuda.jit
def shape_pick(a, out, k):
    if cuda.grid(1) == 0:
        out[0] = a.shape[k]


@cuda.jit
def pick_unsigned(a, out, k):
    if cuda.grid(1) == 0:
        out[0] = a[k]


@cuda.jit(device=True)
def P2C_EXIT_THREAD(x):
    # named like a macro of the generated code: renamed, never expanded
    return x + 1


@cuda.jit
def macro_names(out):
    P2C_SIM_ABI_VERSION = cuda.grid(1)
    if P2C_SIM_ABI_VERSION < out.size:
        out[P2C_SIM_ABI_VERSION] = P2C_EXIT_THREAD(P2C_SIM_ABI_VERSION)


@cuda.jit
def view_pick(m, out, r, c):
    if cuda.grid(1) == 0:
        out[0] = m[2:, c][r]


@cuda.jit(boundscheck=True)
def pick_boundscheck(a, out, k):
    out[0] = a[k]


@cuda.jit(debug=True)
def pick_debug(a, out, k):
    out[0] = a[k]


@cuda.jit(boundscheck=False)
def pick_unchecked(a, out, k):
    out[0] = a[k]
