# args: --sig 'grid_sync_unknown(float32[::1])'
from numba import cuda


@cuda.jit
def grid_sync_unknown(x):
    cuda.cg.this_block().sync()
