"""@jit and @njit functions called from the host run on the CPU, compiled by pyk2cuda (issue 33,
docs/python.md "CPU functions"): cpu_jit.py's results under pyk2cuda against Numba's CPU JIT
(Debian's python3-numba), and what only pyk2cuda can show."""
import os
import re
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


def line_of(text):
    """The line of this file that holds `text` first."""
    with open(os.path.abspath(__file__)) as f:
        return next(i + 1 for i, line in enumerate(f) if text in line)


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
    assert "cannot compile 'listy' for (float64[::1]) (%s:%d:" % (__file__, line + 2) in str(got[0].message)
    assert "a list comprehension is not supported in @jit functions" in str(got[0].message)
    assert "runs as plain Python" in str(got[0].message)
    with pytest.warns(NumbaWarning, match=r"'str' is not defined"):
        @pyk2cuda.njit("int64(float64[::1])")   # a signature: compiled now, as Numba does
        def stringy(a):
            return len(str(a[0]))
    assert stringy(a) == 3
    with pytest.warns(NumbaWarning, match=r"OrderedDict"):
        assert objecty(a) == 2.5
    assert stringy.py_func is not None and objecty(a) == 2.5


def test_the_fallback_is_per_argument_types():
    """An array's .conjugate() (E-not-callable) runs as plain Python for the array's types only,
    after one warning naming the types, the construct and its line; the scalars' calls keep their
    native code, before and after it (cpu_jit.py's `conjugated` compares the values with Numba's).
    Declared signatures: the one that fails runs as Python, the others are compiled now; a call
    with other types is the dispatcher's (a TypeError where no signature takes them)."""
    @pyk2cuda.njit
    def conj(x):
        return x.conjugate()

    line = line_of("return x.conjugate()")
    assert conj(2.5) == 2.5
    a = np.array([1 + 2j, -3j, 5])
    with pytest.warns(NumbaWarning) as got:
        assert conj(a).tolist() == [1 - 2j, 3j, 5]
        assert conj(a).tolist() == [1 - 2j, 3j, 5]
        assert conj(a[::2]).tolist() == [1 - 2j, 5]   # other types (layout A): a second warning
    # The compiler's own words (which methods arrays have) are diag's to check, not this test's.
    expected = [re.escape("pyk2cuda cannot compile 'conj' for (%s) (%s:%d:16: method 'conjugate' of "
                          "array(complex128, 1d, %s) is not supported (" % (t, __file__, line, layout))
                + r"[^()]*(\([^()]*\)[^()]*)*" + re.escape(")); it runs as plain Python for these argument types")
                for t, layout in (("complex128[::1]", "C"), ("complex128[:]", "A"))]
    messages = [str(w.message) for w in got]
    assert len(messages) == 2 and all(re.fullmatch(e, m) for e, m in zip(expected, messages)), messages
    assert conj(1.5 - 2j) == 1.5 + 2j and conj(-7) == -7
    assert conj.signatures == ["float64(float64)", "complex128(complex128)", "int64(int64)"]   # native

    def conj_declared(x):
        return x.conjugate()

    with pytest.warns(NumbaWarning, match=r"'conj_declared' for \(float64\[:\]\)") as got:
        declared = pyk2cuda.njit(["float64(float64)", "float64[:](float64[:])", "complex128(complex128)"])(conj_declared)
    assert len(got) == 1 and got[0].lineno == line_of("declared = pyk2cuda.njit([")
    assert declared.signatures == ["float64(float64)", "complex128(complex128)"]
    assert declared(2.5) == 2.5 and declared(1j) == -1j
    assert declared(np.arange(3.0)[::2]).tolist() == [0.0, 2.0]   # the failed signature's types: Python
    with pytest.raises(TypeError):
        declared(np.arange(3, dtype=np.int8))   # no signature takes it (the dispatcher's TypeError)


def test_numpy_functions_it_lacks_run_as_python():
    """A NumPy function pyk2cuda does not compile (E-unknown-builtin: np.cumsum) is Python it
    cannot compile: the call runs as Python with one warning, where it was a CompileError."""
    @pyk2cuda.njit
    def running(a):
        return np.cumsum(a)

    with pytest.warns(NumbaWarning, match=r"'numpy.cumsum' is not supported"):
        assert running(np.arange(4)).tolist() == [0, 1, 3, 6]


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

    with pytest.raises(ValueError, match="^negative dimensions are not allowed$") as e:   # Numba's
        grid(-1)
    assert isinstance(e.value, pyk2cuda.Error) and e.value.failure["line"] == line_of("return np.zeros((2, n))")
    assert grid(3).shape == (2, 3)

    @pyk2cuda.njit
    def ones(n):
        return np.ones(n)

    @cuda.jit
    def kern(out):
        out[0] = ones(3)[0]

    with pytest.raises(pyk2cuda.CompileError, match="numpy.ones\\(\\) allocates memory, which kernel 'kern' cannot"):
        kern[1, 1](np.zeros(1))


