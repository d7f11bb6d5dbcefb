# Grid-stride loops that pyk2cuda's simulator runs in lockstep (docs/simulator.md,
# "Lockstep"): the threads of a block go through the loop together, one iteration each per
# round. These kernels cover what the step function must keep: assignments before the loop
# evaluated again at each step (a guard that returns, tuple targets, dimensions from
# blockDim/gridDim), uneven trip counts, a negative step, 2-D loops, the loop variable
# rebound in the body, continue, a break in an inner loop, threadIdx and atomics in the body.
# carried, breaks_out and row_loop are not run in lockstep (a value carried from one iteration
# to the next, a break out of the grid-stride loop, a loop that is not a grid-stride loop):
# they check that those stay right thread after thread. tests/unit/test_codegen.c checks
# which kernel is which.
from numba import cuda


@cuda.jit
def guard_then_stride(x, out):
    i = cuda.grid(1)
    n = x.size
    if n < 16:
        return
    for k in range(i, n, cuda.gridsize(1)):
        t = x[k] * 2
        if t > 0:
            continue
        out[k] = t + k


@cuda.jit
def stride_2d(a, out):
    x0, y0 = cuda.grid(2)
    xs, ys = cuda.gridsize(2)
    for i in range(x0, a.shape[0], xs):
        for j in range(y0, a.shape[1], ys):
            out[i, j] = a[i, j] * 3 + i - j


@cuda.jit
def reverse_stride(x, out):
    n = x.size
    for k in range(n - 1 - cuda.grid(1), -1, -cuda.gridsize(1)):
        out[k] = x[k] + n - k


@cuda.jit
def rebinding(x, out):
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        v = x[k]
        k = k * 2           # rebinding k does not change the iteration
        out[k // 2] = v + k


@cuda.jit
def block_stride_3d(hits, who):
    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    nthreads = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
    start = cuda.blockIdx.x * nthreads + t
    for k in range(start, hits.size, nthreads * cuda.gridDim.x):
        hits[k] += 1
        who[k] = start * 100 + cuda.threadIdx.z


@cuda.jit
def atomic_stride(x, totals):
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        cuda.atomic.add(totals, k % 4, x[k])


@cuda.jit
def inner_break(x, out):
    for k in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        s = 0
        for j in range(x.shape[1]):
            if x[k, j] < 0:
                break
            s += x[k, j]
        out[k] = s


@cuda.jit
def carried(x, out):
    prev = 0
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[k] = x[k] + prev
        prev = x[k]


@cuda.jit
def breaks_out(x, out):
    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        if x[k] < 0:
            break
        out[k] = 1


@cuda.jit
def row_loop(a, out):
    i = cuda.grid(1)
    if i >= a.shape[0]:
        return
    for j in range(0, a.shape[1], 1):
        out[i, j] = a[i, j] + j
