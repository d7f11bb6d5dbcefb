# Kernels whose names the fake CUDA driver (tests/fakecuda/fakecuda.c) runs as C functions, so
# that the package's GPU path is exercised without a GPU (test_fake_gpu.py).
from pyk2cuda import cuda


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def accumulate(x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] += y[i]


@cuda.jit
def tuple_axpy(t):
    a, x, y = t
    i = cuda.grid(1)
    if i < y.size:
        y[i] += a * x[i]
