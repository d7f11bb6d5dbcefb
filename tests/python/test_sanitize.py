"""The simulator's checker from Python: PYK2CUDA_SANITIZE=1 in the environment of a program,
pyk2cuda.set_sanitize() or cuda.jit(sanitize=True) make launches run under --sanitize
(docs/simulator.md, "Sanitizer")."""
import os
import textwrap

from conftest import run_script

RACY = textwrap.dedent("""\
    import numpy as np
    import pyk2cuda
    from pyk2cuda import cuda


    DECORATOR
    def nearest(points, centroids, out):
        c = cuda.shared.array(1, dtype=np.float32)
        i = cuda.grid(1)
        best = 1e30
        for k in range(centroids.shape[0]):
            if cuda.threadIdx.x == 0:
                c[0] = centroids[k]
            cuda.syncthreads()
            d = abs(points[i] - c[0])
            if d < best:
                best = d
            SECOND_BARRIER
        out[i] = best


    out = np.zeros(64, np.float32)
    SETUP
    try:
        nearest[1, 64](np.arange(64, dtype=np.float32), np.arange(4, dtype=np.float32), out)
    except pyk2cuda.Error as e:
        print("ERROR", e.status_name)
        print(e)
    else:
        print("OK", out[5])
""")


def run_racy(tmp_path, barrier, env, decorator="@cuda.jit", setup="pass"):
    path = tmp_path / "racy.py"
    path.write_text(RACY.replace("SECOND_BARRIER", "cuda.syncthreads()" if barrier else "pass")
                    .replace("DECORATOR", decorator).replace("SETUP", setup))
    return run_script([str(path)], env={"PYK2CUDA_DEVICE": "sim", **env})


def assert_race_found(out):
    assert out.startswith("ERROR sanitize"), out
    assert "racy.py:15:29: error: shared-memory race on 'c' at index 0" in out
    assert "racy.py:13:13 by thread (0,0,0)" in out
    assert "sanitize: 1 error in kernel 'nearest': 1 shared-memory race" in out


def test_environment_turns_the_checker_on(tmp_path):
    rc, out, err = run_racy(tmp_path, False, {"PYK2CUDA_SANITIZE": "1"})
    assert rc == 0, err
    assert_race_found(out)


def test_jit_option_checks_that_kernel(tmp_path):
    for decorator in ("@cuda.jit(sanitize=True)", "@cuda.jit('void(float32[:], float32[:], float32[:])', sanitize=True)"):
        rc, out, err = run_racy(tmp_path, False, {}, decorator=decorator)
        assert rc == 0, err
        assert_race_found(out)


def test_set_sanitize_checks_later_translations(tmp_path):
    rc, out, err = run_racy(tmp_path, False, {}, setup="pyk2cuda.set_sanitize()")
    assert rc == 0, err
    assert_race_found(out)
    # turned off again before the first launch: the race goes unreported, as without it
    rc, out, err = run_racy(tmp_path, False, {"PYK2CUDA_SANITIZE": "1"},
                            setup="pyk2cuda.set_sanitize(False)")
    assert rc == 0 and out.startswith("OK"), (out, err)


