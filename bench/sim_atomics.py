#!/usr/bin/python3
"""Atomics on the simulator's workers: a histogram on one worker and on two, side by side in one
run (docs/simulator.md, "Atomics"; issue 29's target: at least 1.5x faster on two workers than on
one; results in bench/RESULTS.md).

    /usr/bin/python3 bench/sim_atomics.py --pyk2cuda build/tools/pyk2cuda [--baseline OTHER/pyk2cuda]
                                          [--rounds 7] [--repeat 11] [--no-valgrind]

For each kernel below and each build (--baseline: another build of pyk2cuda, e.g. of the commit
before, measured in the same rounds), on PYK2CUDA_SIM_THREADS=1 and 2, interleaved round by round:

- the kernel's wall time per launch: the median, over the rounds, of `run --repeat N --time`'s
  median launch;
- the CPU time per launch (user + system, all threads): the CPU time of a run with --repeat N
  minus that of a run with --repeat 1, over N - 1, median over the rounds. On a shared machine
  the wall times depend on what else runs; CPU time does less, and shows what the workers spend
  fighting over cache lines (2 workers' CPU time over 1 worker's: 1.0 when nothing is shared);
- instructions per element (valgrind's callgrind inside sim_launch, one worker, at two sizes, the
  difference over the difference in elements).

Kernels (int32 data, 256 bins, uniformly random bins, 2^24 elements, 4096 x 256 threads):
histogram (cuda.atomic.add into the global histogram from every thread) and histogram_shared (a
histogram per block in shared memory, then 256 atomics per block into the global one).
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "sim_atomics_kernels.py")
BINS = 256
LAUNCH = ["--grid", "4096", "--block", "256"]


def run(pyk2cuda, kernel, data, threads, work, extra=(), valgrind=False):
    """Runs the kernel; returns (stderr, CPU seconds of the child)."""
    env = dict(os.environ, PYK2CUDA_SIM_THREADS=str(threads))
    env.pop("PYK2CUDA_SIM_FIBERS", None)
    cmd = [pyk2cuda, "run", KERNELS, kernel, "--device", "sim", "--out-dir", work] + LAUNCH + list(extra)
    cmd += [data, f"zeros:int32[{BINS}]"]
    if valgrind:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=sim_launch"] + cmd
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r.stderr, cpu


def check(work, data, launches):
    """The histogram the kernel left equals NumPy's, times the launches."""
    want = np.bincount(np.load(data), minlength=BINS).astype(np.int32) * launches
    got = np.load(os.path.join(work, "hist.npy"))
    if not np.array_equal(got, want):
        sys.exit(f"wrong histogram in {work}")


def measure(opts, pyk2cuda, kernel, data, threads, work):
    """(median launch ms, CPU ms per launch) of one round."""
    err, cpu_n = run(pyk2cuda, kernel, data, threads, work, ["--time", "--repeat", str(opts.repeat)])
    check(work, data, opts.repeat)
    ms = float(re.search(r"kernel \(median\)\s+([0-9.]+)", err).group(1))
    _, cpu_1 = run(pyk2cuda, kernel, data, threads, work)
    return ms, (cpu_n - cpu_1) * 1e3 / (opts.repeat - 1)


def instructions(pyk2cuda, kernel, small, large, work):
    counts = []
    for data in (small, large):
        run(pyk2cuda, kernel, data, 1, work)   # fill the cache
        err, _ = run(pyk2cuda, kernel, data, 1, work, valgrind=True)
        counts.append(int(re.search(r"Collected : (\d+)", err).group(1)))
    return (counts[1] - counts[0]) / (len(np.load(large)) - len(np.load(small)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--baseline", help="another build's pyk2cuda, measured in the same rounds")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--no-valgrind", action="store_true")
    opts = ap.parse_args()
    builds = [("this build", opts.pyk2cuda)] + ([("baseline", opts.baseline)] if opts.baseline else [])
    rng = np.random.default_rng(29)
    with tempfile.TemporaryDirectory() as work:
        data = {}
        for name, n in (("timed", 1 << 24), ("small", 1 << 20), ("large", 1 << 21)):
            data[name] = os.path.join(work, f"{name}.npy")
            np.save(data[name], rng.integers(0, BINS, n).astype(np.int32))
        print(f"load average at start: {os.getloadavg()[0]:.1f}")
        print("| kernel | build | instructions / element | 1 worker ms | 2 workers ms | speed-up | "
              "CPU ms, 1 worker | CPU ms, 2 workers | CPU 2 / CPU 1 |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for kernel in ("histogram", "histogram_shared"):
            samples = {(b, t): [] for b, _ in builds for t in (1, 2)}
            for name, exe in builds:
                run(exe, kernel, data["timed"], 1, work)   # fill the cache
            for _ in range(opts.rounds):
                for name, exe in builds:
                    for threads in (1, 2):
                        samples[(name, threads)].append(measure(opts, exe, kernel, data["timed"], threads, work))
            for name, exe in builds:
                ins = "-" if opts.no_valgrind else f"{instructions(exe, kernel, data['small'], data['large'], work):.1f}"
                ms = [statistics.median(s[0] for s in samples[(name, t)]) for t in (1, 2)]
                cpu = [statistics.median(s[1] for s in samples[(name, t)]) for t in (1, 2)]
                print(f"| {kernel} | {name} | {ins} | {ms[0]:.1f} | {ms[1]:.1f} | {ms[0] / ms[1]:.2f}x | "
                      f"{cpu[0]:.1f} | {cpu[1]:.1f} | {cpu[1] / cpu[0]:.2f} |", flush=True)
        print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
