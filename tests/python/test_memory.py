"""Device arrays, pinned memory, streams and events, devices."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, float32


@cuda.jit
def fill(x, v):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = v


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64,
                                   np.float16, np.float32, np.float64, np.complex64, np.complex128])
def test_round_trip_every_dtype(dtype):
    a = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    d = cuda.to_device(a)
    assert d.shape == (2, 3, 4) and d.dtype == np.dtype(dtype) and d.size == 24 and d.ndim == 3
    assert d.strides == a.strides and len(d) == 2 and d.nbytes == a.nbytes
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_non_contiguous_host_array_is_made_contiguous():
    a = np.arange(20.0)[::3]
    d = cuda.to_device(a)
    assert d.is_c_contiguous()
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_device_array_is_zero_filled_and_typed():
    d = cuda.device_array((3, 4), dtype=np.int16)
    assert d.dtype == np.int16 and d.shape == (3, 4)
    np.testing.assert_array_equal(d.copy_to_host(), 0)
    f = cuda.device_array((3, 4), dtype=float32, order="F")
    assert f.dtype == np.float32 and f.is_f_contiguous()
    d1 = cuda.device_array(5)
    assert d1.shape == (5,) and d1.dtype == np.float64


@pytest.mark.parametrize("shape", [2**62, (2**31, 2**31, 4), (0, 2**62, 2**62), 2**63 - 1])
@pytest.mark.parametrize("dtype", [np.float64, np.int8])
def test_device_array_too_big_as_numpy(shape, dtype):
    """NumPy's ValueError for an array whose bytes overflow a signed size (zero extents counted
    as 1). Before the check, device_array(2**62, float64) had nbytes 0 and a 16-byte allocation
    that indexing read past (issue 26)."""
    expected = None
    try:
        np.empty(shape, dtype)
    except ValueError as e:
        expected = str(e)
    except MemoryError:    # int8 extents that fit: too large to allocate, not too big
        pass
    if expected is None:
        with pytest.raises((MemoryError, pyk2cuda.Error)):
            cuda.device_array(shape, dtype)
        return
    assert expected.startswith("array is too big")
    with pytest.raises(ValueError) as e:
        cuda.device_array(shape, dtype)
    assert str(e.value) == expected


def test_copy_to_device_and_incompatible_shapes():
    d = cuda.device_array(4, np.int32)
    d.copy_to_device(np.array([1, 2, 3, 4], np.int32))
    np.testing.assert_array_equal(d.copy_to_host(), [1, 2, 3, 4])
    with pytest.raises(ValueError, match="incompatible"):
        d.copy_to_device(np.zeros(5, np.int32))
    with pytest.raises(ValueError, match="incompatible"):
        d.copy_to_host(np.zeros(4, np.float32))
    e = cuda.device_array_like(d)
    e.copy_to_device(d)
    np.testing.assert_array_equal(e.copy_to_host(), [1, 2, 3, 4])
    assert cuda.to_device(np.zeros(4, np.int32), to=d) is d
    np.testing.assert_array_equal(d.copy_to_host(), 0)


def test_cuda_array_interface():
    d = cuda.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (2, 3) and cai["typestr"] == "<f4" and cai["version"] == 3
    assert cai["strides"] is None and isinstance(cai["data"][0], int) and cai["data"][1] is False
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(np.zeros(2))


def test_pinned_array_and_streams():
    a = cuda.pinned_array((4, 5), dtype=np.float32)
    assert a.shape == (4, 5) and a.dtype == np.float32 and a.flags["C_CONTIGUOUS"]
    assert (a == 0).all()
    a[:] = 7
    s = cuda.stream()
    d = cuda.to_device(a, stream=s)
    out = cuda.pinned_array_like(a)
    d.copy_to_host(out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, 7)
    with cuda.pinned(a, out):
        pass


def test_mapped_arrays_take_numbas_arguments_and_work_in_a_launch():
    # Numba's signatures (stream, portable, wc), as test_array's module-level code calls them;
    # a kernel writes through the mapped array and the host sees it after the launch.
    a = cuda.mapped_array((2, 3), dtype=np.int32, stream=0, portable=True, wc=False)
    like = cuda.mapped_array_like(np.zeros((4, 6), np.float64)[::2, ::2].T, stream=0, wc=True)
    assert a.shape == (2, 3) and a.dtype == np.int32 and (a == 0).all()
    assert like.shape == (3, 2) and like.dtype == np.float64
    assert like.strides == cuda.pinned_array_like(np.zeros((4, 6))[::2, ::2].T).strides
    fill[1, 6](a.reshape(6), 5)
    cuda.synchronize()
    np.testing.assert_array_equal(a, 5)


def test_events_time_the_work():
    check_events()


@pytest.mark.gpu
def test_events_time_the_work_on_the_gpu_path():
    """The same on the GPU path: the driver's INVALID_HANDLE for an event never recorded is said
    in the simulator's words."""
    check_events()


def check_events():
    start, end = cuda.event(), cuda.event()
    start.record()
    cuda.to_device(np.zeros(1 << 20)).copy_to_host()
    end.record()
    end.synchronize()
    ms = cuda.event_elapsed_time(start, end)
    assert ms >= 0 and ms == start.elapsed_time(end)
    with pytest.raises(pyk2cuda.Error, match="never recorded"):
        cuda.event_elapsed_time(cuda.event(), end)


