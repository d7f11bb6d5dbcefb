"""On a real GPU: interop with CuPy and PyTorch through __cuda_array_interface__, streams and
events, the device's limits. Marked `gpu`: skipped where no CUDA device is found."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
import kernels as K

pytestmark = pytest.mark.gpu


def test_runs_on_the_gpu():
    assert pyk2cuda.device_kind() == "gpu"
    dev = cuda.get_current_device()
    assert dev.compute_capability >= (7, 5) and dev.name
    assert len(cuda.gpus) >= 1


def test_device_arrays_live_on_the_gpu():
    x = np.arange(1 << 20, dtype=np.float32)
    d_x, d_y = cuda.to_device(x), cuda.to_device(2 * x)
    d_out = cuda.device_array_like(x)
    K.add[(x.size + 255) // 256, 256](d_x, d_y, d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), 3 * x)
    ptr = d_out.__cuda_array_interface__["data"][0]
    assert ptr != 0


def test_cupy_arrays_in_and_out():
    cp = pytest.importorskip("cupy")
    x = cp.arange(1000, dtype=cp.float64)
    y = cp.ones(1000, dtype=cp.float64)
    out = cp.zeros(1000, dtype=cp.float64)
    K.add[4, 256](x, y, out)          # CuPy arrays, no copies
    cuda.synchronize()
    cp.testing.assert_array_equal(out, x + 1)
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    view = cp.asarray(d)              # pyk2cuda's device array seen by CuPy, no copy
    cp.testing.assert_array_equal(view, cp.arange(10))
    view += 1
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10) + 1)
    wrapped = cuda.as_cuda_array(out)  # CuPy's memory as a pyk2cuda device array, no copy
    np.testing.assert_array_equal(wrapped.copy_to_host(), cp.asnumpy(out))


def test_torch_tensors_in_and_out():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.zeros(1000, dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    K.add[4, 256](x, x, out)
    cuda.synchronize()
    assert torch.equal(out, 2 * x)
    d = cuda.to_device(np.arange(6, dtype=np.float32))
    t = torch.as_tensor(d, device="cuda")
    assert t.tolist() == [0, 1, 2, 3, 4, 5]


def test_streams_and_events_time_real_work():
    n = 1 << 22
    x = cuda.pinned_array(n, np.float32)
    x[:] = 1
    streams = [cuda.stream() for _ in range(4)]
    d = [cuda.to_device(x, stream=s) for s in streams]
    start, end = cuda.event(), cuda.event()
    start.record(streams[0])
    for s, dx in zip(streams, d):
        K.scale_inplace[1024, 256, s](dx, np.float32(2))
    end.record(streams[0])
    for s in streams:
        s.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    for dx in d:
        out = cuda.pinned_array(n, np.float32)
        dx.copy_to_host(out)
        assert (out[: 1024 * 256] == 2).all()


def test_device_limits_are_errors():
    # Checked by the package before the driver, the same on every device (kernel.c check_limits).
    with pytest.raises(ValueError, match="more than 1024 threads per block"):
        K.add[1, 2048](cuda.device_array(4), cuda.device_array(4), cuda.device_array(4))
    with pytest.raises(pyk2cuda.Error):
        K.dyn_shared[1, 32, 0, 1 << 30](np.zeros(32), np.zeros(32))


def test_bounds_checking_on_the_gpu():
    bad = cuda.jit(debug=True)(K.bad_index.py_func)
    with pytest.raises(pyk2cuda.BoundsError):
        bad[1, 1](np.zeros(4))


def test_debug_kernels_that_cannot_fail_run():
    """debug=True on kernels and device functions with no index to check and no raise: codegen
    defines no failure record, and the GPU path then has none to read (it refused the launch:
    Numba's test_debuginfo.test_chained_device_function on the stand-in)."""
    @cuda.jit(device=True, debug=True)
    def f2(x):
        return x + 1

    @cuda.jit(device=True)
    def f1(x, y):
        return x - f2(y)

    @cuda.jit(debug=True)
    def kernel(x, y, out):
        out[0] = f1(x, y)

    @cuda.jit(debug=True)
    def no_arrays(x, y):
        f1(x, y)

    no_arrays[1, 1](1, 2)
    out = cuda.to_device(np.zeros(1, np.int64))
    kernel[1, 1](5, 2, out)
    assert out.copy_to_host()[0] == 2


def test_boundscheck_on_device_arrays_reads_the_bounds_record():
    # Every array on the device is the fast launch path, which skips the bounds record unless
    # the specialization says its launches read it (P2cKernelInfo.checks_bounds): the decorator's
    # boundscheck=, which the translator reads (the package has no switch of its own now).
    bad = cuda.jit(boundscheck=True)(K.bad_index.py_func)
    with pytest.raises(pyk2cuda.BoundsError):
        bad[1, 1](cuda.to_device(np.zeros(4)))
        cuda.synchronize()


def test_arrays_dropped_while_a_stream_uses_them_and_read_only_arrays():
    # The script the fake driver runs (test_fake_gpu.py), on the real device: arrays dropped
    # with work queued, a stream deleted with work queued, read-only host memory as an input.
    from conftest import run_script
    rc, out, err = run_script(["stream_lifetimes_script.py"], env={"PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0 and "stream lifetimes on the gpu: ok" in out, out + err


def test_a_kernel_fault_says_the_context_is_lost():
    # CUDA_ERROR_ILLEGAL_ADDRESS poisons the context: the first error and the next launch's say
    # so (in a process of its own: the device stays unusable in it).
    from conftest import run_script
    rc, out, err = run_script(["sticky_fault_script.py"], env={"PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0 and "sticky fault on the gpu: ok" in out, out + err


def test_read_only_memory_is_pinned_read_only(tmp_path):
    # A file mapped read-only (np.memmap mode 'r'): its pages cannot be written, so a driver
    # page-locks them only with CU_MEMHOSTREGISTER_READ_ONLY (the stand-in refuses otherwise).
    path = tmp_path / "x.bin"
    np.arange(4096, dtype=np.float32).tofile(path)
    x = np.memmap(path, dtype=np.float32, mode="r")
    s = cuda.stream()
    with cuda.pinned(x):
        d = cuda.to_device(x, stream=s)
        s.synchronize()
    assert np.array_equal(d.copy_to_host(), np.arange(4096, dtype=np.float32))


RECORD = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64)], align=True)
EMPTY = np.array([], dtype=np.int64)


@cuda.jit
def set_record_fields(r, v):
    r.a = v
    r.b = 7
    r.c = 4.0 + 5.0j


@cuda.jit
def empty_constant_length(out):
    c = cuda.const.array_like(EMPTY)
    out[0] = len(c)


def test_a_record_passed_by_reference_comes_back():
    # A record argument (a[0] of a structured array) is passed by reference: the kernel's field
    # stores reach the host, as Numba copies it back (numba's test_record_dtype test_rec_set_*;
    # the GPU path copied it in and never out).
    arr = np.zeros(2, dtype=RECORD)
    set_record_fields[1, 1](arr[1], 1.5)
    assert arr[1]["a"] == 1.5 and arr[1]["b"] == 7 and arr[1]["c"] == 4 + 5j
    assert arr[0]["a"] == 0 and arr[0]["b"] == 0


def test_an_empty_constant_array_compiles_for_the_gpu():
    # np.array([]) as cuda.const.array_like: CUDA C has no arrays of size 0, which NVRTC refused
    # (numba's test_constmem test_const_empty); the host compiler had taken it.
    out = np.full(1, -1, dtype=np.int64)
    empty_constant_length[1, 1](out)
    assert out[0] == 0


def test_host_array_launch_waits_without_the_gil():
    # A launch with NumPy arrays waits for its kernel with the GIL released: another thread
    # ticks meanwhile (the stand-in is told to take a second per kernel; a GPU spins).
    from conftest import run_script
    rc, out, err = run_script(["gil_wait_script.py"],
                              env={"PYK2CUDA_DEVICE": "gpu", "PYK2CUDA_STANDIN_KERNEL_MS": "1000"})
    assert rc == 0 and "gil released during the wait: ok" in out, out + err


def test_device_array_zeroed_on_its_stream():
    s = cuda.stream()
    d = cuda.device_array((3, 5), np.int32, stream=s)
    e = cuda.device_array_like(np.ones((2, 7), np.float64, order="F"), stream=s)
    s.synchronize()
    assert (d.copy_to_host() == 0).all() and (e.copy_to_host() == 0).all()
    assert (cuda.device_array(9, np.int16).copy_to_host() == 0).all()


# ---- __cuda_array_interface__ v3 with another library's streams and devices ----
# "Another library" is played through ctypes on the driver pyk2cuda uses (the stand-in in the
# standin suite): a stream of its own (non-blocking, so nothing orders it with pyk2cuda's), work
# queued on it, memory on another device.

def _driver():
    import ctypes
    import os
    return ctypes.CDLL(os.environ.get("PYK2CUDA_LIBCUDA") or "libcuda.so.1")


class _in_context:
    """Device `dev`'s primary context current on this thread for the block, as a library has it."""

    def __init__(self, lib, dev):
        self.lib, self.dev = lib, dev

    def __enter__(self):
        import ctypes
        ctx = ctypes.c_void_p()
        assert self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self.dev) == 0
        assert self.lib.cuCtxPushCurrent_v2(ctx) == 0
        return self

    def __exit__(self, *exc):
        self.lib.cuCtxPopCurrent_v2(None)
        self.lib.cuDevicePrimaryCtxRelease_v2(self.dev)


class _Foreign:
    """Another library's GPU array: nothing but its __cuda_array_interface__."""

    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


def test_cai_producer_stream_is_waited_for():
    # The producer queued a memset on its own non-blocking stream and says so in `stream`: the
    # launch must not read the memory before that work is done (it read the old zeros before).
    import ctypes
    lib = _driver()
    d = cuda.device_array(64, np.int32)
    cai = dict(d.__cuda_array_interface__)
    h = ctypes.c_void_p()
    with _in_context(lib, 0):
        assert lib.cuStreamCreate(ctypes.byref(h), 1) == 0  # CU_STREAM_NON_BLOCKING
        assert lib.cuMemsetD8Async(ctypes.c_ulonglong(cai["data"][0]), 7, 256, h) == 0
    cai["stream"] = h.value
    out = cuda.device_array(64, np.int32)
    K.add[1, 64](_Foreign(cai), cuda.device_array(64, np.int32), out)
    assert (out.copy_to_host() == 0x07070707).all()
    with _in_context(lib, 0):
        assert lib.cuStreamDestroy_v2(h) == 0
    cai["stream"] = 0
    with pytest.raises(ValueError, match="'stream' is 0, which version 3 disallows"):
        K.add[1, 64](_Foreign(cai), cuda.device_array(64, np.int32), out)


def _queued(lib, handle):
    """The pieces of work queued, not yet run, on a stream of device 0 (the stand-in's test hook
    p2cStandinQueued; a real driver has none, and cannot tell)."""
    import ctypes
    if not hasattr(lib, "p2cStandinQueued"):
        pytest.skip("a real driver does not say what is still queued (the stand-in does)")
    n = ctypes.c_ulonglong()
    with _in_context(lib, 0):
        assert lib.p2cStandinQueued(ctypes.c_void_p(handle), ctypes.byref(n)) == 0
    return n.value


@pytest.fixture
def no_cai_sync(monkeypatch):
    """Numba's CUDA_ARRAY_INTERFACE_SYNC off (the environment's, Numba's config not loaded): a
    launch does not wait for a producer's stream on the host, only on the device."""
    import sys
    for name in ("numba.core.config", "numba.cuda.core.config"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "0")


def test_cai_producer_stream_is_synchronized_by_default():
    # Numba's rule with CUDA_ARRAY_INTERFACE_SYNC on (its default): consuming a foreign array
    # synchronizes the stream its interface names, on the host, before the launch.
    import ctypes
    lib = _driver()
    d = cuda.device_array(64, np.int32)
    cai = dict(d.__cuda_array_interface__)
    h = ctypes.c_void_p()
    with _in_context(lib, 0):
        assert lib.cuStreamCreate(ctypes.byref(h), 1) == 0  # CU_STREAM_NON_BLOCKING
        assert lib.cuMemsetD8Async(ctypes.c_ulonglong(cai["data"][0]), 5, 256, h) == 0
    cai["stream"] = h.value
    out = cuda.device_array(64, np.int32)
    assert _queued(lib, h.value) == 1
    K.add[1, 64](_Foreign(cai), cuda.device_array(64, np.int32), out)
    assert _queued(lib, h.value) == 0   # the memset was waited for
    assert (out.copy_to_host() == 0x05050505).all()
    with _in_context(lib, 0):
        assert lib.cuStreamDestroy_v2(h) == 0


def test_cai_producer_stream_is_waited_for_on_the_device(no_cai_sync):
    # With CUDA_ARRAY_INTERFACE_SYNC off the host does not wait, but the launch's stream waits
    # for the producer's on the device (an event recorded there): the
    # launch returns with the producer's memset still queued (the host ran it first before), on
    # the default stream and on a stream of pyk2cuda's, and the kernel still reads its bytes.
    import ctypes
    lib = _driver()
    for s in (None, cuda.stream()):
        d = cuda.device_array(64, np.int32)
        cai = dict(d.__cuda_array_interface__)
        h = ctypes.c_void_p()
        with _in_context(lib, 0):
            assert lib.cuStreamCreate(ctypes.byref(h), 1) == 0  # CU_STREAM_NON_BLOCKING
            assert lib.cuMemsetD8Async(ctypes.c_ulonglong(cai["data"][0]), 7, 256, h) == 0
        cai["stream"] = h.value
        out = cuda.device_array(64, np.int32)
        launch = K.add[1, 64] if s is None else K.add[1, 64, s]
        launch(_Foreign(cai), cuda.device_array(64, np.int32), out)
        assert _queued(lib, h.value) == 2  # the memset, and the event the launch's stream waits for
        if s is not None:
            s.synchronize()
            assert _queued(lib, h.value) == 0
        assert (out.copy_to_host() == 0x07070707).all()
        with _in_context(lib, 0):
            assert lib.cuStreamDestroy_v2(h) == 0


def test_cai_per_thread_default_stream(no_cai_sync):
    # CAI stream 2, the per-thread default stream: a stream of pyk2cuda's waits for the calling
    # thread's on the device; the legacy default stream needs no wait, as it waits for every
    # blocking stream, per-thread ones included. Either way the kernel reads the memset's bytes.
    import ctypes
    lib = _driver()
    per_thread = ctypes.c_void_p(2)  # CU_STREAM_PER_THREAD
    s = cuda.stream()
    for byte, stream in ((7, s), (9, None)):
        d = cuda.device_array(64, np.int32)
        cai = dict(d.__cuda_array_interface__, stream=2)
        with _in_context(lib, 0):
            assert lib.cuMemsetD8Async(ctypes.c_ulonglong(cai["data"][0]), byte, 256, per_thread) == 0
        out = cuda.device_array(64, np.int32)
        launch = K.add[1, 64] if stream is None else K.add[1, 64, stream]
        launch(_Foreign(cai), cuda.device_array(64, np.int32), out)
        assert _queued(lib, 2) == (1 if stream is None else 2)  # the memset (and the event)
        if stream is not None:
            stream.synchronize()
        assert (out.copy_to_host() == int.from_bytes(bytes([byte]) * 4, "little")).all()
        assert _queued(lib, 2) == 0


def test_cai_array_of_another_device_is_refused():
    import ctypes
    if _core_gpu_count() < 2:
        pytest.skip("one CUDA device here")
    lib = _driver()
    ctx, p = ctypes.c_void_p(), ctypes.c_ulonglong()
    assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 1) == 0  # held while its memory lives
    try:
        assert lib.cuCtxPushCurrent_v2(ctx) == 0
        assert lib.cuMemAlloc_v2(ctypes.byref(p), 256) == 0
        assert lib.cuCtxPopCurrent_v2(None) == 0
        cai = {"shape": (64,), "typestr": "<i4", "data": (p.value, False), "strides": None,
               "version": 3, "stream": None}
        with pytest.raises(ValueError, match="on CUDA device 1, where pyk2cuda runs on CUDA device 0"):
            K.add[1, 64](_Foreign(cai), cuda.device_array(64, np.int32), cuda.device_array(64, np.int32))
        assert lib.cuCtxPushCurrent_v2(ctx) == 0
        assert lib.cuMemFree_v2(p) == 0
        assert lib.cuCtxPopCurrent_v2(None) == 0
    finally:
        lib.cuDevicePrimaryCtxRelease_v2(1)
    np.testing.assert_array_equal(cuda.to_device(np.arange(4)).copy_to_host(), np.arange(4))


