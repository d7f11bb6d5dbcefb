"""Consuming __cuda_array_interface__ (issue 28): as_cuda_array, from_cuda_array_interface,
foreign arrays as kernel and ufunc arguments, the producer's stream and Numba's
CUDA_ARRAY_INTERFACE_SYNC, mapped and managed arrays as producers, current_context().

These run on whichever device pyk2cuda chose; on the simulator a device array's memory is host
memory, so an interface is consumed where pyk2cuda's own memory is, and refused elsewhere.
Numba's simulator cannot judge any of it (it refuses the interface), so the expected values are
NumPy's and the counts Numba's documented rules."""
import sys
from unittest import mock

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda


class Foreign:
    """Another library's array, as Numba's tests fake one: only the interface is visible."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


@cuda.jit
def add(arr, val):
    i = cuda.grid(1)
    if i < arr.size:
        arr[i] += val


@cuda.jit
def nothing(x, y):
    pass


def on_simulator():
    return pyk2cuda._core.device_kind() == "sim"


@pytest.fixture
def sync_on(monkeypatch):
    """CUDA_ARRAY_INTERFACE_SYNC as set by the environment alone (Numba's config not loaded)."""
    for name in ("numba.core.config", "numba.cuda.core.config"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.delenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", raising=False)
    return monkeypatch


def test_as_cuda_array_views_the_same_memory():
    h = np.arange(10)
    d = cuda.to_device(h)
    w = cuda.as_cuda_array(Foreign(d))
    assert w is not d and w.shape == d.shape and w.dtype == d.dtype
    assert w.device_ctypes_pointer == d.device_ctypes_pointer == d.__cuda_array_interface__["data"][0]
    # numba-cuda's device_ctypes_pointer is a ctypes c_size_t, read through .value (its
    # test_cuda_array_interface's assertPointersEqual); pyk2cuda's is an int that has it too
    assert w.device_ctypes_pointer.value == d.device_ctypes_pointer.value == d.__cuda_array_interface__["data"][0]
    assert isinstance(d.device_ctypes_pointer, int)
    add.forall(w.size)(w, 7)                      # a write through the view ...
    np.testing.assert_array_equal(d.copy_to_host(), h + 7)   # ... is in the owner's memory
    add[1, 16](Foreign(d), 1)                     # a foreign object as a kernel argument
    np.testing.assert_array_equal(w.copy_to_host(), h + 8)
    w[:3] = -1                                    # and item assignment
    np.testing.assert_array_equal(d.copy_to_host()[:4], [-1, -1, -1, 11])


def test_views_of_views_keep_shape_strides_and_alloc_size():
    h = np.random.default_rng(1).random(10)
    c = cuda.to_device(h)
    a = cuda.as_cuda_array(c)
    strided = cuda.as_cuda_array(c[::2])
    assert a[::2].strides == strided.strides == (16,) and a[::2].shape == strided.shape == (5,)
    assert a[::2].alloc_size == strided.alloc_size == 72   # first to last element, inclusive
    np.testing.assert_array_equal(strided.copy_to_host(), h[::2])
    back = cuda.as_cuda_array(c[::-1])                      # negative strides
    assert back.strides == (-8,)
    np.testing.assert_array_equal(back[::-1].copy_to_host(), h)


def test_negative_strides_copy_to_host_is_numbas_not_implemented():
    """As Numba (its issue 3705, test_cuda_array_interface.test_negative_strided_copy_to_host):
    copy_to_host of a device array with a negative stride is a NotImplementedError naming the
    strides; the package's own copies (a ufunc's reduce of one) still work."""
    h = np.random.default_rng(2).random(10)
    sliced = cuda.to_device(h)[::-1]
    with pytest.raises(NotImplementedError, match=r"D->H copy not implemented for negative strides: \(-8,\)"):
        sliced.copy_to_host()
    assert _add.reduce(sliced) == _add.reduce(h[::-1])


@cuda.vectorize(["float64(float64, float64)"])
def _add(a, b):
    return a + b


def test_from_cuda_array_interface_reads_strides_and_refuses_masks():
    h = np.arange(10).reshape(2, 5)
    d = cuda.to_device(h)
    face = dict(d.__cuda_array_interface__)
    assert face["strides"] is None
    got = cuda.from_cuda_array_interface(face, owner=d).copy_to_host()
    np.testing.assert_array_equal(got, h)
    face["strides"] = h.strides
    np.testing.assert_array_equal(cuda.from_cuda_array_interface(face, owner=d).copy_to_host(), h)
    face["strides"] = (8, 40)                                 # Fortran order over the same bytes
    np.testing.assert_array_equal(cuda.from_cuda_array_interface(dict(face, shape=(5, 2)), owner=d).copy_to_host(),
                                  np.arange(10).reshape(5, 2, order="F"))
    face["mask"] = cuda.to_device(np.ones(10, np.bool_))
    with pytest.raises(NotImplementedError, match="Masked arrays are not supported"):
        cuda.from_cuda_array_interface(face)
    with pytest.raises(TypeError, match="doesn't implement the cuda array interface"):
        cuda.as_cuda_array(np.zeros(3))


@pytest.mark.skipif("not on_simulator()")
def test_simulator_refuses_memory_it_did_not_allocate():
    # Another library's GPU address is not host memory: it is refused, never read.
    class Elsewhere:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<i8", "data": (0x10000, False),
                                    "version": 3, "strides": None, "stream": None}
    with pytest.raises(TypeError, match="pyk2cuda's simulator did not allocate"):
        add[1, 4](Elsewhere(), 1)
    with pytest.raises(TypeError, match="did not allocate"):
        cuda.as_cuda_array(Elsewhere())
    # Past the end of an allocation pyk2cuda made is not its memory either.
    d = cuda.to_device(np.arange(4))
    face = dict(d.__cuda_array_interface__, shape=(5,))
    with pytest.raises(TypeError, match="did not allocate"):
        cuda.from_cuda_array_interface(face, owner=d)
    # An empty array reads nothing: its null pointer is taken.
    empty = cuda.device_array(0)
    assert empty.__cuda_array_interface__["data"][0] == 0
    add[1, 10](Foreign(empty), 1)


def test_streams_are_named_and_consumed_as_numba_does(sync_on):
    s = cuda.stream()
    assert isinstance(s.handle, int) and s.handle not in (0, 1, 2) and not s.external
    assert cuda.stream().handle != s.handle
    a = cuda.device_array(10, stream=s)
    assert a.__cuda_array_interface__["stream"] == s.handle and a.stream is s
    w = cuda.as_cuda_array(Foreign(a))
    assert w.stream.external and w.stream.handle == s.handle
    if on_simulator():   # nothing is in flight on the simulator's default stream
        assert cuda.device_array(4).__cuda_array_interface__["stream"] is None
        assert cuda.as_cuda_array(Foreign(cuda.device_array(4))).stream == 0


def test_consumers_synchronize_the_producers_stream(sync_on):
    s1, s2 = cuda.stream(), cuda.stream()
    f1 = Foreign(cuda.device_array(10, stream=s1))
    f2 = Foreign(cuda.device_array(10, stream=s2))
    with mock.patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        cuda.as_cuda_array(f1)
        assert sync.call_count == 1
        cuda.as_cuda_array(f1, sync=False)
        assert sync.call_count == 1
        nothing[1, 1](f1, f2)                     # a launch: each producer's stream
        assert sync.call_count == 3
        sync_on.setenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")
        cuda.as_cuda_array(f1)
        nothing[1, 1](f1, f2)
        assert sync.call_count == 3
    class Legacy:   # the legacy default stream (1): all of pyk2cuda's work is ordered after it
        def __init__(self, a):
            self.__cuda_array_interface__ = dict(a.__cuda_array_interface__, stream=1)
            self._a = a
    with mock.patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        f = Foreign(cuda.device_array(10))    # made without a stream: None (simulator) or 1 (GPU)
        assert cuda.as_cuda_array(f).stream == 0
        nothing[1, 1](f, Legacy(cuda.device_array(3)))
        assert cuda.as_cuda_array(Legacy(cuda.device_array(3))).stream == 0
        sync.assert_not_called()


def test_numba_config_decides_where_numba_is_loaded(sync_on):
    config = type(sys)("numba.core.config")
    config.CUDA_ARRAY_INTERFACE_SYNC = False
    sync_on.setitem(sys.modules, "numba.core.config", config)
    f = Foreign(cuda.device_array(10, stream=cuda.stream()))
    with mock.patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as sync:
        cuda.as_cuda_array(f)
        config.CUDA_ARRAY_INTERFACE_SYNC = True
        cuda.as_cuda_array(f)
    assert sync.call_count == 1


def test_ufuncs_take_foreign_arrays_and_return_device_arrays():
    vadd = _vadd
    h = np.random.default_rng(2).random(10)
    out = vadd(Foreign(cuda.to_device(h)), 6.0)
    np.testing.assert_array_equal(out.copy_to_host(), h + 6)
    target = cuda.device_array(h.shape)
    returned = vadd(h, 6.0, out=Foreign(target))
    np.testing.assert_array_equal(returned.copy_to_host(), h + 6)
    np.testing.assert_array_equal(target.copy_to_host(), h + 6)


@pyk2cuda.vectorize(["f8(f8, f8)"], target="cuda")
def _vadd(a, b):
    return a + b


def test_mapped_and_managed_arrays_export_the_interface():
    s = cuda.stream()
    for make in (cuda.mapped_array, cuda.managed_array):
        a = make(10, dtype=np.int64)
        assert isinstance(a, np.ndarray) and (a == 0).all()
        face = a.__cuda_array_interface__
        assert face["stream"] is None and face["data"][0] == a.ctypes.data and face["typestr"] == "<i8"
        assert make(10, stream=s).__cuda_array_interface__["stream"] == s.handle
        assert make((4, 6))[::2, ::2].__cuda_array_interface__["strides"] == (96, 16)
        add[1, 16](a, 5)                          # a host array to a launch, its writes seen
        np.testing.assert_array_equal(a, 5)
        add[1, 16](Foreign(a), 1)                 # and the same memory through the interface
        cuda.synchronize()                        # (on a GPU that launch is asynchronous)
        np.testing.assert_array_equal(a, 6)
        if on_simulator():   # (the GPU stand-in copies only from device memory)
            np.testing.assert_array_equal(cuda.as_cuda_array(a).copy_to_host(), 6)


def test_current_context_counts_deallocations():
    ctx = cuda.current_context()
    assert ctx is cuda.current_context() and ctx is cuda.cudadrv.devices.get_context()
    assert ctx.device.compute_capability == cuda.get_current_device().compute_capability
    deallocs = ctx.memory_manager.deallocations
    deallocs.clear()
    assert len(deallocs) == 0
    d = cuda.to_device(np.arange(100))
    view = cuda.as_cuda_array(d)
    del d
    assert len(deallocs) == 0                     # the view keeps the memory
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(100))
    del view
    assert len(deallocs) == 1
    deallocs.clear()
    assert len(deallocs) == 0
    cuda.cudadrv.devices.reset()                  # Numba's reset: the device stays usable here
    np.testing.assert_array_equal(cuda.to_device(np.arange(3)).copy_to_host(), np.arange(3))
    assert cuda.cudadrv.driver.USE_NV_BINDING is True
