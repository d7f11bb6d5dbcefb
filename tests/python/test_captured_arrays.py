"""Device arrays captured from globals (docs/python.md, "Device arrays as globals"): a kernel that
names a global device array reads and writes its memory by address, as numba-cuda's do; the
results equal Numba's simulator's (captured_arrays.py), and a kernel that captures one is not
cached or pickled, with Numba's PicklingError."""
import os
import pickle

import numpy as np
import pytest

from pyk2cuda import cuda
from conftest import HERE, run_script
from test_samples import ORACLE, has_numba

SCRIPT = os.path.join(HERE, "captured_arrays.py")
KEYS = ("one", "grid", "fortran", "strided", "written", "one_after", "written_after", "tally")


def _same_results_as_numbas_simulator(tmp_path, env):
    import subprocess
    ours, theirs = str(tmp_path / "ours.npz"), str(tmp_path / "numba.npz")
    rc, out, err = run_script(["-m", "pyk2cuda", SCRIPT, ours], env=env)
    assert rc == 0 and "captured arrays: ok" in out, out + err
    p = subprocess.run([ORACLE, SCRIPT, theirs], cwd=HERE, capture_output=True, text=True,
                       env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"), timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    a, b = np.load(ours), np.load(theirs)
    for key in KEYS:
        assert a[key].dtype == b[key].dtype, key
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.skipif(not has_numba(), reason="Numba's simulator (Debian's python3-numba) is not installed")
def test_same_results_as_numbas_simulator_on_the_simulator(tmp_path):
    _same_results_as_numbas_simulator(tmp_path, {"PYK2CUDA_DEVICE": "sim"})


@pytest.mark.gpu
@pytest.mark.skipif(not has_numba(), reason="Numba's simulator (Debian's python3-numba) is not installed")
def test_same_results_as_numbas_simulator_on_the_gpu(tmp_path):
    # The address embedded is a device pointer here (the standin suite runs this on the stand-in).
    _same_results_as_numbas_simulator(tmp_path, {"PYK2CUDA_DEVICE": "gpu"})


def test_the_kernel_keeps_the_array_alive():
    # Numba's code library holds the captured object (referenced_objects): dropping the name
    # leaves the memory the kernel points at allocated.
    import gc
    import weakref
    arr = cuda.to_device(np.arange(4, dtype=np.float32))
    gone = weakref.ref(arr)

    @cuda.jit
    def double(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = arr[i] * 2

    out = cuda.device_array(4, np.float32)
    double[1, 4](out)
    del arr
    gc.collect()
    assert gone() is not None
    double[1, 4](out)
    np.testing.assert_array_equal(out.copy_to_host(), [0, 2, 4, 6])


def test_a_captured_array_is_never_cached_or_pickled():
    captured = cuda.to_device(np.ones(3, np.float32))

    @cuda.jit(cache=True)
    def cached(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = captured[i]

    out = cuda.device_array(3, np.float32)
    with pytest.raises(pickle.PicklingError, match="referencing global device arrays"):
        cached[1, 3](out)

    @cuda.jit
    def plain(out):
        out[0] = captured[0]

    plain[1, 1](out)
    with pytest.raises(pickle.PicklingError, match="referencing global device arrays"):
        pickle.dumps(plain)


def test_a_record_device_array_is_refused_with_its_name():
    rec = cuda.to_device(np.zeros(2, dtype=[("a", np.int32)]))

    @cuda.jit
    def reads_record(out):
        out[0] = rec[0].a

    with pytest.raises(Exception, match="Untyped global name 'rec': a global of type"):
        reads_record[1, 1](cuda.device_array(1, np.int32))
