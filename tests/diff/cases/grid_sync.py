# Grid-wide synchronization: cuda.cg.this_grid() and its sync(), directly and through a device
# function. Numba 0.56's simulator runs a cooperative grid of one block only (its sync() is a
# block barrier), so these cases launch one block; tests/python/test_cooperative.py runs grids
# of several blocks on pyk2cuda's simulator, where the barrier spans every block.
from numba import cuda


@cuda.jit
def sequential_rows(m):
    # Row after row, each thread reads the element its "opposite" thread wrote in the row
    # before: without a grid-wide barrier between rows, threads would read stale values.
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    for row in range(1, m.shape[0]):
        opposite = m.shape[1] - col - 1
        m[row, col] = m[row - 1, opposite] + 1
        g.sync()


@cuda.jit(device=True)
def publish(g, buf, i, v):
    buf[i] = v
    g.sync()


@cuda.jit
def neighbours(x, out):
    i = cuda.grid(1)
    g = cuda.cg.this_grid()
    n = x.shape[0]
    publish(g, out, i, x[i] * 2)
    s = out[(i + 1) % n] + out[(i + n - 1) % n]
    cuda.cg.this_grid().sync()
    out[i] = s


@cuda.jit
def grid_only(a):
    cuda.cg.this_grid()
    a[0] = 1.0
