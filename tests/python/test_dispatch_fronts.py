"""One dispatcher for every front (issue 27): the same kernel, signature and values, launched
from Python and with `pyk2cuda run` (which uses only the C API), choose the same specialization
and convert the same way, or give the same message: scalars, arrays of each layout, strings,
datetimes, records and tuples (`run` spells them as Python does: '(1, 2.5)', '(7,)'), and a
@vectorize ufunc's signature (UFUNC_CASES: chosen, or refused as Numba refuses, alike). Enum
members, which `run` cannot spell, go through the C API in tests/unit/test_api.c, as do more
tuples (tuple_arguments_convert_element_by_element: the values of tuple_choice.py, which
test_overload_choice.py runs from Python against Numba's dispatcher). The table's expectations are Numba's (its
dispatcher's conversions; a float for an integer parameter is refused as its ctypes call
refuses it)."""
import os
import subprocess

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "dispatch_kernels.py")


def cli_path():
    """The command beside this package's build (meson passes it as PYK2CUDA_CLI)."""
    path = os.environ.get("PYK2CUDA_CLI") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(pyk2cuda.__file__))), "..", "tools", "pyk2cuda")
    assert os.path.exists(path), f"no pyk2cuda command at {path}: set PYK2CUDA_CLI"
    return path


def fortran(shape):
    return np.asfortranarray(np.zeros(shape, np.float32))


RECORD = np.dtype([("x", np.int32), ("y", np.float64)], align=True)
PACKED = np.dtype([("x", np.int32), ("y", np.float64)])


def record_values(dtype):
    r = np.zeros(2, dtype)
    r["x"], r["y"] = [1, 3], [0.5, 1.5]
    return r


