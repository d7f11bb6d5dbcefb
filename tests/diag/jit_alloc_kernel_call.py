# args: --sig 'through_jit(float64[::1])'
# A kernel cannot allocate through a @jit function it calls either (issue 33): the error is at
# the allocation, naming the kernel
import numpy as np
from numba import cuda, njit


@njit
def ones(n):
    return np.ones(n)


@cuda.jit
def through_jit(out):
    out[0] = ones(3)[0]
