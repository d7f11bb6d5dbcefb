from numba import cuda as __p2c_cuda
from numba import vectorize as __p2c_vectorize, guvectorize as __p2c_guvectorize, njit as __p2c_njit, stencil as __p2c_stencil
import numpy as __p2c_np








@__p2c_cuda.jit(device=True)
def blur(a, __p2c_i0, __p2c_i1):
    return (a[__p2c_i0 + (-1), __p2c_i1 + (0)] + a[__p2c_i0 + (1), __p2c_i1 + (0)] + a[__p2c_i0 + (0), __p2c_i1 + (-1)] + a[__p2c_i0 + (0), __p2c_i1 + (1)]) * 0.25


@__p2c_cuda.jit
def blur_stencil(a, __p2c_out):
    __p2c_i1, __p2c_i0 = __p2c_cuda.grid(2)
    if __p2c_i0 < __p2c_out.shape[0] and __p2c_i1 < __p2c_out.shape[1]:
        if 1 <= __p2c_i0 < a.shape[0] - 1 and 1 <= __p2c_i1 < a.shape[1] - 1:
            __p2c_out[__p2c_i0, __p2c_i1] = blur(a, __p2c_i0, __p2c_i1)
        else:
            __p2c_out[__p2c_i0, __p2c_i1] = -1.0
