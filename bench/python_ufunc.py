#!/usr/bin/env python3
"""bench/python_ufunc.py: the host cost of one call of a @vectorize(target='cuda') ufunc from
Python on the simulator: the ufunc of bench/launch_kernels.py (vadd, float32 and float64
signatures) on two arrays of 32 elements, on one array and a scalar, and on two scalars.

  PYTHONPATH=build/python python3 bench/python_ufunc.py [--calls N]

Prints, per case, the median over 21 batches of the time per call in microseconds (after one
warm-up call, which loads the compiled code). Each call also allocates its result, broadcasts,
and runs 256 simulated threads (one block); the figure is the whole call as a script sees it."""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from python_launch import per_launch as per_call   # median microseconds per call, 21 batches


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200, help="calls per batch")
    args = ap.parse_args()
    os.environ["PYK2CUDA_DEVICE"] = "sim"
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import numpy as np
    from launch_kernels import vadd
    x, y = np.arange(32, dtype=np.float32), np.ones(32, np.float32)
    assert (vadd(x, y) == x + y).all()
    for name, fn in (("vadd(x, y)  two float32[32]", lambda: vadd(x, y)),
                     ("vadd(x, 2.0)  array, scalar", lambda: vadd(x, 2.0)),
                     ("vadd(1.0, 2.0)  two scalars", lambda: vadd(1.0, 2.0))):
        print("%-32s %10.1f us per call" % (name, per_call(fn, args.calls)))


if __name__ == "__main__":
    main()
