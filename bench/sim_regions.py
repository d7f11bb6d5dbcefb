#!/usr/bin/python3
"""Kernels with barriers on the simulator: regions against fibers, side by side in one run
(docs/simulator.md, "Regions"; issue 29's targets; results in bench/RESULTS.md).

    /usr/bin/python3 bench/sim_regions.py --pyk2cuda build/tools/pyk2cuda [--repeat 21] [--no-valgrind]

For each kernel below, both paths of the same build: regions (the default) and fibers
(PYK2CUDA_SIM_FIBERS=1, which keeps the fibers for every kernel with barriers):

- instructions per element, counted by valgrind inside the launch (callgrind's count within
  sim_launch, --toggle-collect, one worker, so every block runs on the calling thread) at two
  sizes; the difference divided by the difference in elements, so that the launch's own cost
  cancels out (the whole process would count `run`'s making of the input arrays too, about 75
  instructions per element);
- rates on the machine's cores (PYK2CUDA_SIM_THREADS=2 and 1): the median of the launch times of
  `run --repeat N --time`, as elements (or multiply-adds) per second.

Kernels: block_sum (a grid-stride sum into shared memory, then a tree over the block: issue 29's
block reduction, bench/kernels.py's), block_sum_dev (the same with its tree in a device function,
which the regions inline), warp_sum (a grid-stride sum, then a shfl_down_sync tree per warp: warp
operations as regions), tiled_matmul (samples/matmul.py: 16 x 16 tiles) and
naive_matmul (one thread per element of C, no shared memory) on the same matrices.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "sim_regions_kernels.py")


def run(opts, kernel, launch, args, fibers, threads, extra=(), valgrind=False, work=None):
    env = dict(os.environ, PYK2CUDA_SIM_THREADS=str(threads))
    if fibers:
        env["PYK2CUDA_SIM_FIBERS"] = "1"
    else:
        env.pop("PYK2CUDA_SIM_FIBERS", None)
    cmd = [opts.pyk2cuda, "run", KERNELS, kernel, "--device", "sim", "--out-dir", work] + launch + list(extra) + args
    if valgrind:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=sim_launch"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return r.stderr


def instructions(opts, case, fibers, work):
    counts = []
    for size in case["sizes"]:
        run(opts, case["kernel"], case["launch"](size), case["args"](size), fibers, 1, work=work)   # fill the cache
        err = run(opts, case["kernel"], case["launch"](size), case["args"](size), fibers, 1, valgrind=True, work=work)
        m = re.search(r"Collected : (\d+)", err)
        counts.append(int(m.group(1)))
    small, large = case["sizes"]
    return (counts[1] - counts[0]) / (case["elements"](large) - case["elements"](small))


def rate(opts, case, fibers, threads, work):
    size = case["timed"]
    err = run(opts, case["kernel"], case["launch"](size), case["args"](size), fibers, threads,
              ["--time", "--repeat", str(opts.repeat)], work=work)
    ms = float(re.search(r"kernel \(median\)\s+([0-9.]+)", err).group(1))
    path = re.search(r"simulator path\s+(\S+)", err).group(1)
    return case["elements"](size) / (ms / 1e3), path


def block_sum_case(name):
    # 256 threads per block, each summing its grid-stride share (one element each at these sizes)
    return {"kernel": name, "unit": "elements",
            "launch": lambda n: ["--grid", str(n // 256), "--block", "256"],
            "args": lambda n: [f"ones:float32[{n}]", f"zeros:float32[{n // 256}]"],
            "elements": lambda n: n, "sizes": (1 << 16, 1 << 18), "timed": 1 << 22}


def warp_sum_case():
    # 256 threads per block, one element each at these sizes, one sum per warp
    return {"kernel": "warp_sum", "unit": "elements",
            "launch": lambda n: ["--grid", str(n // 256), "--block", "256"],
            "args": lambda n: [f"ones:float32[{n}]", f"zeros:float32[{n // 32}]"],
            "elements": lambda n: n, "sizes": (1 << 16, 1 << 18), "timed": 1 << 22}


def matmul_case(name):
    return {"kernel": name, "unit": "multiply-adds",
            "launch": lambda n: ["--grid", f"{n // 16},{n // 16}", "--block", "16,16"],
            "args": lambda n: [f"ones:float32[{n},{n}]", f"ones:float32[{n},{n}]", f"zeros:float32[{n},{n}]"],
            "elements": lambda n: n * n * n, "sizes": (64, 128), "timed": 384}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--no-valgrind", action="store_true")
    ap.add_argument("--kernels", help="only these kernels (comma-separated)")
    opts = ap.parse_args()
    cases = [block_sum_case("block_sum"), block_sum_case("block_sum_dev"), warp_sum_case(),
             matmul_case("tiled_matmul"), matmul_case("naive_matmul")]
    if opts.kernels:
        cases = [c for c in cases if c["kernel"] in opts.kernels.split(",")]
    with tempfile.TemporaryDirectory() as work:
        print(f"{'kernel':14} {'path':8} {'instr/unit':>10} {'1 worker':>14} {'2 workers':>14}  (rates: M units/s, median of {opts.repeat})")
        for case in cases:
            for fibers in (True, False):
                ipe = "-" if opts.no_valgrind else f"{instructions(opts, case, fibers, work):.1f}"
                r1, path = rate(opts, case, fibers, 1, work)
                r2, _ = rate(opts, case, fibers, 2, work)
                print(f"{case['kernel']:14} {path:8} {ipe:>10} {r1 / 1e6:14.1f} {r2 / 1e6:14.1f}  ({case['unit']})")
                if case["kernel"] == "naive_matmul":
                    break   # no barriers: one path


if __name__ == "__main__":
    main()
