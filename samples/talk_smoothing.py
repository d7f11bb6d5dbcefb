# talk_smoothing.py -- one 2-D smoothing three ways, as a talk on Numba shows it: a CPU function
# with @numba.jit, the same with @numba.stencil, and a numba.cuda.jit kernel; and the talk's
# `sum` loop with @jit. Each is timed (after a first call that compiles) and the three images
# must be equal bit for bit: every way adds the nine neighbours in the same order.
#
# Run it with pyk2cuda, unchanged (the CPU functions compiled by pyk2cuda for the CPU, the
# stencil and the kernel on the GPU when there is one, else on pyk2cuda's simulator):
#   python3 -m pyk2cuda samples/talk_smoothing.py [N]        (an N x N image, default 500)
# Run it with Numba (its CPU JIT and stencil, and its CUDA simulator for the kernel):
#   NUMBA_ENABLE_CUDASIM=1 python3 samples/talk_smoothing.py 100
import sys
import time

import numpy as np
import numba
from numba import cuda


@numba.jit(nopython=True)
def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
    return s


@numba.jit(nopython=True)
def smooth_cpu(x, out):
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1] + x[i, j] +
                         x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) / 9


@numba.stencil
def smooth_stencil(x):
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] + x[0, -1] + x[0, 0] +
            x[0, 1] + x[1, -1] + x[1, 0] + x[1, 1]) / 9


@cuda.jit
def smooth_gpu(x, out):
    i, j = cuda.grid(2)
    if 1 <= i < x.shape[0] - 1 and 1 <= j < x.shape[1] - 1:
        out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] + x[i, j - 1] + x[i, j] +
                     x[i, j + 1] + x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) / 9


def timed(name, call):
    """The call's result, after a first call (which compiles) and a timed one."""
    call()
    t0 = time.perf_counter()
    result = call()
    print("%-16s %8.2f ms" % (name, (time.perf_counter() - t0) * 1e3))
    return result


def run_gpu(img):
    out = np.zeros_like(img)
    grid = ((img.shape[0] + 15) // 16, (img.shape[1] + 15) // 16)
    smooth_gpu[grid, (16, 16)](img, out)
    return out


def run_cpu(img):
    out = np.zeros_like(img)
    smooth_cpu(img, out)
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    img = np.random.default_rng(7).random((n, n))
    s = timed("sum (@jit)", lambda: total(img))
    cpu = timed("smooth @jit", lambda: run_cpu(img))
    sten = timed("smooth @stencil", lambda: smooth_stencil(img))
    gpu = timed("smooth cuda.jit", lambda: run_gpu(img))
    assert abs(s - img.sum()) <= 1e-9 * n * n, (s, img.sum())
    assert np.array_equal(cpu, sten) and np.array_equal(cpu, gpu)
    assert cpu[1:-1, 1:-1].any() and not cpu[0].any()
    print("talk_smoothing: ok")
