"""Complex scalars as kernel arguments (docs/semantics.md, "Complex numbers"): complex_args.py
against Numba's simulator, and what cannot be converted."""
import os
import subprocess

import numpy as np
import pytest

from pyk2cuda import cuda
from conftest import HERE, run_script
from test_samples import ORACLE, has_numba

SCRIPT = os.path.join(HERE, "complex_args.py")


def test_complex_arguments_match_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert ours.count("\n") == 4, ours
    if not has_numba():
        pytest.skip("Numba's simulator (Debian's python3-numba) is not installed")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, os.path.join(HERE, "numba_shim.py"), SCRIPT], env=env, cwd=HERE,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout == ours


def test_complex_to_a_real_parameter_is_refused():
    @cuda.jit("void(float64[::1], float64)")
    def k(r, v):
        r[0] = v

    with pytest.raises(TypeError, match="cannot convert complex128 to float64"):
        k[1, 1](np.zeros(1), 1j)
