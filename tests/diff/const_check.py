#!/usr/bin/python3
"""Module-level constants against CPython and Numba: random `NAME = EXPR` lines, evaluated by
CPython (with math and NumPy) and typed by numba.typeof, and folded by pyk2cuda's frontend, must
hold the same value (bit for bit) and type, or pyk2cuda must refuse the name where a kernel reads
it (E-global-not-const) because Python raises, NumPy deprecates it, or Numba cannot type it.

    /usr/bin/python3 tests/diff/const_check.py --pyk2cuda build/tools/pyk2cuda [--seeds 1:20] [--count N]

Each expression is built from ints (small and past 64 bits), floats (-0.0, inf-making, tiny),
bools, math's and NumPy's constants, earlier names, Python's operators, math's functions (the ones
folded with libm and the ones refused: gamma, lgamma, hypot), int/float/bool and NumPy's scalar
types, + - * / ** // % on NumPy scalars (a small exponent for **), and np.sqrt. pyk2cuda's side: `pyk2cuda emit --dump=types` of a kernel
that reads every name; the dump's `Const NAME` header holds the value and the read its type.
What pyk2cuda alone refuses is counted, not a failure (forms the command line does not fold,
docs/semantics.md: NumPy's + - * past its type's range, and names computed from those); --verbose
lists them. Runs in `meson test --suite diff` (const_check: seeds 1:20 of 300 names, a few
seconds); by hand --seeds 1:500 (no difference on 1:500 when written).
"""
import argparse
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import warnings

import numba
import numpy as np

INTS = ["0", "1", "2", "3", "7", "10", "64", "100", "255", "256", "1000", "2**31", "2**62",
        "9223372036854775807", "2**64", "10**30"]
FLOATS = ["0.0", "-0.0", "0.5", "1.5", "2.0", "3.25", "1e300", "1e-310", "0.1", "100.0", "-2.5"]
CONSTS = ["math.pi", "math.e", "math.tau", "math.inf", "math.nan", "np.pi", "np.e", "np.inf", "np.nan"]
FOLDED_MATH1 = ["sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
                "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "fabs", "erf",
                "erfc", "degrees", "radians", "floor", "ceil", "trunc", "isnan", "isinf", "isfinite"]
FOLDED_MATH2 = ["atan2", "pow", "copysign", "fmod", "remainder", "nextafter"]
REFUSED_MATH = ["gamma(%s)", "lgamma(%s)", "hypot(%s, 1.0)"]
SMALL = ["0", "1", "2", "3", "-1", "0.5", "-0.5", "2.5", "True"]
PY_OPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"]
NP_OPS = ["+", "-", "*", "/", "//", "%", "**"]
NP_TYPES = ["float32", "float64", "int32", "int64", "int8", "uint16"]
CONVERSIONS = ["int", "float", "bool"]


def gen(rng, depth, names):
    """A random expression over earlier names."""
    r = rng.random()
    if depth == 0 or r < 0.25:
        pick = rng.random()
        if names and pick < 0.25:
            return rng.choice(names)
        if pick < 0.55:
            return rng.choice(INTS)
        if pick < 0.8:
            return rng.choice(FLOATS)
        if pick < 0.95:
            return rng.choice(CONSTS)
        return rng.choice(["True", "False"])
    a = gen(rng, depth - 1, names)
    if r < 0.4:
        return "math.%s(%s)" % (rng.choice(FOLDED_MATH1), a)
    if r < 0.45:
        return "math.%s(%s, %s)" % (rng.choice(FOLDED_MATH2), a, gen(rng, depth - 1, names))
    if r < 0.47:
        return "math." + rng.choice(REFUSED_MATH) % a
    if r < 0.6:
        return "np.%s(%s)" % (rng.choice(NP_TYPES), a)
    if r < 0.65:
        return "%s(%s)" % (rng.choice(CONVERSIONS), a)
    if r < 0.7:
        return "(%s%s)" % (rng.choice(["-", "+", "~", "not "]), a)
    if r < 0.72:
        return "np.sqrt(%s)" % a
    if r < 0.8:
        op = rng.choice(NP_OPS)   # ** with a small exponent: NumPy computes a Python-int power of any size
        right = rng.choice(SMALL + ["np.int8(3)", "np.float32(0.5)"]) if op == "**" else gen(rng, depth - 1, names)
        return "(np.%s(%s) %s %s)" % (rng.choice(NP_TYPES), a, op, right)
    op = rng.choice(PY_OPS)
    if op in ("**", "<<"):   # a small literal exponent or shift: Python would compute any power
        return "(%s %s %s)" % (a, op, rng.choice(SMALL + ["64"] if op == "<<" else SMALL))
    return "(%s %s %s)" % (a, op, gen(rng, depth - 1, names))


