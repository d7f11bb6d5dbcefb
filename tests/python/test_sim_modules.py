"""The simulator's modules in one process (docs/simulator.md): kernels of one name in several
modules keep their own `__shared__` arrays. Their shared arrays were once symbols the dynamic
linker unified across modules (GCC's STB_GNU_UNIQUE), so the second kernel wrote its larger
array over the first one's and corrupted the thread's memory (a crash in Numba's test_sm)."""
from conftest import run_script


def test_kernels_of_one_name_keep_their_own_shared_arrays():
    rc, out, err = run_script(["same_name_kernels_script.py"], env={"PYK2CUDA_DEVICE": "sim"})
    assert rc == 0 and out.strip() == "ok", (rc, out, err[-2000:])
