"""Smoke check of the conformance runner (scripts/conformance.py, docs/conformance.md) on one
small module of Numba's CUDA tests: both modes run, every test gets an outcome, and the
simulator passes what it passes. It checks the runner, not pyk2cuda's pass rate (that is in
docs/conformance.md, from the full run, which is too slow for CI)."""
import json
import os
import subprocess

import pytest

import pyk2cuda
from conftest import HERE

ROOT = os.path.dirname(os.path.dirname(HERE))
ORACLE = "/usr/bin/python3"
NUMBA_TESTS = "/usr/lib/python3/dist-packages/numba/cuda/tests/cudapy"
# build/python/pyk2cuda/__init__.py -> build: the runner takes the build folder.
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(pyk2cuda.__file__))))


@pytest.mark.skipif(not os.path.isfile(os.path.join(NUMBA_TESTS, "test_idiv.py")),
                    reason="Debian's python3-numba (Numba's CUDA tests) is not installed")
def test_runner_on_one_module(tmp_path):
    p = subprocess.run([ORACLE, os.path.join(ROOT, "scripts", "conformance.py"), "--build", BUILD,
                        "--out", str(tmp_path), "--no-doc", "--timeout", "120", "test_idiv"],
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
