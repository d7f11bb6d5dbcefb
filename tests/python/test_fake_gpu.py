"""The GPU path of the package (device arrays in device memory, asynchronous launches on
streams, events, pinned memory, __cuda_array_interface__ views) on the fake CUDA driver, so
that it is tested on machines without a GPU. Needs NVRTC, as the nvrtc suite does."""
import os

import pytest

from conftest import run_script

FAKE = os.environ.get("PYK2CUDA_FAKECUDA")


@pytest.mark.skipif(not FAKE, reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_gpu_path_on_the_fake_driver():
    rc, out, err = run_script(["fake_gpu_script.py"],
                              env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0 and "fake gpu: ok" in out, out + err
