# --sanitize implies --check-bounds: an index past the end is reported as --check-bounds reports
# it (the Python position, the index, the shape, the thread), and it stops the launch.
#
# sanitize-run: buggy --grid 1 --block 32 arange:float32[32] zeros:float32[32]
# sanitize-expect: index out of bounds 16:18
# sanitize-run: fixed --grid 1 --block 32 arange:float32[32] zeros:float32[32]
# sanitize-expect: clean
from numba import cuda


@cuda.jit
def buggy(x, out):
    i = cuda.grid(1)
    # every thread reads its right neighbour: the last one reads past the end
    if i < out.size:
        out[i] = x[i + 1]


@cuda.jit
def fixed(x, out):
    i = cuda.grid(1)
    if i + 1 < x.size:
        out[i] = x[i + 1]
