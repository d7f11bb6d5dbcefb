"""Numba's NumbaPerformanceWarning (docs/python.md, "Performance warnings"): a launch
configuration of fewer than 128 blocks, and each host array a launch copies (not device, mapped
or managed arrays), as Numba's config decides (NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS,
NUMBA_CUDA_WARN_ON_IMPLICIT_COPY, default on; numba.core.config's attribute when Numba's config is
loaded), with numba.core.errors' class of the program's `numba`. The texts are Numba 0.56's
(numba/cuda/dispatcher.py, cudadrv/devicearray.py); Numba's test_warning passes 11 of 11."""
import os

from conftest import run_script

SCRIPT = r'''
import sys, warnings
import numpy as np
if sys.argv[1] == "numba":
    import numba.core.errors   # Numba's own module: its class is the category
from pyk2cuda import cuda

@cuda.jit
def k(r, x):
    r[0] = x + 1

def seen(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f()
    return [(c.category.__module__, c.category.__name__, str(c.message), os.path.basename(c.filename))
            for c in w]

import os
d = cuda.device_array(10, np.float32)
print(seen(lambda: k[1, 1]))
print(seen(lambda: k[128, 1](d, 1)))
print(seen(lambda: k[256, 32](np.zeros(10, np.float32), 1)))
print(seen(lambda: k[256, 32](cuda.pinned_array(10, np.float32), 1)))
print(seen(lambda: k[256, 32](cuda.mapped_array(10, np.float32), 1)))
print(seen(lambda: cuda.reduce(lambda a, b: a + b)(np.arange(5.0))))
'''


def lines(tmp_path, mode, **env):
    path = tmp_path / "warn.py"
    path.write_text(SCRIPT)
    rc, out, err = run_script([str(path), mode], env=env)
    assert rc == 0, out + err
    return out.splitlines()


GRID = "Grid size 1 will likely result in GPU under-utilization due to low occupancy."
COPY = "Host array used in CUDA kernel will incur copy overhead to/from device."


def test_warnings_as_numba_gives_them(tmp_path):
    got = lines(tmp_path, "plain")
    assert got[0] == str([("pyk2cuda.numba_names", "NumbaPerformanceWarning", GRID, "warn.py")])
    assert got[1] == "[]"   # 128 blocks, a device array
    assert got[2] == got[3] == str([("pyk2cuda.numba_names", "NumbaPerformanceWarning", COPY, "warn.py")])
    assert got[4] == "[]"   # a mapped array is read in place
    assert got[5] == "[]"   # cuda.reduce's own one-thread launch


def test_numbas_class_and_config(tmp_path):
    got = lines(tmp_path, "numba")   # Numba's class writes its message in bold (ANSI codes)
    assert got[0].startswith("[('numba.core.errors', 'NumbaPerformanceWarning', ") and GRID in got[0]
    off = lines(tmp_path, "plain", NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0", NUMBA_CUDA_WARN_ON_IMPLICIT_COPY="0")
    assert off == ["[]"] * 6
