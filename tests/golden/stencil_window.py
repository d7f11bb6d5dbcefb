from numba import cuda as __p2c_cuda
from numba import vectorize as __p2c_vectorize, guvectorize as __p2c_guvectorize, njit as __p2c_njit, stencil as __p2c_stencil
import numpy as __p2c_np













@__p2c_cuda.jit(device=True)
def window(a, w, scale, __p2c_i0):
    s = 0.0
    for i in range(-2, 3):
        s += w[i + 2] * a[__p2c_i0 + (i)]
    return s * scale


@__p2c_cuda.jit
def window_stencil(a, w, scale, __p2c_out):
    __p2c_i0 = __p2c_cuda.grid(1)
    if __p2c_i0 < __p2c_out.shape[0]:
        if 2 <= __p2c_i0 < a.shape[0] - 2:
            __p2c_out[__p2c_i0] = window(a, w, scale, __p2c_i0)
        else:
            __p2c_out[__p2c_i0] = 0
