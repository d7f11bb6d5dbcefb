#!/usr/bin/env python3
"""tests/aot/types.py's kernels in Numba's CUDA simulator against a bundle's (run_aot.py runs it
with the oracle Python; it sets NUMBA_ENABLE_CUDASIM=1 itself).

    types_numba.py tests/aot/types.py DIR

DIR holds what tests/aot/types.c wrote (NAME.bin: each kernel's inputs and results). Each kernel
is launched here as types.c launches it, on the same inputs (the scalars are types.c's), and its
results must equal the bundle's bit for bit."""
import os
import sys

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

N, BLOCK = 1000, 128
GRID = (N + BLOCK - 1) // BLOCK


def main():
    source, folder = sys.argv[1], sys.argv[2]
    k = {"__name__": "types"}
    exec(compile(open(source).read(), source, "exec"), k)
    load = lambda name, dtype: np.fromfile(os.path.join(folder, name + ".bin"), dtype=dtype)
    results = []

    z = load("cmul_z", np.complex64)
    out = np.zeros(N, np.complex128)
    k["cmul"][GRID, BLOCK](out, z, np.complex128(1.5 - 0.75j))
    results.append(("cmul (complex64, complex128)", out, load("cmul_out", np.complex128)))

    h = load("hscale_h", np.float16)
    out = np.zeros(N, np.float16)
    k["hscale"][GRID, BLOCK](h, np.float16(0.5), out)
    results.append(("hscale (float16)", out, load("hscale_out", np.float16)))

    t = load("shift_t0", "M8[s]")
    since = np.zeros(N, "m8[s]")
    k["shift"][GRID, BLOCK](t, np.timedelta64(-86400, "s"), since)
    results.append(("shift t (datetime64[s])", t, load("shift_t", "M8[s]")))
    results.append(("shift since (timedelta64[s])", since, load("shift_since", "m8[s]")))

    out = np.zeros(N, np.float64)
    k["affine"][GRID, BLOCK](out, (np.int32(3), np.float64(0.25)), (np.float32(1.5), np.float32(-2)))
    results.append(("affine (tuples)", out, load("affine_out", np.float64)))

    bad = [what for what, want, got in results if want.dtype != got.dtype or want.tobytes() != got.tobytes()]
    for what in bad:
        print("FAIL: %s differs from Numba's CUDA simulator" % what)
    print("%d of %d kernel results equal Numba's CUDA simulator's" % (len(results) - len(bad), len(results)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
