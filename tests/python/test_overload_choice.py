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


def test_tuple_arguments_as_numbas_dispatcher():
    """Tuples convert element by element (issue 27): tuple_choice.py under pyk2cuda against the same
    kernels under numba.njit with the same signatures."""
    script = os.path.join(HERE, "tuple_choice.py")
    rc, ours, err = run_script([script])
    assert rc == 0, ours + err
    # 2**24 + 1 given as an int64 pair takes UniTuple(int64, 2), not the float32 one listed first;
    # a namedtuple converts to no other type, not even to its own class with other field types
    assert "pair (16777217, 1) 16777218.0" in ours and "point Point(x=1, y=2) TypeError" in ours, ours
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, script, "--njit"], cwd=HERE, env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ours