PRANGE = os.path.join(HERE, "cpu_jit_prange.py")


PARALLEL_LOOP = re.compile(r"p2c_prange\(\w+, \w+, \[&\]")


def runs_over_cores(f):
    """Whether the C of @jit function f (called once) has a loop run by p2c_prange."""
    return bool(PARALLEL_LOOP.search("".join(f.inspect_cuda().values())))


def test_prange_over_cores_as_numbas_parallel_njit():
    """prange loops of parallel=True functions, run over the cores: integer reductions (+=, *=,
    -=, v = v + x, v = k * v, min, max) exact, float sums, a 2-d smoothing over rows, arrays
    created in the chunks, a later start, a histogram per row, a reduction in an inner serial
    loop, a prange inside a serial loop (cpu_jit_prange.py), against numba.njit(parallel=True);
    with 1 and 3 workers (PYK2CUDA_SIM_THREADS) the same; every one of its prange loops runs
    over the cores (checked in the same process)."""
    # with 3 workers, the script's output, then the names of its functions whose C has a loop
    # that runs in order (none); with 1 worker, the script alone
    check = "import sys\nsys.path.insert(0, %r)\nimport cpu_jit_prange as m\n" % HERE + \
        "from test_cpu_jit import runs_over_cores\n" + \
        "print(sorted(n for n, f in vars(m).items() if hasattr(f, 'inspect_cuda') and not runs_over_cores(f)))\n"
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "check.py"), "w") as f:
            f.write(check)
        rc, ours, err = run_script(["-m", "pyk2cuda", os.path.join(d, "check.py")], env={"PYK2CUDA_SIM_THREADS": "3"})
    assert rc == 0 and ours.endswith("\n[]\n"), ours + err
    assert "NumbaWarning" not in err, err
    outs = [ours[:-len("[]\n")]]
    rc, ours, err = run_script(["-m", "pyk2cuda", PRANGE], env={"PYK2CUDA_SIM_THREADS": "1"})
    assert rc == 0, ours + err
    outs.append(ours)
    assert outs[0] == outs[1]
    assert "int_sum 1165667000" in outs[0] and "extremes (-8, 40, -2.0)" in outs[0], outs[0]
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, PRANGE], cwd=HERE, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout == outs[0]


def test_which_prange_loops_run_over_cores():
    """The generated C shows it: a parallel=True function's prange loop is a p2c_prange call; the
    same loop without parallel=True, a loop whose private variable is read after it, a loop that
    breaks out, and one whose update reads the variable elsewhere run in order (and still give
    the right result). `d = d - x` is a reduction too, with Python's result (Numba 0.56's
    parallel loop gives -565 here: tests/python/cpu_jit_prange.py uses `d -= x`)."""
    def body(a):
        s = 0
        for i in pyk2cuda.prange(a.shape[0]):
            s += a[i]
        return s

    def last(a):
        x = 0
        for i in pyk2cuda.prange(a.shape[0]):
            x = a[i]
        return x

    def stops(a):
        s = 0
        for i in pyk2cuda.prange(a.shape[0]):
            if a[i] > 10:
                break
            s += a[i]
        return s

    def twice(a):
        s = 0
        for i in pyk2cuda.prange(a.shape[0]):
            s += a[i] + s % 2
        return s

    def minus(a):
        d = 1000
        for i in pyk2cuda.prange(a.shape[0]):
            d = d - a[i]
        return d

    a = np.arange(1000)
    par, ser = pyk2cuda.njit(parallel=True)(body), pyk2cuda.njit(body)
    assert par(a) == ser(a) == 499500
    assert runs_over_cores(par) and not runs_over_cores(ser)
    for f in (last, stops, twice):
        jf = pyk2cuda.njit(parallel=True)(f)
        assert jf(a) == f(a)
        assert not runs_over_cores(jf), f.__name__
    m = pyk2cuda.njit(parallel=True)(minus)
    assert m(np.arange(1, 30)) == minus(np.arange(1, 30)) == 565 and runs_over_cores(m)


def test_a_raise_in_a_chunk_ends_the_call():
    """A chunk that raises (here on a worker thread, and in chunk 0) ends the call with its
    error, as a serial loop's raise does (debug=True: the record is reported, as for a serial
    loop); the other chunks stop at their next poll."""
    @pyk2cuda.njit(parallel=True, debug=True)
    def check(a, bad):
        s = 0
        for i in pyk2cuda.prange(a.shape[0]):
            if a[i] == bad:
                raise ValueError("bad value")
            s += a[i]
        return s

    a = np.arange(10000)
    for bad in (9999, 0, 5000):
        with pytest.raises(ValueError, match="^bad value$") as e:
            check(a, bad)
        assert isinstance(e.value, pyk2cuda.Error) and e.value.failure["line"] == line_of('raise ValueError("bad value")')
    assert check(a, -1) == 49995000 and runs_over_cores(check)


