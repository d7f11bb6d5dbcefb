# args: --sig k(int32[:],int32[:])
from numba import cuda

@cuda.jit(["int32(int32)", "float64(float64)"], device=True)
def scalar_only(v):
    return v

@cuda.jit
def k(x, arr):
    x[0] = scalar_only(arr)
