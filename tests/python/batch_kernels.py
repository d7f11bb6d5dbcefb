"""Separately signed kernels of one module (tests/python/test_batch.py): on a GPU the package
compiles them as one NVRTC program (cuda.Kernel._batch); `lazy` has no signature and stays apart."""
from pyk2cuda import cuda

N = 3


@cuda.jit("void(float32[::1], float32)")
def scale(x, a):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= a


@cuda.jit(["void(int32[::1])", "void(float64[::1])"])
def plus_n(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += N


@cuda.jit(device=True)
def twice(v):
    return 2 * v


@cuda.jit("void(float32[::1], float32[::1])")
def doubled(dst, src):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = twice(src[i])


@cuda.jit("void(int64[::1], int64)", debug=True, opt=False)
def checked_a(x, j):
    x[j] = 1


@cuda.jit("void(int64[::1], int64)", debug=True, opt=False)
def checked_b(x, j):
    x[j] = 2


@cuda.jit
def lazy(x):
    x[0] = twice(N)
