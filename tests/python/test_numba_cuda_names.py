"""numba-cuda's spellings of names Numba 0.56 kept outside numba.cuda (docs/python.md): the
package's `numba.cuda.types` (with Numba's short names f2, i4, ...), `numba.cuda.np.numpy_support`
(from_dtype, as_dtype) and `numba.cuda.HAS_NUMBA`, which numba-cuda's own tests import
(docs/conformance.md, the numba-cuda run), and the types API those tests use (Numba's
`types.Array(dtype, ndim, layout)`, `underlying_float`, a signature that is not a `types.Type`,
`numba.cuda.typing.signature`).
The names are compared with Numba's (Debian's numba.core.types and numba.np.numpy_support, the
same facts numba-cuda re-exports)."""
import importlib.util
import json
import subprocess

import numpy as np
import pytest

from pyk2cuda import cuda, types
from conftest import run_script
from test_samples import ORACLE, has_numba

SHORT = "b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16".split()
DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]
RECORD = [("a", "int32"), ("b", "float64")]
# Numba's Array(dtype, ndim, layout) and the slice spelling of the same type.
ARRAYS = [(1, "C", "::1"), (1, "A", ":"), (2, "C", ":, ::1"), (2, "F", "::1, :"), (3, "A", ":, :, :"),
          (3, "C", ":, :, ::1")]
# Numba's names of C's types, and values whose typeof the tests compare (numba-cuda's test_ufuncs).
C_NAMES = "char uchar short ushort intc uintc int_ uint long_ ulong longlong ulonglong".split()
VALUES = ["True", "3", "2.5", "1j", "np.uint32(1)", "np.float32(1)", "np.complex64(1)",
          "np.zeros(3, 'f4')", "np.zeros((2, 3))", "np.zeros((2, 3), order='F')",
          "np.zeros((4, 4))[:, ::2]", "np.zeros((1, 3))", "np.zeros((3, 1), order='F')"]
DOMAINS = ["signed_domain", "unsigned_domain", "integer_domain", "real_domain", "complex_domain",
           "number_domain"]

NUMBA_FACTS = """
import json, numpy as np
from numba.core import types
from numba.np import numpy_support as ns
from numba.core.typing import signature
from numba import typeof
rec = np.dtype(%r, align=True)
def described(t):
    return [str(t.dtype), t.ndim, t.layout] if isinstance(t, types.Array) else str(t)
print(json.dumps({"short": {n: str(getattr(types, n)) for n in %r},
                  "from": [str(ns.from_dtype(np.dtype(d))) for d in %r],
                  "as": [str(ns.as_dtype(ns.from_dtype(np.dtype(d)))) for d in %r],
                  "record": str(ns.from_dtype(rec)), "record_as": str(ns.as_dtype(ns.from_dtype(rec))),
                  "arrays": [types.Array(types.float32, n, l) == eval("types.float32[%%s]" %% dims)
                             for n, l, dims in %r],
                  "underlying": [str(types.complex64.underlying_float),
                                 str(types.complex128.underlying_float)],
                  "signature_is_type": isinstance(types.void(types.int32[:]), types.Type),
                  "signature_is_call": signature(types.void, types.int32[:], types.f2)
                                       == types.void(types.int32[:], types.f2),
                  "c_names": {n: str(getattr(types, n)) for n in %r},
                  "typeof": [described(typeof(eval(v))) for v in %r],
                  "domains": {d: sorted(map(str, getattr(types, d))) for d in %r}}))
""" % (RECORD, SHORT, DTYPES, DTYPES, ARRAYS, C_NAMES, VALUES, DOMAINS)


def test_numba_cuda_namespace():
    assert cuda.types is types
    assert cuda.HAS_NUMBA == (importlib.util.find_spec("numba") is not None)
    assert cuda.np.numpy_support.from_dtype is types.from_dtype
    assert cuda.f8 is types.f8  # numba.cuda re-exports every type name, short ones included
    cuda.legacy_default_stream().synchronize()   # the default stream (numba-cuda's test_stream_api)
    with pytest.raises(TypeError, match="has no NumPy dtype"):
        cuda.np.numpy_support.as_dtype(types.float32[::1])


