"""`is` and `is not` on numbers, None and arrays follow compiled Numba (docs/semantics.md, "Identity"):
identity.py under pyk2cuda against the same function under Numba's CPU compiler (numba.njit);
the CUDA simulator would show CPython's object identity instead."""
import os
import subprocess

import pytest

from conftest import HERE, run_script
from test_samples import ORACLE, has_numba

SCRIPT = os.path.join(HERE, "identity.py")


def test_identity_of_numbers_as_pyk2cuda_decides_it():
    rc, out, err = run_script([SCRIPT])
    assert rc == 0, out + err
    assert out.splitlines() == ["[1, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0]", "[0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0]",
                                "[1, 0, 1, 0, 0]", "[0, 1, 1, 0, 0]", "[1, 0, 1, 0, 0]"]


def test_identity_of_numbers_matches_numba_njit():
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    rc, ours, err = run_script([SCRIPT])
    assert rc == 0, ours + err
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, "-W", "ignore::SyntaxWarning", SCRIPT, "--njit"], cwd=HERE, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ours
