#!/usr/bin/python3
"""pyk2cuda's CPU simulator against Numba's CUDA simulator, on the sample kernels.

    /usr/bin/python3 bench/sim_vs_numba.py --pyk2cuda build/tools/pyk2cuda
                     [--numba-repeat N] [--repeat N] [--only NAME]... [--markdown]

Every kernel of samples/*.py runs at a size where Numba's simulator (NUMBA_ENABLE_CUDASIM=1,
Debian's python3-numba) needs at least a second, on the same inputs, in the same run:

  - Numba: the kernel launched in this process, `--numba-repeat` times (default 3) after a
    small warm-up launch; the median wall time of `kernel[grid, block](*args)`.
  - pyk2cuda: `pyk2cuda run FILE KERNEL --device sim --repeat N --time` (default N = 101) on
    the same arrays saved as .npy; the "kernel (median)" line, which times sim_launch only (the
    module is compiled or found in the cache before, as Numba's simulator needs no compile).
    Worker threads: the CPUs this process may use, as `run` chooses by default; and, in a
    second column, one worker (PYK2CUDA_SIM_THREADS=1), which no other load on the machine
    can take away.

The outputs of both sides are compared (so both did the same work), then the ratio
Numba / pyk2cuda is printed; the target is 10,000 on every kernel. Kernel output (print) goes
to /dev/null on both sides. Exit status 1 when a kernel misses the target or Numba ran for
less than a second, 2 on a disagreement or a failure to run.
"""
import argparse
import contextlib
import importlib.util
import io
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = 10000.0


