"""@stencil functions computed by a kernel pyk2cuda generates (issue 33, docs/python.md "Stencils"):
stencils.py's results under pyk2cuda against Numba's CPU stencils (Debian's python3-numba), and
what only pyk2cuda can show: device arrays, the generated kernel, the errors at the user's line."""
import os
import subprocess

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda, stencil
from conftest import HERE, run_script
from test_samples import ORACLE, has_numba

SCRIPT = os.path.join(HERE, "stencils.py")
THIS = os.path.abspath(__file__)


def line_of(text):
    """The line of this file that holds `text` (once)."""
    with open(THIS) as f:
        found = [i + 1 for i, line in enumerate(f) if text in line]
    assert len(found) == 2, found   # the line itself, and this call's argument
    return found[0]


def test_results_as_numbas_stencil():
    rc, ours, err = run_script(["-m", "pyk2cuda", SCRIPT])
    assert rc == 0, ours + err
    assert "laplace_int int64 (5, 6) [[-1, -1, -1, -1, -1, -1], [-1, 0, -22, 11, 0, -1]" in ours, ours
    assert "cannot compile" not in err   # the @njit caller of a stencil is compiled (no fallback)
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, SCRIPT], cwd=HERE, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("\n") == ours.count("\n") == 33
    for theirs, mine in zip(p.stdout.splitlines(), ours.splitlines()):
        assert mine == theirs


def test_in_njit_as_numbas_stencil():
    """Stencils called inside @njit functions compile into them (no function falls back to
    Python) and give Numba's results: stencils_njit.py under pyk2cuda and under Numba's njit."""
    script = os.path.join(HERE, "stencils_njit.py")
    rc, ours, err = run_script(["-m", "pyk2cuda", script])
    assert rc == 0, ours + err
    assert "cannot compile" not in err, err
    assert "laplace_int int64 (5, 6) [[-1, -1, -1, -1, -1, -1], [-1, 0, -22, 11, 0, -1]" in ours, ours
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, script], cwd=HERE, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("\n") == ours.count("\n") == 37
    for theirs, mine in zip(p.stdout.splitlines(), ours.splitlines()):
        assert mine == theirs


@stencil
def blur(a):
    return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) * 0.25


def expected_blur(a):
    want = np.zeros(a.shape)
    want[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) * 0.25
    return want


def test_device_arrays_in_and_out():
    a = np.random.default_rng(1).random((33, 70))
    d = cuda.to_device(a)
    got = blur(d)
    assert isinstance(got, pyk2cuda.DeviceArray)
    assert got.copy_to_host().tolist() == expected_blur(a).tolist()
    out = cuda.device_array((33, 70))
    assert blur(d, out=out) is out
    assert out.copy_to_host().tolist() == expected_blur(a).tolist()


@pytest.mark.gpu
def test_on_the_gpu():
    """The generated kernels on the GPU (the standin suite: the stand-in driver): host arrays
    copied in and back, device arrays in place, an int result with cval."""
    assert pyk2cuda.device_kind() == "gpu"
    a = np.random.default_rng(2).random((65, 130))
    assert blur(a).tolist() == expected_blur(a).tolist()
    got = blur(cuda.to_device(a))
    assert isinstance(got, pyk2cuda.DeviceArray) and got.copy_to_host().tolist() == expected_blur(a).tolist()
    ints = np.arange(300, dtype=np.int32) % 17
    diff = stencil(cval=-9)(lambda x: x[2] - x[-1])(ints)
    want = np.full(300, -9, np.int64)
    want[1:-2] = ints[3:].astype(np.int64) - ints[:-3]
    assert diff.dtype == np.int64 and diff.tolist() == want.tolist()


def test_the_generated_kernel():
    """The module a call compiles is the stencil function with a @stencil decorator of its options
    (the neighbourhood inferred; cval, 0 for a new result); the C library makes the kernel
    (src/frontend/stencil.c), specialized at the call, an empty one too."""
    a = np.ones((4, 5))
    blur(a)
    text = blur.kernel_source(a)
    assert "@__p2c_stencil(cval=0, neighborhood=((-1, 1), (-1, 1)))\ndef blur(a):" in text
    empty = stencil(lambda a: a[-1])
    assert empty(np.zeros(0)).shape == (0,) and len(empty.inspect_cuda()) == 1   # made, not launched
    cu = next(iter(blur.inspect_cuda().values()))
    assert 'extern "C" __global__ void blur(p2c_array<double, 2> a, p2c_array<double, 2> out)' in cu
    assert "blur_body(a, i0, i1)" in cu and "py_p2c_i0 + -1" in cu


