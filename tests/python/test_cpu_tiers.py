"""The two tiers of @jit functions called from the host (issue 33; docs/simulator.md, "Host
functions: two tiers"): a first call runs libtcc's code of the function's C form at once while the
optimized build (g++ -O2) is made on a thread; the first call that finds it ready swaps it in; the
cache serves it to later processes. Each test runs in a process of its own with a cache folder of
its own, so that no earlier build is found there."""
import os
import subprocess
import textwrap

import pytest

from conftest import HERE, run_script
from test_samples import ORACLE, has_numba


def run_tiers(script, cache, env=None, args=()):
    """(exit code, stdout, tier lines) of `python -m pyk2cuda script` saying its tiers."""
    e = {"PYK2CUDA_CACHE_DIR": str(cache), "PYK2CUDA_TIERS": "1"}
    e.update(env or {})
    rc, out, err = run_script(["-m", "pyk2cuda", script] + list(args), env=e)
    tiers = [line for line in err.splitlines() if line.startswith("pyk2cuda: ") and " ran on the " in line]
    assert rc == 0, out + err
    return out, tiers


_probe = []


def first_tier_here(tmp_path):
    """Skips (with the reason) where libtcc is missing: the first tier is then never taken.
    Asked once per session."""
    if not _probe:
        script = tmp_path / "probe.py"
        script.write_text("from numba import njit\n@njit\ndef one(x):\n    return x + 1\nprint(one(1))\n")
        _probe.extend(run_tiers(str(script), tmp_path / "probe-cache")[1])
    if "first tier" not in _probe[0]:
        pytest.skip("no first tier here: " + _probe[0])


def numba_output(script):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, script], cwd=HERE, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_c_form_results_on_both_tiers_and_numbas(tmp_path):
    """cpu_tiers.py: every call on the first tier, the same lines as on the optimized tier alone
    and as Numba's CPU JIT (floats printed with repr: the same bits)."""
    first_tier_here(tmp_path)
    script = os.path.join(HERE, "cpu_tiers.py")
    first, tiers = run_tiers(script, tmp_path / "a")
    assert tiers and all(t.endswith("ran on the first tier") for t in tiers), [t for t in tiers if "first" not in t]
    assert len(first.splitlines()) == 62
    # the optimized builds in the suite's cache, where later runs find them
    optimized, tiers = run_tiers(script, os.environ.get("PYK2CUDA_CACHE_DIR", tmp_path / "b"), {"PYK2CUDA_LIBTCC": "0"})
    assert tiers and all("optimized tier (the first tier is off" in t or "optimized tier (its optimized build is in "
                         "the cache" in t for t in tiers), tiers
    assert first == optimized
    if has_numba():
        assert first == numba_output(script)


def test_cpu_jit_scripts_on_the_first_tier(tmp_path):
    """The cpu_jit cases: the functions the C form covers run on the first tier, the others say
    why not; the output is Numba's (test_cpu_jit.py compares it too, on whichever tier runs)."""
    first_tier_here(tmp_path)
    script = os.path.join(HERE, "cpu_jit.py")
    out, tiers = run_tiers(script, tmp_path / "c")
    first = {t.split()[1].split("(")[0] for t in tiers if t.endswith("first tier")}
    assert {"total", "count_positive", "smooth", "powi", "hypot_all", "twice_total", "collatz", "int_ops",
            "min_max", "scale", "divmod_all", "is_sorted", "mixed", "f32_sum", "squares", "count_even"} <= first, first
    assert any("complex_abs2" in t and "cannot say" in t and "complex" in t for t in tiers)
    if has_numba():
        assert out == numba_output(script)


# script: (the functions whose every call runs on the first tier, the others' reason, env)
ARRAYS_AND_PRANGE = {
    "cpu_jit_arrays.py": ({"ranges", "smooth_new", "shape_of", "temporaries", "cumulative", "fortran_like"},
                          {"creations": "complex numbers", "views": "array views", "of_argument": "array views"}, {}),
    "cpu_jit_prange.py": ({"int_sum", "several", "smooth", "rows_with_temporaries", "started", "histogram_rows",
                           "extremes", "written_out", "grid_total", "float_sum", "inner_prange"}, {},
                          {"PYK2CUDA_SIM_THREADS": "3"}),
    "cpu_jit_raises.py": ({"chunks", "too_big", "int_div", "float_mod"}, {}, {}),
}


