# A kernel with a warp shuffle, which pyk2cuda's simulator runs with fibers (its loop's start is
# read from memory: the same in every lane, which the analysis cannot show, so no regions), as a
# bundle's simulator part does (tests/aot/run_aot.py), and its GPU path.
from numba import cuda


@cuda.jit
def warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i]
    offset = 16 + 0 * x[0]
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if i % 32 == 0:
        out[i // 32] = v
