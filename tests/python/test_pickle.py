"""Pickling kernels, launch configurations, ufuncs and device arrays (issue 28), as Numba's
test_serialize does: a kernel is pickled as its translated module (globals frozen), rebuilt in
this process or another, and launches with the same results; errors keep the user's lines.
The reference results are Numba's simulator's for the same kernels (they need no pickling)."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda

OFFSET = 5


@cuda.jit(device=True)
def inner(a):
    return a + OFFSET


@cuda.jit
def lazy(arr):
    arr[0] = inner(arr[0])


@cuda.jit("void(intp[:])")
def declared(arr):
    arr[0] = inner(arr[0])


@pyk2cuda.vectorize(["intp(intp)", "float64(float64)"], target="cuda")
def doubled(x):
    return x * 2


def launched(kernel):
    arr = np.array([100])
    kernel[1, 1](arr)
    return arr


@pytest.mark.parametrize("kernel", [lazy, declared], ids=["lazy", "declared"])
def test_kernels_pickle_twice_with_their_configuration(kernel):
    expected = launched(kernel)
    assert expected[0] == 105
    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(kernel))))
    np.testing.assert_array_equal(launched(again), expected)
    assert again.signatures == kernel.signatures and again.py_func is None
    configured = pickle.loads(pickle.dumps(again[5, 8]))
    assert configured.griddim == (5, 1, 1) and configured.blockdim == (8, 1, 1)
    with pytest.raises(TypeError, match="configured with a stream"):
        pickle.dumps(kernel[1, 1, cuda.stream()])


def test_a_pickled_kernel_freezes_its_globals_when_pickled():
    # As Numba's pickle does: a lazy kernel never launched is built when pickled.
    global OFFSET

    @cuda.jit
    def late(arr):
        arr[0] = OFFSET

    data = pickle.dumps(late)
    OFFSET = 9
    try:
        arr = np.zeros(1, np.int64)
        pickle.loads(data)[1, 1](arr)
        assert arr[0] == 5
    finally:
        OFFSET = 5


def test_errors_of_a_rebuilt_kernel_point_at_the_users_source():
    @cuda.jit
    def broken(arr):
        arr[0] = not_defined_anywhere   # noqa: F821

    rebuilt = pickle.loads(pickle.dumps(broken))
    with pytest.raises(pyk2cuda.CompileError, match=r"test_pickle\.py:\d+:\d+: error: name 'not_defined_anywhere'"):
        rebuilt[1, 1](np.zeros(1))
    with pytest.raises(TypeError, match="rebuilt from a pickle"):
        rebuilt.specialize(np.zeros(1))


def test_ufuncs_and_device_arrays_pickle():
    a = np.arange(10, dtype=np.intp)
    expected = doubled(a)
    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(doubled))))
    np.testing.assert_array_equal(again(a), expected)
    np.testing.assert_array_equal(again(a.astype(np.float64)), expected.astype(np.float64))
    d = cuda.to_device(np.arange(12.0).reshape(3, 4))[:, ::2]
    back = pickle.loads(pickle.dumps(d))
    assert isinstance(back, cuda.devicearray.DeviceNDArray)
    np.testing.assert_array_equal(back.copy_to_host(), np.arange(12.0).reshape(3, 4)[:, ::2])


def test_a_kernel_pickled_here_runs_in_another_process(tmp_path):
    path = tmp_path / "k.pickle"
    path.write_bytes(pickle.dumps((lazy, doubled, cuda.to_device(np.arange(3)))))
    code = ("import pickle, numpy as np; k, u, d = pickle.load(open(%r, 'rb')); a = np.array([100]); "
            "k[1, 1](a); print(a[0], list(u(np.arange(3))), list(d.copy_to_host()))" % str(path))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "105 [0, 2, 4] [0, 1, 2]"


def test_numba_simulator_gives_the_same_results():
    # The kernel above under Numba's simulator and the ufunc compiled by Numba for the CPU (no
    # pickling there): the reference for the rebuilt kernels' 105 and the ufunc's doubling.
    code = """
import numpy as np
from numba import cuda, vectorize
OFFSET = 5
@cuda.jit(device=True)
def inner(a):
    return a + OFFSET
@cuda.jit
def lazy(arr):
    arr[0] = inner(arr[0])
a = np.array([100]); lazy[1, 1](a)
@vectorize(['intp(intp)'])   # (the simulator's target='cuda' ufuncs fail in Numba 0.56)
def doubled(x):
    return x * 2
print(a[0], list(doubled(np.arange(3))))
"""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    p = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "105 [0, 2, 4]"