@pytest.mark.parametrize("name", sorted(ARRAYS_AND_PRANGE))
def test_array_creation_and_prange_on_the_first_tier(tmp_path, name):
    """NumPy's array creation (the call's heap) and prange loops (their chunks in turn, cut as the
    optimized tier cuts them) in the C form: the scripts' functions run on the first tier, their
    output the same as on the optimized tier alone and as Numba's CPU JIT (the prange script
    with 3 workers: its integer reductions are exact, its float sums the same at any count)."""
    first_tier_here(tmp_path)
    script = os.path.join(HERE, name)
    on_first, refused, env = ARRAYS_AND_PRANGE[name]
    out, tiers = run_tiers(script, tmp_path / "a", env)
    ran = {t.split()[1].split("(")[0]: t for t in tiers}
    first = {f for f, t in ran.items() if all(u.endswith("ran on the first tier") for u in tiers if u.split()[1].split("(")[0] == f)}
    assert on_first <= first, sorted(on_first - first)
    for f, why in refused.items():
        assert "cannot say" in ran[f] and why in ran[f], ran[f]
    e = dict(env, PYK2CUDA_LIBTCC="0")
    optimized, _ = run_tiers(script, os.environ.get("PYK2CUDA_CACHE_DIR", tmp_path / "b"), e)
    assert out == optimized
    if has_numba():
        assert out == numba_output(script)


PRANGE_SUM = textwrap.dedent("""
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True)
    def total(a):
        s = 0.0
        m = 2.0
        for i in prange(a.shape[0]):
            s += a[i] * 0.5
            m = min(m, a[i])
        return s, m

    @njit(parallel=True)
    def rows(x):
        out = np.empty(x.shape[0])
        for i in prange(x.shape[0]):
            t = np.zeros(x.shape[1])
            for j in range(x.shape[1]):
                t[j] = x[i, j] * x[i, j]
            out[i] = t[0] + t[x.shape[1] - 1]
        return out

    a = np.random.default_rng(7).random(100003)
    x = np.random.default_rng(8).random((37, 5))
    r1, o1 = total(a), rows(x)
    print("before", total._host_tiers()[0][1], rows._host_tiers()[0][1])
    total._host_tiers(True)
    rows._host_tiers(True)
    r2, o2 = total(a), rows(x)
    print("after", total._host_tiers()[0][1], rows._host_tiers()[0][1])
    print("same", r1 == r2, np.array_equal(o1, o2), o1.tolist() == [x[i, 0] ** 2 + x[i, 4] ** 2 for i in range(37)])
""")


@pytest.mark.parametrize("threads", ["1", "3", "4"])
def test_both_tiers_add_a_float_prange_reduction_in_one_order(tmp_path, threads):
    """A float sum over a prange loop depends on how the loop is cut: the first tier cuts it as
    the optimized tier does (as many chunks, the same bounds) and adds the chunks in the same
    order, so the swap changes no bit of the result, whatever the count of workers."""
    first_tier_here(tmp_path)
    script = tmp_path / "psum.py"
    script.write_text(PRANGE_SUM)
    out, _ = run_tiers(str(script), tmp_path / "d", {"PYK2CUDA_SIM_THREADS": threads})
    assert out.splitlines() == ["before first first", "after optimized optimized", "same True True True"], out


SWAP = textwrap.dedent("""
    import numpy as np
    from numba import njit

    @njit
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * 0.5
        return s

    @njit
    def smooth(x, out):
        for i in range(1, x.shape[0] - 1):
            for j in range(1, x.shape[1] - 1):
                out[i, j] = (x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1] + x[i, j]) / 5

    rng = np.random.default_rng(33)
    a = rng.random(10001)
    x = rng.random((60, 70))
    o1, o2 = np.zeros_like(x), np.zeros_like(x)
    r1 = total(a)
    smooth(x, o1)
    print("before", total._host_tiers()[0][1], smooth._host_tiers()[0][1])
    total._host_tiers(True)
    smooth._host_tiers(True)
    r2 = total(a)
    smooth(x, o2)
    print("after", total._host_tiers()[0][1], smooth._host_tiers()[0][1])
    print("same", r1 == r2, np.array_equal(o1, o2), r1 == sum(a[i] * 0.5 for i in range(a.shape[0])))
""")


def test_swap_gives_the_same_results_and_the_cache_serves_later_processes(tmp_path):
    """The first call runs on the first tier, the swap makes the next call the optimized code's,
    with the same bits; a later process finds the optimized build in the cache and runs it at
    its first call."""
    first_tier_here(tmp_path)
    script = tmp_path / "swap.py"
    script.write_text(SWAP)
    out, _ = run_tiers(str(script), tmp_path / "d")
    assert out.splitlines() == ["before first first", "after optimized optimized", "same True True True"], out
    out, tiers = run_tiers(str(script), tmp_path / "d")
    assert out.splitlines()[0] == "before optimized optimized", out
    assert tiers[0].endswith("(its optimized build is in the cache)"), tiers