def test_a_fault_in_any_chunk_is_reported(monkeypatch):
    """A wild store in a prange chunk, on the calling thread or on another, is reported as a fault
    of the call (pyk2cuda.Error, 'illegal_address', the Python line), and the process goes on
    (before, a chunk on another thread ended the process)."""
    monkeypatch.setenv("PYK2CUDA_SIM_THREADS", "4")

    def make():
        @pyk2cuda.njit(parallel=True)
        def wild(a, bad):
            s = 0.0
            for i in pyk2cuda.prange(a.shape[0]):
                if i == bad:
                    a[i + 2**40] = 1.0   # the wild store
                s += a[i]
            return s
        return wild

    first = make()
    assert first(np.arange(1000.0), -1) == 499500.0
    # the chunks on threads are the optimized tier's (the first tier runs them in turn, and its
    # faults name no line): its build, made now, is in the cache for the calls below
    first._host_tiers(True)
    for bad in (999, 0, 600):   # the last chunk, chunk 0, a middle one
        with pytest.raises(pyk2cuda.Error) as e:
            make()(np.arange(1000.0), bad)
        assert e.value.status_name == "illegal_address", str(e.value)
        assert e.value.failure["line"] == line_of("a[i + 2**40] = 1.0   # the wild store"), e.value.failure


def test_an_interrupt_ends_the_prange_chunks():
    """Ctrl-C during a long prange loop ends the call at once (chunk 0 asks the host's interrupt
    check at its polls; the chunks end at theirs), where it waited for the loop's end before."""
    import signal
    import sys
    import time
    script = "\n".join([
        "from pyk2cuda import njit, prange",
        "@njit(parallel=True)",
        "def spin(n, rounds):",
        "    s = 0",
        "    for i in prange(n):",
        "        for r in range(rounds):",
        "            s += (i * r) % 7",
        "    return s",
        "print(spin(8, 10), flush=True)",
        "print(spin(8, 10**12), flush=True)"])
    env = dict(os.environ, PYK2CUDA_SIM_THREADS="4")
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    # The child's second call spins for days: whatever fails here, it must not outlive the test
    # (two such children, left by a failed first assertion, spun for an hour on the test machine).
    try:
        assert p.stdout.readline().strip() == "168"   # compiled and run once: the long call starts now
        time.sleep(1)
        start = time.monotonic()
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("the interrupt did not end the prange loop")
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert "KeyboardInterrupt" in err and time.monotonic() - start < 30, err


def test_errors_name_the_function_not_a_thread():
    """A checked index or a raise in a @jit function called from the host names the function
    ("in function 'neg'"), not a kernel's thread and block: it runs on the CPU, once."""
    @pyk2cuda.njit(boundscheck=True)
    def neg(a, i):
        return -a[i]

    @pyk2cuda.njit(debug=True)
    def positive(x):
        if x < 0:
            raise ValueError("negative")
        return x

    with pytest.raises(pyk2cuda.BoundsError) as e:
        neg(np.arange(3.0), 5)
    assert str(e.value).endswith("index 5 is out of bounds for axis 0 with size 3 (array of shape (3,)) "
                                 "in function 'neg'"), str(e.value)
    with pytest.raises(ValueError) as e:   # as Numba's njit raises it: its class, its message
        positive(-1)
    assert e.value.args == ("negative",) and e.value.failure["kernel"] == "positive", e.value.failure
    assert neg(np.arange(3.0), 2) == -2.0 and positive(4) == 4


def test_raises_as_numbas_njit():
    """Exceptions of @jit functions without debug=True, and divisions by zero, raised as Numba's
    njit raises them (cpu_jit_raises.py under pyk2cuda and under Numba, line for line)."""
    script = os.path.join(HERE, "cpu_jit_raises.py")
    rc, ours, err = run_script(["-m", "pyk2cuda", script])
    assert rc == 0, ours + err
    assert "cannot compile" not in err, err
    assert "int_div ZeroDivisionError False ('integer division by zero',)" in ours, ours
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, script], cwd=HERE, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("\n") == 21 and p.stdout == ours


def test_returned_arrays_are_host_arrays_as_numbas():
    """An array a @jit function returns is a NumPy array in host memory, as Numba's: a kernel
    takes it (copied in and back, as any host array), cuda.to_device copies it, and
    cuda.as_cuda_array refuses it with Numba's TypeError (a NumPy array has no
    __cuda_array_interface__; Numba's as_cuda_array says the same words)."""
    @pyk2cuda.njit
    def make(n):
        a = np.zeros(n)
        for i in range(n):
            a[i] = 2.0 * i
        return a

    @cuda.jit
    def bump(x):
        i = cuda.grid(1)
        if i < x.shape[0]:
            x[i] += 1

    a = make(5)
    with pytest.raises(TypeError, match="doesn't implement the cuda array interface"):
        cuda.as_cuda_array(a)
    bump[1, 8](a)
    assert a.tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    d = cuda.to_device(a)
    assert cuda.as_cuda_array(d).copy_to_host().tolist() == a.tolist()
