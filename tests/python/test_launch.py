"""Kernels launched from Python: host arrays, device arrays, signatures, shared memory."""
import os

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, float32
import kernels as K


def test_version_and_device():
    assert pyk2cuda.__version__ == pyk2cuda._core.version
    assert pyk2cuda.device_kind() in ("gpu", "sim")


def test_host_arrays_are_copied_in_and_back():
    x = np.arange(1000, dtype=np.float32)
    y = 2 * x
    out = np.zeros_like(x)
    K.add[(x.size + 255) // 256, 256](x, y, out)
    np.testing.assert_array_equal(out, 3 * x)


def test_device_arrays_quick_start():
    x = np.arange(1_000_000, dtype=np.float32)
    y = 2 * x
    d_x, d_y = cuda.to_device(x), cuda.to_device(y)
    d_out = cuda.device_array_like(x)
    K.add[(x.size + 255) // 256, 256](d_x, d_y, d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), x + y)
    # the inputs are untouched, and a copy into a given array works too
    back = np.empty_like(x)
    assert d_x.copy_to_host(back) is back
    np.testing.assert_array_equal(back, x)


def test_lazy_specializations_per_type():
    for dt in (np.int32, np.float64, np.uint8):
        x = np.arange(50).astype(dt)
        out = np.zeros(50, dt)
        K.add[1, 64](x, x, out)
        np.testing.assert_array_equal(out, (x + x).astype(dt))
    sigs = K.add.signatures
    assert "void(int32[::1], int32[::1], int32[::1])" in sigs
    assert "void(float64[::1], float64[::1], float64[::1])" in sigs
    # a strided view is a new specialization ('A' layout), and is written in place
    base = np.zeros(100, np.float64)
    v = base[::2]
    K.add[1, 64](np.ones(50), np.ones(50), v)
    np.testing.assert_array_equal(base[::2], 2.0)
    np.testing.assert_array_equal(base[1::2], 0.0)
    assert any("float64[:]" in s for s in K.add.signatures)


def test_python_scalars_are_int64_and_float64():
    x = np.ones(10, np.float64)
    K.scale_inplace[1, 32](x, 3)
    K.scale_inplace[1, 32](x, 0.5)
    np.testing.assert_array_equal(x, 1.5)
    assert "void(float64[::1], int64)" in K.scale_inplace.signatures
    assert "void(float64[::1], float64)" in K.scale_inplace.signatures


def test_numpy_scalar_types_are_kept():
    x = np.ones(10, np.float32)
    K.scale_inplace[1, 32](x, np.float32(2))
    assert "void(float32[::1], float32)" in K.scale_inplace.signatures


def test_float16_scalar_arguments():
    """np.float16 scalars are float16 arguments (lazy kernels specialize on them); a Python float
    given to a float16 parameter is rounded to the nearest float16. Compared with NumPy's
    float16 arithmetic (one rounding per operation, as the kernel's)."""
    def add(out, a, b):
        out[0] = a + b
        out[1] = cuda.fp16.hmul(a, b)
    a, b = np.float16(3.1415926), np.float16(-2.7)
    out = np.zeros(2, np.float16)
    lazy = cuda.jit(add)
    lazy[1, 1](out, a, b)
    assert lazy.signatures == ["void(float16[::1], float16, float16)"]
    assert out.tolist() == [a + b, a * b]
    typed = cuda.jit("void(f2[:], f2, f2)")(add)
    typed[1, 1](out, 0.1, 65519.0)
    assert out.tolist() == [np.float16(0.1) + np.float16(65504), np.float16(0.1) * np.float16(65504)]


def test_explicit_signature_converts_scalars():
    x = np.ones(10, np.float32)
    K.scale_f32[1, 32](x, 3)          # an int converted to float32, as Numba converts it
    np.testing.assert_array_equal(x, 3)
    y = np.zeros(5, np.int64)
    K.fill_i32[1, 32](y, 2**32 + 7)   # int32 parameter: wraps as a C cast
    np.testing.assert_array_equal(y, 7)
    assert K.scale_f32.signatures == ["void(float32[::1], float32)"]


def test_signature_list_picks_the_matching_one():
    a = np.zeros(4)
    b = np.zeros(4, np.int64)
    K.offset[1, 4](a, 1.5)
    K.offset[1, 4](b, 2)
    np.testing.assert_array_equal(a, 1.5)
    np.testing.assert_array_equal(b, 2)
    with pytest.raises(TypeError, match="No matching definition of kernel 'offset'"):
        K.offset[1, 4](np.zeros(4, np.float32), 1.0)


def test_2d_grid_and_fortran_order():
    a = np.arange(12 * 7, dtype=np.float64).reshape(12, 7)
    out = np.zeros((7, 12))
    K.transpose[(2, 1), (8, 8)](a, out)
    np.testing.assert_array_equal(out, a.T)
    af = np.asfortranarray(a)
    out2 = np.zeros((7, 12))
    K.transpose[(2, 1), (8, 8)](af, out2)
    np.testing.assert_array_equal(out2, a.T)
    d = cuda.to_device(af)
    assert d.is_f_contiguous() and not d.is_c_contiguous()
    np.testing.assert_array_equal(d.copy_to_host(), af)
    assert d.copy_to_host().flags["F_CONTIGUOUS"]


def test_device_function():
    x = np.array([3.0, 5.0, 8.0])
    y = np.array([4.0, 12.0, 15.0])
    out = np.zeros(3)
    K.norms[1, 32](x, y, out)
    np.testing.assert_allclose(out, [5, 13, 17])
    with pytest.raises(pyk2cuda.Error, match="can only be called from a kernel"):
        K.hypot2(1.0, 2.0)


def test_shared_memory_and_syncthreads():
    n = 1000
    x = np.random.default_rng(1).random(n).astype(np.float32)
    blocks = (n + K.TPB - 1) // K.TPB
    partial = np.zeros(blocks, np.float32)
    K.block_sums[blocks, K.TPB](x, partial)
    np.testing.assert_allclose(partial.sum(), x.sum(), rtol=1e-5)


def test_dynamic_shared_memory_and_stream():
    x = np.arange(64, dtype=np.float64)
    out = np.zeros(64)
    s = cuda.stream()
    K.dyn_shared[1, 64, s, 64 * 8](x, out)
    s.synchronize()
    np.testing.assert_array_equal(out, x[::-1])


def test_forall():
    out = np.zeros(1000, np.int64)
    K.index_of_thread.forall(out.size)(out)
    np.testing.assert_array_equal(out, np.arange(1000))


def test_forall_of_no_tasks_launches_nothing():
    # Numba: forall(0) is a launcher that runs nothing; a negative count is a ValueError with
    # its message (numba/cuda/tests/cudapy/test_forall.py checks both).
    out = np.full(10, -1, np.int64)
    K.index_of_thread.forall(0)(out)
    assert (out == -1).all()
    with pytest.raises(ValueError, match="Can't create ForAll with negative task count: -1"):
        K.index_of_thread.forall(-1)
    K.index_of_thread.forall(3)(out)
    np.testing.assert_array_equal(out[:4], [0, 1, 2, -1])


def test_many_launches_reuse_the_specialization():
    x = np.zeros(16, np.int64)
    for _ in range(200):
        K.index_of_thread[1, 16](x)
    assert K.index_of_thread.signatures == ["void(int64[::1])"]


def test_inspection():
    x = np.zeros(8, np.float32)
    K.scale_f32[1, 8](x, 1)
    cu = K.scale_f32.inspect_cuda()
    assert list(cu) == ["void(float32[::1], float32)"]
    text = cu["void(float32[::1], float32)"]
    assert 'extern "C" __global__' in text and "scale_f32" in text
    import io
    f = io.StringIO()
    K.scale_f32.inspect_types(file=f)
    assert "float32" in f.getvalue()


def _tool(name):
    from pyk2cuda.cuda import _cuda_tool
    try:
        return _cuda_tool(name)
    except pyk2cuda.Error as e:
        assert name in str(e) and "not found" in str(e)
        return None


def test_resource_usage_from_ptxas():
    x = np.ones(1000, np.float32)
    K.block_sums[8, K.TPB](x, np.zeros(8, np.float32))
    if _tool("ptxas") is None:
        with pytest.raises(pyk2cuda.Error, match="ptxas"):
            K.block_sums.resource_usage()
        return
    usage = K.block_sums.resource_usage(arch="sm_90")
    u = usage["void(float32[::1], float32[::1])"]
    assert u["shared"] == 4 * K.TPB      # cuda.shared.array(TPB, float32)
    assert u["registers"] > 0 and u["barriers"] >= 1
    assert u["spill_stores"] == 0 and u["spill_loads"] == 0


# nvdisasm from NVIDIA's wheel, where scripts/deps.sh --nvdisasm fetched it (CI does), so that
# inspect_sass runs for real on a machine without the toolkit's.
WHEEL_NVDISASM = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                              "third_party", "nvdisasm", "nvidia", "cu13", "bin")


def test_inspect_sass_needs_nvdisasm(monkeypatch):
    if os.access(os.path.join(WHEEL_NVDISASM, "nvdisasm"), os.X_OK):
        monkeypatch.setenv("PATH", WHEEL_NVDISASM + os.pathsep + os.environ.get("PATH", ""))
    x = np.zeros(8, np.float32)
    K.scale_f32[1, 8](x, 1)
    try:
        pyk2cuda._core.find_nvdisasm()   # the library's search, as the explore view's
    except pyk2cuda.Error:
        nvdisasm = None
    else:
        nvdisasm = True
    if nvdisasm is None or _tool("ptxas") is None:
        with pytest.raises(pyk2cuda.Error, match="not found"):
            K.scale_f32.inspect_sass()
        return
    sass = K.scale_f32.inspect_sass("void(float32[::1], float32)", arch="sm_90")
    assert "scale_f32" in sass and "EXIT" in sass and ".text.scale_f32" in sass


def test_inspect_asm_is_ptx():
    x = np.zeros(8, np.float32)
    K.scale_f32[1, 8](x, 1)
    ptx = K.scale_f32.inspect_asm("void(float32[::1], float32)", arch="sm_75")
    assert ".entry scale_f32" in ptx and ".target sm_75" in ptx
    # Numba's key for a specialization, the tuple of its argument types (as `overloads` has
    # them), names the same one (Numba's tests call inspect_asm(sig) with sig = (float64[:],)).
    key = (pyk2cuda.float32[::1], pyk2cuda.float32)
    assert key in K.scale_f32.overloads
    assert K.scale_f32.inspect_asm(key, arch="sm_75") == ptx
    assert K.scale_f32.inspect_cuda(key) == K.scale_f32.inspect_cuda("void(float32[::1], float32)")
    with pytest.raises(KeyError, match="no specialization"):
        K.scale_f32.inspect_asm((pyk2cuda.int8,), arch="sm_75")


def test_device_keyword_by_truth_and_ignored_options():
    x = np.arange(10, dtype=np.int64)
    K.apply_plus_one[1, 32](x)
    np.testing.assert_array_equal(x, np.arange(10) + 1)
    assert isinstance(K.plus_one, cuda.DeviceFunction)
    assert isinstance(K.apply_plus_one, cuda.Kernel)


def test_specialize_makes_a_kernel_for_those_arguments():
    x = np.zeros(4, np.float32)
    lazy = cuda.jit(K.scale_f32.py_func)
    assert lazy.specializations == {}
    k = lazy.specialize(x, 2.0)
    # Numba's Dispatcher.specialize: types or values alike, one kernel per signature, kept in
    # `specializations` by argument types; a specialized kernel is not specialized again.
    assert lazy.specialize(pyk2cuda.float32[::1], pyk2cuda.float64) is k
    assert lazy.specializations == {(pyk2cuda.float32[::1], pyk2cuda.float64): k}
    assert lazy.specialize(pyk2cuda.float32[:], pyk2cuda.float64) is not k
    assert len(lazy.specializations) == 2
    for specialized in (k, K.scale_f32):
        with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
            specialized.specialize(x, 2.0)
    assert k.signatures == ["void(float32[::1], float64)"]
    x[:] = 1
    k[1, 4](x, 3.0)
    assert x.tolist() == [3, 3, 3, 3]
    with pytest.raises(TypeError, match="No matching definition"):
        k[1, 4](np.zeros(4), 3.0)


def test_compile_ptx_as_numba():
    def store(a, v):
        a[0] = v
    ptx, resty = cuda.compile_ptx(store, (float32[::1], float32), cc=(7, 5))
    assert ".entry" in ptx and ".target sm_75" in ptx and str(resty) == "void"
    # A list is the argument types too, as Numba's tests pass them (test_libdevice's 317
    # generated tests; compile_ptx(f, []) for a kernel without parameters).
    assert cuda.compile_ptx(store, [float32[::1], float32], cc=(7, 5))[0] == ptx

    def nothing():
        pass
    assert ".entry" in cuda.compile_ptx(nothing, [])[0]
    ptx, _ = cuda.compile_ptx_for_current_device(store, "void(float32[::1], float32)")
    assert ".entry" in ptx
    # device=True: the function alone (tests/python/test_compile_options.py says more)
    ptx, resty = cuda.compile_ptx(lambda x: x * x, "float32(float32)", device=True)
    assert ".visible .func" in ptx and ".visible .entry" not in ptx and str(resty) == "float32"


def test_type_names_from_numba_cuda():
    """numba-cuda's numba.cuda exports the type names (`from numba.cuda import float32, void`),
    as its own tests import them; they are the package's types."""
    from pyk2cuda.cuda import float32 as f32, int64, void
    assert f32 is float32 and str(void(f32[::1], int64)) == str(pyk2cuda.void(float32[::1], pyk2cuda.int64))

    def scale(a, k):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= k

    kern = cuda.jit(void(f32[::1], f32))(scale)
    a = np.arange(64, dtype=np.float32)
    kern[1, 64](a, 3.0)
    np.testing.assert_array_equal(a, 3 * np.arange(64, dtype=np.float32))


@cuda.jit
def _bump(a):
    a[cuda.grid(1)] += 1


def test_pre_launch_callbacks_run_in_order_before_the_launch():
    """numba-cuda's pre_launch_callbacks: callback(kernel, launch_config), in order, just before
    each launch of that configuration; a raise stops the launch; a configuration with callbacks
    does not pickle (they are this process's functions), one without does."""
    import pickle
    d = cuda.to_device(np.zeros(4, np.int64))
    cfg = _bump[1, 4]
    seen = []
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append(("first", k is _bump, c is cfg, int(d.copy_to_host()[0]))))
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append(("second", c.griddim, c.blockdim)))
    cfg(d)
    cfg(d)
    assert seen == [("first", True, True, 0), ("second", (1, 1, 1), (4, 1, 1)),
                    ("first", True, True, 1), ("second", (1, 1, 1), (4, 1, 1))]
    assert list(d.copy_to_host()) == [2, 2, 2, 2]

    def refuse(k, c):
        raise RuntimeError("not now")
    cfg.pre_launch_callbacks.insert(0, refuse)
    with pytest.raises(RuntimeError, match="not now"):
        cfg(d)
    assert list(d.copy_to_host()) == [2, 2, 2, 2]          # the launch did not happen
    with pytest.raises(pickle.PicklingError, match="Cannot pickle configured launches with pre-launch callbacks"):
        pickle.dumps(cfg)
    assert _bump[1, 4].pre_launch_callbacks == []            # each configuration has its own list
    pickle.dumps(_bump[1, 4])


