"""Whole programs: samples/python (written for pyk2cuda) and samples/*.py (written for
numba.cuda, run unchanged with `python3 -m pyk2cuda`). Each checks its own results against NumPy;
each also runs under Numba's CUDA simulator, the oracle, where that is installed."""
import glob
import os
import subprocess

import pytest

from conftest import HERE, run_script

ROOT = os.path.dirname(os.path.dirname(HERE))
PY_SAMPLES = sorted(glob.glob(os.path.join(ROOT, "samples", "python", "*.py")))
NUMBA_SAMPLES = sorted(glob.glob(os.path.join(ROOT, "samples", "*.py")))
ORACLE = "/usr/bin/python3"


def name(p):
    return os.path.relpath(p, ROOT)


def has_numba():
    if not os.path.exists(ORACLE):
        return False
    return subprocess.run([ORACLE, "-c", "import numba"], capture_output=True).returncode == 0


def numba_simulator_output(script, args=(), env=None, timeout=300):
    """What `script` prints under Numba's CUDA simulator (numba_shim.py makes its pyk2cuda
    imports Numba's), asserting that it ran to its end."""
    e = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", **(env or {}))
    e.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, os.path.join(HERE, "numba_shim.py"), script] + list(args), env=e,
                       cwd=HERE, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def ok_line(out, script):
    stem = os.path.splitext(os.path.basename(script))[0]
    return any(line.startswith(stem + ": ok") for line in out.splitlines())


@pytest.mark.parametrize("script", PY_SAMPLES, ids=name)
def test_python_sample(script):
    rc, out, err = run_script([script])
    assert rc == 0 and ok_line(out, script), out + err


@pytest.mark.parametrize("script", NUMBA_SAMPLES, ids=name)
def test_numba_script_runs_unchanged(script):
    rc, out, err = run_script(["-m", "pyk2cuda", script])
    assert rc == 0 and ok_line(out, script), out + err


# Numba's simulator runs some thousands of threads per second: the oracle runs get small sizes.
# great_circle_mesh.py is left out: the simulator cannot build CUDA ufuncs (@vectorize), and its
# kernel half is the same computation as samples/great_circle.py, which the diff suite covers.
ORACLE_ARGS = {"vector_add.py": ["5000"], "normalize_pinned.py": ["20000"], "streams_events.py": ["2000"],
               "smooth_stencil.py": ["40", "50"], "dask_chunks.py": ["2000", "500"]}
ORACLE_SAMPLES = [p for p in PY_SAMPLES if not p.endswith("great_circle_mesh.py")]


@pytest.mark.skipif(not has_numba(), reason="Numba's simulator (Debian's python3-numba) is not installed")
@pytest.mark.parametrize("script", ORACLE_SAMPLES, ids=name)
def test_python_sample_under_numba_simulator(script):
    # Numba's simulator runs one kernel at a time in a process: Dask's chunks one after another.
    out = numba_simulator_output(script, ORACLE_ARGS.get(os.path.basename(script), []),
                                 {"DASK_SCHEDULER": "synchronous"}, timeout=600)
    assert ok_line(out, script), out
