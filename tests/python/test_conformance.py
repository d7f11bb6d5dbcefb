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
