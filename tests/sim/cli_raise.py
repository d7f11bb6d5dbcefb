#!/usr/bin/python3
"""Command-line tests of raise and assert in kernels (docs/semantics.md, "raise and assert"),
on the simulator.

    /usr/bin/python3 tests/sim/cli_raise.py --pyk2cuda BIN

Each case runs `pyk2cuda run` on tests/sim/raises.py and checks the exit status, the exact
diagnostic on stderr, and the outputs: with debug=True (or --check-bounds) a failed assert or
raise is reported and nothing is written; without, the failing thread leaves its kernel and the
others finish. Prints one line per case and ends with 'N passed, N failed'."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILE = "tests/sim/raises.py"


def run(bin_, args, out_dir):
    p = subprocess.run([bin_, "run", FILE] + args + ["--device", "sim", "--out-dir", out_dir],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stderr.decode()


def line_of(text, after):
    """The line of FILE where `text` first appears after the line holding `after` (cases whose
    kernels sit below others keep their place when those grow)."""
    with open(os.path.join(ROOT, FILE)) as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if after in l)
    return next(i for i, l in enumerate(lines) if i > start and text in l) + 1


def raised(line, col, exc, kernel, thread):
    return f"{FILE}:{line}:{col}: error: {exc} in kernel '{kernel}', thread {thread} of block (0,0,0)\n"


def cases(tmp):
    neg = os.path.join(tmp, "neg.npy")
    np.save(neg, np.array([4.0, 9.0, -1.0, 16.0], np.float32))
    roots = np.sqrt(np.arange(8.0))
    quiet = roots.copy()
    quiet[3] = 0.0   # the thread whose assert failed left before its store
    # (name, run arguments, expected exit, expected stderr, expected outputs)
    yield ("assert_debug", ["roots_debug", "--grid", "1", "--block", "8", "arange:float64[8]",
                            "zeros:float64[8]", "3.0"], 3,
           raised(28, 9, "AssertionError: bad value", "roots_debug", "(3,0,0)"), {})
    yield ("assert_holds", ["roots_debug", "--grid", "1", "--block", "8", "arange:float64[8]",
                            "zeros:float64[8]", "-1.0"], 0, "", {"out": roots})
    yield ("assert_quiet", ["roots_quiet", "--grid", "1", "--block", "8", "arange:float64[8]",
                            "zeros:float64[8]", "3.0"], 0, "", {"out": quiet})
    yield ("assert_check_bounds", ["roots_quiet", "--check-bounds", "--grid", "1", "--block", "8",
                                   "arange:float64[8]", "zeros:float64[8]", "3.0"], 3,
           raised(36, 9, "AssertionError", "roots_quiet", "(3,0,0)"), {})
    yield ("raise_in_debug_device_function", ["roots_checked_device", "--grid", "1", "--block", "4",
                                              neg, "zeros:float32[4]"], 3,
           raised(20, 9, "ValueError", "roots_checked_device", "(2,0,0)"), {})
    yield ("raise_not_taken", ["roots_checked_device", "--grid", "1", "--block", "8",
                               "arange:float32[8]", "zeros:float32[8]"], 0, "",
           {"out": np.sqrt(np.arange(8, dtype=np.float32))})
    yield ("ufunc_overlap", ["ufunc_overlap", "--grid", "1", "--block", "1", "arange:float64[6]"], 3,
           raised(53, 9, "ValueError: an input overlaps the output other than shifted (NumPy buffers it; pyk2cuda does not)",
                  "ufunc_overlap", "(0,0,0)"), {})
    yield ("ufunc_shapes", ["ufunc_shapes", "--grid", "1", "--block", "1", "arange:float64[6]",
                            "arange:float64[4]", "zeros:float64[6]"], 3,
           raised(60, 9, "ValueError: operands could not be broadcast together", "ufunc_shapes",
                  "(0,0,0)"), {})
    # a.view(int64) of a[::step]: contiguous for step 1 (int32 pairs 0|1 << 32 = 4294967296),
    # Numba's ValueError for step 2; without debug=True the thread ends, which the simulator
    # reports as a stopped launch (docs/semantics.md, "Array views").
    pair = 1 << 32
    view_line = line_of("a[::step].view(np.int64)", "def view_debug")
    yield ("view_contiguous", ["view_debug", "--grid", "1", "--block", "4", "arange:int32[8]",
                               "zeros:int64[4]", "1"], 0, "", {"out": np.arange(4) + pair})
    yield ("view_debug", ["view_debug", "--grid", "1", "--block", "4", "arange:int32[8]",
                          "zeros:int64[4]", "2"], 3,
           raised(view_line, 18, "ValueError: new type not compatible with array", "view_debug", "(0,0,0)"), {})
    yield ("view_quiet", ["view_quiet", "--grid", "1", "--block", "4", "arange:int32[8]",
                          "zeros:int64[4]", "2"], 3,
           "pyk2cuda: simulator: kernel 'view_quiet' stopped: a thread ended the launch\n", {})
    # Division by zero, thread 2 dividing by b[2] = 0: Python's ZeroDivisionError in a debug
    # kernel (at the divisor, with Python's message), NumPy's results in a quiet one.
    zero = os.path.join(tmp, "zero.npy")
    np.save(zero, np.array([1, 2, 0, 4], np.int64))
    ones = os.path.join(tmp, "ones.npy")
    np.save(ones, np.arange(1, 5, dtype=np.int64))
    div_line = line_of("a[i] // b[i]", "def divide_debug")
    yield ("divide_debug", ["divide_debug", "--grid", "1", "--block", "4", "arange:int64[4]", zero,
                            "zeros:int64[4]", "zeros:int64[4]", "zeros:float64[4]"], 3,
           raised(div_line, 24, "ZeroDivisionError: integer division or modulo by zero",
                  "divide_debug", "(2,0,0)"), {})
    yield ("divide_nonzero", ["divide_debug", "--grid", "1", "--block", "4", "arange:int64[4]",
                              ones, "zeros:int64[4]", "zeros:int64[4]",
                              "zeros:float64[4]"], 0, "",
           {"q": np.zeros(4, np.int64), "r": np.arange(4), "f": np.arange(4) / np.arange(1, 5)})
    yield ("divide_quiet", ["divide_quiet", "--grid", "1", "--block", "4", "arange:int64[4]", zero,
                            "zeros:int64[4]", "zeros:int64[4]", "zeros:float64[4]"], 0, "",
           {"q": np.array([0, 0, 0, 0]), "r": np.array([0, 1, 0, 3]), "f": np.array([0, 0.5, np.inf, 0.75])})
    # boundscheck=True without debug=True: the failed assert is not reported (thread 3 leaves
    # before its store), as Numba reports exceptions only after a debug=True launch; an index
    # out of bounds is (a has 4 elements, the kernel reads a[4] in thread 4).
    bc_line = line_of("assert a[i] != bad", "def roots_boundscheck")
    yield ("assert_boundscheck", ["roots_boundscheck", "--grid", "1", "--block", "8", "arange:float64[8]",
                                  "zeros:float64[8]", "3.0"], 0, "", {"out": quiet})
    yield ("index_boundscheck", ["roots_boundscheck", "--grid", "1", "--block", "8", "arange:float64[4]",
                                 "zeros:float64[8]", "-1.0"], 3,
           f"{FILE}:{bc_line}:16: error: index 4 is out of bounds for axis 0 with size 4 (array of shape "
           "(4,)) in kernel 'roots_boundscheck', thread (4,0,0) of block (0,0,0)\n", {})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    a = ap.parse_args()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="p2c-raise-") as tmp:
        for name, args, want_rc, want_err, outs in cases(tmp):
            out_dir = os.path.join(tmp, name)
            rc, err = run(os.path.abspath(a.pyk2cuda), args, out_dir)
            why = None
            if rc != want_rc:
                why = f"exit {rc}, expected {want_rc}: {err.strip()}"
            elif err != want_err:
                why = f"stderr {err!r}, expected {want_err!r}"
            elif want_rc != 0 and os.path.exists(out_dir) and os.listdir(out_dir):
                why = f"outputs written after a failure: {os.listdir(out_dir)}"
            for k, v in outs.items():
                got = np.load(os.path.join(out_dir, k + ".npy")) if not why else None
                if got is not None and not np.array_equal(got, v):
                    why = f"{k} is {got}, expected {v}"
            print(f"ok {name}" if not why else f"FAIL {name}: {why}")
            passed += not why
            failed += bool(why)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
