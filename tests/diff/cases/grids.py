# 1-D, 2-D and 3-D grids: cuda.grid(2), cuda.grid(3), the threadIdx/blockIdx/blockDim/
# gridDim registers, tuple unpacking of a 3-D shape, and grids that do not divide the
# array sizes evenly (the bounds checks keep the idle threads out).
from numba import cuda
import numpy as np


@cuda.jit
def index_2d(out):
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * out.shape[1] + y


@cuda.jit
def index_3d(out):
    i, j, k = cuda.grid(3)
    n0, n1, n2 = out.shape
    if i < n0 and j < n1 and k < n2:
        out[i, j, k] = i * 10000 + j * 100 + k


@cuda.jit
def registers_3d(out):
    i, j, k = cuda.grid(3)
    n0, n1, n2, nr = out.shape
    if i < n0 and j < n1 and k < n2:
        out[i, j, k, 0] = cuda.threadIdx.x
        out[i, j, k, 1] = cuda.threadIdx.y
        out[i, j, k, 2] = cuda.threadIdx.z
        out[i, j, k, 3] = cuda.blockIdx.x
        out[i, j, k, 4] = cuda.blockIdx.y
        out[i, j, k, 5] = cuda.blockIdx.z
        out[i, j, k, 6] = cuda.blockDim.x
        out[i, j, k, 7] = cuda.blockDim.y
        out[i, j, k, 8] = cuda.blockDim.z
        out[i, j, k, 9] = cuda.gridDim.x
        out[i, j, k, 10] = cuda.gridDim.y
        out[i, j, k, 11] = cuda.gridDim.z


@cuda.jit
def uneven_1d(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + cuda.blockIdx.x * 1000 + cuda.threadIdx.x
