"""Differential tests of @vectorize(target='cuda') ufuncs: `pyk2cuda run --device sim` against
NumPy. Numba 0.56's CUDA simulator cannot build CUDA ufuncs (see cases/ufuncs.py), so each
case's expected output is a NumPy formula applied to the same inputs; it checks the result's
values, dtype (the signature chosen) and shape (NumPy broadcasting).

    /usr/bin/python3 tests/diff/run_ufunc_diff.py --pyk2cuda build/tools/pyk2cuda
Prints `ok NAME` / `FAIL NAME: reason` per case and `N passed, N failed`; exit 1 on a failure."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = os.path.join(HERE, "cases", "ufuncs.py")


def rng_array(rng, dtype, shape, lo=-100, hi=100):
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-10, 10, size=shape).astype(dtype)
    return rng.integers(lo, hi, size=shape).astype(dtype)


def cases(rng):
    """(name, ufunc, inputs (arrays or (text, value) scalars), expected array, float tolerance)."""
    f32 = lambda *s: rng_array(rng, np.float32, s)
    f64 = lambda *s: rng_array(rng, np.float64, s)
    hyp = lambda a, b: np.sqrt(a * a + b * b)
    a, b = f32(100), f32(100)
    yield "hypot2_f32_same_shape", "hypot2", [a, b], hyp(a, b), 2e-7
    a, b = f64(3, 4), f64(3, 4)
    yield "hypot2_f64_2d", "hypot2", [a, b], hyp(a, b), 1e-15
    a, b = f64(2, 3, 4), f64(4)
    yield "hypot2_broadcast_missing_dims", "hypot2", [a, b], hyp(a, b), 1e-15
    a, b = f32(5, 1), f32(1, 6)
    yield "hypot2_broadcast_size1", "hypot2", [a, b], hyp(a, b), 2e-7
    a = f32(7)
    yield "hypot2_scalar_f32", "hypot2", [a, ("1.5", 1.5)], hyp(a, np.float32(1.5)), 2e-7
    a = f64(9)
    # an int scalar with a float64 array: no signature takes an int64 exactly; the array's
    # dtype decides (Numba's rule: arrays are never converted, scalars are)
    yield "hypot2_int_scalar_to_f64", "hypot2", [a, ("2", 2)], hyp(a, 2.0), 1e-15
    a = f64(6)[::2]   # a strided input
    yield "hypot2_strided", "hypot2", [a, ("0.5", 0.5)], hyp(a, 0.5), 1e-15
    a, b = rng_array(rng, np.int64, (64,), -1000, 1000), rng_array(rng, np.int64, (64,), -20, 20)
    b[b == 0] = 7
    yield "floormod_python_sign", "floormod", [a, b], np.mod(a, b), 0
    a = rng_array(rng, np.int32, (4, 5))
    yield "clamp_neg_int32", "clamp_neg", [a], np.maximum(a, 0), 0
    a = f64(0)
    yield "hypot2_empty", "hypot2", [a, a], hyp(a, a), 0


def run_case(exe, work, name, ufunc, inputs, want, tol):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    args = []
    for k, v in enumerate(inputs):
        if isinstance(v, tuple):
            args.append(v[0])
        else:
            path = os.path.join(d, f"arg{k}.npy")
            np.save(path, v)
            args.append(path)
    cmd = [exe, "run", FILE, ufunc, "--device", "sim", "--out-dir", d] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return f"pyk2cuda exited with {p.returncode}: {p.stderr.strip()[-400:]}"
    got = np.load(os.path.join(d, "out.npy"), allow_pickle=False)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}"
    bad = ~np.isclose(got, want, rtol=tol, atol=0) if tol else got != want
    if bad.any():
        i = np.argwhere(bad)[0]
        return f"index {list(i)}: pyk2cuda {got[tuple(i)]!r}, NumPy {want[tuple(i)]!r}; {int(bad.sum())} differ"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    opts = ap.parse_args()
    rng = np.random.default_rng(5)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, ufunc, inputs, want, tol in cases(rng):
            err = run_case(opts.pyk2cuda, work, name, ufunc, inputs, want, tol)
            print(f"ok {name}" if err is None else f"FAIL {name}: {err}")
            passed += err is None
            failed += err is not None
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
