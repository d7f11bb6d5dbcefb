#!/usr/bin/python3
"""The cost of `--sanitize` on the samples: the simulator with and without its checker.

    /usr/bin/python3 bench/sanitize_bench.py --pyk2cuda build/tools/pyk2cuda [--repeat N]
                     [--rounds R] [--markdown] [--baseline OTHER-PYK2CUDA]

Every sample kernel (samples/README.md's commands) runs with `pyk2cuda run --device sim --time
--repeat N` (default 11) three ways: plain, on the workers `run` chooses (the CPUs this
process may use); plain on one worker (PYK2CUDA_SIM_THREADS=1), since the checker runs on one;
and with --sanitize. The figure is the "kernel (median)" line, which times sim_launch only
(each module is compiled, or found in the cache, before). R rounds (default 3) interleave the
three ways; the median of the rounds is printed, with the ratios sanitize / plain and
sanitize / plain on one worker (the goal: under 20 on every sample). A checked run must also
find nothing (exit 0): the samples are clean. Exit status 1 when a sample misses the goal, 2
when a run fails. --baseline adds a fourth way, --sanitize with another build (an older tree, to
compare checkers in the same rounds), and its ratio to plain.
"""
import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, file, kernel, arguments): the samples at the sizes of samples/README.md, larger where
# a launch would take less than a few milliseconds unchecked.
SAMPLES = [
    ("vecadd", "vecadd.py", "vecadd",
     ["--grid", "256", "--block", "256", "arange:int32[65536]", "arange:int32[65536]",
      "zeros:float64[65536]"]),
    ("smooth", "smooth.py", "smooth_gpu",
     ["--grid", "16,16", "--block", "16,16", "ones:int32[256,256]", "zeros:int32[256,256]"]),
    ("partial_sums", "normalize.py", "partial_sums",
     ["--grid", "64", "--block", "256", "ones:float32[100000]", "zeros:float32[64]"]),
    ("total_sum", "normalize.py", "total_sum",
     ["--grid", "1", "--block", "1", "ones:float32[64]", "zeros:float32[1]"]),
    ("divide", "normalize.py", "divide",
     ["--grid", "64", "--block", "256", "ones:float32[100000]", "ones:float32[1]"]),
    ("great_circle", "great_circle.py", "great_circle",
     ["--grid", "16,16", "--block", "16,16", "zeros:float64[256,256]", "48.8566", "2.3522"]),
    ("matmul", "matmul.py", "matmul",
     ["--grid", "8,8", "--block", "16,16", "ones:float32[128,128]", "ones:float32[128,128]",
      "zeros:float32[128,128]"]),
]

WAYS = [("plain", [], {}), ("plain, 1 worker", [], {"PYK2CUDA_SIM_THREADS": "1"}),
        ("sanitize", ["--sanitize"], {})]


def kernel_ms(bin_, sample, flags, env, repeat):
    if isinstance(flags, tuple):   # (another binary, flags)
        bin_, flags = flags
    _, file, kernel, args = sample
    with tempfile.TemporaryDirectory() as out:
        cmd = [bin_, "run", os.path.join("samples", file), kernel, "--device", "sim", "--time",
               "--repeat", str(repeat), "--out-dir", out] + flags + args
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env={**os.environ, **env}, timeout=600)
    err = p.stderr.decode()
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{err}")
    m = re.search(r"kernel \(median\)\s+([\d.]+)", err) or re.search(r"^kernel\s+([\d.]+)", err, re.M)
    if not m:
        sys.exit(f"no kernel time in {err!r}")
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--baseline", help="another pyk2cuda whose --sanitize runs in the same rounds")
    a = ap.parse_args()
    bin_ = os.path.abspath(a.pyk2cuda)
    ways = WAYS + ([("baseline", (os.path.abspath(a.baseline), ["--sanitize"]), {})] if a.baseline else [])
    rows, missed = [], False
    for sample in SAMPLES:
        for _, flags, env in ways:   # compile (or find in the cache) first
            kernel_ms(bin_, sample, flags, env, 1)
        times = {w[0]: [] for w in ways}
        for _ in range(a.rounds):
            for name, flags, env in ways:
                times[name].append(kernel_ms(bin_, sample, flags, env, a.repeat))
        med = {k: statistics.median(v) for k, v in times.items()}
        r_plain, r_one = med["sanitize"] / med["plain"], med["sanitize"] / med["plain, 1 worker"]
        missed |= r_plain >= 20
        row = [sample[0], med["plain"], med["plain, 1 worker"], med["sanitize"], r_plain, r_one]
        if a.baseline:
            row += [med["baseline"], med["baseline"] / med["plain"]]
        rows.append(row)
    print(f"{platform.node()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"kernel (median of {a.repeat}) ms, median of {a.rounds} rounds")
    head = ["sample", "plain", "plain, 1 worker", "sanitize", "sanitize / plain", "sanitize / 1 worker"]
    if a.baseline:
        head += ["baseline sanitize", "baseline / plain"]
    cells = [[r[0]] + [f"{v:.3f}" if k in (1, 2, 3, 6) else f"{v:.1f}x" for k, v in enumerate(r[1:], 1)]
             for r in rows]
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for c in cells:
            print("| " + " | ".join(c) + " |")
    else:
        print(" ".join(f"{h:>{max(14, len(h))}}" for h in head))
        for c in cells:
            print(" ".join(f"{v:>{max(14, len(h))}}" for v, h in zip(c, head)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
