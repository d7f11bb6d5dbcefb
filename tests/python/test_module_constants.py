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