def _core_gpu_count():
    return pyk2cuda._core.gpu_count()


def test_cai_export_names_the_stream():
    # Work may be in flight on the array's stream (or on the legacy default stream, 1): a
    # consumer must be told, never given None (or 0) for it.
    s = cuda.stream()
    assert isinstance(s.handle, int) and s.handle not in (0, 1, 2)
    a = cuda.device_array(8, np.float32, stream=s)
    assert a.stream is s
    assert a.__cuda_array_interface__["stream"] == s.handle
    assert cuda.to_device(np.ones(4), stream=s).__cuda_array_interface__["stream"] == s.handle
    b = cuda.device_array(8)
    assert b.stream == 0 and b.__cuda_array_interface__["stream"] == 1
    K.scale_inplace[1, 8, s](a, np.float32(2))
    out = cuda.device_array(8, np.float32)
    K.add[1, 8](_Foreign(a.__cuda_array_interface__), a, out)   # waits for s, then reads
    s.synchronize()
    assert (out.copy_to_host() == 0).all()


def _free_device_bytes(lib):
    """The device's free memory once dropped arrays are collected and queued frees done (twice:
    a synchronize lets go of what queued work kept alive, whose frees are queued then)."""
    import ctypes
    import gc
    for _ in range(2):
        gc.collect()
        cuda.synchronize()
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    with _in_context(lib, 0):
        assert lib.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)) == 0
    return free.value


