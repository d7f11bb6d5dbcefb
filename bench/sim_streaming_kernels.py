"""Streaming kernels for bench/sim_streaming.py (issue 29): saxpy and a 5-point stencil, as CUDA kernels
(pyk2cuda's simulator) and as numba.njit(parallel=True) loops (Numba's CPU JIT)."""
import numpy as np
from numba import cuda, njit, prange


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def stencil5(u, out):
    i, j = cuda.grid(2)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
        out[i, j] = np.float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]


@njit(parallel=True)
def saxpy_njit(a, x, y, out):
    for i in prange(out.size):
        out[i] = a * x[i] + y[i]


@njit(parallel=True)
def stencil5_njit(u, out):
    for i in prange(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            out[i, j] = np.float32(0.25) * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]
