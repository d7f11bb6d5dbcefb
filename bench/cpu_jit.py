#!/usr/bin/python3
"""@njit functions on the CPU: pyk2cuda against Numba's CPU JIT (issue 33), side by side in one
run, on the talk's two functions: `sum` (a loop over a 1-d array returning a float) and the
2-D smoothing (the mean of each 3x3 neighbourhood into an output array, 2000x2000 float64).

    PYTHONPATH=build/python /usr/bin/python3 bench/cpu_jit.py [--rounds N] [--repeat N]

Two figures per function and compiler, medians of the rounds:
  - first call: a new process (so nothing is in memory) defines the function anew from its
    source with a new comment (so no cache has it: pyk2cuda's compile cache keys by the source;
    its precompiled prelude, made once per machine, is warm; Numba's cache is off, its default)
    and times the first call on a 16-element input, which is the translation and the compile
    (the run itself is microseconds): wall seconds and CPU seconds (the process and the host
    compiler's processes, which a loaded machine does not inflate); the processes alternate,
    Numba then pyk2cuda, each round;
  - run: in this process, after a warm-up call, the median of --repeat calls on the full input
    (sum: 10,000,000 float64; smoothing: 2000x2000 float64). pyk2cuda's first call runs on the
    first tier (libtcc's code) while the optimized build is made: the median of 3 calls there is
    its own column; then the optimized build is waited for (_host_tiers(True)) and the run
    column is the optimized code's.
Both sides' results are compared first (exactly: they add in the same order)."""
import argparse
import inspect
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def sum_(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


def smooth(x, out):
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1] + x[i, j] +
                         x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) / 9


FUNCS = {"sum": sum_, "smooth": smooth}


def small_args(name):
    if name == "sum":
        return (np.arange(16.0),)
    x = np.arange(16.0).reshape(4, 4)
    return (x, np.zeros_like(x))


def full_args(name):
    rng = np.random.default_rng(33)
    if name == "sum":
        return (rng.random(10_000_000),)
    x = rng.random((2000, 2000))
    return (x, np.zeros_like(x))


def decorator(which):
    if which == "numba":
        import numba
        return numba.njit
    import pyk2cuda
    return pyk2cuda.njit


def cpu_seconds():
    """CPU seconds of this process and its finished children (the host compiler's processes)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def child(which, name, nonce):
    """The first call's wall and CPU seconds, in this new process, of the function defined anew
    from its source with `nonce` in a comment: a text no cache has seen (pyk2cuda's compile
    cache keys by the source; its precompiled prelude, made once per cache, is kept)."""
    jit = decorator(which)   # pyk2cuda keeps the text of strings exec'd after its import
    src = "# %s\n%s" % (nonce, inspect.getsource(FUNCS[name]))
    ns = {}
    exec(compile(src, "<bench %s>" % nonce, "exec"), ns)
    f = jit(ns[FUNCS[name].__name__])
    args = small_args(name)
    t0, c0 = time.perf_counter(), cpu_seconds()
    f(*args)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    tier = f._host_tiers()[0][1] if which == "pyk2cuda" else "numba"
    print(tier, wall, cpu)


def first_call(which, name, cache):
    """(wall, CPU) seconds of a first call in a new process."""
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=cache, PYK2CUDA_DEVICE="sim")
    p = subprocess.run([sys.executable, __file__, "--child", which, name, uuid.uuid4().hex], env=env,
                       capture_output=True, text=True, check=True)
    tier, wall, cpu = p.stdout.split()[-3:]
    return float(wall), float(cpu), tier


def run_time(f, args, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--child", nargs=3)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    print("| function | Numba first call s (CPU s) | pyk2cuda first call s (CPU s) | first-call CPU ratio "
          "Numba/pyk2cuda | pyk2cuda first-tier run ms | Numba run ms | pyk2cuda run ms | run ratio pyk2cuda/Numba |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    cache = tempfile.mkdtemp(prefix="p2c-bench-")
    first_call("pyk2cuda", "sum", cache)   # the precompiled prelude, made once per cache
    for name, func in FUNCS.items():
        firsts = {"numba": [], "pyk2cuda": []}
        for _ in range(a.rounds):
            for which in ("numba", "pyk2cuda"):
                firsts[which].append(first_call(which, name, cache))
        fs = {w: decorator(w)(func) for w in ("numba", "pyk2cuda")}
        args = {w: full_args(name) for w in fs}
        got = {w: fs[w](*args[w]) for w in fs}
        same = got["numba"] == got["pyk2cuda"] if name == "sum" else np.array_equal(args["numba"][1], args["pyk2cuda"][1])
        if not same:
            sys.exit("%s: the results differ: %r" % (name, got))
        tiers = [t for _, _, t in firsts["pyk2cuda"]]
        first_tier = run_time(fs["pyk2cuda"], args["pyk2cuda"], 3) if fs["pyk2cuda"]._host_tiers()[0][1] == "first" else float("nan")
        fs["pyk2cuda"]._host_tiers(True)   # the optimized build, swapped in
        fs["pyk2cuda"](*args["pyk2cuda"])
        assert fs["pyk2cuda"]._host_tiers()[0][1] == "optimized"
        runs = {w: run_time(fs[w], args[w], a.repeat) for w in fs}
        med = {w: [statistics.median(x[k] for x in firsts[w]) for k in (0, 1)] for w in firsts}
        print("| %s | %.3f (%.3f) | %.3f (%.3f) | %.1f | %.2f | %.2f | %.2f | %.2f |" % (
            name, med["numba"][0], med["numba"][1], med["pyk2cuda"][0], med["pyk2cuda"][1],
            med["numba"][1] / med["pyk2cuda"][1], first_tier * 1e3,
            runs["numba"] * 1e3, runs["pyk2cuda"] * 1e3, runs["pyk2cuda"] / runs["numba"]))
        print("  (%s: pyk2cuda's first calls ran on: %s)" % (name, ", ".join(tiers)), file=sys.stderr)
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
