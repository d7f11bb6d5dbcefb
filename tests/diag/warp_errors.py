from numba import cuda


@cuda.jit("void(float64[:], uint32[:], float32)")
def k(a, u, fm):
    i = cuda.grid(1)
    x = cuda.shfl_sync(1.5, a[i], 0)
    y = cuda.ballot_sync(fm, True)
    z = cuda.shfl_sync(0xffffffff, u[i], 0)
    w = cuda.shfl_down_sync(0xffffffff, a[i], 1.0)
    cuda.syncwarp(a)
    v = cuda.match_any_sync(0xffffffff, a)
    b = cuda.all_sync(True, 1)
    p = cuda.any_sync(0xffffffff, a[i])
