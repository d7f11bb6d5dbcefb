#!/usr/bin/python3
"""Streaming kernels on pyk2cuda's simulator against numba.njit(parallel=True) (issue 29's
target: within 1.5x), side by side: saxpy over 2^24 float32 and a 5-point stencil over
4096x4096 float32 (bench/sim_streaming_kernels.py), each the median of 15 calls after a warm-up,
the two sides alternating in separate processes, round after round.

    cd build && /usr/bin/python3 ../bench/sim_streaming.py [--rounds 5]

One side is Numba's CPU JIT (Debian's python3-numba, both cores through prange), the other the
same file's CUDA kernels under `python3 -m pyk2cuda` (the simulator, both cores as workers,
launched with host arrays, which the simulator reads in place) with cuda.synchronize() in the
timed call. Prints each round's figures and the medians' ratios."""
import argparse
import ast
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(side):
    """This process's figures: {kernel: median ms}, for side 'numba' or 'pyk2cuda'."""
    import numpy as np
    sys.path.insert(0, HERE)
    import sim_streaming_kernels as K
    n = 1 << 24
    rng = np.random.default_rng(1)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    out = np.zeros(n, np.float32)
    u = rng.random((4096, 4096), np.float32)
    o2 = np.zeros_like(u)
    a = np.float32(2.5)
    if side == "numba":
        calls = {"saxpy": lambda: K.saxpy_njit(a, x, y, out), "stencil": lambda: K.stencil5_njit(u, o2)}
    else:
        from numba import cuda   # pyk2cuda's, under python3 -m pyk2cuda
        calls = {"saxpy": lambda: (K.saxpy[n // 256, 256](a, x, y, out), cuda.synchronize()),
                 "stencil": lambda: (K.stencil5[(256, 256), (16, 16)](u, o2), cuda.synchronize())}
    got = {}
    for name, call in calls.items():
        call()
        times = []
        for _ in range(15):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
        got[name] = statistics.median(times) * 1e3
    print(repr(got))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--side":
        return measure(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.join(os.getcwd(), "python"))
    runs = {"numba": [], "pyk2cuda": []}
    for r in range(a.rounds):
        for side, cmd in (("numba", [sys.executable, __file__, "--side", "numba"]),
                          ("pyk2cuda", [sys.executable, "-m", "pyk2cuda", __file__, "--side", "pyk2cuda"])):
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            runs[side].append(ast.literal_eval(p.stdout.strip().splitlines()[-1]))
            print(r, side, runs[side][-1], flush=True)
    for name in ("saxpy", "stencil"):
        nb = statistics.median(g[name] for g in runs["numba"])
        pk = statistics.median(g[name] for g in runs["pyk2cuda"])
        print("%-8s numba.njit(parallel=True) %.2f ms, pyk2cuda simulator %.2f ms: %.2fx" % (name, nb, pk, pk / nb))


if __name__ == "__main__":
    main()
