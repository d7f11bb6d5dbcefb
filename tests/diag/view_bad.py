from numba import cuda
import numpy as np

@cuda.jit(device=True)
def scratch():
    la = cuda.local.array(4, np.float64)
    return la

@cuda.jit("void(float64[:, :], int64)")
def k(a, n):
    b = a[::0]
    c = a[1, 2, 3]
    a[1:3] = a[0]                  # a 1-d array into a 2-d view
    a[0] = 1j                      # a complex into a row of floats
    t = (1, 2, 3)
    d = t[1:]
    e = a[1.5:]
    f = scratch()