@pytest.mark.skipif(not has_numba(), reason="Numba (Debian's python3-numba) is not installed")
def test_names_are_numbas():
    p = subprocess.run([ORACLE, "-c", NUMBA_FACTS], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    numba = json.loads(p.stdout)
    ns = cuda.np.numpy_support
    rec = np.dtype(RECORD, align=True)
    assert {n: str(getattr(types, n)) for n in SHORT} == numba["short"]
    assert [str(ns.from_dtype(np.dtype(d))) for d in DTYPES] == numba["from"]
    assert [str(ns.as_dtype(ns.from_dtype(np.dtype(d)))) for d in DTYPES] == numba["as"]
    assert str(ns.from_dtype(rec)) == numba["record"]
    assert str(ns.as_dtype(ns.from_dtype(rec))) == numba["record_as"]
    assert all(numba["arrays"])
    assert all(types.Array(types.float32, n, l) == eval("types.float32[%s]" % dims)
               for n, l, dims in ARRAYS)
    assert [str(types.complex64.underlying_float), str(types.complex128.underlying_float)] \
        == numba["underlying"]
    assert isinstance(types.void(types.int32[:]), types.Type) == numba["signature_is_type"]
    signature = cuda.typing.signature
    assert (signature(types.void, types.int32[:], types.f2) == types.void(types.int32[:], types.f2)) \
        == numba["signature_is_call"]
    assert {n: str(getattr(types, n)) for n in C_NAMES} == numba["c_names"]
    typeof = cuda.typing.typeof.typeof
    described = [[str(t.dtype), t.ndim, t.layout] if isinstance(t, types.ArrayType) else str(t)
                 for t in (typeof(eval(v)) for v in VALUES)]
    assert described == numba["typeof"]
    assert {d: sorted(map(str, getattr(types, d))) for d in DOMAINS} == numba["domains"]


def test_typeof_of_device_arrays_and_refusals():
    """typeof of a device array is its host array's; of a value kernels cannot take a TypeError."""
    f = np.zeros((3, 4), order="F")
    assert types.typeof(cuda.to_device(f)) == types.typeof(f) == types.Array(types.float64, 2, "F")
    assert types.typeof(cuda.to_device(np.zeros(5, np.int8))) == types.int8[::1]
    assert cuda.np.numpy_support.numpy_version == tuple(int(p) for p in np.__version__.split(".")[:2])
    with pytest.raises(TypeError, match="typeof: str values"):
        types.typeof("text")


SCRIPT = """
import numpy as np
from numba import cuda
from numba.cuda import types, HAS_NUMBA
from numba.cuda.types import f8, i4
from numba.cuda.np import numpy_support
from numba.cuda.np.numpy_support import from_dtype, as_dtype
from numba.cuda.typing import signature

@cuda.jit(signature(types.void, from_dtype(np.dtype("float64"))[::1], i4))
def scale(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * k

a = np.arange(5, dtype=as_dtype(f8))
scale[1, 32](a, 3)
print(a.tolist(), numpy_support.as_dtype(types.int32), HAS_NUMBA in (True, False))
"""


def test_numba_cuda_spellings_under_python_m_pyk2cuda(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    rc, out, err = run_script(["-m", "pyk2cuda", str(path)])
    assert rc == 0, out + err
    assert out.strip() == "[0.0, 3.0, 6.0, 9.0, 12.0] int32 True", out


# ---- names that blocked whole modules of numba-cuda's suite (issue 12) ----

POINTER_FACTS = """
import ctypes, json, numpy as np
from numba.core import types
from numba.np.numpy_support import carray, farray
a = np.arange(6, dtype=np.float32)
p = a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
v = ctypes.c_void_p(a.ctypes.data)
errors = []
for call in (lambda: carray(v, 3), lambda: carray(p, 3, dtype=np.int32), lambda: carray(3, 3)):
    try:
        call()
    except TypeError as e:
        errors.append(str(e).split(" for pointer")[0].split(", got")[0])
print(json.dumps({"c": carray(p, (2, 3)).tolist(), "f": farray(p, (2, 3)).tolist(),
                  "void": carray(v, 4, dtype=np.float32).tolist(), "errors": errors,
                  "cpointer": str(types.CPointer(types.float32))}))
"""


@pytest.mark.skipif(not has_numba(), reason="Numba (Debian's python3-numba) is not installed")
def test_carray_farray_and_cpointer_are_numbas():
    """numpy_support.carray/farray on the host and types.CPointer's name, against Numba's."""
    import ctypes
    p = subprocess.run([ORACLE, "-c", POINTER_FACTS], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    numba = json.loads(p.stdout)
    ns = cuda.np.numpy_support
    a = np.arange(6, dtype=np.float32)
    ptr = a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
    void = ctypes.c_void_p(a.ctypes.data)
    errors = []
    for call in (lambda: ns.carray(void, 3), lambda: ns.carray(ptr, 3, dtype=np.int32),
                 lambda: ns.carray(3, 3)):
        with pytest.raises(TypeError) as e:
            call()
        errors.append(str(e.value).split(" for pointer")[0].split(", got")[0])
    assert ns.carray(ptr, (2, 3)).tolist() == numba["c"]
    assert ns.farray(ptr, (2, 3)).tolist() == numba["f"]
    assert ns.carray(void, 4, dtype=cuda.float32).tolist() == numba["void"]
    assert errors == numba["errors"]
    assert str(types.CPointer(types.float32)) == numba["cpointer"]
    view = ns.carray(ptr, 6)
    view[0] = 42   # a view, as Numba's: the memory is the array's
    assert a[0] == 42


def test_pointers_in_kernels_are_refused_by_name():
    """A CPointer argument and carray/farray in a kernel: pyk2cuda's kernels take no pointers,
    so each is an error naming it, never a kernel that runs."""
    from pyk2cuda.cuda.np.numpy_support import carray, farray
    with pytest.raises(TypeError, match=r"CPointer\(float32\) in a signature"):
        cuda.jit(types.void(types.CPointer(types.float32)))(lambda p: None)
    for fn in (carray, farray):
        def kernel(a):
            b = fn(a, (1,), dtype=cuda.float32)
            b[0] = 1
        with pytest.raises(cuda.CompileError, match="'fn' cannot be used in a kernel: it is "
                           "numba.cuda.np.numpy_support.%s" % fn.__name__):
            cuda.jit(kernel)[1, 1](np.zeros(1, np.float32))


def test_streams_bfloat16_and_simulator_names():
    """numba-cuda's per_thread_default_stream, external_stream, is_bfloat16_supported and
    numba.cuda.simulator.vector_types, as numba-cuda's simulator answers them on the simulator
    (its test_stream_api and test_vector_type); is_bfloat16_supported is True on pyk2cuda's
    simulator, which has bfloat16 (numba-cuda's has not)."""
    s = cuda.per_thread_default_stream()
    a = cuda.to_device(np.arange(4.0), stream=s)
    s.synchronize()
    assert a.copy_to_host(stream=s).tolist() == [0.0, 1.0, 2.0, 3.0]
    import pyk2cuda
    if pyk2cuda.device_kind() == "gpu":
        cc = cuda.get_current_device().compute_capability
        assert cuda.is_bfloat16_supported() == (cc >= (8, 0))
        with pytest.raises(NotImplementedError, match="external_stream"):
            cuda.external_stream(0x12345678)
    else:
        assert cuda.is_bfloat16_supported() is True   # pyk2cuda's simulator has bfloat16
        with pytest.raises(RuntimeError, match="External streams are unsupported in the simulator"):
            cuda.external_stream(0x12345678)
    from pyk2cuda.cuda.simulator.vector_types import vector_types
    assert vector_types is cuda.vector_types.vector_types


# numba-cuda 0.30.4's numba.cuda.cudadrv.linkable_code: each kind's default name (its
# simulator's module gives the same).
LINKABLE_NAMES = {"CUSource": "<unnamed-cu>", "PTXSource": "<unnamed-ptx>", "Cubin": "<unnamed-cubin>",
                  "Fatbin": "<unnamed-fatbin>", "Archive": "<unnamed-archive>",
                  "Object": "<unnamed-object>", "LTOIR": "<unnamed-ltoir>"}


def test_linkable_code_is_held():
    """numba-cuda's cuda.CUSource & co. (test_device_func builds them at import) hold their data
    and name; declare_device keeps the CUSource with the declaration (kernels link it:
    test_linked_cuda.py), and driver._have_nvjitlink() is False: pyk2cuda links CUDA C only, by
    compiling it with the kernel, never through nvJitLink."""
    from pyk2cuda.cuda.cudadrv import driver, linkable_code
    for name, default in LINKABLE_NAMES.items():
        cls = getattr(cuda, name)
        assert cls is getattr(linkable_code, name)
        assert issubclass(cls, linkable_code.LinkableCode)
        assert cls("x").name == default and cls("x", name="mine").name == "mine"
    src = cuda.CUSource('extern "C" __device__ int f(int *r, int x) { *r = x; return 0; }')
    assert src.data.startswith('extern "C"')
    with pytest.raises(TypeError, match="setup_callback must be callable"):
        cuda.CUSource("", setup_callback=3)
    assert driver._have_nvjitlink() is False
    f = cuda.declare_device("f", "int32(int32)", link=[src])
    assert f.link == [src]


def test_launchconfig_is_current_while_a_launch_compiles():
    """numba-cuda's numba.cuda.launchconfig (test_dispatcher imports it): a launch that needs a
    new specialization calls the kernel's _compile_for_args with its launch configuration (the
    launcher: dispatcher, griddim, blockdim, args) current on its thread, and only then."""
    from pyk2cuda.cuda import launchconfig

    @cuda.jit
    def one(out):
        out[0] = 1

    out = np.zeros(1)
    original = one._compile_for_args
    with launchconfig.capture_compile_config(one) as seen:
        one[2, 3](out)
    cfg = seen["config"]
    assert out[0] == 1 and cfg.dispatcher is one
    assert (cfg.griddim, cfg.blockdim, cfg.sharedmem) == ((2, 1, 1), (3, 1, 1), 0)
    assert "_compile_for_args" not in one.__dict__ and one._compile_for_args.__func__ is original.__func__
    with launchconfig.capture_compile_config(one) as again:   # compiled already: no compilation
        one[2, 3](out)
    assert again == {"config": None}
    assert launchconfig.current_launch_config() is None and cfg.args is None
    with pytest.raises(RuntimeError, match="No launch config set for this thread"):
        launchconfig.ensure_current_launch_config()
    with pytest.raises(TypeError, match="dispatcher is required"):
        with launchconfig.capture_compile_config(None):
            pass


def test_launch_config_sensitive_mark_and_thread_local_args():
    """mark_launch_config_sensitive() during a launch's compilation marks the overload it makes;
    outside one it is numba-cuda's RuntimeError. Two threads compiling at once each see their
    own launch's arguments."""
    import threading
    from pyk2cuda.cuda import launchconfig

    @cuda.jit
    def one(out):
        out[0] = 1

    compile_now = one._compile_for_args
    barrier, seen = threading.Barrier(2), []

    def wrapped(*args):
        cfg = launchconfig.ensure_current_launch_config()
        cfg.dispatcher.mark_launch_config_sensitive()
        barrier.wait(timeout=5)
        seen.append(id(cfg.args[0]))
        return compile_now(*args)

    one._compile_for_args = wrapped
    outs = [np.zeros(1, np.int32), np.zeros(1, np.int32)]
    launch = one[1, 1]
    threads = [threading.Thread(target=launch, args=(o,)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert set(seen) == {id(o) for o in outs} and all(o[0] == 1 for o in outs)
    assert [o.launch_config_sensitive for o in one.overloads.values()] == [True]
    with pytest.raises(RuntimeError, match="No launch config set"):
        one.mark_launch_config_sensitive()

    @cuda.jit
    def plain(out):
        out[0] = 2

    plain[1, 1](outs[0])
    assert [o.launch_config_sensitive for o in plain.overloads.values()] == [False]
