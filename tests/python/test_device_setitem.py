"""Item assignment on device arrays (docs/python.md): device_setitem.py against Numba's
simulator, and the checks of Numba's DeviceNDArray._do_setitem with its messages."""
import os

import numpy as np
import pytest

from pyk2cuda import cuda
from conftest import HERE, run_script
from test_samples import has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "device_setitem.py")


def test_setitem_matches_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert ours.count("\n") == 9, ours
    if not has_numba():
        pytest.skip("Numba's simulator (Debian's python3-numba) is not installed")
    assert numba_simulator_output(SCRIPT) == ours


def test_setitem_checks_are_numbas():
    """Numba's compiled DeviceNDArray refuses a value of more dimensions than the target and an
    axis whose length is neither 1 nor the target's, with these messages."""
    d = cuda.to_device(np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"^Can't assign 2-D array to 1-D self$"):
        d[0] = np.ones((1, 3))
    with pytest.raises(ValueError, match=r"^Can't copy sequence with size 2 to array axis 1 "
                                         r"with dimension 3$"):
        d[:, :] = np.ones((2, 2))
    with pytest.raises(IndexError, match="out of bounds"):
        d[2] = 1
    with pytest.raises(TypeError, match="cannot be deleted"):
        del d[0]
    assert d.copy_to_host().tolist() == [[0.0] * 3] * 2   # nothing was written


def test_setitem_views_write_through():
    """A view's assignment writes the parent's memory, and only the view's elements (a strided
    view's gaps keep their values)."""
    base = cuda.to_device(np.arange(12, dtype=np.int64).reshape(3, 4))
    view = base[:, ::2]
    view[1:, :] = cuda.to_device(np.array([[-1, -2], [-3, -4]]))
    assert base.copy_to_host().tolist() == [[0, 1, 2, 3], [-1, 5, -2, 7], [-3, 9, -4, 11]]
    base[::-1, 3] = [30, 20, 10]
    assert base.copy_to_host()[:, 3].tolist() == [10, 20, 30]


@pytest.mark.skipif(not os.environ.get("PYK2CUDA_FAKECUDA"),
                    reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_setitem_on_the_gpu_path_matches_the_simulator():
    """The same script through the GPU path (uploads, downloads, device-to-device copies) on the
    fake driver prints what the simulator prints."""
    rc, sim, err = run_script([SCRIPT], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0, sim + err
    rc, gpu, err = run_script([SCRIPT], env={"PYK2CUDA_LIBCUDA": os.environ["PYK2CUDA_FAKECUDA"],
                                             "PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0, gpu + err
    assert gpu == sim
