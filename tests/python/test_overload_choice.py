"""A kernel with several explicit signatures takes the one its arguments convert to best, as
Numba's dispatcher chooses (docs/python.md): overload_choice.py under pyk2cuda against the same
functions under Numba's CPU dispatcher (numba.njit with the same signatures, the same rule; the
CUDA simulator ignores signatures)."""
import os
import subprocess

import pytest

from conftest import HERE, run_script
from test_samples import ORACLE, has_numba

SCRIPT = os.path.join(HERE, "overload_choice.py")


def test_best_signature_as_numbas_dispatcher():
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    # 2**40 with (int32, int32) first in the list: the int64 signature, not a wrapped int32
    assert "ints int int 1099511627777.0" in ours, ours
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, SCRIPT, "--njit"], cwd=HERE, env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ours