def load_sample(name):
    path = os.path.join(ROOT, "samples", name + ".py")
    spec = importlib.util.spec_from_file_location("sample_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


def rng_array(rng, shape, dtype, lo=-1.0, hi=1.0):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(int(lo), int(hi), size=shape, dtype=dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


class Case:
    """A kernel launch: grid, block, and argument builders for the full size and a warm-up."""

    def __init__(self, name, sample, kernel, grid, block, args, small_args, small_grid=(1,),
                 small_block=(1,), tol=0.0):
        self.name, self.sample, self.kernel = name, sample, kernel
        self.grid, self.block, self.args = grid, block, args
        self.small_args, self.small_grid, self.small_block = small_args, small_grid, small_block
        self.tol = tol


def cases():
    rng = np.random.default_rng(2026)
    n = 8192
    yield Case("vecadd", "vecadd", "vecadd", (32,), (256,),
               lambda: [np.arange(n, dtype=np.int32), rng_array(rng, n, np.int32, -1000, 1000),
                        np.zeros(n, np.float64)],
               lambda: [np.arange(4, dtype=np.int32)] * 2 + [np.zeros(4, np.float64)])
    yield Case("smooth", "smooth", "smooth_gpu", (6, 6), (16, 16),
               lambda: [rng_array(rng, (96, 96), np.int32, -1000, 1000),
                        np.zeros((96, 96), np.int32)],
               lambda: [np.ones((4, 4), np.int32), np.zeros((4, 4), np.int32)])
    yield Case("great_circle", "great_circle", "great_circle", (6, 6), (16, 16),
               lambda: [np.zeros((96, 96), np.float64), 48.8566, 2.3522],
               lambda: [np.zeros((4, 4), np.float64), 1.0, 2.0], tol=1e-12)
    yield Case("matmul", "matmul", "matmul", (3, 3), (16, 16),
               lambda: [rng_array(rng, (48, 32), np.float32), rng_array(rng, (32, 48), np.float32),
                        np.zeros((48, 48), np.float32)],
               lambda: [np.ones((4, 4), np.float32)] * 2 + [np.zeros((4, 4), np.float32)],
               small_block=(16, 16), tol=1e-5)
    yield Case("partial_sums", "normalize", "partial_sums", (8,), (256,),
               lambda: [rng_array(rng, 8192, np.float32, 0, 1), np.zeros(8, np.float32)],
               lambda: [np.ones(16, np.float32), np.zeros(1, np.float32)],
               small_block=(256,), tol=1e-6)
    yield Case("total_sum", "normalize", "total_sum", (1,), (1,),
               lambda: [rng_array(rng, 2000000, np.float32, 0, 1), np.zeros(1, np.float32)],
               lambda: [np.ones(16, np.float32), np.zeros(1, np.float32)])
    yield Case("divide", "normalize", "divide", (32,), (256,),
               lambda: [rng_array(rng, 8192, np.float32, 0, 1), np.array([1.5], np.float32)],
               lambda: [np.ones(16, np.float32), np.ones(1, np.float32)])
    yield Case("hello_index", "hello_index", "hello_index", (32,), (256,),
               lambda: [np.zeros(8192, np.int32)],
               lambda: [np.zeros(4, np.int32)])


def fresh(inputs):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in inputs]


def run_numba(case, inputs, repeat):
    mod, _ = load_sample(case.sample)
    kernel = getattr(mod, case.kernel)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        kernel[case.small_grid, case.small_block](*case.small_args())
    times, args = [], None
    for _ in range(repeat):
        args = fresh(inputs)
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            t0 = time.perf_counter()
            kernel[case.grid, case.block](*args)
            times.append(time.perf_counter() - t0)
    return statistics.median(times), args


def dims(t):
    return ",".join(str(x) for x in t)


def run_pyk2cuda(opts, case, inputs, work, threads=None):
    _, path = load_sample(case.sample)
    argv = []
    for k, a in enumerate(inputs):
        if isinstance(a, np.ndarray):
            p = os.path.join(work, f"{case.name}_{k}.npy")
            np.save(p, a, allow_pickle=False)
            argv.append(p)
        else:
            argv.append(repr(float(a)) if isinstance(a, float) else str(a))
    out_dir = os.path.join(work, case.name + "_out")
    cmd = [opts.pyk2cuda, "run", path, case.kernel, "--device", "sim", "--grid", dims(case.grid),
           "--block", dims(case.block)]
    # One launch whose outputs are compared with Numba's; it also compiles the module (or finds
    # it in the cache), so that the timed run is a cache hit.
    p = subprocess.run(cmd + ["--out-dir", out_dir] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"pyk2cuda failed on {case.name}: {p.stderr.decode().strip()}")
    env = dict(os.environ)
    if threads:
        env["PYK2CUDA_SIM_THREADS"] = str(threads)
    p = subprocess.run(cmd + ["--out-dir", out_dir + "_timed", "--repeat", str(opts.repeat),
                              "--time"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=env)
    err = p.stderr.decode()
    m = re.search(r"kernel \(median\)\s+([0-9.]+)", err) or re.search(r"kernel\s+([0-9.]+)", err)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"pyk2cuda failed on {case.name} (exit {p.returncode}): {err.strip()}")
    return float(m.group(1)) / 1e3, out_dir


def same_outputs(case, numba_args, out_dir, pyk_names):
    for name, value in zip(pyk_names, numba_args):
        if not isinstance(value, np.ndarray):
            continue
        got = np.load(os.path.join(out_dir, name + ".npy"))
        if got.shape != value.shape:
            return f"{name}: shape {got.shape} vs {value.shape}"
        if case.tol:
            ok = np.allclose(got, value, rtol=case.tol, atol=case.tol)
        else:
            ok = np.array_equal(got, value)
        if not ok:
            return f"{name}: outputs differ (max |diff| {np.max(np.abs(got - value))})"
    return None


def param_names(case):
    import inspect
    mod, _ = load_sample(case.sample)
    return list(inspect.signature(getattr(mod, case.kernel).py_func).parameters)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--numba-repeat", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=101)
    ap.add_argument("--only", action="append", default=[])
    opts = ap.parse_args()
    opts.pyk2cuda = os.path.abspath(opts.pyk2cuda)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {cpu_name()}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}; Numba median of {opts.numba_repeat}, "
          f"pyk2cuda median of {opts.repeat}")
    print(f"| kernel | grid × block | threads | Numba's simulator, s | pyk2cuda, {os.cpu_count()} "
          "workers, ms | ratio | pyk2cuda, 1 worker, ms | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    worst = 0
    with tempfile.TemporaryDirectory() as work:
        for case in cases():
            if opts.only and case.name not in opts.only:
                continue
            try:
                inputs = case.args()
                nb, nb_args = run_numba(case, inputs, opts.numba_repeat)
                pk, out_dir = run_pyk2cuda(opts, case, inputs, work)
                pk1, _ = run_pyk2cuda(opts, case, inputs, work, threads=1)
                bad = same_outputs(case, nb_args, out_dir, param_names(case))
                if bad:
                    raise RuntimeError(f"pyk2cuda and Numba disagree: {bad}")
            except Exception as exc:  # noqa: BLE001
                print(f"| {case.name} | failed: {exc} |")
                worst = 2
                continue
            threads = int(np.prod(case.grid)) * int(np.prod(case.block))
            ratio, ratio1 = nb / pk, nb / pk1
            flag = "" if ratio >= TARGET and nb >= 1.0 else " **miss**"
            flag1 = "" if ratio1 >= TARGET and nb >= 1.0 else " **miss**"
            print(f"| {case.name} | {dims(case.grid)} × {dims(case.block)} | {threads} | "
                  f"{nb:.2f} | {pk * 1e3:.3f} | {ratio:,.0f}{flag} | {pk1 * 1e3:.3f} | "
                  f"{ratio1:,.0f}{flag1} |", flush=True)
            if flag:
                worst = max(worst, 1)
    return worst


if __name__ == "__main__":
    sys.exit(main())
