"""pyk2cuda across processes (issue 28): a fork of a process that opened the GPU is told it
cannot use the parent's CUDA context (Numba's "CUDA initialized before forking"), a fork on the
simulator simulates as its parent does. (CUDA IPC between processes: test_ipc.py.)"""
import os

import numpy as np
import pytest

from conftest import run_script
from pyk2cuda import cuda

FAKE = os.environ.get("PYK2CUDA_FAKECUDA")

FORK = """
import multiprocessing as mp
import numpy as np
from pyk2cuda import cuda

def child(q):
    try:
        q.put(("ok", list(cuda.to_device(np.arange(3)).copy_to_host())))
    except cuda.cudadrv.error.CudaDriverError as e:
        q.put(("error", str(e)))

cuda.current_context()   # opens the device
ctx = mp.get_context("fork")
q = ctx.Queue()
p = ctx.Process(target=child, args=(q,))
p.start()
print(q.get())
p.join()
print("parent", list(cuda.to_device(np.arange(2)).copy_to_host()))
"""


@pytest.mark.skipif(not FAKE, reason="PYK2CUDA_FAKECUDA (the meson test sets it) is not set")
def test_a_fork_of_a_gpu_process_is_told_it_cannot_use_the_gpu():
    rc, out, err = run_script(["-c", FORK], env={"PYK2CUDA_LIBCUDA": FAKE, "PYK2CUDA_DEVICE": "gpu"})
    assert rc == 0, out + err
    lines = out.splitlines()
    assert lines[0].startswith("('error', ") and "CUDA initialized before forking: this process is a fork of process" in lines[0]
    assert "'spawn'" in lines[0] and lines[1] == "parent [0, 1]"


def test_a_fork_on_the_simulator_simulates():
    rc, out, err = run_script(["-c", FORK], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0, out + err
    assert out.splitlines() == ["('ok', [0, 1, 2])", "parent [0, 1]"]
