"""Numba names a script may use beyond the issue's list: a ufunc's out= and stream=, and the
dispatcher's get_regs_per_thread / get_shared_mem_per_block / get_local_mem_per_thread /
get_const_mem_size (from ptxas here, where Numba asks the loaded module)."""
import shutil

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, int64
import kernels as K
from conftest import run_script


def test_ufunc_out_host_and_device():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(4, dtype=np.float32)
    out = np.empty((3, 4), np.float32)
    assert K.vmul_add(a, b, out=out) is out
    np.testing.assert_array_equal(out, a * b + 1)
    d_out = cuda.device_array((3, 4), np.float32)
    s = cuda.stream()
    got = K.vmul_add(cuda.to_device(a), cuda.to_device(b), out=d_out, stream=s)
    s.synchronize()
    assert got is d_out
    np.testing.assert_array_equal(d_out.copy_to_host(), a * b + 1)
    with pytest.raises(ValueError, match=r"out= is float32\(3,\), the result is float32\(3, 4\)"):
        K.vmul_add(a, b, out=np.empty(3, np.float32))
    with pytest.raises(ValueError, match="out= is float64"):
        K.vmul_add(a, b, out=np.empty((3, 4)))
    with pytest.raises(TypeError, match="unexpected keyword argument 'where'"):
        K.vmul_add(a, b, where=True)


def _ptxas():
    return shutil.which("ptxas") or (shutil.which("/usr/local/cuda/bin/ptxas"))


@pytest.mark.skipif(not _ptxas(), reason="ptxas (CUDA toolkit) is not installed")
def test_resource_getters_as_numba():
    # a kernel declared with one signature gives the figure itself, as Numba's specialized one
    sig = "void(float32[::1], float32[::1])"
    k = cuda.jit(sig)(K.block_sums.py_func)
    assert k.signatures == [sig]
    assert k.get_shared_mem_per_block() == 4 * K.TPB   # cuda.shared.array(TPB, float32)
    regs = k.get_regs_per_thread()
    assert isinstance(regs, int) and regs > 0
    assert k.get_regs_per_thread(sig) == regs
    assert k.get_local_mem_per_thread() >= 0 and k.get_const_mem_size() >= 0

    # a lazy kernel: {signature: figure} over its specializations
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v
    fill[1, 32](np.zeros(8, np.float32), np.float32(1))
    fill[1, 32](np.zeros(8, np.int64), 1)
    per_sig = fill.get_regs_per_thread()
    assert set(per_sig) == set(fill.signatures) and len(per_sig) == 2
    assert all(r > 0 for r in per_sig.values())
    # the most threads per block (the simulator's 1024, a GPU's from the driver), by signature
    # and by Numba's key, the tuple of argument types
    most = fill.get_max_threads_per_block()
    assert set(most) == set(fill.signatures)
    assert most[(int64[::1], int64)] == fill.get_max_threads_per_block("void(int64[::1], int64)")
    assert k.get_max_threads_per_block() == (1024 if pyk2cuda.device_kind() == "sim" else
                                             k.get_max_threads_per_block(sig))


CONSTANTS = np.arange(32, dtype=np.int64)


@pytest.mark.skipif(not _ptxas(), reason="ptxas (CUDA toolkit) is not installed")
def test_const_mem_size_is_the_modules_constant_arrays():
    """get_const_mem_size: the bytes of cuda.const arrays (the PTX's .const variables, what
    the driver's CONST_SIZE_BYTES reports), 0 for a kernel without any."""
    @cuda.jit("void(int64[::1])")
    def const_array_use(x):
        C = cuda.const.array_like(CONSTANTS)
        i = cuda.grid(1)
        x[i] = C[i]
    assert const_array_use.get_const_mem_size() == CONSTANTS.nbytes

    @cuda.jit("void(int64[::1])")
    def none(x):
        x[0] = 1
    assert none.get_const_mem_size() == 0


