# Grid-stride loops with cuda.gridsize(1): arrays larger than the grid, in for and while
# form, and a check that every element is visited exactly once.
from numba import cuda
import numpy as np


@cuda.jit
def saxpy(a, x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.size, stride):
        out[i] = a * x[i] + y[i]        # float32 scalar * float32 + float32: float32


@cuda.jit
def visit_count(hits, who):
    for i in range(cuda.grid(1), hits.size, cuda.gridsize(1)):
        hits[i] += 1
        who[i] = cuda.grid(1)


@cuda.jit
def while_stride(x, out):
    i = cuda.grid(1)
    while i < x.size:
        out[i] = x[i] * 2 - i
        i += cuda.gridsize(1)
