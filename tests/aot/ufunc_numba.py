#!/usr/bin/env python3
"""The bundle's ufuncs against Numba's (tests/aot/run_aot.py runs it with the oracle Python).

    ufunc_numba.py samples/aot/ufuncs.py DIR

DIR holds what samples/aot/ufunc.c wrote: each launcher's inputs and outputs (NAME.bin). The
sample's Python is compiled by Numba's own vectorize and guvectorize with target="cpu" (Numba's CUDA simulator
cannot build CUDA ufuncs; the CPU target compiles the same function with the same typing and the
same integer and float semantics), called on the same inputs with the launcher's signature (NumPy
would choose the first loop its inputs cast to safely: float64's for int32), and its results must
equal the bundle's bit for bit."""
import os
import sys

import numpy as np


def numba_ufuncs(path):
    text = open(path).read()
    if text.count('target="cuda"') != 3:
        sys.exit("%s: expected three target=\"cuda\" decorators" % path)
    scope = {"__name__": "ufuncs_cpu"}
    exec(compile(text.replace('target="cuda"', 'target="cpu"'), path, "exec"), scope)
    return scope


def main():
    sample, folder = sys.argv[1], sys.argv[2]
    u = numba_ufuncs(sample)
    load = lambda name, dtype: np.fromfile(os.path.join(folder, name + ".bin"), dtype=dtype)
    clip = lambda code, t: u["clipped_diff"](load("x_" + code, t), load("y_" + code, t), signature=(t, t, t))
    cases = [("clipped_diff float32", clip("f32", np.float32), load("out_f32", np.float32)),
             ("clipped_diff float64", clip("f64", np.float64), load("out_f64", np.float64)),
             ("clipped_diff int32", clip("i32", np.int32), load("out_i32", np.int32)),
             ("collatz_step int64", u["collatz_step"](load("n_i64", np.int64), signature=(np.int64, np.int64)),
              load("out_i64", np.int64)),
             ("row_dot (a gufunc)", u["row_dot"](load("a_dot", np.float32).reshape(1000, 7),
                                                 load("b_dot", np.float32).reshape(1000, 7)),
              load("out_dot", np.float32))]
    bad = 0
    for what, want, got in cases:
        if want.dtype != got.dtype or want.shape != got.shape or want.tobytes() != got.tobytes():
            diff = np.flatnonzero(want != got)
            print("FAIL: %s: Numba %s %s, the bundle %s %s; first difference at %s" %
                  (what, want.dtype, want.shape, got.dtype, got.shape, diff[:1]))
            bad += 1
    print("%d of %d ufunc launchers equal Numba's ufuncs (%d elements each; the gufunc's %d rows)" %
          (len(cases) - bad, len(cases), len(cases[0][2]), len(cases[-1][2])))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
