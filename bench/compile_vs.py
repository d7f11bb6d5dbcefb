"""Compile time side by side (issue 14): per sample kernel, in fresh processes, interleaved,

    cold       `pyk2cuda ptx --no-cache` (translation + NVRTC, to PTX)
    NVRTC      the same emitted CUDA C compiled by NVRTC alone with the same options
               (build/bench/compile_paths nvrtc), the floor `ptx` is held to (goal <= 1.1x)
    warm       `pyk2cuda ptx` with the entry in the compile cache (a whole process)
    numba      numba-cuda's `compile_ptx` in a fresh Python, import included (--numba-python)

and in one process: a cache hit inside the library (p2c_module_compile, goal <= 0.5 ms) and a
second, uncached compile of the same module (compile_paths inproc), with numba-cuda's second
`compile_ptx` of the same function beside it.

    python3 bench/compile_vs.py --build build [--numba-python VENV/bin/python] [--rounds 9]

numba-cuda lives in a virtual environment, never beside pyk2cuda: `python3 scripts/conformance.py
--suite numba-cuda --setup` makes (or upgrades) the one the conformance run uses,
build/numba-cuda-venv, and prints its python for --numba-python (numba-cuda compiles PTX without
a GPU, with the CUDA toolkit's NVVM). Prints Markdown for bench/RESULTS.md; medians in ms.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CASES = [
    ("samples/vecadd.py", "vecadd(int32[::1], int32[::1], float64[::1])"),
    ("samples/smooth.py", "smooth_gpu(int32[:, ::1], int32[:, ::1])"),
    ("samples/normalize.py", "partial_sums(float32[::1], float32[::1])"),
    ("samples/great_circle.py", "great_circle(float64[:, ::1], float64, float64)"),
    ("samples/matmul.py", "matmul(float32[:, ::1], float32[:, ::1], float32[:, ::1])"),
    ("bench/kernels.py", "block_sum(float32[::1], float32[::1])"),
    ("bench/kernels.py", "empty()"),  # NVRTC's floor: the smallest program pyk2cuda makes
]

NUMBA_PTX = os.path.join(ROOT, "bench", "numba_ptx.py")


def wall_ms(cmd, env):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1e3


def nvrtc_phases(paths, cu, arch, work, env, repeat=5):
    """Medians of NVRTC's own report of its phases (--time): front end, NVVM optimizer, in ms."""
    fe, opt = [], []
    csv = os.path.join(work, "phases.csv")
    for _ in range(repeat):
        if os.path.exists(csv):
            os.remove(csv)
        subprocess.run([paths, "nvrtc", cu, arch, f"--time={csv}"], check=True, env=env)
        phases = {l.split(",")[1].strip(): float(l.split(",")[2])
                  for l in open(csv).read().splitlines()[1:]}
        fe.append(phases.get("CUDA C++ Frontend", 0.0))
        opt.append(phases.get("NVVM Optimizer", 0.0))
    return statistics.median(fe), statistics.median(opt)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--numba-python")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args(argv)
    os.chdir(ROOT)
    p2c = os.path.join(a.build, "tools", "pyk2cuda")
    paths = os.path.join(a.build, "bench", "compile_paths")
    work = tempfile.mkdtemp(prefix="p2c-compile-vs-")
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(work, "cache"))
    rows = []
    for path, sig in CASES:
        name = sig[:sig.index("(")]
        cu = os.path.join(work, name + ".cu")
        subprocess.run([p2c, "emit", path, "-k", name, "--sig", sig, "-o", cu], check=True)
        ptx = [p2c, "ptx", path, "-k", name, "--sig", sig, "--arch", a.arch, "-o", os.devnull]
        runs = {
            "cold": ptx + ["--no-cache"],
            "nvrtc": [paths, "nvrtc", cu, a.arch],
            "warm": ptx,
        }
        if a.numba_python:
            runs["numba"] = [a.numba_python, NUMBA_PTX, path, name, "void" + sig[len(name):],
                             a.arch]
        wall_ms(ptx, env)  # fills the cache entry that "warm" reads
        if "numba" in runs and subprocess.run(runs["numba"], capture_output=True).returncode != 0:
            # numba-cuda needs a CUDA driver for some kernels (great_circle's device function)
            print(f"numba-cuda cannot compile {name} here; its column is left empty", file=sys.stderr)
            del runs["numba"]
        t = {k: [] for k in runs}
        for _ in range(a.rounds):
            for k, cmd in runs.items():
                t[k].append(wall_ms(cmd, env))
        med = {k: statistics.median(v) for k, v in t.items()}
        out = subprocess.run([paths, "inproc", path, sig, a.arch, "21"], check=True, env=env,
                             capture_output=True, text=True).stdout.split()
        inproc = dict(zip(out[::2], map(float, out[1::2])))
        numba_second = None
        if "numba" in runs:
            r = subprocess.run([a.numba_python, NUMBA_PTX, path, name, "void" + sig[len(name):],
                                a.arch, "--repeat", "5"], capture_output=True, text=True)
            numba_second = float(r.stdout) if r.returncode == 0 else None
        rows.append((name, med, inproc, numba_second, nvrtc_phases(paths, cu, a.arch, work, env)))

    print(f"### Compile to PTX ({a.arch}): medians of {a.rounds} interleaved rounds, fresh processes, ms\n")
    print("| kernel | cold `ptx` | NVRTC alone | cold / NVRTC | warm `ptx` (cache) | numba-cuda cold | numba / cold |"
          " hit in library | 2nd compile, ours | 2nd compile, numba-cuda |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, m, ip, ns, _ in rows:
        numba = m.get("numba")
        numba_cold = "-" if numba is None else f"{numba:.0f}"
        speedup = "-" if numba is None else f"{numba / m['cold']:.0f}x"
        second = "-" if ns is None else f"{ns:.1f}"
        print(f"| {name} | {m['cold']:.1f} | {m['nvrtc']:.1f} | {m['cold'] / m['nvrtc']:.2f} | "
              f"{m['warm']:.1f} | {numba_cold} | {speedup} | {ip['hit_ms']:.3f} | "
              f"{ip['second_ms']:.1f} | {second} |")
    print(f"\n### Where NVRTC's time goes (its --time report), medians of 5, ms\n")
    print("| kernel | C++ front end | NVVM optimizer |\n|---|---:|---:|")
    for name, _, _, _, (fe, opt) in rows:
        print(f"| {name} | {fe:.0f} | {opt:.0f} |")
    subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