def test_a_fault_on_the_first_tier_is_an_error_not_a_crash(tmp_path):
    """A wild index in first-tier code is caught as the simulator catches a kernel's, in a prange
    chunk too (the first tier runs them on the calling thread, under its catch)."""
    first_tier_here(tmp_path)
    script = tmp_path / "wild.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from numba import njit

        @njit
        def poke(a, i):
            a[i] = 1.0

        @njit(parallel=True)
        def chunked(a, bad):
            s = 0.0
            for i in prange(a.shape[0]):
                if i == bad:
                    a[i + 2**40] = 1.0
                s += a[i]
            return s

        try:
            poke(np.zeros(4), 1 << 40)
        except Exception as e:
            print(type(e).__name__, "illegal memory access" in str(e), "poke" in str(e))
        for bad in (999, 0):   # the last chunk, the first
            try:
                chunked(np.arange(1000.0), bad)
            except Exception as e:
                print(type(e).__name__, "illegal memory access" in str(e), "chunked" in str(e))
        print(chunked(np.arange(1000.0), -1))
        print(poke._host_tiers()[0][1], chunked._host_tiers()[0][1])
    """).replace("from numba import njit", "from numba import njit, prange"))
    out, _ = run_tiers(str(script), tmp_path / "e", {"PYK2CUDA_SIM_THREADS": "4"})
    assert out.splitlines()[-1] == "first first", out
    assert out.splitlines()[-2] == "499500.0", out
    assert all(line.endswith("True True") for line in out.splitlines()[:3]), out


def test_emit_dump_c_shows_the_c_form():
    """`pyk2cuda emit --dump=c`: the C form, with its host entry taking kernelParams."""
    tool = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "tools", "pyk2cuda")
    tool = os.environ.get("PYK2CUDA_CLI", tool)
    if not os.path.exists(tool):
        pytest.skip("no pyk2cuda command at " + tool)
    p = subprocess.run([tool, "emit", os.path.join(HERE, "cpu_tiers.py"), "--sig", "floor_ops(int64, int64)",
                        "--dump=c"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "void floor_ops_host(void **p2c_args) {" in p.stdout
    assert "#define p2c_floordiv(a, b) _Generic((a) + (b), int64_t: p2c_floordiv_i64)(a, b)" in p.stdout
    assert "template" not in p.stdout and "p2c_array<" not in p.stdout


def test_a_first_tier_call_can_be_interrupted(tmp_path):
    """The C form's loops ask the host's interrupt check (a signal handler that raises, Ctrl-C),
    as the optimized tier's do: an endless loop on the first tier ends with the handler's error."""
    first_tier_here(tmp_path)
    script = tmp_path / "spin.py"
    script.write_text(textwrap.dedent("""
        import signal
        import numpy as np
        from numba import njit

        @njit
        def spin(a):
            i = 0
            while a[0] == 0:
                i += 1
            return i

        def stop(signo, frame):
            raise TimeoutError("stopped")

        signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        try:
            spin(np.zeros(1))
        except TimeoutError as e:
            print("stopped", spin._host_tiers()[0][1])
    """))
    out, _ = run_tiers(str(script), tmp_path / "f")
    assert out.splitlines() == ["stopped first"], out


RAISES = textwrap.dedent("""\
    from numba import njit
    @njit
    def div(a, b):
        return a // b
    @njit
    def check(x):
        if x > 3:
            raise ValueError("too big")
        return x * 2
    print(div(7, 2))
    for f, args in ((div, (7, 0)), (div, (7.0, 0.0)), (check, (5,)), (div, (7, -2))):
        try:
            print(f(*args))
        except Exception as e:
            print(type(e).__name__, e)
    print(check(1), div(9, 4))
    """)


def test_raises_on_the_first_tier(tmp_path):
    """A raise and a division by zero on the first tier: the C form's failure record and
    p2c_tier_leave give Numba's exceptions, as the optimized tier does (every @jit function the
    host calls checks its divisors: without this, `/` sent a function to the optimized tier)."""
    first_tier_here(tmp_path)
    script = tmp_path / "raises.py"
    script.write_text(RAISES)
    out, tiers = run_tiers(str(script), tmp_path / "r")
    assert tiers and all(t.endswith("ran on the first tier") for t in tiers), tiers
    assert out.splitlines()[1:4] == ["ZeroDivisionError integer division by zero", "ZeroDivisionError division by zero",
                                     "ValueError too big"], out
    optimized, _ = run_tiers(str(script), tmp_path / "o", {"PYK2CUDA_LIBTCC": "0"})
    assert out == optimized
    if has_numba():
        assert out == numba_output(str(script))
