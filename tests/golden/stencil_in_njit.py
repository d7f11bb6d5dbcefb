from numba import cuda as __p2c_cuda
from numba import vectorize as __p2c_vectorize, guvectorize as __p2c_guvectorize, njit as __p2c_njit
import numpy as __p2c_np





















@__p2c_njit
def smooth_both(img, f, w, out):              # stencils inside @njit: loop nests in its module
    window(f, w, 2, out=out)
    return blur(img)
@__p2c_cuda.jit(device=True)
def __p2c_window_body(a, w, scale, __p2c_i0):
    s = 0.0
    for i in range(-2, 3):
        s += w[i + 2] * a[__p2c_i0 + (i)]
    return s * scale
@__p2c_cuda.jit(device=True)
def __p2c_window_new(a, w, scale):
    if a.shape[0] < 0:   # never
        __p2c_zero = __p2c_window_body(a, w, scale, 0)
    return __p2c_np.full(a.shape, __p2c_zero)
@__p2c_cuda.jit(device=True)
def window(a, w, scale, out=None):
    if out is None:
        __p2c_out = __p2c_window_new(a, w, scale)
    else:
        __p2c_out = out
    for __p2c_i0 in range(2, a.shape[0] - 2):
        __p2c_out[__p2c_i0] = __p2c_window_body(a, w, scale, __p2c_i0)
    return __p2c_out
@__p2c_cuda.jit(device=True)
def __p2c_blur_body(a, __p2c_i0, __p2c_i1):
    return (a[__p2c_i0 + (-1), __p2c_i1 + (0)] + a[__p2c_i0 + (1), __p2c_i1 + (0)] + a[__p2c_i0 + (0), __p2c_i1 + (-1)] + a[__p2c_i0 + (0), __p2c_i1 + (1)]) * 0.25
@__p2c_cuda.jit(device=True)
def __p2c_blur_new(a):
    if a.shape[0] < 0:   # never
        __p2c_zero = __p2c_blur_body(a, 0, 0)
    return __p2c_np.full(a.shape, __p2c_zero)
@__p2c_cuda.jit(device=True)
def blur(a, out=None):
    if out is None:
        __p2c_out = __p2c_blur_new(a)
    else:
        __p2c_out = out
    for __p2c_i0 in range(a.shape[0]):
        for __p2c_i1 in range(a.shape[1]):
            if 1 <= __p2c_i0 < a.shape[0] - 1 and 1 <= __p2c_i1 < a.shape[1] - 1:
                __p2c_out[__p2c_i0, __p2c_i1] = __p2c_blur_body(a, __p2c_i0, __p2c_i1)
            else:
                __p2c_out[__p2c_i0, __p2c_i1] = -1.0
    return __p2c_out
