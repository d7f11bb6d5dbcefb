"""pyk2cuda.build and Kernel.build (docs/aot.md): the same bundles as `pyk2cuda build`, from a
.py file or from a kernel object with the specializations its launches made; compiled with the
host's C and C++ compilers and run on their simulator part (no driver), checked against NumPy."""
import os
import subprocess

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIM_FLAGS = ["-O2", "-fwrapv", "-fno-strict-aliasing", "-ffp-contract=off", "-fno-math-errno"]


@cuda.jit
def scale(x, a, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * a


PROGRAM = r"""
#include <stdio.h>
#include "scaled.h"
int main(void) {
  float x[100], out[100];
  for (int i = 0; i < 100; i++) x[i] = (float)i * 0.5f - 7.0f;
  int64_t n = 100;
  void *dx, *dout;
  if (scaled_malloc(&dx, sizeof x) || scaled_malloc(&dout, sizeof out) || scaled_upload(dx, x, sizeof x)) return 2;
  if (scaled_scale__f32c1_f32_f32c1(NULL, scaled_dim3_of(4, 1, 1), scaled_dim3_of(32, 1, 1), 0,
        scaled_array_c(dx, scaled_FLOAT32, 1, &n), 2.5f, scaled_array_c(dout, scaled_FLOAT32, 1, &n)))
    return fprintf(stderr, "%s\n", scaled_last_error()), 3;
  if (scaled_download(out, dout, sizeof out)) return 4;
  for (int i = 0; i < 100; i++) printf("%.9g\n", out[i]);
  return 0;
}
"""


def _compile_and_run(tmp_path, name):
    """The bundle `name` in tmp_path with PROGRAM, linked by cc, run without a driver."""
    (tmp_path / "main.c").write_text(PROGRAM)
    subprocess.run(["c++", "-std=c++17", "-c"] + SIM_FLAGS + [str(tmp_path / (name + "_sim.cc")), "-o",
                    str(tmp_path / "sim.o")], check=True)
    subprocess.run(["cc", "-std=c11", "-I", str(tmp_path), str(tmp_path / "main.c"), str(tmp_path / (name + ".c")),
                    str(tmp_path / "sim.o"), "-ldl", "-lpthread", "-lm", "-o", str(tmp_path / "prog")], check=True)
    env = dict(os.environ, PYK2CUDA_LIBCUDA=str(tmp_path / "no-libcuda.so"))
    env.pop("PYK2CUDA_DEVICE", None)
    p = subprocess.run([str(tmp_path / "prog")], env=env, stdout=subprocess.PIPE, text=True, check=True)
    return np.array([float(v) for v in p.stdout.split()], dtype=np.float32)


def test_kernel_build_bundles_the_specializations_launches_made(tmp_path):
    x = np.arange(100, dtype=np.float32) * np.float32(0.5) - np.float32(7)
    out = np.zeros_like(x)
    scale[4, 32](x, np.float32(2.5), out)   # makes scale(float32[::1], float32, float32[::1])
    written = scale.build(tmp_path / "scaled", with_sim=True)
    assert [os.path.basename(p) for p in written] == ["scaled.h", "scaled.c", "scaled_sim.cc"]
    header = (tmp_path / "scaled.h").read_text()
    assert "scale(float32[::1], float32, float32[::1])" in header
    got = _compile_and_run(tmp_path, "scaled")
    np.testing.assert_array_equal(got, out)
    np.testing.assert_array_equal(got, x * np.float32(2.5))


def test_kernel_build_names_the_users_line(tmp_path):
    # The kernel's def on line 3 of its file: the module translated for it has its imports first,
    # so there the def is further down; the header names the user's file and line.
    (tmp_path / "top.py").write_text("from pyk2cuda import cuda\n@cuda.jit('void(int32[::1])')\n"
                                     "def bump(x):\n    x[cuda.grid(1)] += 1\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("aot_top_kernel", str(tmp_path / "top.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.bump.build(tmp_path / "top")
    header = (tmp_path / "top.h").read_text()
    assert "/* bump(int32[::1]), %s:3. */" % (tmp_path / "top.py") in header, header
    assert module.bump._unit.source.decode().splitlines().index("def bump(x):") + 1 != 3


def test_build_from_a_file_with_signatures(tmp_path):
    written = pyk2cuda.build(os.path.join(ROOT, "samples", "vecadd.py"), tmp_path / "v",
                             signatures=["vecadd(int32[::1], int32[::1], float64[::1])",
                                         "vecadd(float32[::1], float32[::1], float32[::1])"],
                             arch=["sm_80", "sm_90"])
    assert len(written) == 2
    header = (tmp_path / "v.h").read_text()
    assert "v_vecadd__i32c1_i32c1_f64c1(" in header and "v_vecadd__f32c1_f32c1_f32c1(" in header
    source = (tmp_path / "v.c").read_text()
    assert "CUBIN for sm_80" in source and "CUBIN for sm_90" in source and "PTX for sm_80" in source


def test_build_errors(tmp_path):
    vecadd = os.path.join(ROOT, "samples", "vecadd.py")
    sig = ["vecadd(int32[::1], int32[::1], float64[::1])"]
    with pytest.raises(pyk2cuda.Error, match="bad bundle name '2x'"):
        pyk2cuda.build(vecadd, tmp_path / "2x", signatures=sig)
    with pytest.raises(pyk2cuda.Error, match="bad architecture 'sm_x'"):
        pyk2cuda.build(vecadd, tmp_path / "v", signatures=sig, arch="sm_x")
    with pytest.raises(pyk2cuda.CompileError):
        pyk2cuda.build(vecadd, tmp_path / "v", signatures=["vecadd(int32[::1])"])
    assert not list(tmp_path.iterdir())
