#!/usr/bin/python3
"""Does a prange loop of an @njit(parallel=True) function use several cores? (issue 33)

    PYTHONPATH=build/python /usr/bin/python3 bench/prange_cores.py [--workers 1,2] [--repeat 5]

For each worker count (PYK2CUDA_SIM_THREADS), a child process compiles `smooth_rows` (the
talk's 3x3 smoothing with its outer loop a prange, 2000x2000 float64) and calls it --repeat
times after a warm-up call. The parent samples the child's /proc/PID/task (the threads alive)
and /proc/PID/stat (user+system CPU) every millisecond, and reports per count: the most threads
seen at once, the child's CPU seconds over its wall seconds during the calls (about 1 for one
core, up to the worker count on an idle machine), and the median call. The figures describe
the machine's load as much as the code: say the load average with them (bench/RESULTS.md)."""
import argparse
import os
import subprocess
import sys
import time

CHILD = r'''
import os, sys, time, statistics
import numpy as np
import pyk2cuda

@pyk2cuda.njit(parallel=True)
def smooth_rows(x, out):
    for i in pyk2cuda.prange(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1] + x[i, j] +
                         x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) / 9

x = np.random.default_rng(1).random((2000, 2000))
out = np.zeros_like(x)
smooth_rows(x, out)
sys.stdout.write("ready\n")
sys.stdout.flush()
sys.stdin.readline()
times = []
for _ in range(int(sys.argv[1])):
    t = time.perf_counter()
    smooth_rows(x, out)
    times.append(time.perf_counter() - t)
print(statistics.median(times))
'''


def cpu_seconds(pid):
    """utime + stime of process pid, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threads(pid):
    try:
        return len(os.listdir("/proc/%d/task" % pid))
    except FileNotFoundError:
        return 0


def measure(workers, repeat):
    env = dict(os.environ, PYK2CUDA_SIM_THREADS=str(workers))
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(repeat)], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    base_threads, cpu0, t0 = threads(p.pid), cpu_seconds(p.pid), time.perf_counter()
    most, cpu1 = base_threads, cpu0
    p.stdin.write("\n")
    p.stdin.flush()
    while p.poll() is None:
        most = max(most, threads(p.pid))
        try:
            cpu1 = cpu_seconds(p.pid)
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.001)
    wall = time.perf_counter() - t0
    median = float(p.stdout.read().strip())
    return most - base_threads + 1, (cpu1 - cpu0) / wall, median


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print("load average %.2f %.2f %.2f, %d CPUs" % (os.getloadavg() + (os.cpu_count(),)))
    print("| workers | threads running the loop (most seen) | CPU s / wall s | median call s |")
    print("|---:|---:|---:|---:|")
    for w in [int(v) for v in args.workers.split(",")]:
        most, ratio, median = measure(w, args.repeat)
        print("| %d | %d | %.2f | %.4f |" % (w, most, ratio, median))


main()
