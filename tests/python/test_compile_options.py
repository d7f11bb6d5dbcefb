"""Options that change the code (issue 28; docs/python.md, "Options that change the code"):
compile_ptx(device=True), fastmath=True and Numba's flag sets, min/max of two floats, lineinfo=
and debug= in the PTX, Numba's warning for debug=True with optimization on, and
Dispatcher.compile(sig). PTX is NVRTC's (no GPU needed); results run wherever pyk2cuda runs
(the simulator without a GPU), against Numba's simulator where it can judge and against
compiled Numba's documented lowering (numba/cuda/cudaimpl.py, mathimpl.py) where it cannot."""
import math
import os
import warnings

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, float32, float64
from pyk2cuda.numba_names import NumbaInvalidConfigWarning
from conftest import run_script

HERE = os.path.dirname(os.path.abspath(__file__))


def add(x, y):
    return x + y


def ratio_root(x, y, z, d):
    return math.sqrt((x * y + z) / d)


def test_device_function_ptx_alone():
    """Numba's test_compiler assertions: a `.visible .func` with a func_retval, no kernel, and
    the inferred return type; the function's own name, as numba-cuda's abi='c' names it."""
    ptx, resty = cuda.compile_ptx(add, (float32, float32), device=True)
    assert "func_retval" in ptx and ".visible .func" in ptx and ".visible .entry" not in ptx
    assert resty == float32
    assert "add(" in ptx
    ptx, resty = cuda.compile_ptx(add, "float64(float64, int32)", device=True, cc=(8, 0))
    assert ".target sm_80" in ptx and resty == float64
    ptx, _ = cuda.compile_ptx_for_current_device(add, (float32, float32), device=True)
    cc = cuda.get_current_device().compute_capability
    assert ".target sm_%d%d" % cc in ptx


def test_device_function_errors_name_the_user_line():
    def bad(x):
        return x.nope
    with pytest.raises(pyk2cuda.CompileError, match=r"test_compile_options\.py:\d+"):
        cuda.compile_ptx(bad, (float32,), device=True)


FAST = ("fma.rn.ftz.f32", "div.approx.ftz.f32", "sqrt.approx.ftz.f32")
PRECISE = ("fma.rn.f32", "div.rn.f32", "sqrt.rn.f32")


@pytest.mark.parametrize("fastmath", [True, {"arcp", "contract"}, {"fast"}])
def test_fastmath_ptx(fastmath):
    """fastmath=True, and any non-empty set of Numba's flags, is NVRTC's --use_fast_math (ftz,
    approximate division and square root, FMA), as Numba's NVVM options are; without it the
    precise instructions, with FMA contraction on."""
    precise, _ = cuda.compile_ptx(ratio_root, (float32,) * 4, device=True)
    fast, _ = cuda.compile_ptx(ratio_root, (float32,) * 4, device=True, fastmath=bool(fastmath))
    assert all(i in precise for i in PRECISE) and not any(i in precise for i in FAST)
    assert all(i in fast for i in FAST)

    def kernel(r, x, y):
        r[0] = math.sin(x) + math.log(y) + x / y
    sig = (float32[::1], float32, float32)
    k_fast = cuda.jit(sig, fastmath=fastmath)(kernel).inspect_asm(sig)
    k_prec = cuda.jit(sig)(kernel).inspect_asm(sig)
    for fast_only in ("sin.approx.ftz.f32", "lg2.approx.ftz.f32", "div.approx.ftz.f32"):
        assert fast_only in k_fast and fast_only not in k_prec
    # the device function's decorator too (its inspect_asm is compile_ptx(device=True))
    dev = cuda.jit((float32,) * 4, device=True, fastmath=fastmath)(ratio_root)
    assert all(i in dev.inspect_asm((float32,) * 4) for i in FAST)


def test_fastmath_float32_division_is_unchecked():
    """With debug=True a float32 division by zero raises ZeroDivisionError, except with
    fastmath=True, where Numba divides with its fast division and checks nothing
    (maybe_fast_truediv); a float64 division is checked either way."""
    def div32(r, x, y):
        r[0] = x / y

    def div64(r, x, y):
        r[0] = x / y
    sig32, sig64 = (float32[::1], float32, float32), (float64[::1], float64, float64)
    r32, r64 = np.zeros(1, np.float32), np.zeros(1)
    with pytest.raises(ZeroDivisionError):
        cuda.jit(sig32, debug=True, opt=False)(div32)[1, 1](r32, 1.0, 0.0)
    cuda.jit(sig32, debug=True, opt=False, fastmath=True)(div32)[1, 1](r32, 1.0, 0.0)
    assert r32[0] == np.inf
    with pytest.raises(ZeroDivisionError):
        cuda.jit(sig64, debug=True, opt=False, fastmath=True)(div64)[1, 1](r64, 1.0, 0.0)


