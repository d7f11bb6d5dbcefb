#!/usr/bin/python3
"""@njit functions on the CPU: pyk2cuda against Numba's CPU JIT (issue 33), side by side in one
run, on the talk's two functions: `sum` (a loop over a 1-d array returning a float) and the
2-D smoothing (the mean of each 3x3 neighbourhood into an output array, 2000x2000 float64);
then the same smoothing returning a new array (`smooth_new`: np.zeros_like in the function),
and `parallel=True` forms against Numba's `njit(parallel=True)`: the sum as a prange reduction
(`sum_prange`) and the smoothing with its outer loop a prange (`smooth_prange`).

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
Both sides' results are compared first (exactly: they add in the same order; the prange sum's
chunks add in another order than Numba's threads, so it is compared to 1e-9 relative).
--only NAME,... runs some of the functions."""
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


def smooth_new(x):
    out = np.zeros_like(x)
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1] + x[i, j] +
                         x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) / 9
    return out


def sum_prange(a):
    s = 0.0
    for i in prange(a.shape[0]):   # noqa: F821 (the compiler's prange: defined() gives it)
        s += a[i]
    return s


def smooth_prange(x, out):
    for i in prange(1, x.shape[0] - 1):   # noqa: F821
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1] + x[i, j] +
                         x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) / 9


# name: (function, its decorator's options)
FUNCS = {"sum": (sum_, {}), "smooth": (smooth, {}), "smooth_new": (smooth_new, {}),
         "sum_prange": (sum_prange, {"parallel": True}), "smooth_prange": (smooth_prange, {"parallel": True})}


def small_args(name):
    if name.startswith("sum"):
        return (np.arange(16.0),)
    x = np.arange(16.0).reshape(4, 4)
    return (x,) if name == "smooth_new" else (x, np.zeros_like(x))


def full_args(name):
    rng = np.random.default_rng(33)
    if name.startswith("sum"):
        return (rng.random(10_000_000),)
    x = rng.random((2000, 2000))
    return (x,) if name == "smooth_new" else (x, np.zeros_like(x))


def compiler(which):
    if which == "numba":
        import numba
        return numba
    import pyk2cuda
    return pyk2cuda


def defined(which, name, nonce):
    """Function `name` compiled by `which`, defined anew from its source with `nonce` in a comment
    (a text no cache has seen when the nonce is new) and that compiler's prange."""
    module = compiler(which)   # pyk2cuda keeps the text of strings exec'd after its import
    func, options = FUNCS[name]
    src = "# %s\n%s" % (nonce, inspect.getsource(func))
    ns = {"np": np, "prange": module.prange}
    exec(compile(src, "<bench %s %s>" % (name, nonce), "exec"), ns)
    return module.njit(**options)(ns[func.__name__])


def same(name, got, args):
    """Whether both compilers' results agree (the result, or the output argument)."""
    if name == "sum":
        return got["numba"] == got["pyk2cuda"]
    if name == "sum_prange":
        return abs(got["numba"] - got["pyk2cuda"]) <= 1e-9 * abs(got["numba"])
    if name == "smooth_new":
        return np.array_equal(got["numba"], got["pyk2cuda"])
    return np.array_equal(args["numba"][1], args["pyk2cuda"][1])


def cpu_seconds():
    """CPU seconds of this process and its finished children (the host compiler's processes)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def child(which, name, nonce):
    """The first call's wall and CPU seconds, in this new process, of the function defined anew
    from its source with `nonce` in a comment: a text no cache has seen (pyk2cuda's compile
    cache keys by the source; its precompiled prelude, made once per cache, is kept)."""
    f = defined(which, name, nonce)
    args = small_args(name)
    t0, c0 = time.perf_counter(), cpu_seconds()
    f(*args)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    tier, why = f._host_tiers()[0][1:] if which == "pyk2cuda" else ("numba", "")
    print("%s %r %r\t%s" % (tier, wall, cpu, why or ""))


def first_call(which, name, cache):
    """(wall, CPU) seconds of a first call in a new process, and the tier that ran it (with why
    not the first, where the first tier could not take the function)."""
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=cache, PYK2CUDA_DEVICE="sim")
    p = subprocess.run([sys.executable, __file__, "--child", which, name, uuid.uuid4().hex], env=env,
                       capture_output=True, text=True, check=True)
    head, _, why = p.stdout.splitlines()[-1].partition("\t")
    tier, wall, cpu = head.split()
    return float(wall), float(cpu), tier + (" (%s)" % why if why else "")


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
    ap.add_argument("--only", help="the functions to run, NAME,... (default: all)")
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    print("| function | Numba first call s (CPU s) | pyk2cuda first call s (CPU s) | first-call CPU ratio "
          "Numba/pyk2cuda | pyk2cuda first-tier run ms | Numba run ms | pyk2cuda run ms | run ratio pyk2cuda/Numba |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    cache = tempfile.mkdtemp(prefix="p2c-bench-")
    first_call("pyk2cuda", "sum", cache)   # the precompiled prelude, made once per cache
    for name in (a.only.split(",") if a.only else FUNCS):
        firsts = {"numba": [], "pyk2cuda": []}
        for _ in range(a.rounds):
            for which in ("numba", "pyk2cuda"):
                firsts[which].append(first_call(which, name, cache))
        fs = {w: defined(w, name, "in process") for w in ("numba", "pyk2cuda")}
        args = {w: full_args(name) for w in fs}
        got = {w: fs[w](*args[w]) for w in fs}
        if not same(name, got, args):
            sys.exit("%s: the results differ: %r" % (name, got))
        tiers = [t for _, _, t in firsts["pyk2cuda"]]
        on_first = fs["pyk2cuda"]._host_tiers()[0][1] == "first"
        first_tier = "%.2f" % (run_time(fs["pyk2cuda"], args["pyk2cuda"], 3) * 1e3) if on_first else "-"
        fs["pyk2cuda"]._host_tiers(True)   # the optimized build, swapped in
        fs["pyk2cuda"](*args["pyk2cuda"])
        assert fs["pyk2cuda"]._host_tiers()[0][1] == "optimized"
        runs = {w: run_time(fs[w], args[w], a.repeat) for w in fs}
        med = {w: [statistics.median(x[k] for x in firsts[w]) for k in (0, 1)] for w in firsts}
        print("| %s | %.3f (%.3f) | %.3f (%.3f) | %.1f | %s | %.2f | %.2f | %.2f |" % (
            name, med["numba"][0], med["numba"][1], med["pyk2cuda"][0], med["pyk2cuda"][1],
            med["numba"][1] / med["pyk2cuda"][1], first_tier,
            runs["numba"] * 1e3, runs["pyk2cuda"] * 1e3, runs["pyk2cuda"] / runs["numba"]))
        print("  (%s: pyk2cuda's first calls ran on: %s)" % (name, ", ".join(sorted(set(tiers)))), file=sys.stderr,
              flush=True)
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
