# dask_chunks.py -- scaling out with Dask: pyk2cuda kernels applied to every chunk of a
# dask.array, which Dask schedules (threads here; a dask-cuda cluster spreads the same graph over
# many GPUs). map_blocks runs a pointwise kernel on each chunk; map_overlap gives each chunk of an
# image a one-pixel halo of its neighbours, so that a 3x3 stencil computed chunk by chunk equals
# the stencil over the whole image. NumPy chunks run on the simulator (or on the GPU, copied in and
# back by each launch); with `cupy` as the third argument, the chunks are CuPy arrays on the GPU
# and the kernels take them without copies. Both results are checked against NumPy.
# Run: python3 samples/python/dask_chunks.py [N CHUNK [cupy]]
import math
import sys

import dask.array as da
import numpy as np
from pyk2cuda import cuda


@cuda.jit
def softplus(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.log1p(math.exp(-abs(v))) + max(v, 0.0)


@cuda.jit
def smooth(img, out):
    i, j = cuda.grid(2)
    h, w = img.shape
    if 0 < i < h - 1 and 0 < j < w - 1:
        acc = 0.0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                acc += img[i + di, j + dj]
        out[i, j] = acc / 9.0
    elif i < h and j < w:
        out[i, j] = img[i, j]


def softplus_chunk(block):
    out = np.empty_like(block)  # a CuPy array for a CuPy block (NumPy dispatches to CuPy)
    softplus[(block.size + 255) // 256, 256](block, out)
    return out


def smooth_chunk(block):
    out = np.empty_like(block)
    smooth[((block.shape[0] + 15) // 16, (block.shape[1] + 15) // 16), (16, 16)](block, out)
    return out


n, chunk = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (200_000, 30_000)
on_cupy = len(sys.argv) > 3 and sys.argv[3] == "cupy"
rng = np.random.default_rng(7)

x = rng.standard_normal(n)
dx = da.from_array(x, chunks=chunk)
side = int(math.sqrt(n))
img = rng.random((side, side + 3))
dimg = da.from_array(img, chunks=(side // 3 + 1, side // 4 + 1))
if on_cupy:
    import cupy
    dx, dimg = dx.map_blocks(cupy.asarray), dimg.map_blocks(cupy.asarray)

y = dx.map_blocks(softplus_chunk, dtype=x.dtype).compute()
# depth 1: each chunk sees one row and column of its neighbours; boundary 'none': the image's own
# edges get no padding, so they stay as the kernel leaves them, as in the whole-image stencil.
smoothed = dimg.map_overlap(smooth_chunk, depth=1, boundary="none", dtype=img.dtype).compute()
if on_cupy:
    y, smoothed = cupy.asnumpy(y), cupy.asnumpy(smoothed)

assert np.allclose(y, np.logaddexp(0.0, x), rtol=1e-12), "softplus differs from NumPy"
expected = img.copy()
h, w = img.shape
expected[1:-1, 1:-1] = sum(img[1 + di:h - 1 + di, 1 + dj:w - 1 + dj]
                           for di in (-1, 0, 1) for dj in (-1, 0, 1)) / 9.0
assert np.allclose(smoothed, expected, rtol=1e-12), "the chunked stencil differs from the whole one"
print("dask_chunks: ok (%d chunks of x, %d of the image)" % (dx.npartitions, dimg.npartitions))
