"""Grid-wide synchronization (cuda.cg.this_grid().sync()) through the Python package, with grids
of several blocks (Numba's simulator runs one block only: tests/diff/cases/grid_sync.py compares
one-block grids with it). Numba's own sequential_rows kernel against NumPy, the overloads'
`cooperative` and max_cooperative_grid_blocks, grids at a device's full occupancy (the simulator
runs a kernel cut at its grid syncs at any size: docs/simulator.md, "Grid regions"), and the
errors of a grid too large for a cooperative launch on fibers or for the memory kept across grid
syncs, and of a grid sync that some blocks never reach."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, int32, int64, float64


def sequential_rows(m):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    for row in range(1, m.shape[0]):
        opposite = m.shape[1] - col - 1
        m[row, col] = m[row - 1, opposite] + 1
        g.sync()


def on_sim():
    return pyk2cuda.device_kind() == "sim"


def scan(x):
    # An inclusive prefix sum over the whole grid (Hillis and Steele): a while loop holding grid
    # syncs; v, read before a grid sync, is added after it.
    i = cuda.grid(1)
    n = x.shape[0]
    g = cuda.cg.this_grid()
    step = 1
    while step < n:
        v = 0
        if i < n and i >= step:
            v = x[i - step]
        g.sync()
        if i < n:
            x[i] += v
        g.sync()
        step *= 2


def full_occupancy(ov, threads):
    """Numba's idiom, as many blocks as the device holds at once; on the simulator, whose answer is
    what its fibers hold (64 blocks), an H200's for these kernels: 132 SMs x 8 blocks of 256."""
    return 1056 if on_sim() else ov.max_cooperative_grid_blocks(threads)


def test_grids_at_full_occupancy_scan_and_fill_rows():
    k = cuda.jit((int64[::1],))(scan)
    blocks = full_occupancy(k.overloads[(int64[::1],)], 256)
    x = np.random.default_rng(25).integers(-1000, 1000, blocks * 256 - 17)
    want = np.cumsum(x)
    k[blocks, 256](x)
    np.testing.assert_equal(x, want)
    rows = cuda.jit((int32[:, ::1],))(sequential_rows)
    m = np.zeros((6, blocks * 256), np.int32)
    rows[blocks, 256](m)
    np.testing.assert_equal(m, np.tile(np.arange(6, dtype=np.int32), (blocks * 256, 1)).T)


@pytest.mark.gpu
def test_a_grid_at_the_devices_occupancy_runs_on_the_gpu_path():
    k = cuda.jit((int64[::1],))(scan)
    blocks = k.overloads[(int64[::1],)].max_cooperative_grid_blocks(256)
    assert blocks > 64   # more than the simulator's fibers hold at once (the stand-in: 132 x 8)
    x = np.arange(blocks * 256, dtype=np.int64) % 7 - 3
    want = np.cumsum(x)
    d = cuda.to_device(x)
    k[blocks, 256](d)
    np.testing.assert_equal(d.copy_to_host(), want)


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
def test_a_grid_beyond_the_fibers_cooperative_limit_is_refused():
    # A grid sync in a device function keeps the fibers: every block at once, 64 at most.
    @cuda.jit(device=True)
    def publish(g, a, i):
        a[i] = 1
        g.sync()

    @cuda.jit
    def via_device(a):
        publish(cuda.cg.this_grid(), a, cuda.grid(1))
    with pytest.raises(pyk2cuda.Error, match="cooperative launch .* at most 64 blocks"):
        via_device[65, 32](np.zeros(65 * 32, np.int64))


@pytest.mark.skipif(not on_sim(), reason="the simulator's limit")
def test_a_grid_keeping_more_than_the_simulator_allows_is_refused():
    # 4 KiB per thread kept across the grid sync: 2049 x 256 threads need 2 GiB and more.
    @cuda.jit
    def big(a):
        loc = cuda.local.array(512, int64)
        i = cuda.grid(1)
        for k in range(512):
            loc[k] = i + k
        cuda.cg.this_grid().sync()
        if i < a.shape[0]:
            a[i] = loc[511]
    a = np.zeros(16, np.int64)
    big[8, 256](a)
    assert a.tolist() == list(range(511, 527))
    with pytest.raises(pyk2cuda.Error, match="keeps 2052 MiB across grid syncs .* more than the simulator's 2048 MiB"):
        big[2052, 256](a)


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