def test_errors_at_the_users_line():
    with pytest.raises(pyk2cuda.CompileError) as e:
        @stencil
        def varying(a, k):
            return a[k] + a[0]     # varying-index
        varying(np.ones(5), 1)
    assert e.value.diagnostics[0][:3] == (THIS, line_of("# varying-index"), 22)
    assert "'neighborhood' option required" in str(e.value)

    with pytest.raises(pyk2cuda.CompileError) as e:
        @stencil
        def wrong_rank(a):
            return a[-1] + a[1]    # wrong-rank
        wrong_rank(np.ones((3, 3)))
    assert e.value.diagnostics[0][:3] == (THIS, line_of("# wrong-rank"), 20)
    assert "dimensionality" in str(e.value)

    with pytest.raises(pyk2cuda.CompileError) as e:
        @stencil
        def writes(a):
            a[0] = 1.0             # writes-input
            return a[1]
        writes(np.ones(4))
    assert e.value.diagnostics[0][:2] == (THIS, line_of("# writes-input"))

    with pytest.raises(pyk2cuda.CompileError) as e:
        @stencil
        def no_access(a):          # no-access
            return 1.0
        no_access(np.ones(4))
    assert e.value.diagnostics[0][:2] == (THIS, line_of("# no-access"))

    with pytest.raises(pyk2cuda.CompileError) as e:
        @stencil
        def bad_type(a):
            return a[-1] + "x"     # bad-type
        bad_type(np.ones(4))
    assert e.value.diagnostics[0][:2] == (THIS, line_of("# bad-type"))


def test_errors_inside_njit_at_the_users_line():
    """A stencil a @jit function calls is compiled into it: its errors are the stencil's, at its
    lines (a CompileError, not a fallback to Python), and so are the caller's types it cannot take."""
    @stencil
    def varying(a, k):
        return a[k] + a[0]         # njit-varying

    @pyk2cuda.njit
    def calls(x):
        return varying(x, 1)

    with pytest.raises(pyk2cuda.CompileError) as e:
        calls(np.ones(5))
    assert e.value.diagnostics[0][:3] == (THIS, line_of("# njit-varying"), 18)
    assert "'neighborhood' option required" in str(e.value)

    @stencil
    def halve(a):
        return a[-1] / "2"         # njit-bad-type

    @pyk2cuda.njit
    def calls_halve(x):
        return halve(x)

    with pytest.raises(pyk2cuda.CompileError) as e:
        calls_halve(np.ones(5))
    assert e.value.diagnostics[0][:2] == (THIS, line_of("# njit-bad-type"))


def test_a_call_is_no_launch_to_warn_of():
    """Numba's stencils run on the CPU: a call warns of no grid size or host array copy (Numba's
    CUDA performance warnings), where each call of a small host array warned of both."""
    import warnings
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        assert blur(np.ones((4, 5))).shape == (4, 5)
    assert [str(w.message) for w in got] == []


def test_errors_of_the_call():
    with pytest.raises(ValueError, match="Unknown stencil option"):
        stencil(boundary=1)
    with pytest.raises(ValueError, match="Unsupported mode style"):
        stencil("reflect")
    with pytest.raises(ValueError, match="2 dimensional neighborhood specified for 1"):
        stencil(neighborhood=((-1, 1), (0, 0)))(lambda a: a[0])(np.ones(3))
    with pytest.raises(ValueError, match="smaller"):
        stencil(lambda a, b: a[-1] + b[1])(np.ones(4), np.ones(3))
    with pytest.raises(ValueError, match="primary input array"):
        stencil(lambda k, a: a[-1] + k)(1.0, np.ones(3))
    with pytest.raises(ValueError, match="more than CUDA's 65535 along y or z"):
        stencil(lambda a: a[-1, 0])(np.zeros((65535 * 16 + 1, 1), np.uint8))
    inferred = stencil(lambda a: a[-1])
    assert inferred.neighborhood is None and inferred(np.arange(4.0)).tolist() == [0.0, 0.0, 1.0, 2.0]
    assert inferred.neighborhood == [[-1, 0]]   # as Numba: kept, and then the stencil's rank
    with pytest.raises(ValueError, match="1 dimensional neighborhood specified for 2"):
        inferred(np.ones((3, 3)))
    with pytest.raises(ValueError, match="cval type"):
        stencil(cval=1j)(lambda a: a[-1])(np.ones(3))


def test_generated_modules_are_the_golden_cases():
    """What stencil.py writes for stencil_golden.py's stencils is tests/golden/stencil_*.py, whose
    CUDA C the golden suite checks (`pyk2cuda emit` of the generated module)."""
    import stencil_golden
    for name in stencil_golden.CASES:
        with open(os.path.join(stencil_golden.GOLDEN, name + ".py")) as f:
            assert stencil_golden.generated(name) == f.read(), name
