"""Kernels compiled from function objects (docs/python.md, "How a function becomes a kernel"):
nested kernels and closures, cuda.jit(sig)(f), Numba's signature forms, device and @njit callees,
globals frozen at the first compile, and errors at the user's FILE:LINE:COL."""
import inspect
import os

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, float32, float64, void
from conftest import HERE, run_script
from test_samples import has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "function_objects.py")
CASES = 11


def test_script_of_function_objects():
    rc, out, err = run_script([SCRIPT])
    assert rc == 0, out + err
    assert len([l for l in out.splitlines() if ": ok " in l]) == CASES, out


@pytest.mark.skipif(not has_numba(), reason="Numba's simulator (Debian's python3-numba) is not installed")
def test_script_of_function_objects_matches_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert numba_simulator_output(SCRIPT) == ours


def test_list_of_signatures_on_an_undecorated_function():
    def scale(x, a):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= a
    k = cuda.jit([void(float64[::1], float64), (float32[::1], float32)])(scale)
    assert len(k.signatures) == 2
    x32, x64 = np.ones(3, np.float32), np.ones(3)
    k[1, 3](x32, 4)
    k[1, 3](x64, 0.5)
    assert x32.tolist() == [4, 4, 4] and x64.tolist() == [0.5, 0.5, 0.5]


def test_code_with_a_linecache_entry_compiles():
    import linecache
    name = "<pyk2cuda test source>"
    text = ("from pyk2cuda import cuda\n"
            "@cuda.jit\n"
            "def k(a):\n"
            "    a[0] = LATER\n")
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    ns = {}
    exec(compile(text, name, "exec"), ns)
    ns["LATER"] = 3   # defined after the decoration, read at the first launch
    a = np.zeros(1, np.int64)
    ns["k"][1, 1](a)
    assert a[0] == 3


def test_a_global_defined_after_the_kernel_and_frozen_at_its_first_launch():
    state = {"n": 2}

    @cuda.jit
    def k(a):
        a[0] = state_n
    state_n = state["n"]  # noqa: F841 (a closure cell, filled after the decoration)
    a = np.zeros(1, np.int64)
    k[1, 1](a)
    assert a[0] == 2
    state_n = 5  # noqa: F841 (frozen: the kernel keeps 2, as in Numba)
    k[1, 1](a)
    assert a[0] == 2


def test_copy_of_a_captured_array_that_is_not_contiguous():
    # numba-cuda's test_array_copy: a strided NumPy array captured by the kernel becomes a
    # constant array; .copy() gives a new local array, which the kernel may change
    val = np.array([1.0, 2.0, 3.0, 4.0])[::-2]

    @cuda.jit
    def k(out):
        q = val.copy()
        q[0] += 10.0
        for i in range(len(out)):
            out[i] = q[i] + val[i]
    out = np.zeros(2)
    k[1, 1](out)
    assert out.tolist() == [18.0, 4.0]


def test_vectorize_of_a_closure():
    bias = 1.5

    @pyk2cuda.vectorize(["float64(float64, float64)"], target="cuda")
    def f(x, y):
        return x * y + bias
    assert np.allclose(f(np.arange(4.0), np.full(4, 2.0)), np.arange(4.0) * 2 + bias)


def test_njit_callee():
    numba = pytest.importorskip("numba")

    @numba.njit
    def twice(v):
        return 2 * v

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = twice(a[i])
    a = np.arange(4.0)
    k[1, 4](a)
    assert a.tolist() == [0, 2, 4, 6]


def test_numba_type_objects_as_signature():
    numba = pytest.importorskip("numba")
    from numba.core import types

    def fill(a, v):
        a[cuda.grid(1)] = v
    k = cuda.jit(types.void(types.Array(types.int32, 1, "C"), types.int32))(fill)
    assert k.signatures == ["void(int32[::1], int32)"]
    a = np.zeros(2, np.int32)
    k[1, 2](a, 7)
    assert a.tolist() == [7, 7]


def _where(func, text):
    """(line, column) of `text` in func's source, 1-based, as diagnostics give them."""
    lines, first = inspect.getsourcelines(func)
    for i, line in enumerate(lines):
        if text in line:
            return first + i, line.index(text) + 1
    raise AssertionError(text)


OPAQUE = {"a": 1}


def test_unsupported_global_is_an_error_at_its_use():
    def uses_dict(a):
        a[0] = OPAQUE
    k = cuda.jit(uses_dict)
    with pytest.raises(pyk2cuda.CompileError) as e:
        k[1, 1](np.zeros(1))
    line, col = _where(uses_dict, "OPAQUE")
    assert e.value.diagnostics[0][:3] == (__file__, line, col)
    assert "Untyped global name 'OPAQUE': a global of type dict" in str(e.value)
    assert str(e.value).startswith("%s:%d:%d: error:" % (__file__, line, col))


