# 0-d arrays (issue 28): a kernel takes them (np.array(5.0), np.zeros(())), reads and writes their
# element with a[()], passes them to device functions, indexes other arrays with a 0-d integer
# array as Numba does, and reads size/ndim/shape; a module-level np.array(2.5) is a 0-d constant.
# a[()] of a 1-d array is the array itself (a view), so a[()] = v fills it.
import numpy as np
from numba import cuda

SCALE = np.array(2.5)


@cuda.jit(device=True)
def triple(x):
    return x[()] * 3


@cuda.jit(device=True)
def store(r, v):
    r[()] = v


@cuda.jit
def zero_d_elements(r, s, x, y, n):
    i = cuda.grid(1)
    if i == 0:
        r[()] = x[()] + y[()] * SCALE[()]
        n[()] += triple(n)
    if i == 1:
        store(s, x[()] - y[()])


@cuda.jit
def zero_d_index(out, a, k):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[k] + a[i % a.shape[0]]


@cuda.jit
def zero_d_attrs(out, a):
    i = cuda.grid(1)
    if i == 0:
        out[0] = a.size
        out[1] = a.ndim
        out[2] = len(a.shape)
        out[3] = a[()]


@cuda.jit
def whole_array_fill(a, v):
    if cuda.grid(1) == 0:
        a[()] = v[()]