def test_devices():
    assert cuda.is_available()
    assert len(cuda.gpus) >= 1
    dev = cuda.get_current_device()
    assert isinstance(dev.name, str) and len(dev.compute_capability) == 2
    cuda.synchronize()
    cuda.default_stream().synchronize()
    with pytest.raises(TypeError):
        cuda.to_device(np.zeros(3), stream="fast")


def test_select_after_choice_is_refused():
    kind = pyk2cuda.device_kind()
    pyk2cuda.select(kind)  # the same choice again is accepted
    other = "gpu" if kind == "sim" else "sim"
    with pytest.raises(pyk2cuda.Error, match="already chosen"):
        pyk2cuda.select(other)


def test_indexing_gives_views_and_scalars():
    import kernels as K
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    d = cuda.to_device(a)
    assert d[1, 2] == a[1, 2] and d[-1, -1] == 23 and isinstance(d[0, 0], np.float64)
    v = d[1:3]
    assert v.shape == (2, 6) and v.is_c_contiguous()
    np.testing.assert_array_equal(v.copy_to_host(), a[1:3])
    s = d[:, ::2]
    assert s.shape == (4, 3) and s.strides == (48, 16) and not s.is_c_contiguous()
    np.testing.assert_array_equal(s.copy_to_host(), a[:, ::2])
    np.testing.assert_array_equal(d[::-1, 1][::-1].copy_to_host(), a[:, 1])   # copied forwards:
    np.testing.assert_array_equal(d[3:1:-1, 4:][::-1].copy_to_host(), a[2:4, 4:])   # Numba refuses
    with pytest.raises(NotImplementedError, match="negative strides"):   # backwards (test_array_interface)
        d[::-1, 1].copy_to_host()
    # a kernel writing a view writes the parent; so does a copy into a view
    K.scale_inplace[1, 32](d[2], 10.0)
    K.scale_inplace[1, 32](d[:, 0], -1.0)
    expected = a.copy()
    expected[2] *= 10
    expected[:, 0] *= -1
    np.testing.assert_array_equal(d.copy_to_host(), expected)
    v.copy_to_device(np.zeros((2, 6)))
    expected[1:3] = 0
    np.testing.assert_array_equal(d.copy_to_host(), expected)
    del d   # the views keep the memory alive
    np.testing.assert_array_equal(s.copy_to_host(), expected[:, ::2])
    with pytest.raises(IndexError, match="out of bounds"):
        v[2, 0]
    with pytest.raises(IndexError, match="too many indices"):
        v[0, 0, 0]
    with pytest.raises(TypeError, match="ints and slices"):
        v["x"]


def test_flags_and_transpose_as_compiled_numba():
    # A 2-D device array's .T is a new C-ordered array (compiled Numba's transpose kernel), not
    # NumPy's view: writes to it do not reach the original. Other ranks keep NumPy's view.
    h = np.arange(6, dtype=np.float32).reshape(2, 3)
    d = cuda.to_device(h)
    assert d.flags["C_CONTIGUOUS"] and not d.flags["F_CONTIGUOUS"]
    t = d.T
    assert t.shape == (3, 2) and t.strides == (8, 4)
    assert t.flags["C_CONTIGUOUS"] and not t.flags["F_CONTIGUOUS"]
    assert np.array_equal(t.copy_to_host(), h.T)
    t[0, 0] = 99
    assert d.copy_to_host()[0, 0] == 0
    for axes in ((), ((1, 0),), ([1, 0],), (1, 0)):
        assert np.array_equal(d.transpose(*axes).copy_to_host(), h.T)
    assert d.transpose(0, 1) is d and d.transpose((0, 1)) is d
    with pytest.raises(ValueError, match="invalid axes list"):
        d.transpose(1, 2)
    d3 = cuda.to_device(np.arange(24).reshape(2, 3, 4))
    assert d3.T.strides == np.arange(24).reshape(2, 3, 4).T.strides   # a view, as NumPy's
    with pytest.raises(NotImplementedError, match="non-2D"):
        d3.transpose(2, 0, 1)
    strided = cuda.to_device(np.arange(120, dtype=np.int64).reshape(10, 12))[::2, ::2].T
    assert strided.shape == (6, 5) and strided.strides == (40, 8)   # Numba's test_transpose_view
    assert np.array_equal(strided.copy_to_host(), np.arange(120).reshape(10, 12)[::2, ::2].T)
    assert np.array_equal(np.asarray(d), h) and np.asarray(d, np.int8).dtype == np.int8
    assert cuda.devicearray.DeviceNDArray is type(d)


@pytest.mark.parametrize("order", ["C", "F"])
def test_device_array_like_of_a_strided_view_as_numpy(order):
    view = np.zeros((10, 12), order=order)[::2, ::2]
    d_view = cuda.device_array((10, 12), order=order)[::2, ::2]
    for like in (cuda.device_array_like(d_view), cuda.device_array_like(view)):
        assert like.shape == view.shape
        assert like.strides == np.zeros_like(view).strides
    # d_view.T is a new C-ordered array (compiled Numba's), so its like is C-ordered (Numba's
    # test_array_like_2d_view_transpose_device); NumPy's like of view.T follows the view's order.
    assert cuda.device_array_like(d_view.T).strides == (40, 8)


def test_arrays_dropped_while_a_stream_uses_them_on_the_simulator():
    # The same script as on the fake driver (test_fake_gpu.py), where the check has teeth; here
    # every operation is done when it returns, and the results must be the same.
    from conftest import run_script
    rc, out, err = run_script(["stream_lifetimes_script.py"], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0 and "stream lifetimes on the sim: ok" in out, out + err
