"""The pytest suite of the Python package (meson test --suite python; scripts/test.sh).

It imports pyk2cuda from the build folder (meson sets PYTHONPATH). Tests marked `gpu` need a
CUDA device and are skipped without one; everything else runs on whichever device pyk2cuda
chooses (the simulator on a machine without a GPU)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one)")


def has_gpu():
    import pyk2cuda
    return pyk2cuda._core.gpu_count() > 0 and os.environ.get("PYK2CUDA_DEVICE") != "sim"


def pytest_collection_modifyitems(config, items):
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def run_script(args, env=None, timeout=300):
    """Runs a Python command; returns (exit code, stdout, stderr)."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([sys.executable] + args, cwd=HERE, env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()
