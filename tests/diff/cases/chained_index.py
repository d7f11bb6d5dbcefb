# a[i][j] is a[i, j]: chained subscripts on 2-D and 3-D arrays, read and written.
from numba import cuda


@cuda.jit
def chained(a, b, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i][j] = a[i][j] * 2 + b[i][j][1] - b[i, j][0] + b[i][j, 2]
