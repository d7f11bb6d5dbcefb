"""@guvectorize(..., target='cuda') (docs/python.md, "Generalized ufuncs"): gufuncs.py against
Numba's simulator, the calls its simulator cannot run against NumPy, Numba's refusals with its
messages, and the GPU path."""
import os
import subprocess

import numpy as np
import pytest

from pyk2cuda import cuda, guvectorize, CompileError, DeviceArray, float64, int32, void
from pyk2cuda.cuda import deviceufunc
from conftest import HERE, run_script
from test_dispatch_fronts import cli_path as cli
from test_samples import ORACLE, has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "gufuncs.py")
OUTPUTS = os.path.join(HERE, "gufuncs_outputs.py")


def test_gufuncs_match_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert ours.count("\n") == 13, ours
    if not has_numba():
        pytest.skip("Numba's simulator (Debian's python3-numba) is not installed")
    assert numba_simulator_output(SCRIPT) == ours


@guvectorize([void(float64[:, :], float64[:, :], float64[:, :])], '(m,n),(n,p)->(m,p)', target='cuda')
def matmul(A, B, C):
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            s = 0.0
            for k in range(A.shape[1]):
                s += A[i, k] * B[k, j]
            C[i, j] = s


@guvectorize(['void(int32, int32[:], int32[:])'], '(),(t)->(t)', target='cuda')
def scale(a, b, out):
    for i in range(b.size):
        out[i] = a * b[i]


@guvectorize(['void(int32, int32[:])'], '()->()', target='cuda')
def twice(inp, out):
    out[0] = inp * 2


def test_repeated_inputs_and_no_loop_dimensions_as_numpy():
    """An input without the loop dimensions (or with (1,)) is the same for every loop index;
    a call without loop dimensions is one instance; a scalar input is repeated: Numba's
    schedule, against NumPy (exact: the sums are of small integers)."""
    rng = np.random.default_rng(5)
    X = rng.integers(-9, 9, (4, 3, 2, 3)).astype(np.float64)
    Y = rng.integers(-9, 9, (3, 5)).astype(np.float64)
    assert matmul(X, Y).tolist() == np.matmul(X, Y).tolist()
    assert matmul(X, Y[None]).tolist() == np.matmul(X, Y).tolist()
    assert matmul(X[0, 0], Y).tolist() == np.matmul(X[0, 0], Y).tolist()
    r = scale(np.int64(3), np.arange(6).astype(np.int32))   # cast to the int32 signature
    assert r.dtype == np.int32 and r.tolist() == [0, 3, 6, 9, 12, 15]
    assert scale(2, ((1, 2, 3), (4, 5, 6))).tolist() == [[2, 4, 6], [8, 10, 12]]
    t = twice(10)
    assert t.shape == () and t == 20
    assert twice(np.arange(5, dtype=np.int32)).tolist() == [0, 2, 4, 6, 8]
    d = matmul(cuda.to_device(X), cuda.to_device(Y))   # device arrays through the host
    assert isinstance(d, DeviceArray) and d.copy_to_host().tolist() == np.matmul(X, Y).tolist()


def test_refusals_are_numbas():
    def foo(A, B):
        pass
    with pytest.raises(TypeError, match="^nopython flag must be True$"):
        guvectorize([void(float64[:], float64[:])], '(x)->(x)', target='cuda', nopython=False)(foo)
    with pytest.raises(TypeError, match="^The following target options are not supported: 'what1', 'ever2'$"):
        guvectorize([void(float64[:], float64[:])], '(x)->(x)', target='cuda', what1=True, ever2=False)(foo)
    with pytest.raises(TypeError, match="^caching is not supported$"):
        guvectorize([void(float64[:], float64[:])], '(x)->(x)', target='cuda', cache=True)(foo)
    a = np.zeros((2, 3))
    with pytest.raises(ValueError, match="^cannot specify argument 'out' as both positional and keyword$"):
        matmul(a, a.T, a, out=a)   # numba-cuda's words (Numba 0.56: docs/semantics.md)
    with pytest.raises(ValueError, match=r"^arg #2: shape\[0\] mismatch argument$"):
        matmul(a, a)
    with pytest.raises(ValueError, match="^arg #2: outer dimension mismatch$"):
        matmul(np.zeros((4, 2, 3)), np.zeros((3, 3, 2)))
    with pytest.raises(ValueError, match="^output shape mismatch$"):
        matmul(a, a.T, out=np.zeros((3, 3)))
    with pytest.raises(TypeError, match="^no matching signature$"):
        scale(np.int32(1), np.zeros(3, dtype=np.int8))   # Numba asks can_cast(int32, int8)
    with pytest.raises(TypeError, match=r"does not support \.astype\(\)"):
        scale(cuda.to_device(np.array([2])), np.arange(3, dtype=np.int32))


