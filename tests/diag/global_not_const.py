from numba import cuda
import numpy as np

TABLE = [1, 2, 3]
NOISE = np.random.rand(10)

@cuda.jit("void(float64[:])")
def k(a):
    a[0] = TABLE[0]
    a[1] = NOISE[0]
