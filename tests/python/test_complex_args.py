"""Complex scalars as kernel arguments (docs/semantics.md, "Complex numbers"): complex_args.py
against Numba's simulator, and what cannot be converted."""
import os

import numpy as np
import pytest

from pyk2cuda import cuda
from conftest import HERE, run_script
from test_samples import has_numba, numba_simulator_output

SCRIPT = os.path.join(HERE, "complex_args.py")


def test_complex_arguments_match_numba_simulator():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    assert ours.count("\n") == 4, ours
    if not has_numba():
        pytest.skip("Numba's simulator (Debian's python3-numba) is not installed")
    assert numba_simulator_output(SCRIPT) == ours


def test_complex_to_a_real_parameter_is_refused():
    @cuda.jit("void(float64[::1], float64)")
    def k(r, v):
        r[0] = v

    with pytest.raises(TypeError, match="cannot convert complex128 to float64"):
        k[1, 1](np.zeros(1), 1j)