def test_unsupported_global_in_a_decorated_callee():
    @cuda.jit(device=True)
    def callee(a):
        a[0] = OPAQUE

    @cuda.jit
    def k(a):
        callee(a)
    with pytest.raises(pyk2cuda.CompileError) as e:
        k[1, 1](np.zeros(1))
    line, col = _where(callee.py_func, "OPAQUE")
    assert e.value.diagnostics[0][:3] == (__file__, line, col)


def test_translator_errors_point_at_the_users_line_and_column():
    def nested(a):
        a[0] = no_such_name  # noqa: F821
    k = cuda.jit("void(float64[:])")
    with pytest.raises(pyk2cuda.CompileError) as e:
        k(nested)
    line, col = _where(nested, "no_such_name")
    f, l, c = e.value.diagnostics[0][:3]
    assert (f, l, c) == (__file__, line, col), e.value
    assert "%s:%d:%d: error:" % (__file__, line, col) in str(e.value)


def test_functions_without_source_are_refused():
    import ast
    ns = {}
    exec(compile(ast.parse("from pyk2cuda import cuda\ndef k(x):\n    x[0] = 1\n"), "<ast>", "exec"), ns)
    with pytest.raises(pyk2cuda.Error, match="has no source") as e:
        cuda.jit(ns["k"])
    # One clear message, not inspect's OSError chained before it.
    assert e.value.__suppress_context__ and e.value.__cause__ is None
    with pytest.raises(pyk2cuda.Error, match="cannot tell this lambda"):
        cuda.jit(device=True)(lambda x: x), cuda.jit(device=True)(lambda x: x)


def test_kernels_made_by_exec_of_a_string():
    """The text exec'd is kept (pyk2cuda.kept): a kernel and its device function compile from it,
    and a translator error points into the string as '<string>':LINE:COL, as a traceback would."""
    ns = {"cuda": cuda}
    exec("\n@cuda.jit(device=True)\ndef sq(v):\n    return v * v\n\n"
         "@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = sq(a[i]) + 1\n", ns)
    a = np.arange(6, dtype=np.int64)
    ns["k"][1, 6](a)
    assert a.tolist() == (np.arange(6) ** 2 + 1).tolist()
    exec("def bad(a):\n    a[0] = 1\n    a[1] = NOT_DEFINED\n", ns)
    with pytest.raises(pyk2cuda.CompileError) as e:
        cuda.jit(ns["bad"])[1, 1](a)
    assert e.value.diagnostics[0][:3] == ("<string>", 3, 12), e.value


def test_exec_text_is_used_only_when_it_compiles_to_the_function():
    """A text is paired with the code object exec runs right after compiling it; when that code
    came from another text (the pairing is wrong), the text is not used as its source."""
    import os
    from pyk2cuda import kept
    first = compile("def k(a):\n    a[0] = 1\n", "<gen>", "exec")
    os.listdir(".")                      # another audited event: `first` is not paired now
    ns = {}
    compile("def k(a):\n    a[0] = 2\n", "<gen>", "exec")
    exec(first, ns)                      # right after the compile of the other text
    assert kept.source_lines(ns["k"].__code__) is None
    with pytest.raises(pyk2cuda.Error, match="has no source"):
        cuda.jit(ns["k"])
    exec(compile("def k(a):\n    a[0] = 3\n", "<gen>", "exec"), ns)   # compile, then exec
    assert kept.source_lines(ns["k"].__code__) == (["def k(a):\n", "    a[0] = 3\n"], 1)


# A program for `python3 -c`: a kernel, a device function, and output a race cannot reorder.
DASH_C_PROGRAM = """\
import numpy as np
from numba import cuda

@cuda.jit(device=True)
def sq(v):
    return v * v

@cuda.jit
def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = sq(i) + 1
        if i == 0:
            print(i, 999)

a = np.zeros(5, dtype=np.int64)
k[1, 8](a)
cuda.synchronize()
print(a.tolist())
"""


@pytest.mark.skipif(not has_numba(), reason="Numba's simulator (Debian's python3-numba) is not installed")
def test_kernels_defined_in_python_dash_c_match_numba():
    """`python3 -c PROGRAM`: the program is the kernel's source (sys.orig_argv); options before
    -c that take a value (-W, -X) are passed over. Same output as Numba's simulator."""
    from test_samples import ORACLE
    program = DASH_C_PROGRAM.replace("from numba import cuda", "from pyk2cuda import cuda")
    rc, ours, err = run_script(["-W", "ignore", "-X", "utf8", "-c", program])
    assert rc == 0, ours + err
    e = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    e.pop("PYTHONPATH", None)
    import subprocess
    theirs = subprocess.run([ORACLE, "-c", DASH_C_PROGRAM], env=e, capture_output=True, text=True,
                            timeout=300)
    assert theirs.returncode == 0, theirs.stderr
    assert ours == theirs.stdout == "0 999\n[1, 2, 5, 10, 17]\n"
    # A translator error points into the program, as a traceback would.
    rc, out, err = run_script(["-c", "from pyk2cuda import cuda\n@cuda.jit\ndef bad(a):\n"
                               "    a[0] = NOT_DEFINED\nimport numpy\nbad[1, 1](numpy.zeros(1))\n"])
    assert rc != 0 and "<string>:4:12" in err, err


