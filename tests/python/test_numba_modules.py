"""numba.cuda's modules that programs import beside the kernel API (docs/python.md, "Modules a
program imports"): numba.cuda.extending's register_jitable (and its extension API, refused by
name), numba.cuda.misc.special's literal_unroll, numba.cuda.utils' PYVERSION, and
numba.cuda.cudadrv.driver's driver object. literal_unroll's kernels are also checked against
Numba's simulator in the diff suite (tests/diff/cases/literal_unroll.py)."""
import os
import sys
import tempfile

import numpy as np
import pytest

from pyk2cuda import cuda
from pyk2cuda.cuda.cudadrv.driver import driver
from pyk2cuda.cuda.extending import overload, register_jitable
from pyk2cuda.cuda.misc.special import literal_unroll
from pyk2cuda.cuda.utils import PYVERSION
from conftest import run_script

GAINS = (0.5, 2.0, -3.0)


@register_jitable
def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


@register_jitable(inline="always")
def scaled_sum(t, x):
    s = 0.0
    for g in literal_unroll(t):
        s += g * x
    return s


@cuda.jit
def uses_jitables(x, out, t):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = clamp(x[i], -0.5, 0.5)
        out[i, 1] = scaled_sum(GAINS, x[i])
        n = 0
        for k in literal_unroll(t):
            if k > 6:
                break
            n += k
        out[i, 2] = n


def test_register_jitable_and_literal_unroll_in_a_kernel_match_python():
    # The reference is the same Python, run on the host: register_jitable's functions and
    # literal_unroll are plain Python there, as in Numba (the sums in the kernel's order).
    x = np.linspace(-2.0, 2.0, 37)
    got = np.zeros((37, 3))
    uses_jitables[2, 32](x, got, (1, 2, 4, 8))
    want = np.array([[clamp(v, -0.5, 0.5), scaled_sum(GAINS, v), 1 + 2 + 4] for v in x])
    assert np.array_equal(got, want), (got[:4], want[:4])
    assert got[0, 0] == -0.5 and got[0, 1] == 1.0 and got[-1, 1] == -1.0


def test_register_jitable_runs_as_python_on_the_host():
    assert clamp(3.0, 0.0, 1.0) == 1.0
    assert clamp.py_func(-1, 0, 1) == 0 and clamp.__name__ == "clamp"
    with pytest.raises(TypeError):
        register_jitable(clamp.py_func, 1)


def test_literal_unroll_of_mixed_types_unrolls_and_of_an_array_is_refused():
    @cuda.jit
    def mixed(out, t):
        for v in literal_unroll(t):
            out[0] += v
        out[1] = v   # the last element after the loop, as in Python

    out = np.zeros(2)
    mixed[1, 1](out, (1, 2.5, True))   # one copy of the body per element type
    assert out.tolist() == [4.5, 1.0]
    with pytest.raises(cuda.CompileError, match="takes a tuple, not array"):
        mixed[1, 1](np.zeros(2), np.ones(3))
    assert literal_unroll((1, "a")) == (1, "a")   # on the host: its argument


def test_extension_api_is_refused_by_name():
    def f(x):
        return x
    with pytest.raises(NotImplementedError, match="overload is Numba's extension API"):
        overload(f)


def test_pyversion():
    assert PYVERSION == sys.version_info[:2]


def test_driver_object_answers_for_the_devices():
    assert driver.is_available == cuda.is_available()
    assert driver.get_device_count() == len(cuda.gpus) >= 1
    assert driver.get_device(0).id == cuda.gpus[0].id
    assert [d.id for d in driver.list_devices()] == [d.id for d in cuda.gpus]
    with pytest.raises(AttributeError, match="cuMemcpyHtoD"):
        driver.cuMemcpyHtoD


def test_numba_spellings_under_python_m_pyk2cuda():
    script = ("from numba.cuda.extending import register_jitable\n"
              "from numba.cuda.misc.special import literal_unroll\n"
              "from numba.cuda.utils import PYVERSION\n"
              "from numba.cuda.cudadrv.driver import driver, CudaAPIError\n"
              "from numba import cuda, literal_unroll as lu\n"
              "import numpy as np\n"
              "@register_jitable\n"
              "def twice(x):\n"
              "    return 2 * x\n"
              "@cuda.jit\n"
              "def k(out):\n"
              "    for v in lu((1, 2, 3)):\n"
              "        out[0] += twice(v)\n"
              "out = np.zeros(1, np.int64)\n"
              "k[1, 1](out)\n"
              "print(out[0], lu is literal_unroll, driver.get_device_count() >= 1)\n")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "script.py")
        with open(path, "w") as f:
            f.write(script)
        rc, out, err = run_script(["-m", "pyk2cuda", path])
    assert rc == 0, out + err
    assert out.split() == ["12", "True", "True"], out + err