# (kernel, grid, block, run ARGs, Python arguments, expected array or the refusal's message)
CASES = [
    ("scale", 1, 4, ["zeros:float32[4]", "2"], lambda: (np.zeros(4, np.float32), 2),
     np.full(4, 2, np.float32)),
    ("scale", 1, 4, ["zeros:float32[4]", "0.1"], lambda: (np.zeros(4, np.float32), 0.1),
     np.full(4, 0.1, np.float32)),
    ("scale", 1, 4, ["zeros:float64[4]", "2"], lambda: (np.zeros(4), 2),
     "No matching definition of kernel 'scale' for argument type(s) (float64[::1], int64): void(float32[::1], float32): "
     "argument 'a' is float64[::1], where it takes float32[::1]"),
    ("pick", 1, 4, ["zeros:int32[4]", "3"], lambda: (np.zeros(4, np.int32), 3),
     np.full(4, 3, np.int32)),
    ("pick", 1, 4, ["zeros:float64[4]", "true"], lambda: (np.zeros(4), True), np.ones(4)),
    ("pick", 1, 4, ["zeros:int64[4]", "3"], lambda: (np.zeros(4, np.int64), 3),
     "No matching definition of kernel 'pick' for argument type(s) (int64[::1], int64): void(int32[::1], int32): argument "
     "'a' is int64[::1], where it takes int32[::1]; void(float64[::1], float64): argument 'a' is "
     "int64[::1], where it takes float64[::1]"),
    ("fill", 1, 4, ["zeros:int32[4]", "int8:-3"], lambda: (np.zeros(4, np.int32), np.int8(-3)),
     np.full(4, -3, np.int32)),
    ("fill", 1, 4, ["zeros:int32[4]", "2.5"], lambda: (np.zeros(4, np.int32), 2.5),
     "argument 'v': a float64 (2.5) cannot be passed to the int32 parameter (Numba's CUDA target "
     "refuses it too); pass an integer, e.g. int(x)"),
    ("any_layout", (1, 1), (3, 2), ["F.npy", "float32:10"], lambda: (fortran((3, 2)), np.float32(10)),
     np.array([[10, 11], [20, 21], [30, 31]], np.float32)),
    ("any_layout", (1, 1), (3, 2), ["zeros:float32[3,2]", "1"], lambda: (np.zeros((3, 2), np.float32), 1),
     np.array([[1, 2], [2, 3], [3, 4]], np.float32)),
    ("any_layout", (1, 1), (3, 2), ["zeros:float32[3,2,1]", "1"], lambda: (np.zeros((3, 2, 1), np.float32), 1),
     "No matching definition of kernel 'any_layout' for argument type(s) (float32[:, :, ::1], int64): void(float32[:, :], float32): "
     "argument 'a' is float32[:, :, ::1], where it takes float32[:, :]"),
    # strings, datetimes and records: the dtype decides, with the same words from both fronts
    ("chars", 1, 4, ["zeros:int32[4]", "zeros:S4[4]"], lambda: (np.zeros(4, np.int32), np.zeros(4, "S4")),
     np.full(4, 4, np.int32)),
    ("chars", 1, 4, ["zeros:int32[4]", "zeros:U4[4]"], lambda: (np.zeros(4, np.int32), np.zeros(4, "U4")),
     "No matching definition of kernel 'chars' for argument type(s) (int32[::1], [unichr x 4][::1]): void(int32[::1], [char x 4][::1]): "
     "argument 's' is [unichr x 4][::1], where it takes [char x 4][::1]"),
    ("days", 1, 4, ["zeros:int32[4]", "D.npy"], lambda: (np.zeros(4, np.int32), np.zeros(4, "M8[D]")),
     np.full(4, 5, np.int32)),
    ("days", 1, 4, ["zeros:int32[4]", "s.npy"], lambda: (np.zeros(4, np.int32), np.zeros(4, "M8[s]")),
     "No matching definition of kernel 'days' for argument type(s) (int32[::1], datetime64[s][::1]): void(int32[::1], "
     "datetime64[D][::1]): argument 'd' is datetime64[s][::1], where it takes datetime64[D][::1]"),
    ("records", 1, 2, ["zeros:float64[2]", "R.npy"], lambda: (np.zeros(2), record_values(RECORD)),
     np.array([1.5, 4.5])),
    ("records", 1, 2, ["zeros:float64[2]", "P.npy"], lambda: (np.zeros(2), record_values(PACKED)),
     "No matching definition of kernel 'records' for argument type(s) (float64[::1], Record(x[type=int32;offset=0],"
     "y[type=float64;offset=4];12;False)[::1]): void(float64[::1], Record(x[type=int32;offset=0],"
     "y[type=float64;offset=8];16;True)[::1]): argument 'r' is Record(x[type=int32;offset=0],"
     "y[type=float64;offset=4];12;False)[::1], where it takes Record(x[type=int32;offset=0],"
     "y[type=float64;offset=8];16;True)[::1]"),
    # tuples: converted element by element against a signature, typed as Numba types them
    # (a Python int int64, a float float64) for a kernel typed at launch
    ("pair", 1, 4, ["zeros:float64[4]", "(1, 2.5)"], lambda: (np.zeros(4), (1, 2.5)), np.full(4, 3.5)),
    ("pair", 1, 4, ["zeros:float64[4]", "(float32:0.5, true)"], lambda: (np.zeros(4), (np.float32(0.5), True)),
     np.full(4, 1.5)),
    ("pair", 1, 4, ["zeros:float64[4]", "(1, 2, 3)"], lambda: (np.zeros(4), (1, 2, 3)),
     "No matching definition of kernel 'pair' for argument type(s) (float64[::1], UniTuple(int64 x 3)): void(float64[::1], "
     "UniTuple(float64 x 2)): argument 't' is UniTuple(int64 x 3), where it takes UniTuple(float64 x 2)"),
    ("nested", 1, 4, ["zeros:int64[4]", "(1, (2, 3))"], lambda: (np.zeros(4, np.int64), (1, (2, 3))),
     np.full(4, 7, np.int64)),
    ("nested", 1, 4, ["zeros:int64[4]", "(1, (2.5, 3))"], lambda: (np.zeros(4, np.int64), (1, (2.5, 3))),
     "argument 't': a float64 (2.5) cannot be passed to the int32 parameter (Numba's CUDA target "
     "refuses it too); pass an integer, e.g. int(x)"),
    ("first", 1, 4, ["zeros:int64[4]", "(7,)"], lambda: (np.zeros(4, np.int64), (7,)), np.full(4, 7, np.int64)),
    ("first", 1, 4, ["zeros:float32[4]", "(float32:1.5, 2)"], lambda: (np.zeros(4, np.float32), (np.float32(1.5), 2)),
     np.full(4, 1.5, np.float32)),
]


