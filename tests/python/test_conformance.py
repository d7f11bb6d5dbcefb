"""Smoke check of the conformance runner (scripts/conformance.py, docs/conformance.md) on one
small module of Numba's CUDA tests, for each suite (Debian's python3-numba, and numba-cuda from
the package index in the runner's virtual environment under the build folder, made here on first
use): both modes run, every test gets an outcome, and the simulator passes what it passes. It
checks the runner, not pyk2cuda's pass rate (that is in docs/conformance.md, from the full runs,
which are too slow for CI)."""
import json
import os
import subprocess

import pytest

import pyk2cuda
from conftest import HERE

ROOT = os.path.dirname(os.path.dirname(HERE))
ORACLE = "/usr/bin/python3"
RUNNER = os.path.join(ROOT, "scripts", "conformance.py")
NUMBA_TESTS = "/usr/lib/python3/dist-packages/numba/cuda/tests/cudapy"
# build/python/pyk2cuda/__init__.py -> build: the runner takes the build folder.
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(pyk2cuda.__file__))))


@pytest.mark.skipif(not os.path.isfile(os.path.join(NUMBA_TESTS, "test_idiv.py")),
                    reason="Debian's python3-numba (Numba's CUDA tests) is not installed")
def test_runner_on_one_module(tmp_path):
    _check_idiv(tmp_path, [])


def test_runner_on_one_numba_cuda_module(tmp_path):
    # The environment is made once per build folder (pip, about 30 s and 150 MB of wheels), then
    # used as it is (--offline): the newest numba-cuda is the full run's business.
    venv = os.path.join(BUILD, "numba-cuda-venv")
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        p = subprocess.run([ORACLE, RUNNER, "--build", BUILD, "--suite", "numba-cuda", "--setup"],
                           capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout + p.stderr
    _check_idiv(tmp_path, ["--suite", "numba-cuda", "--offline"])


def _check_idiv(tmp_path, suite):
    p = subprocess.run([ORACLE, RUNNER, "--build", BUILD, "--out", str(tmp_path), "--no-doc",
                        "--timeout", "120"] + suite + ["test_idiv"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(tmp_path / "results.json") as f:
        res = json.load(f)["results"]["test_idiv"]
    sim, pk = res["sim"]["tests"], res["pyk2cuda"]["tests"]
    # Numba's simulator passes both tests of the module (the reference the runner compares to).
    assert sorted(o for o, _ in sim.values()) == ["pass", "pass"], sim
    # pyk2cuda's run saw the same tests, each with an outcome (and a reason where not passed).
    assert sorted(pk) == sorted(sim), pk
    assert all(o in ("pass", "fail", "error", "skip") and (o == "pass" or why) for o, why in pk.values())
    assert "| test_idiv |" in p.stdout and "**total**" in p.stdout


# Two small modules written for the runner's "as on a GPU" mode (--as-gpu, issue 28): one whose
# decorators decide differently on a device, one that imports a module of Numba's pyk2cuda
# does not have (its code library), so that pyk2cuda cannot import it.
AS_GPU_MODULE = '''
import unittest
from numba import cuda
from numba.core import config
from numba.cuda.testing import (CUDATestCase, skip_on_cudasim, skip_unless_cudasim,
                                skip_unless_cc_60)


class TestAsOnAGpu(CUDATestCase):
    @skip_on_cudasim("runs only on a device")
    def test_kept_off_the_simulator(self):
        # The body takes the device's path: ENABLE_CUDASIM is off (and numba.cuda is pyk2cuda's;
        # no kernel is compiled here, to keep the check cheap: the full runs compile thousands).
        self.assertFalse(config.ENABLE_CUDASIM)
        self.assertTrue(cuda.__name__.startswith("pyk2cuda"))

    @skip_unless_cudasim("runs only on the simulator")
    def test_simulator_only(self):
        pass

    @skip_unless_cc_60
    def test_needs_cc_60(self):
        pass
'''

UNIMPORTABLE_MODULE = '''
from numba.cuda.stubs import Stub   # Numba's typing stubs: pyk2cuda has no such module
from numba.cuda.testing import CUDATestCase


class TestCodeLibrary(CUDATestCase):
    def test_one(self):
        pass

    def test_two(self):
        pass
'''


@pytest.mark.skipif(not os.path.isfile(os.path.join(NUMBA_TESTS, "test_idiv.py")),
                    reason="Debian's python3-numba (Numba's CUDA tests) is not installed")
def test_runner_decides_skips_as_on_a_gpu(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_as_gpu.py").write_text(AS_GPU_MODULE)
    (tests / "test_unimportable.py").write_text(UNIMPORTABLE_MODULE)
    out = tmp_path / "out"
    p = subprocess.run([ORACLE, RUNNER, "--build", BUILD, "--out", str(out), "--no-doc",
                        "--timeout", "120", "--as-gpu", "--tests", str(tests)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(str(out) + "-as-gpu/results.json") as f:
        res = json.load(f)["results"]
    got = {t.rsplit(".", 1)[1]: o for t, (o, _) in res["test_as_gpu"]["pyk2cuda"]["tests"].items()}
    # skip_on_cudasim keeps its test, which passes on pyk2cuda's simulator; skip_unless_cudasim
    # skips as on a device; skip_unless_cc_60 decides for compute capability 9.0.
    assert got == {"test_kept_off_the_simulator": "pass", "test_simulator_only": "skip",
                   "test_needs_cc_60": "pass"}, got
    # The module pyk2cuda cannot import still counts its two tests (listed by Numba's own
    # simulator), each errored with the import's reason.
    assert "import_error" in res["test_unimportable"]["pyk2cuda"]
    assert len(res["test_unimportable"]["list"]["tests"]) == 2
    assert "| test_unimportable | 2 | 0 | 2 / 0 / 0 / 2 / 0 (import error) |" in p.stdout, p.stdout
    assert "| test_as_gpu | 3 | 0 | 2 / 2 / 0 / 0 / 1 |" in p.stdout, p.stdout
