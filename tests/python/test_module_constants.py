"""Module-level constants computed with math and NumPy (issue 27): the package evaluates the
module in Python and freezes what the kernel reads; `pyk2cuda run` folds the same lines in the C
frontend. One file, the diff suite's module_constants case (which also runs against Numba's
simulator), through both: the arrays must be equal bit for bit."""
import os
import subprocess

import numpy as np
import pytest

from test_dispatch_fronts import cli_path

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "diff", "cases", "module_constants.py")

# (kernel, input, output) as the diff cases run it
LAUNCHES = [
    ("gaussian", np.linspace(-3, 3, 64, dtype=np.float32), np.zeros((64, 6), np.float32)),
    ("gaussian", np.linspace(-3, 3, 64), np.zeros((64, 6))),
    ("counts", np.arange(-32, 32, dtype=np.int64) * 31, np.zeros((64, 4), np.int64)),
    ("complex_consts", np.linspace(-3, 3, 64), np.zeros((64, 2), np.complex128)),
]


@pytest.fixture(scope="module")
def module_file(tmp_path_factory):
    """The case, importing pyk2cuda's cuda where it imports numba's."""
    path = tmp_path_factory.mktemp("consts") / "module_constants_pkg.py"
    with open(CASE) as f:
        path.write_text(f.read().replace("from numba import cuda", "from pyk2cuda import cuda"))
    return path


def run_python(path, kernel, x, out):
    import importlib.util
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    getattr(mod, kernel)[2, 32](x, out)
    return out


@pytest.mark.parametrize("launch", LAUNCHES, ids=["gaussian-f32", "gaussian-f64", "counts", "complex"])
def test_the_package_and_the_command_line_freeze_alike(launch, module_file, tmp_path):
    kernel, x, out = launch
    np.save(tmp_path / "x.npy", x)
    zeros = "zeros:%s[%s]" % (out.dtype.name, ",".join(map(str, out.shape)))
    p = subprocess.run([cli_path(), "run", str(module_file), kernel, "--device", "sim", "--grid", "2",
                        "--block", "32", "--out-dir", "out", "x.npy", zeros],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    got_cli = np.load(tmp_path / "out" / "out.npy")
    got_py = run_python(module_file, kernel, x, out.copy())
    assert got_cli.dtype == got_py.dtype
    assert got_cli.tobytes() == got_py.tobytes(), (got_cli, got_py)
    assert np.any(got_py != 0)


class _Float64Repr(float):
    """A float subclass whose repr is a call, as NumPy 2 writes np.float64 (a float subclass):
    np.float64(6.283185307179586)."""

    def __repr__(self):
        return "np.float64(%s)" % float.__repr__(self)


TWO_PI = _Float64Repr(6.283185307179586)
HALF_I = complex(0.5, _Float64Repr(-1.25))


def test_a_float_subclass_is_frozen_as_its_value():
    # numba-cuda's random.py has TWO_PI_FLOAT64 = np.float64(2 * math.pi); under NumPy 2 its
    # repr named a call the translator refused (numba-cuda's test_random, float64 normals).
    from pyk2cuda import cuda

    @cuda.jit
    def scaled(out):
        out[0] = TWO_PI * 2.0
        out[1] = HALF_I.imag

    out = np.zeros(2)
    scaled[1, 1](out)
    assert out.tolist() == [6.283185307179586 * 2.0, -1.25]