def test_cudadrv_names_scripts_use_are_pyk2cudas():
    # numba.cuda.cudadrv as test_const_string and scripts import it: pyk2cuda's own objects,
    # importable by their dotted names; a name it lacks is an ImportError naming it
    import importlib
    import pyk2cuda
    from pyk2cuda.cuda.cudadrv.nvvm import NVVM, ADDRSPACE_CONSTANT
    from pyk2cuda.cuda.cudadrv import driver, devicearray
    from pyk2cuda.cuda.cudadrv.error import CudaSupportError
    assert NVVM().is_nvvm70 and ADDRSPACE_CONSTANT == 4
    assert driver.Stream is type(cuda.stream()) and devicearray is cuda.devicearray
    assert issubclass(CudaSupportError, pyk2cuda.Error)
    major, minor = cuda.runtime.get_version()
    assert major >= 11 and cuda.cudadrv.runtime.runtime.get_version() == (major, minor)
    assert importlib.import_module("pyk2cuda.cuda.cudadrv.runtime") is cuda.runtime
    with pytest.raises(ImportError, match="llvm_to_ptx"):
        from pyk2cuda.cuda.cudadrv.nvvm import llvm_to_ptx  # noqa: F401


NUMBA_MODULES_SCRIPT = """
import warnings
import numpy as np
import numba
from numba import cuda
from numba.core.errors import NumbaPerformanceWarning, TypingError
from numba.np import numpy_support
import numba.np.numpy_support as ns
warnings.simplefilter("ignore", category=NumbaPerformanceWarning)

@cuda.jit
def bad(a):
    a[0] = "text" + 1

try:
    bad[1, 1](np.zeros(1))
except TypingError as e:
    print("TypingError", type(e).__name__)
print(ns is numpy_support, numpy_support.from_dtype(np.dtype("int16")), numba.typeof(np.zeros(2)))
try:
    from numba.core.errors import NoSuchName
except ImportError as e:
    print("ImportError", "NoSuchName" in str(e))
try:
    import numba.core.compiler
except ImportError as e:
    print("ImportError", "numba.core.compiler" in str(e))
"""


def test_numba_core_and_np_modules_under_python_m(tmp_path):
    # what Numba scripts import beside the kernel API: numba.core.errors' warnings and errors
    # (a kernel that does not compile is a TypingError), numba.np.numpy_support; other names
    # are ImportErrors naming them, never Numba's own modules
    script = tmp_path / "numba_modules.py"
    script.write_text(NUMBA_MODULES_SCRIPT)
    rc, out, err = run_script(["-m", "pyk2cuda", str(script)])
    assert rc == 0, err
    assert out.split("\n")[:4] == ["TypingError CompileError", "True int16 float64[::1]",
                                   "ImportError True", "ImportError True"]


NUMBA_VERSION_SCRIPT = """
import numba
import pyk2cuda
from numba import cuda
print(numba.__version__, pyk2cuda.__version__ == pyk2cuda._core.version, numba.cuda is cuda)
print(tuple(int(p) for p in numba.__version__.split(".")[:2]) >= (0, 56))
try:
    numba.no_such_thing
except AttributeError as e:
    print("AttributeError", "no_such_thing" in str(e))
"""


def test_numba_version_is_the_numba_measured_against(tmp_path):
    # a script's version check (numba.__version__ >= 0.56) passes; pyk2cuda's own version is its
    # own; a name numba lacks here is an AttributeError naming it
    from pyk2cuda import numba_names
    script = tmp_path / "numba_version.py"
    script.write_text(NUMBA_VERSION_SCRIPT)
    rc, out, err = run_script(["-m", "pyk2cuda", str(script)])
    assert rc == 0, err
    assert out.split("\n")[:3] == ["%s True True" % numba_names.NUMBA_VERSION, "True", "AttributeError True"]


