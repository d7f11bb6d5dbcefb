"""numba.cuda.kernels: the kernels Numba ships, as pyk2cuda's own (`cuda.kernels`, served as
numba.cuda.kernels and numba.cuda.kernels.transpose).

transpose(a, b=None) writes the transpose of the 2-D array `a` (host or device) into `b` (a
device array of the transposed shape; None: a new C-ordered one, on `a`'s stream) and returns
`b`, as Numba's does. It is also what a 2-D device array's `.T` and `.transpose()` return, as
in compiled Numba (a new C-contiguous array, not a view). The kernel moves one 32 x 32 tile per
block through shared memory (a padded row, so that the column reads of the second half meet no
bank conflicts), so that both the reads and the writes of a warp are coalesced; one kernel per
dtype, made at its first use."""
import math
import types as _modules

TILE = 32

_KERNELS = {}


def _kernel(dtype):
    """The tiled transpose kernel for elements of `dtype` (a NumPy dtype): its shared tile is
    of that type, so each dtype has its own, made once."""
    from . import cuda, types
    key = dtype.str if dtype.names is None else dtype.descr.__repr__()
    if key in _KERNELS:
        return _KERNELS[key]
    element = types.from_dtype(dtype)
    tile_shape = (TILE, TILE + 1)

    def transpose_tile(src, dst):
        tile = cuda.shared.array(tile_shape, element)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        col0 = cuda.blockIdx.x * TILE      # the block's first column of src (row of dst)
        row0 = cuda.blockIdx.y * TILE      # its first row of src (column of dst)
        if row0 + ty < src.shape[0] and col0 + tx < src.shape[1]:
            tile[ty, tx] = src[row0 + ty, col0 + tx]
        cuda.syncthreads()
        if col0 + ty < dst.shape[0] and row0 + tx < dst.shape[1]:
            dst[col0 + ty, row0 + tx] = tile[tx, ty]

    _KERNELS[key] = cuda.jit(transpose_tile)
    return _KERNELS[key]


def transpose(a, b=None):
    """Numba's numba.cuda.kernels.transpose.transpose: the transpose of the 2-D array `a` written
    into `b` (default: a new C-ordered device array of shape a.shape[::-1] and a's dtype, made on
    a's stream), which is returned. The launch is on a's stream (0 for a host array)."""
    from . import cuda
    import numpy as np
    if len(a.shape) != 2:
        raise ValueError("transpose: a 2-D array is needed, got %d dimensions" % len(a.shape))
    stream = getattr(a, "stream", 0)
    if b is None:
        b = cuda.device_array((a.shape[1], a.shape[0]), dtype=a.dtype, stream=stream)
    elif tuple(b.shape) != (a.shape[1], a.shape[0]):
        raise ValueError("transpose: b has shape %s, the transpose of %s is %s"
                         % (tuple(b.shape), tuple(a.shape), (a.shape[1], a.shape[0])))
    if b.shape[0] == 0 or b.shape[1] == 0:
        return b
    blocks = (math.ceil(b.shape[0] / TILE), math.ceil(b.shape[1] / TILE))
    _kernel(np.dtype(a.dtype))[blocks, (TILE, TILE), stream](a, b)
    return b


# numba.cuda.kernels.transpose, the module (cuda.py serves it under that name).
transpose_module = _modules.ModuleType("pyk2cuda.cuda.kernels.transpose",
                                       "numba.cuda.kernels.transpose: transpose(a, b=None).")
transpose_module.transpose = transpose
