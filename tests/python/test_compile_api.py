"""numba-cuda's cuda.compile and its friends (issue 28; docs/python.md, "compile and its
friends"): compile, compile_all, compile_for_current_device, compile_ptx; the C ABI's names
(abi_info's abi_name), a signature's return type applied, LTO-IR, launch_bounds, and
numba-cuda's errors for bad requests. PTX and LTO-IR are NVRTC's (no GPU needed); the
kernels' results run wherever pyk2cuda runs (the simulator without a GPU) and are checked
against Numba's simulator (Debian's python3-numba) where it can judge, else NumPy."""
import os
import re

import numpy as np
import pytest

from pyk2cuda import cuda, float32, int16, int32, int64, uint8, void
from pyk2cuda import types
from conftest import run_script

HERE = os.path.dirname(os.path.abspath(__file__))
LTOIR_MAGIC = 0x7F4E43ED   # the first word of NVRTC's LTO-IR (numba-cuda's test_compiler)


def add(x, y):
    return x + y


def c_abi_func(ptx, name, bits):
    """The C ABI's `.visible .func (.param .bN func_retval0) NAME(` in the PTX."""
    return re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b%d\s+func_retval0\)\s+%s\(" % (bits, name), ptx)


def test_compile_defaults_to_a_c_abi_device_function():
    ptx, resty = cuda.compile(add, int32(int32, int32))
    assert c_abi_func(ptx, "add", 32) and ".visible .entry" not in ptx
    assert resty == int32


def test_signature_return_type_is_applied():
    """A return type in the signature converts the result (numba-cuda's compile): int16 + int16
    is int64 in Numba, returned as int16."""
    _, resty = cuda.compile(add, int16(int16, int16))
    assert resty == int16
    ptx, resty = cuda.compile(add, (int16, int16))
    assert resty == int64 and c_abi_func(ptx, "add", 64)
    _, resty = cuda.compile(lambda a, b: a == b, (int32, int32))
    assert resty == types.boolean


def test_abi_name_names_the_function():
    ptx, _ = cuda.compile(add, int32(int32, int32), abi_info={"abi_name": "_Z4funcii"})
    assert c_abi_func(ptx, "_Z4funcii", 32)
    ptx, _ = cuda.compile_ptx(lambda x: x, int32(int32), device=True, abi="c",
                              abi_info={"abi_name": "blah"})
    assert c_abi_func(ptx, "blah", 32)


def test_abi_name_that_cannot_be_the_symbol():
    with pytest.raises(ValueError, match="abi_name 'int'"):
        cuda.compile(add, int32(int32, int32), abi_info={"abi_name": "int"})
    with pytest.raises(ValueError, match="identifiers"):
        cuda.compile(add, int32(int32, int32), abi_info={"abi_name": "a.b"})


def test_compile_all_is_a_list():
    codes, resty = cuda.compile_all(add, (float32, float32), output="ptx")
    assert len(codes) == 1 and c_abi_func(codes[0], "add", 32) and resty == float32
    codes, resty = cuda.compile_all(add, (int32, int32))   # numba-cuda's default: LTO-IR
    assert int.from_bytes(codes[0][:4], "little") == LTOIR_MAGIC


def test_ltoir():
    code, resty = cuda.compile(add, int32(int32, int32), output="ltoir")
    assert isinstance(code, bytes) and int.from_bytes(code[:4], "little") == LTOIR_MAGIC
    assert resty == int32


def test_forceinline_changes_the_ltoir():
    """forceinline=True is __forceinline__ (NVVM's alwaysinline): the LTO-IR differs, as
    numba-cuda's test_inline asks; the function computes the same."""
    def set_zero(a):
        a[0] = 0
    sig = (float32[::1],)
    plain, resty = cuda.compile(set_zero, sig, output="ltoir")
    forced, _ = cuda.compile(set_zero, sig, output="ltoir", forceinline=True)
    assert plain != forced and resty == void
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile(set_zero, sig, forceinline=True)


def test_kernel_ptx_and_errors():
    def kern(r, x):
        r[0] = x[0]
    ptx, resty = cuda.compile(kern, (float32[::1], float32[::1]), device=False, abi="numba")
    assert ".visible .entry kern(" in ptx and ".visible .func" not in ptx and resty == void

    def returns(x):
        return x[0]
    with pytest.raises(TypeError, match="must have void return type"):
        cuda.compile_ptx(returns, (int32[::1],))


@pytest.mark.parametrize("kwargs, error, message", [
    ({"output": "illegal"}, NotImplementedError, "Unsupported output type: illegal"),
    ({"abi": "fastcall"}, NotImplementedError, "Unsupported ABI: fastcall"),
    ({"abi": "c", "device": False}, NotImplementedError, "The C ABI is not supported for kernels"),
    ({"forceinline": True}, ValueError, "Can only designate forced inlining in LTO-IR"),
    ({"forceinline": True, "output": "ltoir", "device": False, "abi": "numba"}, ValueError,
     "Cannot force-inline kernels"),
    ({"cc": (9, 0, "b")}, ValueError, "cc must be"),
])
def test_bad_requests(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        cuda.compile(add, (int32, int32), **kwargs)


def test_arch_specific_targets():
    ptx, resty = cuda.compile_ptx(lambda: None, (), cc=(9, 0, "a"))
    assert ".target sm_90a" in ptx and resty == void and isinstance(resty, types.NoneType)
    ptx, _ = cuda.compile_for_current_device(add, (float32, float32))
    assert ".target sm_%d%d" % cuda.get_current_device().compute_capability in ptx


def test_launch_bounds_in_the_ptx():
    def f():
        pass
    ptx, _ = cuda.compile_ptx(f, "void()", launch_bounds=128)
    assert re.search(r"\.maxntid\s+128, 1, 1\n", ptx) and ".minnctapersm" not in ptx
    ptx, _ = cuda.compile_ptx(f, "void()", launch_bounds=(128, 2, 4), cc=(9, 0))
    assert ".minnctapersm 2" in ptx and ".maxclusterrank 4" in ptx
    with pytest.raises(ValueError, match=r"Got 4 launch bounds: \(128, 2, 4, 8\)"):
        cuda.compile_ptx(f, "void()", launch_bounds=(128, 2, 4, 8))
    with pytest.raises(ValueError, match="positive int literal"):
        cuda.compile_ptx(f, "void()", launch_bounds=0)


def scale(out, x):
    i = cuda.grid(1)
    if i >= len(x):
        return None
    out[i] = 2 * x[i] + 1


SCALE_NUMBA = """
import json, numpy as np
from numba import cuda
%s
x = np.arange(100, dtype=np.float64); out = np.zeros(100)
cuda.jit(scale)[4, 32](out, x)
print(json.dumps(out.tolist()))
"""


def test_launch_bounds_kernel_runs_as_numbas():
    """A kernel with launch_bounds= and a `return None` computes what Numba's simulator computes
    for the same kernel (Debian's Numba 0.56 has no launch_bounds: it runs without them)."""
    import inspect
    import json
    code, out, err = run_script(["-c", SCALE_NUMBA % inspect.getsource(scale)],
                                env={"NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": ""})
    assert code == 0, err
    x = np.arange(100, dtype=np.float64)
    got = np.zeros(100)
    cuda.jit(launch_bounds=(32, 1))(scale)[4, 32](got, x)
    np.testing.assert_array_equal(got, np.array(json.loads(out)))
    k = cuda.jit("void(float64[::1], float64[::1])", launch_bounds=(32, 1))(scale)
    assert "__launch_bounds__(32, 1) scale(" in k.inspect_cuda("void(float64[::1], float64[::1])")


def test_inspect_sass_without_nvdisasm(monkeypatch):
    """No nvdisasm: numba-cuda's RuntimeError ("nvdisasm was not found"), a pyk2cuda.Error too,
    with the places the library's search tried."""
    import pyk2cuda

    def zero(x):
        x[0] = 0
    monkeypatch.setenv("PYK2CUDA_NVDISASM", "/nonexistent/nvdisasm")
    k = cuda.jit((float32[::1],))(zero)
    with pytest.raises(RuntimeError, match="nvdisasm was not found") as e:
        k.inspect_sass()
    assert isinstance(e.value, pyk2cuda.Error) and "/nonexistent/nvdisasm" in str(e.value)
