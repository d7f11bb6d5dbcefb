#!/usr/bin/env python3
"""bench/batch_program.py: NVRTC's CPU time for N separately signed kernels of one module, compiled
for the GPU as one program (the Python package's batching, cuda.Kernel._batch) against one
program each (batching off). Needs a GPU path: a GPU, or the driver stand-in:

  PYK2CUDA_LIBCUDA=build/tests/standin/libcuda.so.1 PYK2CUDA_DEVICE=gpu \\
      PYTHONPATH=build/python /usr/bin/python3 bench/batch_program.py [--kernels 6] [--rounds 5]

Each round runs both ways, alternating, each in a fresh process with an empty compile cache:
the module (written to a temporary folder) is imported, then every kernel's GPU module is
compiled and loaded (through its cooperative-launch query, which loads it without a launch);
the figure is the process's own CPU time for that step (NVRTC runs in the process; the
translation of the merged module counts on the batched side). Prints the medians."""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

KERNEL = '''
@cuda.jit("void(float32[::1], float32[::1], float32)")
def k{i}(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        v = x[i] * a + {i}
        for j in range({i} + 2):
            v = math.sin(v) * 0.5 + v * 0.25
        out[i] = v
'''


def write_module(folder, n):
    path = os.path.join(folder, "bench_batch_mod.py")
    with open(path, "w") as f:
        f.write("import math\nfrom pyk2cuda import cuda\n")
        for i in range(n):
            f.write(KERNEL.format(i=i))
    return folder


def child(folder, n, batched):
    """Imports the module, compiles every kernel for the GPU; prints the CPU seconds that took."""
    import warnings
    warnings.simplefilter("ignore")
    from pyk2cuda import cuda
    if not batched:
        cuda.Kernel._batch = lambda self: None
    sys.path.insert(0, folder)
    import bench_batch_mod as m
    kernels = [getattr(m, "k%d" % i) for i in range(n)]
    t0 = resource.getrusage(resource.RUSAGE_SELF)
    for k in kernels:
        k._cooperative(0, 32, 0)
    t1 = resource.getrusage(resource.RUSAGE_SELF)
    print((t1.ru_utime + t1.ru_stime) - (t0.ru_utime + t0.ru_stime))


def one_run(folder, n, batched):
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYK2CUDA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, __file__, "--child", folder, "--kernels", str(n)]
                             + ([] if batched else ["--no-batch"]), env=env, check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        return float(out.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--child")
    ap.add_argument("--no-batch", action="store_true")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.kernels, not a.no_batch)
    with tempfile.TemporaryDirectory() as folder:
        write_module(folder, a.kernels)
        times = {True: [], False: []}
        for _ in range(a.rounds):
            for batched in (True, False):
                times[batched].append(one_run(folder, a.kernels, batched))
    one, apart = statistics.median(times[True]), statistics.median(times[False])
    print("| %d signed kernels | one program | %d programs | ratio |" % (a.kernels, a.kernels))
    print("|---|---:|---:|---:|")
    print("| CUBIN, CPU s (median of %d) | %.3f | %.3f | %.2fx |" % (a.rounds, one, apart, apart / one))
    print("rounds: one program %s; apart %s" % (times[True], times[False]))


if __name__ == "__main__":
    main()