def test_lambdas_as_device_functions_and_reduce():
    add = cuda.Reduce(lambda a, b: a + b)
    biggest = cuda.reduce(lambda a, b: max(a,
                                           b))   # a lambda over two lines
    x = np.arange(50, dtype=np.float32) - 20
    assert add(x) == x.sum() and add(x, init=5) == x.sum() + 5
    assert biggest(x) == 29 and biggest(x[:10], init=-100) == -11
    assert add(x[:0], init=3) == 3
    d = cuda.to_device(np.arange(10, dtype=np.int64))
    res = cuda.device_array(1, np.int64)
    assert add(d, res=res) is None and res.copy_to_host()[0] == 45
    assert add(d, size=3) == 3


def test_error_in_a_lambda_points_into_it():
    bad = cuda.Reduce(lambda a, b: a + NOT_DEFINED)  # noqa: F821
    with pytest.raises(pyk2cuda.CompileError) as e:
        bad(np.ones(3))
    line, col = _where(test_error_in_a_lambda_points_into_it, "NOT_DEFINED")
    assert e.value.diagnostics[0][:3] == (__file__, line, col)


def test_a_lambda_on_a_continuation_line():
    # numba-cuda's test_compile_ptx_arch_specific: the lambda's line alone does not parse (it
    # ends a call's arguments); the lambda is cut where its expression ends.
    ptx, resty = cuda.compile_ptx(
        lambda: None, tuple(), cc=(9, 0, "a"))
    assert ".target sm_90a" in ptx and str(resty) == "void"
    total = cuda.Reduce(
        lambda a, b: a + b, )
    x = np.arange(40, dtype=np.int64)
    assert total(x) == 780
    bad = cuda.Reduce(
        lambda a, b: a + NOT_DEFINED, )  # noqa: F821
    with pytest.raises(pyk2cuda.CompileError) as e:
        bad(np.ones(3))
    line, col = _where(test_a_lambda_on_a_continuation_line, "NOT_DEFINED")
    assert e.value.diagnostics[0][:3] == (__file__, line, col)


def test_jit_of_a_jitted_function_compiles_its_python_function():
    @cuda.jit(device=True)
    def inc(v):
        return v + 1
    k = cuda.jit(cuda.jit(lambda_free_kernel))
    dev_again = cuda.jit(device=True)(inc)
    assert dev_again.py_func is inc.py_func
    a = np.zeros(2)
    k[1, 2](a)
    assert a.tolist() == [1, 2]


def lambda_free_kernel(a):
    a[cuda.grid(1)] = cuda.grid(1) + 1


def test_enum_classes_of_other_modules_are_frozen_with_their_members():
    # test_enums' forms: classes imported from another module, members as constants, an IntEnum
    # member as an argument (an int to Numba's launch too); a tuple-valued Enum is refused by name
    import enum

    class Color(enum.Enum):
        red = 1
        green = 2

    class Code(enum.IntEnum):
        ok = 200
        error = 500

    class Planet(enum.Enum):
        EARTH = (5.976e+24, 6.37814e6)

    @cuda.jit
    def k(x, out):
        out[0] = Color.red == Color['green']
        out[1] = x + Code.error if x > Code.ok else Color.green.value

    out = np.zeros(2, np.int64)
    k[1, 1](Code.error, out)
    assert out.tolist() == [0, 1000]

    @cuda.jit
    def bad(out):
        out[0] = Planet.EARTH == Planet.EARTH

    with pytest.raises(pyk2cuda.CompileError, match="enum 'Planet' cannot be used in kernels: a member's "
                       "value is a tuple"):
        bad[1, 1](out)


def test_functions_and_constants_of_a_users_module():
    # test_device_func's form: `mymod.add` of a module of the user's is compiled as the name
    # mymod_add (same columns); a bare use of the module is an error naming it
    import types as pytypes

    @cuda.jit(device=True)
    def add(a, b):
        return a + b

    mymod = pytypes.ModuleType("mymod")
    mymod.add = add
    mymod.STEP = 3

    @cuda.jit
    def k(ary):
        i = cuda.grid(1)
        ary[i] = mymod.add(ary[i], mymod.STEP) + mymod.add(1, 1)

    a = np.arange(4)
    k[1, 4](a)
    assert a.tolist() == [5, 6, 7, 8]

    @cuda.jit
    def bad(ary):
        m = mymod
        ary[0] = m.STEP

    with pytest.raises(pyk2cuda.CompileError, match=r"test_function_objects.py:\d+:\d+: error: module "
                       "'mymod' can be used in kernels only as `mymod.function`"):
        bad[1, 1](a)

    import random

    @cuda.jit
    def host_only(ary):
        ary[0] = random.random()

    with pytest.raises(pyk2cuda.CompileError, match="Untyped global name 'random.random': a global of "
                       "type builtin_function_or_method, which kernels cannot use"):
        host_only[1, 1](a)
