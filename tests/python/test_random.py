"""numba.cuda.random (pyk2cuda.cuda.random; docs/python.md): the generators' states and draws
against Numba's own, bit for bit where Numba's simulator computes what a GPU computes."""
import os

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
from pyk2cuda.cuda.random import xoroshiro128p_normal_float32, xoroshiro128p_uniform_float32
from conftest import HERE, run_script
from test_samples import ORACLE, has_numba

SCRIPT = os.path.join(HERE, "random_kernels.py")


def test_module_names():
    import pyk2cuda.cuda.random as r
    assert cuda.random is r
    assert r.xoroshiro128p_dtype == np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
    assert str(r.xoroshiro128p_type) == "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)"


def test_states_are_distinct_and_subsequences_line_up():
    # Numba's test_create and test_create_subsequence_start.
    s1 = cuda.random.create_xoroshiro128p_states(10, seed=1).copy_to_host()
    s2 = cuda.random.create_xoroshiro128p_states(10, seed=1, subsequence_start=3).copy_to_host()
    assert len(np.unique(s1)) == 10
    np.testing.assert_array_equal(s1[3:], s2[:-3])


@cuda.jit
def uniform_and_normal(states, u, z):
    t = cuda.grid(1)
    for k in range(32):
        u[t * 32 + k] = xoroshiro128p_uniform_float32(states, t)
        z[t * 32 + k] = xoroshiro128p_normal_float32(states, t)


def test_uniform_and_normal_moments():
    # Numba's check_uniform and check_normal, on 2048 draws of each.
    states = cuda.random.create_xoroshiro128p_states(64, seed=1)
    u, z = np.zeros(2048, np.float32), np.zeros(2048, np.float32)
    uniform_and_normal[2, 32](states, u, z)
    assert abs(u.mean() - 0.5) < 1.5e-2 and u.min() >= 0 and u.max() < 1
    assert abs(u.std() - 1 / (2 * np.sqrt(3))) < 6e-3
    assert abs(z.mean()) < 0.06 and abs(z.std() - 1) < 0.05


def _run(env_extra, out, via_pyk2cuda):
    args = ["-m", "pyk2cuda", SCRIPT, out] if via_pyk2cuda else [SCRIPT, out]
    return run_script(args, env=env_extra)


@pytest.mark.skipif(not has_numba(), reason="Numba's simulator (Debian's python3-numba) is not installed")
def test_same_streams_as_numbas_simulator(tmp_path):
    import subprocess
    ours, theirs = str(tmp_path / "ours.npz"), str(tmp_path / "numba.npz")
    rc, out, err = _run({"PYK2CUDA_DEVICE": "sim"}, ours, True)
    assert rc == 0 and "random draws: ok" in out, out + err
    p = subprocess.run([ORACLE, SCRIPT, theirs], cwd=HERE, capture_output=True, text=True,
                       env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"), timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    a, b = np.load(ours), np.load(theirs)
    for key in ("first", "other", "after", "raw", "u32", "u64"):
        assert a[key].dtype == b[key].dtype, key
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    # The simulator takes math.log and math.cos of a float32 in double precision; compiled code
    # (Numba's and ours) uses the float32 functions: the normals agree to float32 rounding.
    np.testing.assert_allclose(a["n32"], b["n32"], rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(a["n64"], b["n64"], rtol=2e-6, atol=2e-6)
