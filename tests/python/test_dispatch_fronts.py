"""One dispatcher for every front (issue 27): the same kernel, signature and values, launched
from Python and with `pyk2cuda run` (which uses only the C API), choose the same specialization
and convert the same way, or give the same message. The table's expectations are Numba's (its
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


# (kernel, grid, block, run ARGs, Python arguments, expected array or the refusal's message)
CASES = [
    ("scale", 1, 4, ["zeros:float32[4]", "2"], lambda: (np.zeros(4, np.float32), 2),
     np.full(4, 2, np.float32)),
    ("scale", 1, 4, ["zeros:float32[4]", "0.1"], lambda: (np.zeros(4, np.float32), 0.1),
     np.full(4, 0.1, np.float32)),
    ("scale", 1, 4, ["zeros:float64[4]", "2"], lambda: (np.zeros(4), 2),
     "no signature of kernel 'scale' takes (float64[::1], int64): void(float32[::1], float32): "
     "argument 'a' is float64[::1], where it takes float32[::1]"),
    ("pick", 1, 4, ["zeros:int32[4]", "3"], lambda: (np.zeros(4, np.int32), 3),
     np.full(4, 3, np.int32)),
    ("pick", 1, 4, ["zeros:float64[4]", "true"], lambda: (np.zeros(4), True), np.ones(4)),
    ("pick", 1, 4, ["zeros:int64[4]", "3"], lambda: (np.zeros(4, np.int64), 3),
     "no signature of kernel 'pick' takes (int64[::1], int64): void(int32[::1], int32): argument "
     "'a' is int64[::1], where it takes int32[::1]; void(float64[::1], float64): argument 'a' is "
     "int64[::1], where it takes float64[::1]"),
    ("fill", 1, 4, ["zeros:int32[4]", "int8:-3"], lambda: (np.zeros(4, np.int32), np.int8(-3)),
     np.full(4, -3, np.int32)),
    ("fill", 1, 4, ["zeros:int32[4]", "2.5"], lambda: (np.zeros(4, np.int32), 2.5),
     "argument 'v': a float64 (2.5) cannot be passed to the int32 parameter (Numba's CUDA target "
     "refuses it too); pass an integer, e.g. int(x)"),
    ("any_layout", (1, 1), (3, 2), ["F.npy", "float32:10"], lambda: (fortran((3, 2)), np.float32(10)),
     np.array([[10, 11], [20, 21], [30, 31]], np.float32)),
]


def run_cli(tmp_path, kernel, grid, block, args):
    np.save(tmp_path / "F.npy", fortran((3, 2)))
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
