# Kernels of the GPU benchmarks (bench/gpu.c) that are not samples.
from numba import cuda


@cuda.jit
def empty():
    pass


@cuda.jit
def copy(dst, src):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i]
