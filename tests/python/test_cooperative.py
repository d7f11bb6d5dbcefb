"""Grid-wide synchronization (cuda.cg.this_grid().sync()) through the Python package, with grids
of several blocks (Numba's simulator runs one block only: tests/diff/cases/grid_sync.py compares
one-block grids with it). Numba's own sequential_rows kernel against NumPy, the overloads'
`cooperative` and max_cooperative_grid_blocks, and the errors of a grid too large for a
cooperative launch and of a grid sync that some blocks never reach."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, int32, float64


def sequential_rows(m):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    for row in range(1, m.shape[0]):
        opposite = m.shape[1] - col - 1
        m[row, col] = m[row - 1, opposite] + 1
        g.sync()


def on_sim():
    return pyk2cuda.device_kind() == "sim"


def test_rows_written_by_several_blocks_see_each_other():
    m = np.zeros((24, 128), np.int32)
    k = cuda.jit((int32[:, ::1],))(sequential_rows)
    k[4, 32](m)
    np.testing.assert_equal(m, np.tile(np.arange(24), (128, 1)).T)


def test_a_3d_grid_synchronizes_every_block():
    @cuda.jit
    def count(out, total):
        g = cuda.cg.this_grid()
        if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
            cuda.atomic.add(total, 0, 1)
        g.sync()
        b = cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y + cuda.gridDim.y * cuda.blockIdx.z)
        out[b] = total[0]
    out = np.zeros(12, np.int64)
    total = np.zeros(1, np.int64)
    count[(2, 3, 2), (4, 2)](out, total)
    assert out.tolist() == [12] * 12


def test_overloads_tell_cooperative_kernels_and_their_grid_limit():
    k = cuda.jit((int32[:, ::1],))(sequential_rows)
    ov = k.overloads[(int32[:, ::1],)]
    assert ov.cooperative
    blocks = ov.max_cooperative_grid_blocks(256)
    assert blocks >= 1
    assert blocks == ov.max_cooperative_grid_blocks((16, 16)) == ov.max_cooperative_grid_blocks((16, 4, 4))
    if on_sim():
        assert blocks == 64 and ov.max_cooperative_grid_blocks(1024) == 16

    @cuda.jit("void(float64[::1])")
    def plain(a):
        a[0] = 1.0
    assert not plain.overloads[(float64[::1],)].cooperative


@pytest.mark.skipif(not on_sim(), reason="the simulator's limit")
def test_a_grid_beyond_the_simulators_cooperative_limit_is_refused():
    k = cuda.jit((int32[:, ::1],))(sequential_rows)
    m = np.zeros((2, 65 * 32), np.int32)
    with pytest.raises(pyk2cuda.Error, match="cooperative launch .* at most 64 blocks"):
        k[65, 32](m)


@pytest.mark.skipif(not on_sim(), reason="on a GPU such a kernel never ends")
def test_a_grid_sync_some_blocks_never_reach_is_an_error():
    @cuda.jit
    def early_exit(a):
        if cuda.blockIdx.x == 1:
            return
        cuda.cg.this_grid().sync()
        a[cuda.grid(1)] = 1
    a = np.zeros(64, np.int64)
    with pytest.raises(pyk2cuda.Error, match="finished without"):
        early_exit[4, 16](a)
