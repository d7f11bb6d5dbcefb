#!/usr/bin/python3
"""`pyk2cuda run --device gpu|auto` and `pyk2cuda info` end to end on the fake CUDA driver.

    /usr/bin/python3 tests/fakecuda/cli_fake.py --pyk2cuda PATH --fake PATH/libfakecuda.so

The fake driver (fakecuda.c) runs C versions of samples/vecadd.py's and
tests/fakecuda/kernels.py's kernels over host memory, so these checks cover the command
line's whole GPU path on a machine without a GPU: NVRTC and the compile cache, the copies in
and out, the --time table, exit codes and messages. Prints `ok NAME` or `FAIL NAME: why`,
then `N passed, N failed`; exits 1 if anything failed.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VECADD = os.path.join(ROOT, "samples", "vecadd.py")
KERNELS = os.path.join(HERE, "kernels.py")
VECADD_ARGS = ["--grid", "4", "--block", "256", "arange:int32[1000]", "arange:int32[1000]",
               "zeros:float64[1000]"]


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


class Runner:
    def __init__(self, opts):
        self.opts = opts
        self.work = tempfile.mkdtemp(prefix="pyk2cuda-fake-")
        self.cache = os.path.join(self.work, "cache")

    def run(self, args, env=None, libcuda=None):
        e = dict(os.environ)
        e["PYK2CUDA_CACHE_DIR"] = self.cache
        e["PYK2CUDA_LIBCUDA"] = libcuda or self.opts.fake
        e.pop("FAKECUDA_FAIL", None)
        e.pop("FAKECUDA_DEVICES", None)
        e.update(env or {})
        p = subprocess.run([self.opts.pyk2cuda] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=e, timeout=300, cwd=self.work)
        return p.returncode, p.stdout, p.stderr

    def out(self, name):
        return os.path.join(self.work, name)


def expect(rc, err, want_rc, *parts):
    check(rc == want_rc, f"exit status {rc}, expected {want_rc}; stderr: {err.strip()}")
    for part in parts:
        check(part in err, f"expected {part!r} in stderr: {err.strip()}")


def vecadd_ok(r, out_dir):
    c = np.load(os.path.join(out_dir, "c.npy"))
    check(np.array_equal(c, 2.0 * np.arange(1000)), f"wrong c: {c[:4]}...")


def time_table(err):
    rows = {}
    for line in err.splitlines():
        parts = line.rsplit(None, 1)
        if len(parts) == 2:
            try:
                rows[parts[0].strip()] = float(parts[1])
            except ValueError:
                pass
    return rows


def test_run_gpu(r):
    d = r.out("gpu")
    rc, _, err = r.run(["run", VECADD, "vecadd", "--device", "gpu", "--out-dir", d, "--time"]
                       + VECADD_ARGS)
    expect(rc, err, 0)
    vecadd_ok(r, d)
    rows = time_table(err)
    for name in ("compile", "module load", "host to device", "kernel", "device to host"):
        check(name in rows, f"no {name!r} row in the --time table: {err}")
    # The fake clock: 3 arrays copied between two events = 0.25 * (1 + 3) ms.
    check(rows["host to device"] == 1.0, f"host to device {rows['host to device']}")
    check(rows["kernel"] == 1.25, f"kernel {rows['kernel']}")


def test_second_run_hits_cache(r):
    d = r.out("again")
    args = ["run", VECADD, "vecadd", "--device", "gpu", "--out-dir", d, "--time"] + VECADD_ARGS
    r.run(args)
    # The dynamic loader's log (LD_DEBUG=files) shows whether NVRTC was even loaded: a cache
    # hit must not load it (its dlopen alone costs milliseconds).
    rc, _, err = r.run(args, env={"LD_DEBUG": "files"})
    expect(rc, err, 0, "compile (cache hit)")
    check("libnvrtc" not in err, "NVRTC was loaded for a cache hit")
    vecadd_ok(r, d)
    rc, _, err = r.run(args + ["--no-cache"], env={"LD_DEBUG": "files"})
    expect(rc, err, 0)
    check("cache hit" not in err, f"--no-cache hit the cache: {err}")
    check("libnvrtc" in err, "the loader log does not show NVRTC being loaded without the cache")


def test_repeat(r):
    d = r.out("repeat")
    rc, _, err = r.run(["run", VECADD, "vecadd", "--device", "gpu", "--out-dir", d, "--time",
                        "--repeat", "5"] + VECADD_ARGS)
    expect(rc, err, 0, "kernel (min)", "kernel (median)")
    vecadd_ok(r, d)


def test_auto_uses_gpu(r):
    d = r.out("auto")
    rc, _, err = r.run(["run", VECADD, "vecadd", "--device", "auto", "--out-dir", d] + VECADD_ARGS)
    expect(rc, err, 0, "running on the GPU (CUDA device 0)")
    vecadd_ok(r, d)


def test_no_device(r):
    d = r.out("nodev")
    args = ["run", VECADD, "vecadd", "--out-dir", d] + VECADD_ARGS
    rc, _, err = r.run(args + ["--device", "gpu"], env={"FAKECUDA_DEVICES": "0"})
    expect(rc, err, 3, "pyk2cuda: no CUDA device found")
    rc, _, err = r.run(args + ["--device", "auto"], env={"FAKECUDA_DEVICES": "0"})
    expect(rc, err, 0, "no CUDA device found; running on the simulator")
    vecadd_ok(r, d)


def test_no_driver(r):
    d = r.out("nodrv")
    args = ["run", VECADD, "vecadd", "--out-dir", d] + VECADD_ARGS
    rc, _, err = r.run(args + ["--device", "gpu"], libcuda="/nonexistent/libcuda.so.1")
    expect(rc, err, 3, "no CUDA driver found: PYK2CUDA_LIBCUDA=/nonexistent/libcuda.so.1")
    rc, out, err = r.run(["info"], libcuda="/nonexistent/libcuda.so.1")
    expect(rc, out, 0, "no CUDA driver found", "no GPU: the simulator will run kernels")


def test_driver_errors(r):
    d = r.out("fail")
    args = ["run", VECADD, "vecadd", "--device", "gpu", "--out-dir", d] + VECADD_ARGS
    rc, _, err = r.run(args, env={"FAKECUDA_FAIL": "cuLaunchKernel:1:719"})
    expect(rc, err, 3, "launching kernel 'vecadd' of " + VECADD + " with grid (4,1,1), block "
           "(256,1,1): cuLaunchKernel(",
           "CUDA_ERROR_LAUNCH_FAILED")
    rc, _, err = r.run(args, env={"FAKECUDA_FAIL": "cuMemAlloc_v2:2:2"})
    expect(rc, err, 3, "CUDA_ERROR_OUT_OF_MEMORY", "cuMemAlloc(")
    check(not os.path.exists(os.path.join(d, "c.npy")), "outputs written after a failure")


def test_launch_limits(r):
    rc, _, err = r.run(["run", VECADD, "vecadd", "--device", "gpu", "--grid", "1", "--block",
                        "2048", "arange:int32[10]", "arange:int32[10]", "zeros:float64[10]",
                        "--out-dir", r.out("limits")])
    expect(rc, err, 2, "cannot launch kernel 'vecadd': block (2048,1,1) exceeds the limits of "
                       "Fake GPU 0")


def test_layouts(r):
    """A Fortran-ordered .npy input reaches the kernel with its own strides."""
    x = np.asfortranarray(np.arange(35, dtype=np.float64).reshape(5, 7) - 10)
    path = r.out("x_f.npy")
    np.save(path, x)
    d = r.out("layout")
    rc, _, err = r.run(["run", KERNELS, "scale2d", "--device", "gpu", "--grid", "1,1",
                        "--block", "8,8", "zeros:float64[5,7]", path, "float64:2.5",
                        "--out-dir", d])
    expect(rc, err, 0)
    out = np.load(os.path.join(d, "out.npy"))
    check(np.array_equal(out, x * 2.5), f"wrong out:\n{out}")
    got_x = np.load(os.path.join(d, "x.npy"))
    check(np.array_equal(got_x, x), "x changed")


def test_check_bounds(r):
    """--check-bounds on the GPU: the failure record read back, the diagnostic, no outputs."""
    d = r.out("bounds")
    args = ["run", KERNELS, "oob", "--device", "gpu", "--check-bounds", "--grid", "2",
            "--block", "8", "zeros:int32[8]", "--out-dir", d]
    rc, _, err = r.run(args)
    expect(rc, err, 3, f"{KERNELS}:38:5: error: index 8 is out of bounds for axis 0 with size 8 "
                       "(array of shape (8,)) in kernel 'oob', thread (0,0,0) of block (1,0,0)")
    check(not os.path.exists(os.path.join(d, "x.npy")), "outputs written after a bounds failure")
    rc, _, err = r.run(args[:7] + ["1"] + args[8:])  # one block: in bounds
    expect(rc, err, 0)
    x = np.load(os.path.join(d, "x.npy"))
    check(np.array_equal(x, np.arange(8)), f"wrong x: {x}")


def test_info(r):
    rc, out, err = r.run(["info"])
    expect(rc, err, 0)
    for part in ("pyk2cuda ", "NVRTC ", "CUDA driver: 13.0", "device 0: Fake GPU 0",
                 "compute capability: 9.0 (sm_90)", "multiprocessors: 132"):
        check(part in out, f"expected {part!r} in info:\n{out}")


TESTS = [test_run_gpu, test_second_run_hits_cache, test_repeat, test_auto_uses_gpu,
         test_no_device, test_no_driver, test_driver_errors, test_launch_limits, test_layouts,
         test_check_bounds, test_info]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--fake", required=True)
    opts = ap.parse_args()
    opts.pyk2cuda = os.path.abspath(opts.pyk2cuda)
    opts.fake = os.path.abspath(opts.fake)
    r = Runner(opts)
    passed = failed = 0
    for t in TESTS:
        name = t.__name__[5:]
        try:
            t(r)
            passed += 1
            print(f"ok {name}", flush=True)
        except (Failure, OSError, ValueError, subprocess.TimeoutExpired) as exc:
            failed += 1
            print(f"FAIL {name}: {exc}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
