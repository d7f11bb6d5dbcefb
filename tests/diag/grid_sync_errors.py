# args: --sig 'grid_sync_errors(float32[::1])'
from numba import cuda


@cuda.jit
def grid_sync_errors(x):
    g = cuda.cg.this_grid()
    g.wait()
    g.sync(1)
    h = cuda.cg.this_grid(0)
    x[0] = g
    if g:
        x[1] = 1.0
    y = g + 1
