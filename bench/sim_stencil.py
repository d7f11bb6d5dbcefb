#!/usr/bin/python3
"""@stencil on pyk2cuda's simulator against Numba's CPU stencil (issue 33), side by side: the
talk's 9-point smoothing of a 2000x2000 float64 image, the first call (compiling included) and
the median of 11 calls after it, the two sides alternating in separate processes, round after
round.

    cd build && /usr/bin/python3 ../bench/sim_stencil.py [--rounds 3]

Numba's side (Debian's python3-numba) is timed two ways: the stencil called directly, as a
script calls it (Numba types and compiles the stencil again at every such call), and called
inside an @njit function (compiled once: the way Numba's documentation recommends). pyk2cuda's
side is the same file under `python3 -m pyk2cuda`: the stencil called directly (its generated
kernel on the simulator, both cores as workers, host arrays in and a new NumPy array out), with
a cold compile cache in the first round (PYK2CUDA_CACHE_DIR, a new folder) and the cache's
copy after. Prints each round's figures and the medians."""
import argparse
import ast
import os
import statistics
import subprocess
import sys
import tempfile
import time


def smooth(x):
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] + x[0, -1] + x[0, 0] + x[0, 1] +
            x[1, -1] + x[1, 0] + x[1, 1]) / 9


def timed(call):
    """(the first call's seconds, the median of 11 later calls' seconds)."""
    t0 = time.perf_counter()
    call()
    first = time.perf_counter() - t0
    times = []
    for _ in range(11):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def measure(side):
    """This process's figures: {name: (first ms, median ms)}."""
    import numpy as np
    import numba
    img = np.random.default_rng(1).random((2000, 2000))
    s = numba.stencil(smooth)
    got = {}
    if side == "numba":
        inside = numba.njit(lambda x: s(x))
        got["direct"] = timed(lambda: s(img))
        got["in_njit"] = timed(lambda: inside(img))
    else:
        got["direct"] = timed(lambda: s(img))
    print(repr({k: (a * 1e3, b * 1e3) for k, (a, b) in got.items()}))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--side":
        return measure(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    runs = {"numba": [], "pyk2cuda": []}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPATH=os.path.join(os.getcwd(), "python"), PYK2CUDA_CACHE_DIR=cache)
        numba_env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
        for r in range(a.rounds):
            for side, cmd, e in (("numba", [sys.executable, __file__, "--side", "numba"], numba_env),
                                 ("pyk2cuda", [sys.executable, "-m", "pyk2cuda", __file__, "--side", "pyk2cuda"], env)):
                p = subprocess.run(cmd, env=e, capture_output=True, text=True, check=True)
                runs[side].append(ast.literal_eval(p.stdout.strip().splitlines()[-1]))
                print(r, side, {k: "first %.1f ms, median %.2f ms" % v for k, v in runs[side][-1].items()}, flush=True)
    for side, name in (("numba", "direct"), ("numba", "in_njit"), ("pyk2cuda", "direct")):
        later = statistics.median(g[name][1] for g in runs[side])
        print("%-8s %-8s first call %.1f ms (round 0), then %.1f ms (later rounds' median), "
              "median of later calls %.2f ms" % (side, name, runs[side][0][name][0],
                                                  statistics.median(g[name][0] for g in runs[side][1:]) if a.rounds > 1 else float("nan"),
                                                  later))


if __name__ == "__main__":
    main()
