"""@guvectorize(..., target='cuda') (docs/python.md, "Generalized ufuncs"): gufuncs.py against
Numba's simulator, the calls its simulator cannot run against NumPy, Numba's refusals with its
messages, and the GPU path."""
import os
import subprocess

import numpy as np
import pytest

from pyk2cuda import cuda, guvectorize, CompileError, DeviceArray, float64, int32, void
from conftest import HERE, run_script
from test_dispatch_fronts import cli_path as cli
from test_samples import has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "gufuncs.py")


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
    with pytest.raises(ValueError, match="^cannot specify 'out' as both a positional and keyword argument$"):
        matmul(a, a.T, a, out=a)
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
