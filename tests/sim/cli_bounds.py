#!/usr/bin/python3
"""Command-line tests of `pyk2cuda run --check-bounds` on the simulator.

    /usr/bin/python3 tests/sim/cli_bounds.py --pyk2cuda BIN

Each case runs the CLI on tests/sim/bounds.py and checks the exit status, the exact
diagnostic on stderr (FILE:LINE:COL: error: ...), and which outputs were written: none after
an out-of-bounds access, the right values after a run whose negative indices wrap. Prints one
line per case and ends with 'N passed, N failed'."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILE = "tests/sim/bounds.py"
LINE_BOUNDSCHECK, LINE_DEBUG = 79, 84   # where bounds.py's pick_boundscheck and pick_debug index


def run(bin_, args, out_dir, device="sim", env=None):
    p = subprocess.run([bin_, "run", FILE] + args + ["--device", device, "--out-dir", out_dir],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                       env=env)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def oob_line(line, col, index, axis, size, shape, kernel, thread, block):
    return (f"{FILE}:{line}:{col}: error: index {index} is out of bounds for axis {axis} with "
            f"size {size} (array of shape {shape}) in kernel '{kernel}', thread {thread} of "
            f"block {block}\n")


# (name, run arguments, expected exit, expected stderr or None, expected outputs {name: array})
def cases():
    arange10 = "arange:float32[10]"
    yield ("past_end", ["pick", "--check-bounds", "--grid", "2", "--block", "32", arange10,
                        "zeros:float32[1]", "37", "10"], 3,
           oob_line(10, 18, 10, 0, 10, "(10,)", "pick", "(5,0,0)", "(1,0,0)"), {})
    yield ("before_start", ["pick", "--grid", "1", "--block", "8", "--check-bounds", arange10,
                            "zeros:float32[1]", "3", "-11"], 3,
           oob_line(10, 18, -11, 0, 10, "(10,)", "pick", "(3,0,0)", "(0,0,0)"), {})
    yield ("wraps", ["pick", "--check-bounds", "--grid", "1", "--block", "8", arange10,
                     "zeros:float32[1]", "3", "-10"], 0, "",
           {"out": np.array([0.0], np.float32)})
    for axis in range(3):
        ix = ["0", "0", "0"]
        ix[axis] = str([2, 3, 4][axis])
        shown = "(" + ", ".join(ix) + ")"
        yield (f"axis{axis}", ["put3", "--check-bounds", "--grid", "1", "--block", "4",
                               "zeros:float64[2,3,4]", "1"] + ix, 3,
               oob_line(22, 9, shown, axis, [2, 3, 4][axis], "(2, 3, 4)", "put3", "(1,0,0)",
                        "(0,0,0)"), {})
    yield ("shared_before_barrier", ["shared_bail", "--check-bounds", "--grid", "2", "--block",
                                     "32", "zeros:float32[33]", "-5"], 3,
           None, {})   # which block fails first depends on the workers; checked below
    yield ("local", ["local_pick", "--check-bounds", "--grid", "1", "--block", "16",
                     "zeros:int32[1]", "9", "2", "0"], 3,
           oob_line(43, 18, "(2, 0)", 0, 2, "(2, 3)", "local_pick", "(9,0,0)", "(0,0,0)"), {})
    yield ("local_wraps", ["local_pick", "--check-bounds", "--grid", "1", "--block", "16",
                           "zeros:int32[1]", "9", "-2", "-1"], 0, "",
           {"out": np.array([20], np.int32)})
    # The decorator's boundscheck=True and debug=True check as --check-bounds does, as they do
    # from Python; boundscheck=False leaves a negative index wrapping, unchecked.
    for kernel, line in [("pick_boundscheck", LINE_BOUNDSCHECK), ("pick_debug", LINE_DEBUG)]:
        yield (kernel, [kernel, "--grid", "1", "--block", "1", arange10, "zeros:float32[1]", "10"],
               3, oob_line(line, 14, 10, 0, 10, "(10,)", kernel, "(0,0,0)", "(0,0,0)"), {})
    yield ("boundscheck_false_wraps", ["pick_unchecked", "--grid", "1", "--block", "1", arange10,
                                       "zeros:float32[1]", "-1"], 0, "",
           {"out": np.array([9.0], np.float32)})
    yield ("unchecked_wraps", ["pick", "--grid", "1", "--block", "8", arange10,
                               "zeros:float32[1]", "3", "-1"], 0, "",
           {"out": np.array([9.0], np.float32)})


def check(bin_, name, args, want_rc, want_err, want_out):
    with tempfile.TemporaryDirectory() as out_dir:
        rc, out, err = run(bin_, args, out_dir)
        if rc != want_rc:
            return f"exit {rc}, expected {want_rc}: {err.strip()}"
        if want_err is not None and err != want_err:
            return f"stderr:\n  got:      {err!r}\n  expected: {want_err!r}"
        if name == "shared_before_barrier":
            prefix = oob_line(31, 18, "(-5, 3)", 0, 4, "(4, 8)", "shared_bail", "(3,0,0)", "")
            prefix = prefix[:prefix.index(" of block")]
            if not (err.startswith(prefix) and err.count("\n") == 1):
                return f"stderr: {err!r}, expected {prefix!r} and a block"
        written = sorted(f for f in os.listdir(out_dir))
        if rc != 0 and written:
            return f"wrote {written} after a failure"
        for param, want in want_out.items():
            got = np.load(os.path.join(out_dir, param + ".npy"))
            if not np.array_equal(got, want):
                return f"{param}: {got!r}, expected {want!r}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--fake", help="unused: the GPU path is tested by tests/fakecuda/cli_fake.py")
    opts = ap.parse_args()
    bin_ = os.path.abspath(opts.pyk2cuda)
    passed = failed = 0
    for name, args, rc, err, out in cases():
        problem = check(bin_, name, args, rc, err, out)
        if problem:
            failed += 1
            print(f"FAIL {name}: {problem}")
        else:
            passed += 1
            print(f"ok {name}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