def test_errors_point_at_the_users_lines():
    """A typing error in the body is a CompileError at its line, when decorated; a layout that
    does not fit the signature at the decorator."""
    def bad(a, out):
        out[0] = a.nosuch
    with pytest.raises(CompileError, match=r"test_gufunc\.py:%d:" % (bad.__code__.co_firstlineno + 1)):
        guvectorize([void(int32[:], int32[:])], '(n)->()', target='cuda')(bad)
    with pytest.raises(CompileError, match=r"argument 1 is array\(int32, 1d, A\), but the layout gives it 2"):
        guvectorize([void(int32[:], int32[:])], '(n,m)->()', target='cuda')(bad)


def test_several_outputs_match_compiled_numbas_cpu_gufuncs():
    """gufuncs_outputs.py: pyk2cuda's CUDA gufuncs and compiled Numba's CPU gufuncs (the same
    schedule; Numba 0.56's CUDA gufuncs take one output) print the same lines, exactly."""
    rc, ours, err = run_script([OUTPUTS])
    assert rc == 0, ours + err
    assert ours.count("\n") == 9, ours
    if not has_numba():
        pytest.skip("compiled Numba (Debian's python3-numba) is not installed")
    e = dict(os.environ, GUFUNC_TARGET="cpu")
    e.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, os.path.join(HERE, "numba_shim.py"), OUTPUTS], env=e, cwd=HERE,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout == ours


@guvectorize([void(int32[:], int32[:], float64[:])], '(x)->(x),(x)', target='cuda')
def copy_and_scale(A, B, C):
    for i in range(B.size):
        B[i] = A[i]
        C[i] = A[i] * 1.5


def test_several_outputs_on_the_device_and_out_as_a_tuple():
    """Device inputs give device outputs (a tuple); out= takes a tuple of one array per output,
    as NumPy's gufuncs do, and one array is refused for several outputs (against NumPy)."""
    A = np.arange(8, dtype=np.int32).reshape(2, 4)
    dB, dC = copy_and_scale(cuda.to_device(A))
    assert isinstance(dB, DeviceArray) and isinstance(dC, DeviceArray)
    assert dB.copy_to_host().tolist() == A.tolist()
    assert dC.copy_to_host().tolist() == (A * 1.5).tolist()
    outs = (cuda.device_array((2, 4), np.int32), cuda.device_array((2, 4), np.float64))
    r = copy_and_scale(A, out=outs)
    assert r[0] is outs[0] and r[1] is outs[1]
    assert outs[1].copy_to_host().tolist() == (A * 1.5).tolist()
    with pytest.raises(ValueError, match="^gufunc 'copy_and_scale' has 2 outputs: out= takes a tuple of 2 arrays$"):
        copy_and_scale(A, out=np.zeros((2, 4), np.int32))
    with pytest.raises(ValueError, match="^output shape mismatch$"):
        copy_and_scale(A, np.zeros((2, 4), np.int32), np.zeros((2, 3)))


def test_call_and_decorator_refusals_are_numba_cudas():
    """numba-cuda's words for a count of arguments that is neither the inputs nor the inputs
    and the outputs, a return type in a signature, and writable_args=."""
    arr = np.arange(5, dtype=np.int32)
    with pytest.raises(TypeError, match=r"^This gufunc accepts 1 positional argument \(when providing input "
                       r"only\) or 3 positional arguments \(when providing input and output\)\. Got 2 "
                       r"positional arguments\.$"):
        copy_and_scale(arr, arr)
    with pytest.raises(TypeError, match=r"accepts 1 positional argument .* Got 4 positional arguments\.$"):
        copy_and_scale(arr, arr, arr, arr)

    def f(x, y):
        pass
    with pytest.raises(TypeError, match=r"^guvectorized functions cannot return values: signature "
                       r"int32\(int32\[:\], int32\[:\]\) specifies int32 return type$"):
        guvectorize([int32(int32[:], int32[:])], '(m)->(m)', target='cuda')(f)
    with pytest.raises(TypeError, match="^writable_args are not supported$"):
        guvectorize([void(int32[:], int32[:])], '(m)->(m)', target='cuda', writable_args=(0,))(f)
    with pytest.raises(TypeError, match="^writable_args are not supported$"):
        cuda.vectorizers.CUDAGUFuncVectorize(f, '(m)->(m)', writable_args=(0,))
    cuda.vectorizers.CUDAGUFuncVectorize(f, '(m)->(m)', writable_args=())   # none: accepted


