"""numba-cuda on the same GPU, the same kernels and sizes as bench/gpu.c.

    python3 bench/numba_gpu.py [--reps N]

The sample kernels are imported from samples/ (they are written for numba.cuda) and compiled by
numba-cuda for the device; each is timed as bench/gpu.c times pyk2cuda's: the median of N launches
(default 20, after 3 warm-ups), each between two CUDA events, on the same launch configurations
and array sizes. Launch overhead: the host time of one launch of an empty kernel with no
arguments, median of 5 rounds of 20,000 launches, as bench/gpu.c measures p2c_gpu_kernel_launch.
Prints a Markdown table to set beside bench/gpu.c's in bench/RESULTS.md. Needs numba-cuda and a
GPU; exits 77 without one. Not a test: numba-cuda is never a test dependency.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(ROOT, "samples"), HERE]


def median_ms(cuda, launch, reps):
    """Median time of one launch in ms, each between its own pair of events."""
    for _ in range(3):
        launch()
    times = []
    start, end = cuda.event(), cuda.event()
    for _ in range(reps):
        start.record()
        launch()
        end.record()
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end))
    return statistics.median(times)


def launch_overhead_us(cuda, empty):
    """Host microseconds per launch of an empty kernel (median of 5 rounds)."""
    n = 20000
    kernel = empty[1, 1]
    for _ in range(1000):
        kernel()
    rounds = []
    for _ in range(5):
        cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            kernel()
        cuda.synchronize()
        rounds.append((time.perf_counter() - t0) * 1e6 / n)
    return statistics.median(rounds)


def uniform(n, seed):
    """n uniforms in [0, 1). bench/gpu.c fills its inputs with its own generator; none of these
    kernels' times depends on the values, only on the sizes, which are the same."""
    import numpy as np

    return np.random.default_rng(seed).random(n)


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args(argv)
    try:
        import numpy as np
        import numba
        from numba import cuda
        if not cuda.is_available():
            print("bench/numba_gpu: skipped: numba-cuda sees no GPU")
            return 77
    except ImportError as e:
        print(f"bench/numba_gpu: skipped: {e}")
        return 77
    import great_circle
    import kernels
    import matmul
    import normalize
    import smooth
    import vecadd

    try:
        import numba_cuda
        version = numba_cuda.__version__
    except ImportError:
        version = "?"
    dev = cuda.get_current_device()
    print(f"## numba-cuda {version} (numba {numba.__version__}) on {dev.name.decode() if isinstance(dev.name, bytes) else dev.name}")
    print(f"\n### Launch overhead: empty kernel, host time per launch\n")
    print(f"| path | us per launch |\n|---|---:|")
    print(f"| numba-cuda `empty[1, 1]()` | {launch_overhead_us(cuda, kernels.empty):.3f} |")

    reps = args.reps
    rows = []
    n = 1 << 24
    a = cuda.to_device((uniform(n, 1) * 2000).astype(np.int32) - 1000)
    c = cuda.device_array(n, dtype=np.float64)
    rows.append(("vecadd, 2^24", median_ms(cuda, lambda: vecadd.vecadd[n // 256, 256](a, a, c), reps)))

    x = cuda.to_device((2 * uniform(n, 2) - 1).astype(np.float32))
    partials = cuda.device_array(1024, dtype=np.float32)
    total = cuda.to_device(np.ones(1, dtype=np.float32))
    rows.append(("partial_sums, 2^24",
                 median_ms(cuda, lambda: normalize.partial_sums[1024, 256](x, partials), reps)))
    rows.append(("divide, 2^24", median_ms(cuda, lambda: normalize.divide[1024, 256](x, total), reps)))

    side = 4096
    sx = cuda.to_device(((uniform(side * side, 3) * 2000).astype(np.int32) - 1000).reshape(side, side))
    so = cuda.device_array((side, side), dtype=np.int32)
    rows.append(("smooth_gpu, 4096x4096",
                 median_ms(cuda, lambda: smooth.smooth_gpu[(side // 32, side // 32), (32, 32)](sx, so), reps)))

    gd = cuda.device_array((side, side), dtype=np.float64)
    rows.append(("great_circle, 4096x4096",
                 median_ms(cuda, lambda: great_circle.great_circle[(side // 16, side // 16), (16, 16)](gd, 48.8566, 2.3522), reps)))

    dim = 2048
    A = cuda.to_device((2 * uniform(dim * dim, 4) - 1).astype(np.float32).reshape(dim, dim))
    C = cuda.device_array((dim, dim), dtype=np.float32)
    rows.append(("matmul, 2048x2048",
                 median_ms(cuda, lambda: matmul.matmul[(dim // 16, dim // 16), (16, 16)](A, A, C), reps)))

    print(f"\n### Samples on numba-cuda, median of {reps} launches\n")
    print("| kernel | numba-cuda ms |\n|---|---:|")
    for name, ms in rows:
        print(f"| {name} | {ms:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
