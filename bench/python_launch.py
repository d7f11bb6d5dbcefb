#!/usr/bin/env python3
"""bench/python_launch.py: the host cost of one launch from Python of a kernel with three array
arguments (bench/launch_kernels.py add3, grid 1, block 32), beside the C API's own launch call
(build/bench/launch_c), and on a GPU beside numba-cuda launching the same kernel.

  PYTHONPATH=build/python python3 bench/python_launch.py [--device sim|gpu] [--numba]

Prints medians over 21 batches of the time per launch in microseconds:
  kern[1, 32](a, b, c)   the configuration made at each launch, as scripts usually write it
  launcher(a, b, c)      a configured launcher kept (l = kern[1, 32]), the launch path alone
  launch_c               the C API's call (p2c_module_launch on the simulator; pack +
                         p2c_gpu_kernel_launch on the GPU) with the same arrays
On the simulator each launch also runs the 32 simulated threads, in both figures alike, so
the difference is the package's own cost. --numba (GPU): numba-cuda's launch of the same
kernel with its own device arrays, in a separate process."""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCHES = 21


def per_launch(fn, n):
    fn()
    times = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(times)


def bench_pyk2cuda(device, n):
    os.environ["PYK2CUDA_DEVICE"] = device
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import numpy as np
    from pyk2cuda import cuda
    from launch_kernels import add3
    a, b = cuda.to_device(np.ones(32, np.float32)), cuda.to_device(np.ones(32, np.float32))
    c = cuda.device_array(32, np.float32)
    launcher = add3[1, 32]
    sync = cuda.synchronize
    each = per_launch(lambda: add3[1, 32](a, b, c), n)
    kept = per_launch(lambda: launcher(a, b, c), n)
    sync()
    assert (c.copy_to_host() == 2).all()
    return each, kept


NUMBA = r"""
import statistics, time, numpy as np
from numba import cuda
@cuda.jit
def add3(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
a, b = cuda.to_device(np.ones(32, np.float32)), cuda.to_device(np.ones(32, np.float32))
c = cuda.device_array(32, np.float32)
add3[1, 32](a, b, c); cuda.synchronize()
def med(fn, n):
    ts = []
    for _ in range(21):
        t0 = time.perf_counter()
        for _ in range(n): fn()
        ts.append((time.perf_counter() - t0) / n * 1e6)
        cuda.synchronize()
    return statistics.median(ts)
l = add3[1, 32]
print("%.3f %.3f" % (med(lambda: add3[1, 32](a, b, c), N), med(lambda: l(a, b, c), N)))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="sim", choices=["sim", "gpu"])
    ap.add_argument("--numba", action="store_true")
    ap.add_argument("-n", type=int, default=2000, help="launches per batch")
    ap.add_argument("--launch-c", default=os.path.join(ROOT, "build", "bench", "launch_c"))
    args = ap.parse_args()
    each, kept = bench_pyk2cuda(args.device, args.n)
    print("device %s, %d launches per batch, median of %d batches (us per launch)" % (args.device, args.n, BATCHES))
    print("  pyk2cuda kern[1, 32](a, b, c)  %8.3f" % each)
    print("  pyk2cuda launcher(a, b, c)     %8.3f" % kept)
    if os.path.exists(args.launch_c):
        out = subprocess.run([args.launch_c, args.device, str(args.n)], capture_output=True, text=True)
        print("  " + (out.stdout.strip() or out.stderr.strip()))
    if args.numba:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        out = subprocess.run([sys.executable, "-c", "N = %d\n" % args.n + NUMBA], capture_output=True,
                             text=True, env=env)
        if out.returncode == 0:
            e, k = out.stdout.split()
            print("  numba-cuda kern[1, 32](a, b, c) %8s" % e)
            print("  numba-cuda launcher(a, b, c)    %8s" % k)
        else:
            print("  numba-cuda: " + out.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