# print() of more than 32 items: compiled Numba (numba/cuda/printimpl.py, print_varargs) warns
# with a NumbaWarning and the kernel prints its raw format string, the conversions doubled so that
# printf writes them as text: %lld for an int, %f for a float, %s for a string. Numba's simulator
# prints the values instead (it has no printf), so the rule itself is the oracle here; the
# conformance suite's test_print.test_too_many_args checks the same through Numba's own test.
def test_print_of_more_than_32_items_is_numbas_raw_format(tmp_path):
    script = tmp_path / "many.py"
    script.write_text(
        "import numpy as np\n"
        "from pyk2cuda import cuda\n"
        "\n"
        "@cuda.jit(device=True)\n"
        "def bump(a):\n"
        "    a[1] += 1\n"
        "    return a[1]\n"
        "\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    print(" + ", ".join(["a[0]"] * 31) + ", 'x', 1.5, bump(a))\n"
        "\n"
        "a = np.zeros(2, np.int64)\n"
        "k[1, 1](a)\n"
        "cuda.synchronize()\n"
        "print('bumped', a[1])\n"
        "\n"
        "@cuda.jit('void(float32[:])')\n"   # signed: translated when it is defined
        "def signed(f):\n"
        "    print(" + ", ".join(["f[0]"] * 33) + ")\n")
    rc, out, err = run_script([str(script)], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == " ".join(["%lld"] * 31 + ["%s", "%f", "%lld"])
    assert lines[1] == "bumped 1"   # the items are still evaluated
    assert ("%s:11: NumbaWarning: CUDA print() cannot print more than 32 items. The raw format "
            "string will be emitted by the kernel instead." % script) in err
    assert "%s:20: NumbaWarning: CUDA print() cannot" % script in err


def test_print_of_tuples_and_dim3_as_numbas_cuda_print(tmp_path):
    """print() of a tuple writes it as Python does, each number formatted as Numba's CUDA print
    formats an item (%lld, %f: numba-cuda's test_print expects "(1, ((2, 4), 3.000000), (4,), 5)"
    and "(1,)"), a tuple with effects evaluated once; print(cuda.threadIdx) writes Numba's Dim3,
    "(x, y, z)" (the lines of every thread: test_print.test_dim3's np.ndindex order, sorted).
    Numba's simulator prints Python's repr of the floats (3.0), so the expected lines are
    numba-cuda's, from its test_print."""
    script = tmp_path / "tuples.py"
    script.write_text(
        "import numpy as np\n"
        "from pyk2cuda import cuda\n"
        "\n"
        "@cuda.jit(device=True)\n"
        "def bumped(a):\n"
        "    a[0] += 1\n"
        "    return (a[0], 2.5)\n"
        "\n"
        "@cuda.jit\n"
        "def tuples(t, a):\n"
        "    print(t)\n"
        "    print((1,))\n"
        "    print('pair', bumped(a), True)\n"
        "\n"
        "@cuda.jit\n"
        "def dims():\n"
        "    print(cuda.threadIdx, cuda.blockIdx)\n"
        "\n"
        "a = np.zeros(1, np.int64)\n"
        "tuples[1, 1]((1, ((2, 4), 3.0), (4,), 5), a)\n"
        "cuda.synchronize()\n"
        "print('bumped', a[0])\n"
        "dims[(1, 2), (2, 1, 2)]()\n"
        "cuda.synchronize()\n")
    rc, out, err = run_script([str(script)], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[:4] == ["(1, ((2, 4), 3.000000), (4,), 5)", "(1,)", "pair (1, 2.500000) True", "bumped 1"]
    expected = ["%s (0, %d, 0)" % (t, b) for b in range(2) for t in np.ndindex(2, 1, 2)]
    assert sorted(lines[4:]) == sorted(expected)


def test_shared_memory_carveout_is_checked_as_numba_cuda_checks_it():
    """shared_memory_carveout= (numba-cuda): -1..100 or 'default'/'MaxL1'/'MaxShared' (any
    case) are taken, with or without a signature, and the kernel runs; anything else is
    numba-cuda's ValueError or TypeError, at decoration."""
    def add_one(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = i + 1
    for carveout in ("MaxL1", "maxshared", "default", 0, 50, 100, -1):
        for k in (cuda.jit(shared_memory_carveout=carveout)(add_one),
                  cuda.jit("void(int32[::1])", shared_memory_carveout=carveout)(add_one)):
            x = np.zeros(10, np.int32)
            k[1, 10](x)
            assert x.tolist() == list(range(1, 11))
    for carveout, msg in ((150, "^Carveout must be between -1 and 100$"), (-2, "between -1 and 100"),
                          ("InvalidOption", r"^Invalid carveout value: InvalidOption\. Must be -1 to 100 or "
                           r"one of \['default', 'maxl1', 'maxshared'\]$")):
        with pytest.raises(ValueError, match=msg):
            cuda.jit(shared_memory_carveout=carveout)(add_one)
        with pytest.raises(ValueError, match=msg):
            cuda.jit("void(int32[::1])", shared_memory_carveout=carveout)(add_one)
    with pytest.raises(TypeError, match="^shared_memory_carveout must be str or int, got float$"):
        cuda.jit(shared_memory_carveout=0.5)(add_one)