def test_fastmath_results_within_fast_math_error():
    """What fastmath changes in results: on a GPU NVRTC's approximations (a few ulp, denormals
    flushed to zero); on the simulator nothing (it computes the precise functions), so results
    stay within the fast versions' documented error of NumPy's either way."""
    @cuda.jit(fastmath=True)
    def fast(r, x):
        i = cuda.grid(1)
        if i < x.size:
            r[i] = math.sin(x[i]) + math.exp(x[i]) / (1 + x[i] * x[i]) + math.sqrt(x[i])
    x = np.linspace(0.01, 3, 256, dtype=np.float32)
    r = np.zeros_like(x)
    fast[2, 128](r, x)
    want = np.sin(x) + np.exp(x) / (1 + x * x) + np.sqrt(x)
    np.testing.assert_allclose(r, want, rtol=2e-5, atol=1e-6)


def minmax2(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = max(a[i], b[i])
        out[i, 1] = min(a[i], b[i])
        out[i, 2] = max(a[i], b[i], 0.0)   # three values: Python's order, NaN as it compares
        out[i, 3] = min(a[i], b[i], 0.0)


NAN = float("nan")
A = [1.0, NAN, 2.0, NAN, -1.0, 3.5]
B = [NAN, 1.0, 3.0, NAN, -2.0, 3.5]


def test_minmax_of_two_floats_is_fmin_fmax():
    """max(a, b) and min(a, b) of two floats are libdevice's fmax/fmin on Numba's CUDA target
    (cudaimpl.py: `max.f64`, `min.f32` in the PTX): a NaN operand gives the other one. Three
    or more values, or ints, keep Python's rule (Numba's do_minmax)."""
    for dtype, suffix in ((np.float32, "f32"), (np.float64, "f64")):
        a, b = np.array(A, dtype), np.array(B, dtype)
        out = np.zeros((len(A), 4), dtype)
        k = cuda.jit(minmax2)
        k[1, 8](a, b, out)
        np.testing.assert_array_equal(out[:, 0], np.fmax(a, b))
        np.testing.assert_array_equal(out[:, 1], np.fmin(a, b))
        py3max = [max(x, y, 0.0) for x, y in zip(a.tolist(), b.tolist())]
        py3min = [min(x, y, 0.0) for x, y in zip(a.tolist(), b.tolist())]
        np.testing.assert_array_equal(out[:, 2], np.array(py3max, dtype))
        np.testing.assert_array_equal(out[:, 3], np.array(py3min, dtype))
        ptx = next(iter(k.inspect_asm().values()))
        assert "max.%s" % suffix in ptx and "min.%s" % suffix in ptx


MINMAX_NUMBA = r'''
import json, sys
import numpy as np
from numba import cuda
%s
a = np.array(%r); b = np.array(%r)
out = np.zeros((len(a), 4))
cuda.jit(minmax2)[1, 8](a, b, out)
print(json.dumps(out.tolist()))
'''


def test_minmax_without_nan_matches_numbas_simulator():
    """Without NaN, fmin/fmax and Python's order agree: Numba's simulator (which runs Python's
    max) judges every result."""
    import inspect
    import json
    a = [1.0, 2.0, -1.0, 3.5, -0.5]
    b = [0.5, 3.0, -2.0, 3.5, 7.0]
    src = MINMAX_NUMBA % (inspect.getsource(minmax2), a, b)
    code, out, err = run_script(["-c", src], env={"NUMBA_ENABLE_CUDASIM": "1",
                                                 "PYTHONPATH": ""}, timeout=300)
    assert code == 0, err
    want = np.array(json.loads(out))
    got = np.zeros((len(a), 4))
    cuda.jit(minmax2)[1, 8](np.array(a), np.array(b), got)
    np.testing.assert_array_equal(got, want)


def test_lineinfo_and_debug_in_the_ptx():
    """lineinfo=True: `.file` names the .py file and `.loc` its lines (the CUDA C has #line
    directives); debug=True: NVRTC's -G, with the DWARF sections Numba's -g gives; neither:
    no `.file`."""
    def store(x):
        x[0] = 1
    sig = (pyk2cuda.int32[::1],)
    plain = cuda.jit(sig)(store).inspect_asm(sig)
    lines = cuda.jit(sig, lineinfo=True)(store).inspect_asm(sig)
    debug = cuda.jit(sig, debug=True, opt=False)(store).inspect_asm(sig)
    assert ".file" not in plain and ".debug_info" not in plain
    assert '.file\t1 "%s"' % __file__ in lines and ".debug_info" not in lines
    line = store.__code__.co_firstlineno + 1
    assert "\t.loc\t1 %d " % line in lines
    assert ".section\t.debug_info" in debug and '"%s"' % __file__ in debug


def _invalid_config_classes():
    """The classes the warning may have in this process: pyk2cuda's, or Numba's or numba-cuda's
    where an earlier test loaded them (which one is chosen: test_debug_and_opt_follow_numbas_config)."""
    import sys
    loaded = (getattr(sys.modules.get(m), "NumbaInvalidConfigWarning", None)
              for m in ("numba.cuda.core.errors", "numba.core.errors"))
    return [NumbaInvalidConfigWarning] + [c for c in loaded if c is not None]


def test_debug_with_opt_warns_as_numba():
    """Numba's NumbaInvalidConfigWarning for debug=True with opt=True (the default), at the
    decorator and at compile_ptx; none with opt=False or without debug."""
    for kwargs, count in (({"debug": True}, 1), ({"debug": True, "opt": True}, 1),
                          ({"debug": True, "opt": False}, 0), ({}, 0)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cuda.jit(**kwargs)
        assert len(w) == count, kwargs
        assert all(x.category in _invalid_config_classes() for x in w)
        assert all("not supported by CUDA" in str(x.message) for x in w)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cuda.compile_ptx(add, (float32, float32), device=True, debug=True)
    assert len(w) == 1


def test_debug_and_opt_follow_numbas_config():
    """numba-cuda's jit: debug= defaults to config.CUDA_DEBUGINFO_DEFAULT and opt= to
    config.OPT != 0 (numba-cuda's numba.cuda.core.config where loaded, else Numba's
    numba.core.config, else $NUMBA_OPT); the warning is then of numba-cuda's class, as its
    test_warning checks (test_no_warn_on_debug_and_opt_with_config, ...)."""
    import sys
    import types as pytypes
    config = pytypes.SimpleNamespace(CUDA_DEBUGINFO_DEFAULT=1, OPT=0)
    errors = pytypes.ModuleType("numba.cuda.core.errors")
    errors.NumbaInvalidConfigWarning = type("NumbaInvalidConfigWarning", (UserWarning,), {})
    saved = {name: sys.modules.get(name) for name in ("numba.cuda.core.config", "numba.cuda.core.errors")}
    sys.modules["numba.cuda.core.config"], sys.modules["numba.cuda.core.errors"] = config, errors
    try:
        counts = []
        for opt, kwargs in ((0, {}), (0, {"debug": True}), (2, {}), (2, {"opt": False}), (3, {"debug": False})):
            config.OPT = opt
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                cuda.jit(**kwargs)
            counts.append(len(w))
            assert all(x.category is errors.NumbaInvalidConfigWarning for x in w)
        assert counts == [0, 0, 1, 0, 0]
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def test_dispatcher_compile_and_numba_keys():
    """Dispatcher.compile(sig) makes the specialization now; inspect_asm answers to it, and its
    dict answers to Numba's keys (the tuple of argument types) as well as to signature text."""
    @cuda.jit(lineinfo=True)
    def foo(x):
        x[0] = 1
    sig = (pyk2cuda.int32[:],)
    assert foo.compile(sig) is foo
    assert "test_compile_options.py" in foo.inspect_asm(sig)

    def nothing(x):
        pass
    k = cuda.jit((float64[::1],))(nothing)
    ptx = k.inspect_asm()
    assert ptx[(float64[::1],)] == ptx["void(float64[::1])"]
    with pytest.raises(KeyError):
        ptx[(float32[::1],)]


def nap(x, out):
    i = cuda.grid(1)
    cuda.nanosleep(32)
    cuda.nanosleep(x)
    out[i] = i * 3


def test_nanosleep_is_ptx_nanosleep_and_no_wait_on_the_simulator():
    """cuda.nanosleep(ns) (void(uint32) in compiled Numba; its simulator has none) is PTX's
    nanosleep.u32, once per call as Numba's test_compiler.test_nanosleep counts; the kernel's
    results are those of the same kernel without it."""
    ptx, resty = cuda.compile_ptx(nap, ("uint32", "int32[::1]"), cc=(7, 5))
    assert sum("nanosleep.u32" in line for line in ptx.splitlines()) == 2
    out = np.zeros(64, np.int32)
    cuda.jit(nap)[2, 32](np.uint32(1000), out)
    cuda.synchronize()
    assert (out == np.arange(64) * 3).all()


def test_debug_with_lineinfo_warns_as_numba():
    """numba-cuda's NumbaInvalidConfigWarning for debug=True with lineinfo=True, at the decorator
    and at compile_ptx; none with either alone (opt=False keeps the debug/opt warning out)."""
    for kwargs, count in (({"debug": True, "lineinfo": True, "opt": False}, 1),
                          ({"lineinfo": True}, 0), ({"debug": True, "opt": False}, 0)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cuda.jit(**kwargs)
        assert len(w) == count, kwargs
        assert all(x.category in _invalid_config_classes() and "mutually exclusive" in str(x.message) for x in w)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cuda.compile_ptx(add, (float32, float32), device=True, debug=True, opt=False, lineinfo=True)
    assert ["mutually exclusive" in str(x.message) for x in w] == [True]