def test_a_block_over_the_launch_bounds_is_the_drivers_refusal(monkeypatch):
    """launch_bounds=(128, 2): a block of 128 threads runs, one of 256 is refused as a GPU's
    driver refuses it (CUDA_ERROR_INVALID_VALUE, status 'cuda'), on either device; where the
    program has loaded cuda.core, the error is also its CUDAError, as numba-cuda raises it."""
    import sys
    import types as pytypes

    class CUDAError(Exception):
        pass

    fake = pytypes.ModuleType("cuda.core._utils.cuda_utils")
    fake.CUDAError = CUDAError

    @cuda.jit(launch_bounds=(128, 2))
    def bounded(out):
        out[cuda.grid(1)] = 1

    out = cuda.to_device(np.zeros(256, np.int32))
    bounded[1, 128](out)
    assert bounded.get_max_threads_per_block() == {"void(int32[::1])": 128}
    assert out.copy_to_host().sum() == 128
    with pytest.raises(pyk2cuda.Error, match=r"block \(256,1,1\) has 256 threads; kernel 'bounded' "
                       r"can run at most 128 per block .*CUDA_ERROR_INVALID_VALUE") as e:
        bounded[1, 256](out)
    assert e.value.status_name == "cuda" and not isinstance(e.value, CUDAError)
    monkeypatch.setitem(sys.modules, "cuda.core._utils.cuda_utils", fake)
    with pytest.raises(CUDAError, match="CUDA_ERROR_INVALID_VALUE") as e:
        bounded[1, (16, 16)](out)
    assert isinstance(e.value, pyk2cuda.Error) and e.value.status_name == "cuda"
    assert out.copy_to_host().sum() == 128   # neither refused launch ran


