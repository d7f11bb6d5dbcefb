from numba import cuda


@cuda.jit("void(float64[:], int32[:], float32)")
def k(a, b, f):
    i = cuda.grid(1)
    p = cuda.popc(f)
    r = cuda.brev(a[i])
    s = cuda.selp(i > 0, 1, 2.0)
    t = cuda.selp(i > 0, b[i] > 0, b[i] < 0)
    u = cuda.fma(a, 1.0, 2.0)
    c = cuda.syncthreads_count(f)
    z = cuda.clz(b)
    cuda.threadfence(1)
