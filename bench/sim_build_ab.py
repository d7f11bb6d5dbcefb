#!/usr/bin/python3
"""Side-by-side cost of the simulator's cold host builds: two pyk2cuda binaries, same cases.

    /usr/bin/python3 bench/sim_build_ab.py --a OLD/tools/pyk2cuda --b NEW/tools/pyk2cuda \
        [--rounds 3] [--filter 'f*' ...] [--jobs 2]

Each round runs the diff suite's runner (tests/diff/run_diff.py, with --check-bounds and
--sanitize: three host builds per case, as in CI) once with A and once with B, each with a cold,
private cache, A and B alternating so that a machine's changing load falls on both. Prints, per
binary, the median over rounds of the wall time and of the CPU time of the runner and everything
it waited for (user + sys: the oracle's share is the same for both, so a difference is
pyk2cuda's), and B's medians as a fraction of A's. Used for bench/RESULTS.md's "Simulator host
builds" section.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_DIFF = os.path.join(HERE, "..", "tests", "diff", "run_diff.py")


def one_run(binary, filters, jobs):
    """(wall s, cpu s) of one diff-runner pass over the cases with a cold cache."""
    cache = tempfile.mkdtemp(prefix="p2c-ab-cache-")
    cmd = [sys.executable, RUN_DIFF, "--pyk2cuda", binary, "--check-bounds", "--sanitize",
           "--jobs", str(jobs)]
    for f in filters:
        cmd += ["--filter", f]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=dict(os.environ, PYK2CUDA_CACHE_DIR=cache),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(cache, ignore_errors=True)
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    if p.returncode != 0:
        sys.exit(f"{binary}: the runner failed ({last})")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="the baseline pyk2cuda binary")
    ap.add_argument("--b", required=True, help="the pyk2cuda binary compared with it")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", action="append", default=[],
                    help="case filter passed to run_diff.py (repeatable; default: every case)")
    opts = ap.parse_args()
    results = {"A": [], "B": []}
    for r in range(opts.rounds):
        for name, binary in (("A", opts.a), ("B", opts.b)):
            wall, cpu, last = one_run(binary, opts.filter, opts.jobs)
            results[name].append((wall, cpu))
            print(f"round {r + 1} {name}: {wall:7.1f} s wall {cpu:7.1f} s cpu ({last})", flush=True)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in results.items()}
    for k in ("A", "B"):
        print(f"median {k}: {med[k][0]:.1f} s wall, {med[k][1]:.1f} s cpu")
    print(f"B/A: wall {med['B'][0] / med['A'][0]:.2f}, cpu {med['B'][1] / med['A'][1]:.2f}")


if __name__ == "__main__":
    main()