def test_too_many_launch_bounds_is_a_value_error():
    """numba-cuda's ValueError for more than three launch bounds, at the signed kernel's making
    (a CompileError too, with the diagnostic's code)."""
    with pytest.raises(ValueError, match=r"Got 4 launch bounds: \(128, 2, 4, 8\)") as e:
        cuda.jit("void()", launch_bounds=(128, 2, 4, 8))(lambda: None)
    assert isinstance(e.value, pyk2cuda.CompileError)
    assert [d[4] for d in e.value.diagnostics] == ["E-launch-bounds"]


def test_a_tie_between_the_best_signatures_is_ambiguous():
    """Numba's CUDA dispatcher: two signatures rated best alike (one unsafe conversion each) is
    its TypeError naming both, not the third (two unsafe ones); a call one of them takes better
    is not ambiguous."""
    def add(r, x, y):
        r[0] = x + y

    f = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                  "(float64[::1], int64, int64)"])(add)
    r = np.zeros(1)
    with pytest.raises(TypeError) as e:
        f[1, 1](r, 1.0, 2.0)
    assert str(e.value) == ("Ambiguous overloading for kernel 'add' (float64[::1], float64, float64):\n"
                            "(float64[::1], float32, float64) -> none\n"
                            "(float64[::1], float64, float32) -> none")
    assert r[0] == 0
    f[1, 1](r, np.float32(1.5), 2.0)   # (float32, float64): the first signature, exactly
    assert r[0] == 3.5
    f[1, 1](r, 1, 2)                   # int64: the third, exactly
    assert r[0] == 3
