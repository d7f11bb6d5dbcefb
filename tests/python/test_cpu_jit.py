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
from pyk2cuda.numba_names import NumbaWarning
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

    assert halves(np.arange(4.0)).tolist() == [0.0, 1.0]   # a view of the argument (was E-host-return)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nopythn'"):
        pyk2cuda.jit(nopythn=True)


def test_python_it_cannot_compile_runs_as_python_with_one_warning():
    """A list comprehension (E-unsupported), str() (E-undefined), an object global
    (E-global-type): the function runs as plain Python after one warning naming the construct and
    its line; the result is Python's."""
    import collections
    table = collections.OrderedDict(a=1)

    @pyk2cuda.njit
    def listy(a):
        xs = [x * 2 for x in a]
        return xs[0] + xs[1]

    @pyk2cuda.njit
    def objecty(a):
        return len(table) + a[0]

    a = np.array([1.5, 2.0])
    line = listy.py_func.__code__.co_firstlineno
    with pytest.warns(NumbaWarning) as got:
        assert listy(a) == 7.0
        assert listy(a) == 7.0
    assert len(got) == 1, [str(w.message) for w in got]
    assert "cannot compile 'listy' (%s:%d:" % (__file__, line + 2) in str(got[0].message)
    assert "list comprehension" in str(got[0].message) and "runs as plain Python" in str(got[0].message)
    with pytest.warns(NumbaWarning, match=r"'str' is not defined"):
        @pyk2cuda.njit("int64(float64[::1])")   # a signature: compiled now, as Numba does
        def stringy(a):
            return len(str(a[0]))
    assert stringy(a) == 3
    with pytest.warns(NumbaWarning, match=r"OrderedDict"):
        assert objecty(a) == 2.5
    assert stringy.py_func is not None and objecty(a) == 2.5


ARRAYS = os.path.join(HERE, "cpu_jit_arrays.py")


def test_array_creation_and_array_results_as_numbas_njit():
    """np.empty, zeros, ones, full, the _like forms and arange, 1-d to 3-d, dtypes as Numba types
    them; arrays and tuples of arrays returned as NumPy arrays, views of new arrays and of
    arguments (cpu_jit_arrays.py), printed with dtype, shape, flags and elements."""
    rc, ours, err = run_script(["-m", "pyk2cuda", ARRAYS])
    assert rc == 0, ours + err
    assert "NumbaWarning" not in err, err   # compiled, not run as Python
    assert "ranges[4] float64 (10,) True True True ['1.0', '1.1'" in ours, ours
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, ARRAYS], cwd=HERE, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ours


def test_returned_arrays_own_their_memory():
    """A new array outlives the call and the other arrays of its tuple; its memory is freed with
    it (the heap block passes to a buffer object its base holds); a view of an argument keeps the
    argument alive."""
    import gc

    @pyk2cuda.njit
    def pair(n):
        a = np.arange(n)
        return a[1:], np.full(n, 2.5), a

    tail, full, whole = pair(5)
    assert tail.base is whole.base and full.base is not whole.base
    del whole
    gc.collect()
    assert tail.tolist() == [1, 2, 3, 4] and full.tolist() == [2.5] * 5
    # freed with the last array over it: 40 calls of 16 MB each leave the peak where one call puts it
    import resource
    pair(10 ** 6)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(40):
        pair(10 ** 6)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024   # KiB

    @pyk2cuda.njit
    def middle(x):
        return x[1:-1]

    x = np.arange(6.0)
    m = middle(x)
    del x
    gc.collect()
    assert m.tolist() == [1.0, 2.0, 3.0, 4.0] and m.flags.writeable


def test_array_creation_errors():
    """A negative extent raises at the call's line (Numba: ValueError); a kernel cannot allocate,
    itself or through a @jit function it calls (E-alloc)."""
    @pyk2cuda.njit
    def grid(n):
        return np.zeros((2, n))

    with pytest.raises(pyk2cuda.Error, match="ValueError: negative dimensions are not allowed"):
        grid(-1)
    assert grid(3).shape == (2, 3)

    @pyk2cuda.njit
    def ones(n):
        return np.ones(n)

    @cuda.jit
    def kern(out):
        out[0] = ones(3)[0]

    with pytest.raises(pyk2cuda.CompileError, match="numpy.ones\\(\\) allocates memory, which kernel 'kern' cannot"):
        kern[1, 1](np.zeros(1))
