"""`pyk2cuda emit` of @jit host functions without a signature (issue 33): each is typed by the
calls of it in the file's host code whose arguments' types can be told from the text
(src/frontend/lower_host_calls.c), a note at each call naming the signature; the types are the
ones Numba's dispatcher gives the same calls when the file runs."""
import os
import re
import subprocess

import pytest

from conftest import HERE
from test_samples import ORACLE, has_numba

SAMPLE = os.path.join(os.path.dirname(HERE), "golden", "host_calls.py")
NOTE = re.compile(r"note: @jit function '(\w+)' has no signature: typed \1\((.*)\) from this call's arguments")

EXPECTED = {
    "total": ["float64[::1]", "float32[::1]"],
    "smooth": ["float64[:, ::1], float64[:, ::1]"],
    "affine": ["float64, float32, int64", "int64, float64, bool"],
    "ramp": ["int64, float64", "int64, int64"],
    "corner": ["float64[::1, :]", "int16[:, ::1]", "float32[:, ::1]"],
}


def emit(*args):
    tool = os.environ.get("PYK2CUDA_CLI", os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "tools",
                                                        "pyk2cuda"))
    if not os.path.exists(tool):
        pytest.skip("no pyk2cuda command at " + tool)
    p = subprocess.run([tool, "emit", *args], capture_output=True, text=True, timeout=120)
    sigs = {}
    for m in NOTE.finditer(p.stderr):
        sigs.setdefault(m.group(1), []).append(m.group(2))
    return p, sigs


def test_emit_types_unsigned_jit_functions_by_the_files_calls():
    """Literals, NumPy scalars, module constants, np.ones/full/zeros_like/arange(...).reshape(...)
    .astype(...), a Generator's random(), range()'s loop variable: one host entry per distinct
    signature; a call with an argument it cannot type (a slice, a parameter) gives none, and a
    function with only such calls keeps the note that asks for --sig."""
    p, sigs = emit(SAMPLE)
    assert p.returncode == 0, p.stderr
    assert {k: sorted(v) for k, v in sigs.items()} == {k: sorted(v) for k, v in EXPECTED.items()}, p.stderr
    assert p.stdout.count("_host(") == sum(len(v) for v in EXPECTED.values()), p.stdout
    assert "'skipped' has no signature, so no C is emitted" in p.stderr


def test_a_given_signature_wins_over_the_calls():
    """--sig types the function as before; its calls are not read for it."""
    p, sigs = emit(SAMPLE, "--sig", "total(int32[::1])")
    assert p.returncode == 0, p.stderr
    assert "total" not in sigs and "corner" in sigs, p.stderr
    assert "void total_host(p2c_array<int32_t, 1> a, " in p.stdout and p.stdout.count("total_") == 2, p.stdout


def test_the_types_are_numbas():
    """The file run under Numba: every signature emit took from a call is one that Numba's
    dispatcher compiled for the same call (the texts read as Numba's types)."""
    if not has_numba():
        pytest.skip("Numba (Debian's python3-numba) is not installed")
    _, sigs = emit(SAMPLE)
    check = "\n".join([
        "import runpy, sys, numba",
        "ns = dict(vars(numba.types), bool=numba.types.boolean)",
        "g = runpy.run_path(%r, run_name='__main__')" % SAMPLE,
        "for name, texts in %r.items():" % sigs,
        "    got = {tuple(s) for s in g[name].signatures}",
        "    want = {tuple(eval('(' + t + ',)', ns)) for t in texts}",
        "    print(name, want <= got, sorted(map(str, want - got)), file=sys.stderr)",
        "    assert want <= got, (name, want, got)",
    ])
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([ORACLE, "-c", check], cwd=HERE, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stderr.count(" True ") == len(EXPECTED), p.stderr
