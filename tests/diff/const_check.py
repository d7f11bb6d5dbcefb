#!/usr/bin/python3
"""Module-level constants against CPython and Numba: random `NAME = EXPR` lines, evaluated by
CPython (with math and NumPy) and typed by numba.typeof, and folded by pyk2cuda's frontend, must
hold the same value (bit for bit) and type, or pyk2cuda must refuse the name where a kernel reads
it (E-global-not-const) because Python raises, NumPy deprecates it, or Numba cannot type it.

    /usr/bin/python3 tests/diff/const_check.py --pyk2cuda build/tools/pyk2cuda [--seeds 1:20] [--count N]

Each expression is built from ints (small and past 64 bits), floats (-0.0, inf-making, tiny),
imaginary literals (a complex name is complex128, compared part by part), bools, math's and
NumPy's constants, earlier names, Python's operators, math's functions (the ones
folded with libm and the ones refused: gamma, lgamma, hypot), int/float/bool and NumPy's scalar
types, + - * / ** // % on NumPy scalars (a small exponent for **), and np.sqrt. pyk2cuda's side: `pyk2cuda emit --dump=types` of a kernel
that reads every name; the dump's `Const NAME` header holds the value and the read its type.
What pyk2cuda alone refuses is counted, not a failure (forms the command line does not fold,
docs/semantics.md: NumPy's + - * past its type's range, and names computed from those); --verbose
lists them. Then the edge cases of constant arrays (empty ones, NumPy's default dtypes): each
typed as numba.typeof types NumPy's array, with NumPy's shape (read back by one `pyk2cuda run`).
Runs in `meson test --suite diff` (const_check: seeds 1:20 of 300 names and the arrays, a few
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
IMAGS = ["1j", "2j", "0j", "0.5j", "1e300j", "1e-310j"]
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
        if pick < 0.75:
            return rng.choice(FLOATS)
        if pick < 0.85:
            return rng.choice(IMAGS)
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
    if isinstance(v, (int, float, complex, bool, np.generic)) and str(t) in (
            "int64", "uint64", "float64", "float32", "int32", "int8", "uint16", "bool", "complex128"):
        return v, str(t)
    return None


def bits(v):
    """The identity of a value as a kernel sees it: a float's bits (NaN as one), a complex
    number's parts', an int."""
    if isinstance(v, (complex, np.complexfloating)):
        return (bits(v.real), bits(v.imag))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return "nan" if math.isnan(f) else struct.pack("<d", f).hex()
    return int(v)


def emit(opts, path, src, dump, sig="k(complex128[::1])"):
    """{NAME: its value's line} (dump=ast) or {NAME: its type} (dump=types) from pyk2cuda emit."""
    with open(path, "w") as f:
        f.write("\n".join(src) + "\n")
    r = subprocess.run([opts.pyk2cuda, "emit", path, "--sig", sig, "--dump=" + dump],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("pyk2cuda emit --dump=%s failed on %s: %s" % (dump, path, r.stderr[:2000]))
    lines, found = r.stdout.splitlines(), {}
    for i, line in enumerate(lines):
        m = re.match(r"Const (\w+)$", line)
        if dump == "ast" and m and i + 1 < len(lines):
            found[m.group(1)] = lines[i + 1].strip()
        m = re.match(r"\s+Const (\w+) @\S+ : (.+)$", line)
        if dump == "types" and m:
            found[m.group(1)] = m.group(2)
    return found


def imag_value(value):
    """An Imag node's value: `2j` (a literal: real part 0.0) or `(1.5-2j)` (a folded complex)."""
    if not value.startswith("("):
        return complex(0.0, float(value[:-1]))
    body = value[1:-2]   # "1e+300-2", "-0-0", "nan+inf": the imaginary part's sign is the last
    at = max(i for i, c in enumerate(body) if c in "+-" and i > 0 and body[i - 1] != "e")
    return complex(float(body[:at]), float(body[at:]))


def dump_value(text):
    kind, _, rest = text.partition(" ")
    value = rest.rsplit(" @", 1)[0]
    if kind == "Imag":
        return bits(imag_value(value))
    if kind == "Float":
        return bits(float(value))
    if kind == "Bool":
        return int(value == "True")
    return int(value)


# Constant arrays at NumPy's edges: empty ones of every constructor (np.array([]) is float64, as
# NumPy makes it), and the default dtypes of a list's numbers.
ARRAYS = ["np.array([])", "np.array([[], []])", "np.array(())", "np.array([], dtype=np.int32)",
          "np.array([], np.bool_)", "np.zeros(0)", "np.zeros((2, 0), np.int32)", "np.ones(0, dtype=np.uint8)",
          "np.full(0, 7)", "np.full((0, 3), 2.5)", "np.arange(0)", "np.arange(5, 1)", "np.arange(0.0)",
          "np.arange(3, 3, 1.5)", "np.array([]).reshape(0, 4)", "np.array([]).reshape(-1)",
          "np.zeros(0).astype(np.int8)", "np.array([True, False])", "np.array([True, 2])", "np.array([1, -1])",
          "np.array([2**63, 1])", "np.array([2**63, -1])", "np.array([True, 2**63])", "np.array([1, 1.5])", "np.array([1, 1j])", "np.array([[1], [2]])"]


def check_arrays(opts, work):
    """Each of ARRAYS: pyk2cuda's type of it (--dump=types) must be numba.typeof's of NumPy's
    array, read-only as a frozen global, and its shape NumPy's (a kernel writes every extent)."""
    names = ["A%d" % i for i in range(len(ARRAYS))]
    head = ["import numpy as np", "from numba import cuda", ""] + ["%s = %s" % nt for nt in zip(names, ARRAYS)]
    body = ["", "", "@cuda.jit", "def k(out):"]
    for i, n in enumerate(names):
        body += ["    out[%d, 0] = %s.ndim" % (i, n)] + ["    out[%d, %d] = %s.shape[%d]" % (i, d + 1, n, d)
                                                       for d in range(eval(ARRAYS[i], {"np": np}).ndim)]
    path = os.path.join(work, "arrays.py")
    types = emit(opts, path, head + body, "types", "k(int64[:, ::1])")
    out_dir = os.path.join(work, "arrays-out")
    r = subprocess.run([opts.pyk2cuda, "run", path, "k", "--device", "sim", "--grid", "1", "--block", "1",
                        "--out-dir", out_dir, "zeros:int64[%d,3]" % len(names)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("pyk2cuda run failed on %s: %s" % (path, r.stderr[:2000]))
    shapes = np.load(os.path.join(out_dir, "out.npy"))
    failures = 0
    for i, (name, text) in enumerate(zip(names, ARRAYS)):
        a = eval(text, {"np": np})
        want_type = str(numba.typeof(a)).replace(")", ", const)")   # a frozen global is read-only
        got_shape = tuple(int(x) for x in shapes[i, 1:1 + shapes[i, 0]])
        if types.get(name) != want_type or got_shape != a.shape:
            print("FAIL arrays: %s: pyk2cuda %s of shape %s, NumPy and Numba %s of shape %s"
                  % (text, types.get(name), got_shape, want_type, a.shape))
            failures += 1
    print("%s const arrays: %d arrays, %d differ" % ("ok  " if not failures else "FAIL", len(names), failures))
    return failures


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
        failures += check_arrays(opts, work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