def python_value(text, env):
    """CPython's value and Numba's type name for it, or None where Python raises, NumPy warns or
    Numba cannot type it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's overflow to inf: a value still
        warnings.simplefilter("error", DeprecationWarning)   # np.int8(300): NumPy 2 raises
        try:
            v = eval(text, {"math": math, "np": np}, dict(env))
            t = numba.typeof(v)
        except Exception:
            return None
    if isinstance(v, (int, float, bool, np.generic)) and str(t) in ("int64", "uint64", "float64", "float32",
                                                                   "int32", "int8", "uint16", "bool"):
        return v, str(t)
    return None


def bits(v):
    """The identity of a value as a kernel sees it: a float's bits (NaN as one), an int."""
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return "nan" if math.isnan(f) else struct.pack("<d", f).hex()
    return int(v)


def emit(opts, path, src, dump):
    """{NAME: its value's line} (dump=ast) or {NAME: its type} (dump=types) from pyk2cuda emit."""
    with open(path, "w") as f:
        f.write("\n".join(src) + "\n")
    r = subprocess.run([opts.pyk2cuda, "emit", path, "--sig", "k(float64[::1])", "--dump=" + dump],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("pyk2cuda emit --dump=%s failed on %s: %s" % (dump, path, r.stderr[:2000]))
    lines, found = r.stdout.splitlines(), {}
    for i, line in enumerate(lines):
        m = re.match(r"Const (\w+)$", line)
        if dump == "ast" and m and i + 1 < len(lines):
            found[m.group(1)] = lines[i + 1].strip()
        m = re.match(r"\s+Const (\w+) @\S+ : (\S+)$", line)
        if dump == "types" and m:
            found[m.group(1)] = m.group(2)
    return found


def dump_value(text):
    kind, _, rest = text.partition(" ")
    value = rest.rsplit(" @", 1)[0]
    if kind == "Float":
        return bits(float(value))
    if kind == "Bool":
        return int(value == "True")
    return int(value)


def run_seed(opts, seed, work):
    rng = random.Random(seed)
    env, lines, want = {}, [], {}
    for i in range(opts.count):
        name = "C%d" % i
        text = gen(rng, 3, [n for n in env])
        got = python_value(text, env)
        lines.append("%s = %s" % (name, text))
        want[name] = (text, got)
        if got is not None:
            env[name] = got[0]
    head = ["import math", "import numpy as np", "from numba import cuda", ""] + lines + ["", "", "@cuda.jit",
                                                                                      "def k(out):"]
    path = os.path.join(work, "const_%d.py" % seed)
    # First the values (the frontend's Const headers, every name it folded), then their types
    # (a kernel that reads each folded name, which only folded names can be).
    values = emit(opts, path, head + ["    out[0] = 0"], "ast")
    folded_names = [n for n in want if n in values]
    types = emit(opts, path, head + ["    out[%d] = %s" % (i, n) for i, n in enumerate(folded_names)] or ["    pass"],
                 "types")
    got = {n: (values[n], types.get(n)) for n in folded_names}
    failures = folded = refused_right = refused_more = 0
    for name, (text, py) in want.items():
        ours = got.get(name)
        if py is None and ours is not None:
            print("FAIL seed %d: %s = %s: CPython/Numba refuse it, pyk2cuda folds %s" % (seed, name, text, ours))
            failures += 1
        elif py is not None and ours is None:
            refused_more += 1
            if opts.verbose:
                print("note seed %d: %s = %s: pyk2cuda refuses (%r in Python)" % (seed, name, text, py[0]))
        elif py is None:
            refused_right += 1
        elif dump_value(ours[0]) != bits(py[0]) or ours[1] != py[1]:
            print("FAIL seed %d: %s = %s: pyk2cuda %s : %s, CPython %r : %s" % (seed, name, text, ours[0], ours[1],
                                                                            py[0], py[1]))
            failures += 1
        else:
            folded += 1
    print("%s const seed %d: %d folded alike, %d refused by both, %d refused by pyk2cuda only, %d differ"
          % ("ok  " if not failures else "FAIL", seed, folded, refused_right, refused_more, failures))
    return failures


def main():
    ap = argparse.ArgumentParser(prog="const_check.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--seeds", default="1:4", help="FIRST:LAST, inclusive")
    ap.add_argument("--count", type=int, default=300, help="names per seed")
    ap.add_argument("--verbose", action="store_true", help="list what only pyk2cuda refuses")
    opts = ap.parse_args()
    first, _, last = opts.seeds.partition(":")
    with tempfile.TemporaryDirectory(prefix="pyk2cuda-const-") as work:
        failures = sum(run_seed(opts, s, work) for s in range(int(first), int(last or first) + 1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