def test_jit_option_leaves_other_kernels_alone(tmp_path):
    """A sanitize=True kernel's translations do not turn the checker on for the next kernel."""
    path = tmp_path / "two.py"
    path.write_text(textwrap.dedent("""\
        import numpy as np
        from pyk2cuda import cuda

        @cuda.jit(sanitize=True)
        def checked(a):
            a[0] = cuda.threadIdx.x

        @cuda.jit
        def unchecked(a):
            a[0] = cuda.threadIdx.x

        a = np.zeros(1, np.int32)
        unchecked[1, 32](a)
        print("unchecked ok")
        try:
            checked[1, 32](a)
        except Exception as e:
            print(type(e).__name__, e.status_name)
        unchecked[1, 32](a)
        print("unchecked ok")
        """))
    rc, out, err = run_script([str(path)], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0 and out == "unchecked ok\nError sanitize\nunchecked ok\n", (out, err)


def test_fixed_kernel_is_clean_and_right(tmp_path):
    rc, out, err = run_racy(tmp_path, True, {"PYK2CUDA_SANITIZE": "1"})
    assert rc == 0 and out == "OK 2.0\n", (out, err)


def test_off_by_default(tmp_path):
    env = {"PYK2CUDA_SANITIZE": "0"}
    rc, out, err = run_racy(tmp_path, False, env)
    assert rc == 0 and out.startswith("OK"), (out, err)


def test_reads_of_inputs_are_checked_when_an_output_aliases_them(tmp_path):
    """Reads of a parameter the kernel never writes go unchecked only when no written argument
    shares its memory (P2C_SAN_READ_INPUT): the same array passed as input and output races."""
    path = tmp_path / "alias.py"
    path.write_text(textwrap.dedent("""\
        import numpy as np
        import pyk2cuda
        from pyk2cuda import cuda

        @cuda.jit(sanitize=True)
        def shift(x, y):
            i = cuda.grid(1)
            if i + 1 < x.size:
                y[i] = x[i + 1]

        a = np.arange(64, dtype=np.float32)
        b = np.zeros(64, np.float32)
        for name, args in (("apart", (a, b)), ("same", (a, a)), ("views", (a[1:], a[:-1])),
                           ("disjoint views", (a[:32], a[32:]))):
            try:
                shift[2, 32](*args)
                print(name, "clean")
            except pyk2cuda.Error as e:
                print(name, e.status_name, str(e).splitlines()[0].split(": error: ")[1][:40])
        """))
    rc, out, err = run_script([str(path)], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0, err
    assert out.splitlines() == [
        "apart clean",
        "same sanitize global-memory race on 'y' at index 1: wr",
        "views sanitize global-memory race on 'y' at index 2: wr",
        "disjoint views clean"], out


def test_findings_are_data(tmp_path):
    """exc.findings: each finding as data (p2c_compiler_finding), the same as the message's lines:
    a race with both accesses, the array, the index and the threads; a divergent barrier with its
    call (p2c_compiler_last_findings is None after another failure: tests/unit/test_api.c)."""
    path = tmp_path / "data.py"
    path.write_text(RACY.replace("SECOND_BARRIER", "pass").replace("DECORATOR", "@cuda.jit(sanitize=True)")
                    .replace("SETUP", "pass").split("\nout = ")[0] + textwrap.dedent("""\


        @cuda.jit(sanitize=True)
        def diverge(a):
            if cuda.threadIdx.x < 16:
                cuda.syncthreads()
            a[cuda.threadIdx.x] = 1


        def findings(kernel, *args):
            try:
                kernel[1, 64](*args)
            except pyk2cuda.Error as e:
                return str(e), e.findings
            return None, None


        text, found = findings(nearest, np.arange(64, dtype=np.float32), np.arange(4, dtype=np.float32),
                               np.zeros(64, np.float32))
        print(repr(found))
        print(text.splitlines()[0] == "%s:%d:%d: error: %s (kernel 'nearest')" % (
            found[0]["file"], found[0]["line"], found[0]["column"], found[0]["message"]))
        text, found = findings(diverge, np.zeros(64, np.int32))
        print(repr(found))
        print(text.splitlines()[0].endswith(found[0]["message"] + " (kernel 'diverge')"))
        """))
    rc, out, err = run_script([str(path)], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0, err
    lines = out.splitlines()
    race = eval(lines[0])
    assert len(race) == 1 and lines[1] == "True", out
    f = race[0]
    assert f["file"].endswith("data.py") and f["kernel"] == "nearest"
    assert (f["kind"], f["line"], f["column"], f["other_line"], f["other_column"]) == \
        ("shared-race", 15, 29, 13, 13), f
    assert (f["access"], f["other_access"], f["space"], f["array"], f["index"]) == \
        ("read", "write", "shared", "c", (0,)), f
    assert f["other_thread"] == (0, 0, 0) and f["thread"] != (0, 0, 0) and f["block"] == (0, 0, 0), f
    assert f["message"].startswith("shared-memory race on 'c' at index 0: read by thread"), f
    barrier = eval(lines[2])
    assert len(barrier) == 1 and lines[3] == "True", out
    b = barrier[0]
    assert (b["kind"], b["line"], b["column"], b["kernel"]) == ("divergent-barrier", 26, 9, "diverge"), b
    assert "access" not in b and "other_line" not in b, b
