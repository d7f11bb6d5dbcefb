#!/usr/bin/env python3
"""tests/aot/kinds.py's kernels in Numba's CUDA simulator against a bundle's (run_aot.py runs it
with the oracle Python; it sets NUMBA_ENABLE_CUDASIM=1 itself).

    kinds_numba.py tests/aot/kinds.py DIR

DIR holds what tests/aot/kinds.c wrote (NAME.bin: each kernel's inputs and results). Each kernel
is launched here as kinds.c launches it (grid, block, dynamic shared memory, scalars), on the
same inputs, and its results must equal the bundle's bit for bit."""
import os
import sys

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

N, BLOCK = 1000, 128
GRID = (N + BLOCK - 1) // BLOCK


def main():
    source, folder = sys.argv[1], sys.argv[2]
    k = {"__name__": "kinds"}
    exec(compile(open(source).read(), source, "exec"), k)
    load = lambda name, dtype: np.fromfile(os.path.join(folder, name + ".bin"), dtype=dtype)
    results = []

    x = load("scale_x", np.float32)
    out = np.zeros(N, np.float32)
    k["scale"][GRID, BLOCK](x, out, np.float32(1.5))
    results.append(("scale (blocks)", out, load("scale_out", np.float32)))

    x = load("stride_x", np.int32)
    out = np.zeros(N, np.int32)
    k["stride_scale"][3, 64](x, out)
    results.append(("stride_scale (lockstep)", out, load("stride_out", np.int32)))

    x = load("block_x", np.int64)
    sums = np.zeros(GRID, np.int64)
    k["block_sum"][GRID, BLOCK, 0, BLOCK * 8](x, sums)
    results.append(("block_sum (regions)", sums, load("block_sums", np.int64)))

    # Numba's simulator runs a grid's blocks one after another, so its grid sync orders nothing
    # across blocks: the comparison is of kinds.c's one-block launch (its many-block one is
    # checked against C there).
    x = load("grid1_x", np.float32)
    out, total = np.zeros(N, np.float32), np.zeros(1, np.float32)
    k["grid_rotate"][1, N](x, out, total)
    results.append(("grid_rotate out (grid regions)", out, load("grid1_out", np.float32)))
    results.append(("grid_rotate total (grid regions)", total, load("grid1_total", np.float32)))

    # warp_reduce is checked against C in kinds.c only: Numba's simulator has no warp shuffles
    x = load("ring_x", np.int32)
    out = np.zeros(N, np.int64)
    k["ring"][GRID, BLOCK](x, out)
    results.append(("ring (fibers)", out, load("ring_out", np.int64)))

    bad = [what for what, want, got in results if want.dtype != got.dtype or want.tobytes() != got.tobytes()]
    for what in bad:
        print("FAIL: %s differs from Numba's CUDA simulator" % what)
    print("%d of %d kernel results equal Numba's CUDA simulator's" % (len(results) - len(bad), len(results)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