def test_defer_cleanup_keeps_memory_until_the_outermost_block_ends():
    # Numba's cuda.defer_cleanup(): arrays dropped inside the block are freed when the
    # outermost block ends (before, the memory came back at once, inside the block).
    lib = _driver()
    size = 64 << 20
    start = _free_device_bytes(lib)
    with cuda.defer_cleanup():
        with cuda.defer_cleanup():
            d = cuda.device_array(size, np.uint8)
            del d
            assert _free_device_bytes(lib) <= start - size
        assert _free_device_bytes(lib) <= start - size   # the inner block's end frees nothing
    assert _free_device_bytes(lib) >= start
    d = cuda.device_array(size, np.uint8)                   # outside a block: freed at once
    del d
    assert _free_device_bytes(lib) >= start


def test_event_wait_orders_another_streams_work():
    # Numba's Event.wait(stream=): the second stream's kernel reads what the first stream's
    # kernel wrote, ordered by the event alone (two blocking streams are not ordered with each
    # other; the stand-in runs a stream's queue only up to what the host waits for, so without
    # the wait the second kernel reads the array before the first kernel's writes).
    first, second = cuda.stream(), cuda.stream()
    x = cuda.device_array(256, np.float64)
    out = cuda.device_array(256, np.float64)
    cuda.synchronize()
    K.add[1, 256, first](cuda.to_device(np.arange(256.0), stream=first),
                         cuda.to_device(np.ones(256), stream=first), x)
    done = cuda.event()
    done.record(first)
    done.wait(stream=second)
    K.add[1, 256, second](x, x, out)
    second.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), 2 * (np.arange(256.0) + 1))