def test_a_gufunc_called_from_a_kernel_is_an_untyped_global():
    """Numba types a gufunc in a kernel as nothing: its TypingError, "Untyped global name"."""
    @cuda.jit
    def calls_it(A, b):
        copy_and_scale(A, b, b)
    a = np.zeros(4, dtype=np.int32)
    with pytest.raises(CompileError, match="Untyped global name 'copy_and_scale': a global of type "
                       "pyk2cuda.cuda.GUFunc"):
        calls_it[1, 1](a, a)


# (layout, input shapes): the schedules compared with Numba's GUFuncEngine (numba-cuda's tests'
# cases, a pinned input of outer shape (1,), several outputs, and each of its errors).
SCHEDULES = [
    ("(m, n), (n, p) -> (m, p)", [(100, 4, 5), (1, 5, 7)]),
    ("(m, n), (n, p) -> (m, p)", [(12, 34, 4, 5), (12, 34, 5, 7)]),
    ("(m, n), (n, p) -> (m, p)", [(4, 5), (5, 7)]),
    ("(a), (a) -> (a)", [(5,), (5,)]),
    ("(), () -> ()", [(5,), ()]),
    ("(),(t)->(t),()", [(3, 1), (3, 4)]),
    ("(n),(n)->()", [(2, 3), (2, 4)]),
    ("(n),(n)->()", [(2, 3), (4, 3)]),
    ("(m,n)->()", [(3,)]),
    ("(n),(n)->()", [(2, 3)]),
]
ORACLE_SCHEDULES = r"""
import sys
from numba.np.ufunc.deviceufunc import GUFuncEngine
for layout, shapes in eval(sys.stdin.read()):
    try:
        s = GUFuncEngine.from_signature(layout).schedule(shapes)
        print((s.ishapes, s.oshapes, s.loopdims, s.loopn, s.pinned, s.output_shapes))
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
"""


def test_scheduling_is_numbas():
    """numba.cuda.deviceufunc.GUFuncEngine (what a gufunc call is scheduled with) against
    Numba's own (Debian's numba.np.ufunc.deviceufunc), case by case."""
    lines = []
    for layout, shapes in SCHEDULES:
        try:
            s = deviceufunc.GUFuncEngine.from_signature(layout).schedule(shapes)
            lines.append(str((s.ishapes, s.oshapes, s.loopdims, s.loopn, s.pinned, s.output_shapes)))
        except (TypeError, ValueError) as e:
            lines.append("%s %s" % (type(e).__name__, e))
    assert lines[0] == "([(4, 5), (5, 7)], [(4, 7)], (100,), 100, [False, True], [(100, 4, 7)])"
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    p = subprocess.run([ORACLE, "-c", ORACLE_SCHEDULES], input=repr(SCHEDULES), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == lines


@pytest.mark.gpu
def test_gufuncs_on_the_gpu_path_match_the_simulator():
    rc, gpu, err = run_script([SCRIPT])
    assert rc == 0, gpu + err
    rc, sim, err = run_script([SCRIPT], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0, sim + err
    assert gpu == sim


def test_command_line_emits_and_runs_the_kernel(tmp_path):
    """`pyk2cuda emit` shows a gufunc's kernel, and `run` launches it on arrays whose first
    dimension is the loop dimension (tests/golden/gufunc.py's dot, against NumPy)."""
    source = os.path.join(HERE, "..", "golden", "gufunc.py")
    p = subprocess.run([cli(), "emit", source, "-k", "dot"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert 'extern "C" __global__ void dot(' in p.stdout and "dot_core(" in p.stdout
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    y = x[::-1].copy() / 2
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    out = tmp_path / "out"
    p = subprocess.run([cli(), "run", source, "dot", "--grid", "auto", "--block", "32", "--device", "sim",
                        "--out-dir", str(out), str(tmp_path / "x.npy"), str(tmp_path / "y.npy"),
                        "zeros:float64[4]"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert np.load(out / "r.npy").tolist() == (x * y).sum(axis=1).tolist()
