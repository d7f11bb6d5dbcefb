from numba import cuda as __p2c_cuda
from numba import vectorize as __p2c_vectorize, guvectorize as __p2c_guvectorize, njit as __p2c_njit, stencil as __p2c_stencil
import numpy as __p2c_np








@__p2c_stencil(cval=-1.0, neighborhood=((-1, 1), (-1, 1)))
def blur(a):
    return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) * 0.25
