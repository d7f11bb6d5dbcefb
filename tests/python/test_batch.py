"""A module's signed kernels as one NVRTC program (issue 30; docs/python.md, "One NVRTC program
for a module's signed kernels"): on the GPU path (the driver stand-in in CI) the kernels of
batch_kernels.py that share their options are compiled once together, counted as the compile
cache's NVRTC images in a fresh cache folder, with the same results as when each is compiled on
its own; an error stays its kernel's; kernels that cannot share a module (batch_closures.py)
are compiled apart. The script checks every result against NumPy."""
import json

import pytest

from conftest import run_script


def _run(tmp_path, *args):
    rc, out, err = run_script(["batch_script.py"] + list(args),
                              env={"PYK2CUDA_CACHE_DIR": str(tmp_path / "cache")})
    assert rc == 0, err
    return json.loads(out.splitlines()[-1])


@pytest.mark.gpu
def test_signed_kernels_of_a_module_are_one_program(tmp_path):
    got = _run(tmp_path, "closures")
    # scale, plus_n (two signatures) and doubled: one program; checked_a and checked_b
    # (debug=True, other NVRTC options): another; lazy (no signature): its own; fill_1 and
    # fill_2 (one def, two values of its closure's n): one each. 8 kernels, 5 programs.
    assert got["images"] == 5, got
    assert got["in_program"] == [True, True, True, True, True, False, False, False]
    assert "checked_b" in got["failure"] and "batch_kernels.py:41:" in got["failure"], got["failure"]


def test_the_simulator_compiles_each_kernel_on_its_own(tmp_path):
    got = _run(tmp_path, "closures")
    if got["images"]:
        pytest.skip("a GPU path: test_signed_kernels_of_a_module_are_one_program")
    assert not any(got["in_program"])
    assert "checked_b" in got["failure"] and "batch_kernels.py:41:" in got["failure"], got["failure"]
