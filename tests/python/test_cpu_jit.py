"""@jit and @njit functions called from the host run on the CPU, compiled by pyk2cuda (issue 33,
docs/python.md "CPU functions"): cpu_jit.py's results under pyk2cuda against Numba's CPU JIT
(Debian's python3-numba), and what only pyk2cuda can show."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
from conftest import HERE, run_script
from test_samples import ORACLE, has_numba

SCRIPT = os.path.join(HERE, "cpu_jit.py")


def test_results_as_numbas_njit():
    rc, ours, err = run_script(["-m", "pyk2cuda", SCRIPT])
    assert rc == 0, ours + err
    assert "total float 4.500000000000001" in ours and "collatz int 111" in ours, ours
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory() as cache:   # cache=True: Numba's cache, not beside the script
        env["NUMBA_CACHE_DIR"] = cache
        p = subprocess.run([ORACLE, SCRIPT], cwd=HERE, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ours


def test_top_level_names_are_numbas():
    """pyk2cuda.jit and njit are Numba's CPU decorators; cuda.jit makes kernels."""
    assert pyk2cuda.jit is pyk2cuda.cpu.jit and pyk2cuda.njit is pyk2cuda.cpu.njit

    @pyk2cuda.jit
    def add(x, y):
        return x + y

    assert add(2, 3) == 5 and type(add(2, 3)) is int
    assert add(2.5, 1) == 3.5
    assert add.py_func(1, 2) == 3
    assert sorted(add.signatures) == ["float64(float64, int64)", "int64(int64, int64)"]


def test_called_from_a_kernel_it_stays_a_device_function():
    @pyk2cuda.njit
    def dot(a, b):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * b[i]
        return s

    @cuda.jit
    def rows(m, v, out):
        i = cuda.grid(1)
        if i < m.shape[0]:
            out[i] = dot(m[i], v)

    m = np.arange(12.0).reshape(4, 3)
    v = np.array([1.0, -1.0, 0.5])
    out = np.zeros(4)
    rows[1, 32](m, v, out)
    assert out.tolist() == [dot(m[i], v) for i in range(4)] == (m @ v).tolist()


def test_wrong_calls():
    @pyk2cuda.njit("float64(float64[::1])")
    def first(a):
        return a[0]

    with pytest.raises(TypeError, match="takes 1 argument, 2 given"):
        first(np.zeros(2), 1)
    with pytest.raises(TypeError, match="float32"):   # the dispatcher's words: no signature takes it
        first(np.zeros(2, np.float32))
    assert first(np.array([1.5, 2.0])) == 1.5

    @pyk2cuda.njit
    def halves(a):
        return a[: a.shape[0] // 2]

    with pytest.raises(pyk2cuda.CompileError, match=r"test_cpu_jit.py:\d+:\d+: .*returns array"):
        halves(np.zeros(4))
    with pytest.raises(TypeError, match="unexpected keyword argument 'nopythn'"):
        pyk2cuda.jit(nopythn=True)
