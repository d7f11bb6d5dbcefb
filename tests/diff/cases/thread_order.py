# Kernels the simulator runs with threadIdx.y and blockIdx.y fastest (analysis/thread_order.c):
# `i, j = cuda.grid(2)` with i indexing rows, as Numba's documentation writes 2-D kernels. The
# results must not depend on the order; grids that do not divide the arrays, 3-D blocks, a
# device function, and a kernel that reads the same array it is not writing.
import numpy as np
from numba import cuda


@cuda.jit
def stencil_rows(u, out):
    i, j = cuda.grid(2)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
        out[i, j] = np.float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]


@cuda.jit(device=True)
def weight(a, i, j):
    return a[i, j] * (i + 1) - j


@cuda.jit
def rows_3d(a, out, ids):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    j = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y
    k = cuda.threadIdx.z
    if i < a.shape[0] and j < a.shape[1] and k < out.shape[0]:
        out[k, i, j] = weight(a, i, j) + k
        ids[k, i, j] = ((cuda.blockIdx.x * 100 + cuda.blockIdx.y) * 10 + k) * 1000 + cuda.threadIdx.y * 10 + cuda.threadIdx.x
