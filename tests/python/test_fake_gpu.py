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


@pytest.mark.skipif(not FAKE, reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_auto_synchronize_synchronizes_the_stream_at_the_end_of_its_block():
    # The first cuStreamSynchronize fails (injected): only the end of the block calls it.
    script = ("import pyk2cuda\nfrom pyk2cuda import cuda\ns = cuda.stream()\n"
              "with s.auto_synchronize() as t:\n    assert t is s\n    print('inside')\n")
    rc, out, err = run_script(["-c", script], env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu",
                                                   "FAKECUDA_FAIL": "cuStreamSynchronize:1:999"})
    assert rc != 0 and "inside" in out and "pyk2cuda.Error" in err, out + err
    rc, out, err = run_script(["-c", script], env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0 and "inside" in out, out + err


@pytest.mark.skipif(not FAKE, reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_arrays_dropped_while_a_stream_uses_them_outlive_its_work():
    # FAKECUDA_STREAM_USES=1: freeing memory that queued work uses is a fault at the next
    # synchronize; the script drops device arrays, a pinned array and a stream with work queued.
    rc, out, err = run_script(["stream_lifetimes_script.py"],
                              env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu",
                                   "FAKECUDA_STREAM_USES": "1"})
    assert rc == 0 and "stream lifetimes on the gpu: ok" in out, out + err



@pytest.mark.skipif(not FAKE, reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_cooperative_kernels_ask_the_driver_for_their_grid_limit():
    # The fake H100 holds 8 blocks of 256 threads per SM (2048 threads) on 132 SMs; a grid
    # beyond that is refused before cuLaunchCooperativeKernel.
    rc, out, err = run_script(["fake_cooperative_script.py"],
                              env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0, out + err
    assert out.splitlines()[0] == "True 1056 264", out
    assert "refused:" in out and "launched cooperatively" in out and "the grid has 1057" in out, out
