# Barriers in device functions (docs/simulator.md, "Regions"): the simulator inlines a device
# function that reaches cuda.syncthreads() into its kernel's block function, so these run as
# regions; dev_expr and dev_early keep the fibers (a call inside an expression, a return before
# the function's end). The cases run with PYK2CUDA_SIM_FIBERS=1 too (cases.txt, `fibers` suffix).
from numba import cuda, int64, float32

TPB = 64


@cuda.jit(device=True)
def tree_sum(sh, tid):
    # a block's tree reduction: the stride is uniform, the guard thread-dependent
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    return sh[0]


@cuda.jit(device=True)
def rotate(sh, tid, v):
    # one exchange: every thread writes its own element, then reads its neighbour's
    sh[tid] = v
    cuda.syncthreads()
    w = sh[(tid + 1) % cuda.blockDim.x]
    cuda.syncthreads()
    return w


@cuda.jit(device=True)
def rotate_twice(sh, tid, v):
    # nested: a device function with barriers calling another
    a = rotate(sh, tid, v)
    b = rotate(sh, tid, a * 3 + 1)
    return a + 10 * b


@cuda.jit(device=True)
def own_buffer(tid, v, first):
    # its own shared array, one per block however often it is called: a second call reads
    # what the first left there before it writes (the first call clears it)
    buf = cuda.shared.array(TPB, int64)
    if first:
        buf[tid] = 0
    cuda.syncthreads()
    old = buf[(tid + 5) % TPB]
    cuda.syncthreads()
    buf[tid] = v
    cuda.syncthreads()
    return old + buf[(tid + 3) % TPB]


@cuda.jit(device=True)
def shrink(sh, tid, n):
    # a parameter it rebinds (bound by an assignment, not named by the argument), with a local
    # array kept across its barriers
    acc = cuda.local.array(3, int64)
    for k in range(3):
        acc[k] = tid * (k + 1)
    while n > 1:
        sh[tid] = acc[n % 3] + n
        cuda.syncthreads()
        acc[n % 3] += sh[(tid + n) % cuda.blockDim.x]
        cuda.syncthreads()
        n = n // 2
    return acc[0] + acc[1] + acc[2]


@cuda.jit(device=True)
def store_only(sh, tid, out, i):
    # no result: called as a statement
    sh[tid] = i * 2
    cuda.syncthreads()
    out[i, 4] = sh[cuda.blockDim.x - 1 - tid]
    cuda.syncthreads()


@cuda.jit
def dev_barriers(x, out):
    sh = cuda.shared.array(TPB, int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i]
    sh[tid] = v
    cuda.syncthreads()
    total = tree_sum(sh, tid)
    out[i, 0] = total
    cuda.syncthreads()
    for r in range(cuda.blockIdx.x % 3 + 1):
        v = rotate(sh, tid, v + r)
    out[i, 1] = v
    if cuda.blockIdx.x % 2 == 0:
        out[i, 2] = rotate_twice(sh, tid, v)
    else:
        out[i, 2] = own_buffer(tid, v, cuda.blockIdx.x >= 0)
    out[i, 3] = own_buffer(tid, 2 * v, cuda.blockIdx.x % 2 == 0)
    store_only(sh, tid, out, i)
    out[i, 5] = shrink(sh, tid, cuda.blockIdx.x + 5)


@cuda.jit(device=True)
def scale_sum(sh, tid, scale):
    # float32 through a block's reduction, scaled first
    sh[tid] = sh[tid] * scale
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    return sh[0]


@cuda.jit
def dev_float_sum(x, out):
    sh = cuda.shared.array(TPB, float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i] if i < x.shape[0] else float32(0)
    cuda.syncthreads()
    t = scale_sum(sh, tid, float32(0.5))
    if tid == 0:
        out[cuda.blockIdx.x] = t


@cuda.jit
def dev_expr(x, out):
    # the call is part of an expression: the kernel keeps the fibers
    sh = cuda.shared.array(TPB, int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    out[i, 0] = 1 + rotate(sh, tid, x[i])


@cuda.jit(device=True)
def early(sh, tid, v):
    sh[tid] = v
    cuda.syncthreads()
    if v > 1000:
        return v
    return sh[(tid + 2) % cuda.blockDim.x]


@cuda.jit
def dev_early(x, out):
    # a return before the device function's end: the kernel keeps the fibers
    sh = cuda.shared.array(TPB, int64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    w = early(sh, tid, x[i])
    out[i, 0] = w