def run_cli(tmp_path, kernel, grid, block, args):
    np.save(tmp_path / "F.npy", fortran((3, 2)))
    np.save(tmp_path / "D.npy", np.zeros(4, "M8[D]"))
    np.save(tmp_path / "s.npy", np.zeros(4, "M8[s]"))
    np.save(tmp_path / "R.npy", record_values(RECORD))
    np.save(tmp_path / "P.npy", record_values(PACKED))
    dims = lambda d: ",".join(map(str, d)) if isinstance(d, tuple) else str(d)
    p = subprocess.run([cli_path(), "run", KERNELS, kernel, "--device", "sim", "--grid", dims(grid),
                        "--block", dims(block), "--out-dir", "out"] + args,
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stderr, tmp_path / "out" / "a.npy"


def run_python(kernel, grid, block, make_args):
    import importlib.util
    spec = importlib.util.spec_from_file_location("dispatch_kernels", KERNELS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    args = make_args()
    getattr(mod, kernel)[grid, block](*args)
    return args[0]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{'-'.join(c[3])}" for c in CASES])
def test_python_and_the_command_line_dispatch_alike(case, tmp_path):
    kernel, grid, block, cli_args, make_args, expected = case
    rc, err, out = run_cli(tmp_path, kernel, grid, block, cli_args)
    if isinstance(expected, str):
        assert rc == 2 and f"pyk2cuda: {expected}\n" in err, err
        with pytest.raises(TypeError) as e:
            run_python(kernel, grid, block, make_args)
        assert str(e.value) == expected
    else:
        assert rc == 0, err
        got_cli = np.load(out)
        got_py = run_python(kernel, grid, block, make_args)
        assert got_cli.dtype == got_py.dtype == expected.dtype
        assert np.array_equal(got_cli, expected) and np.array_equal(got_py, expected), (got_cli, got_py)


# A @vectorize ufunc's signature (the dispatcher's P2C_MATCH_UFUNC, Numba's CUDA ufunc rule): (run
# ARGs, Python arguments, expected array or the refusal's message). test_vectorize.py checks the
# rule itself against Numba's UFuncMechanism.
UFUNC_CASES = [
    (["zeros:float32[4]", "2"], lambda: (np.zeros(4, np.float32), 2), np.full(4, 2, np.float32)),
    (["zeros:float64[4]", "int32:2"], lambda: (np.zeros(4), np.int32(2)), np.full(4, 2.0)),
    (["1.5", "2.5"], lambda: (1.5, 2.5), np.array([4.0])),
    (["zeros:int32[4]", "2"], lambda: (np.zeros(4, np.int32), 2),
     "no signature of ufunc 'vadd' takes (int32[::1], int64); a CUDA ufunc takes arrays of exactly a "
     "signature's types, as Numba's (NumPy's casting='no'): convert them first, e.g. a.astype(np.float64): "
     "float32(float32, float32): argument 'a' is int32, where it takes float32; float64(float64, float64): "
     "argument 'a' is int32, where it takes float64"),
    (["2", "3"], lambda: (2, 3),
     "more than one signature of ufunc 'vadd' takes (int64, int64): the scalars' types decide none of them; "
     "give a scalar as a NumPy scalar of the type wanted, e.g. np.float32(x) (Numba refuses the call too)"),
]


@pytest.mark.parametrize("case", UFUNC_CASES, ids=["-".join(c[0]) for c in UFUNC_CASES])
def test_ufunc_signatures_are_chosen_alike(case, tmp_path):
    cli_args, make_args, expected = case
    p = subprocess.run([cli_path(), "run", KERNELS, "vadd", "--device", "sim", "--out-dir", "out"] + cli_args,
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    import importlib.util
    spec = importlib.util.spec_from_file_location("dispatch_kernels", KERNELS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if isinstance(expected, str):
        assert p.returncode == 2 and f"pyk2cuda: {expected}\n" in p.stderr, p.stderr
        with pytest.raises(TypeError) as e:
            mod.vadd(*make_args())
        assert str(e.value) == expected
    else:
        assert p.returncode == 0, p.stderr
        got_cli = np.load(tmp_path / "out" / "out.npy")
        got_py = np.atleast_1d(mod.vadd(*make_args()))
        assert got_cli.dtype == got_py.dtype == expected.dtype
        assert np.array_equal(got_cli, expected) and np.array_equal(got_py, expected), (got_cli, got_py)
