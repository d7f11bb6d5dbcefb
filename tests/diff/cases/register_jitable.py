# register_jitable (numba.extending's and numba.core.extending's spellings; numba-cuda's is
# numba.cuda.extending): plain functions that kernels call as device functions, one calling
# another, with Numba's jit options accepted.
from numba import cuda
from numba.extending import register_jitable
from numba.core.extending import register_jitable as jitable


@register_jitable
def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


@jitable(inline="always")
def smooth(x):
    return clamp(x, -0.5, 0.5) * 3.0 - x * x


@cuda.jit
def jitables(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = clamp(x[i], -0.25, 0.75)
        out[i, 1] = smooth(x[i])
