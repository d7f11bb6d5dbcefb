"""The simulator's checker from Python: PYK2CUDA_SANITIZE=1 in the environment of a program
makes its launches run under --sanitize (docs/simulator.md, "Sanitizer")."""
import os
import textwrap

from conftest import run_script

RACY = textwrap.dedent("""\
    import numpy as np
    import pyk2cuda
    from pyk2cuda import cuda


    @cuda.jit
    def nearest(points, centroids, out):
        c = cuda.shared.array(1, dtype=np.float32)
        i = cuda.grid(1)
        best = 1e30
        for k in range(centroids.shape[0]):
            if cuda.threadIdx.x == 0:
                c[0] = centroids[k]
            cuda.syncthreads()
            d = abs(points[i] - c[0])
            if d < best:
                best = d
            SECOND_BARRIER
        out[i] = best


    out = np.zeros(64, np.float32)
    try:
        nearest[1, 64](np.arange(64, dtype=np.float32), np.arange(4, dtype=np.float32), out)
    except pyk2cuda.Error as e:
        print("ERROR", e.status_name)
        print(e)
    else:
        print("OK", out[5])
""")


def run_racy(tmp_path, barrier, env):
    path = tmp_path / "racy.py"
    path.write_text(RACY.replace("SECOND_BARRIER", "cuda.syncthreads()" if barrier else "pass"))
    return run_script([str(path)], env={"PYK2CUDA_DEVICE": "sim", **env})


def test_environment_turns_the_checker_on(tmp_path):
    rc, out, err = run_racy(tmp_path, False, {"PYK2CUDA_SANITIZE": "1"})
    assert rc == 0, err
    assert out.startswith("ERROR sanitize"), out
    assert "racy.py:15:29: error: shared-memory race on 'c' at index 0" in out
    assert "racy.py:13:13 by thread (0,0,0)" in out
    assert "sanitize: 1 error in kernel 'nearest': 1 shared-memory race" in out


def test_fixed_kernel_is_clean_and_right(tmp_path):
    rc, out, err = run_racy(tmp_path, True, {"PYK2CUDA_SANITIZE": "1"})
    assert rc == 0 and out == "OK 2.0\n", (out, err)


def test_off_by_default(tmp_path):
    env = {"PYK2CUDA_SANITIZE": "0"}
    rc, out, err = run_racy(tmp_path, False, env)
    assert rc == 0 and out.startswith("OK"), (out, err)
