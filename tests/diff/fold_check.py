#!/usr/bin/python3
"""Constant folding against CPython itself: random constant expressions, folded by CPython's
compiler and by pyk2cuda's frontend, must give the same constant (type and value) or both stay
unfolded.

    python3 tests/diff/fold_check.py --pyk2cuda build/tools/pyk2cuda [--seeds FIRST:LAST] [--count N]

For each seed, N expressions (ints small and past 64 bits, floats with -0.0, inf, nan-making
operations and subnormals, imaginary literals, bools; unary - + ~ not; binary + - * / // % ** << >> & | ^; nested
four deep) become `out[K] = EXPR` lines of one kernel. CPython's answer: compile(EXPR) and see
whether the code is a single constant (what ast_opt.c folded) and which. pyk2cuda's answer: the
node `pyk2cuda emit --dump=ast` shows for the value: a literal (Int, Float, Bool, Imag: a
complex constant, compared part by part) when folded, an operator when not. Ints CPython folds past uint64 must be pyk2cuda's E-int-too-large at their
line instead (Numba refuses such a constant); they go in a second module. Floats compare bit for
bit (NaN with NaN). Exit status 1 on a difference. Runs in `meson test --suite diff`
(fold_check: 5 seeds of 400 expressions, about 2 s); longer by hand with --seeds 1:200. The
Python running it must be the one Numba runs on (CPython 3.11 here), whose folding is the
reference.
"""
import argparse
import math
import random
import struct
import subprocess
import sys
import tempfile
import os

BIN_OPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"]
UN_OPS = ["-", "+", "~", "not "]
INTS = ["0", "1", "2", "3", "7", "10", "63", "64", "65", "100", "127", "128", "129",
        "0x7fffffffffffffff", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "0b101", "0o17", "1_000", "2**62"]
FLOATS = ["0.0", "0.5", "1.5", "2.0", "1e308", "1e-300", "5e-324", "1e309", "3.0", "0.1", "-0.0"]
IMAGS = ["1j", "2j", "0j", "0.5j", "1e308j", "1e-300j", "1e309j", "3J"]


def leaf(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(INTS)
    if r < 0.78:
        return rng.choice(FLOATS)
    if r < 0.9:
        return rng.choice(IMAGS)
    return rng.choice(["True", "False"])


def expr(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        return leaf(rng)
    if rng.random() < 0.25:
        return f"({rng.choice(UN_OPS)}{expr(rng, depth - 1)})"
    return f"({expr(rng, depth - 1)} {rng.choice(BIN_OPS)} {expr(rng, depth - 1)})"


def cpython_consts(text):
    """The constants CPython's code for text holds (what ast_opt.c folded the literals into)."""
    code = compile(text, "<fold>", "eval")
    return [c for c in code.co_consts if c is not None]


def key(v):
    """A constant's identity as the compiler keeps it: its type, and a float's bits (a complex
    number's parts')."""
    if isinstance(v, complex):
        return ("complex", key(v.real)[1], key(v.imag)[1])
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else struct.pack("<d", v).hex())
    return (type(v).__name__, v)


def fits_numba(v):
    return not isinstance(v, int) or isinstance(v, bool) or -2**63 <= v < 2**64


def dump_consts(text):
    """The literals under each `out[K] = ...` statement's value in a --dump=ast text:
    {K: set of keys}."""
    lines = text.splitlines()
    found = {}
    for i, line in enumerate(lines):
        if not (line.strip().startswith("Var out @") and i + 2 < len(lines)):
            continue
        index = lines[i + 1].strip()
        if not index.startswith("Int "):
            continue
        consts, j = set(), i + 2
        while j < len(lines) and lines[j].startswith("    ") and (j == i + 2 or lines[j].startswith("     ")):
            kind, _, rest = lines[j].strip().partition(" ")
            value = rest.rsplit(" @", 1)[0]
            if kind == "Int":
                consts.add(("int", int(value)))
            elif kind == "Float":
                consts.add(key(float(value)))
            elif kind == "Bool":
                consts.add(("bool", value == "True"))
            elif kind == "Imag":
                consts.add(key(imag_value(value)))
            j += 1
        found[int(index.split()[1])] = consts
    return found


def imag_value(value):
    """An Imag node's value: `2j` (a literal: real part 0.0) or `(1.5-2j)` (a folded complex)."""
    if not value.startswith("("):
        return complex(0.0, float(value[:-1]))
    body = value[1:-2]   # "1e+300-2", "-0-0", "nan+inf": the imaginary part's sign is the last
    at = max(i for i, c in enumerate(body) if c in "+-" and i > 0 and body[i - 1] != "e")
    return complex(float(body[:at]), float(body[at:]))


def module(exprs):
    lines = ["from numba import cuda", "", "", "@cuda.jit", "def k(out):"]
    lines += [f"    out[{k}] = {e}" for k, e in enumerate(exprs)]
    return "\n".join(lines) + "\n", 6   # the first expression's line


def run_seed(opts, seed, work):
    rng = random.Random(seed)
    good, big = [], []
    for _ in range(opts.count):
        text = expr(rng, 4)
        consts = cpython_consts(text)
        too_big = [c for c in consts if not fits_numba(c)]
        (big if too_big else good).append((text, set(map(key, consts)) if not too_big else too_big[0]))
    failures = 0
    src, first = module([t for t, _ in good])
    path = os.path.join(work, f"fold_{seed}.py")
    with open(path, "w") as f:
        f.write(src)
    r = subprocess.run([opts.pyk2cuda, "emit", path, "--sig", "k(complex128[::1])", "--dump=ast"],
                       capture_output=True, text=True)
    got = dump_consts(r.stdout)
    for k, (text, want) in enumerate(good):
        if k not in got:
            print(f"FAIL seed {seed} line {first + k}: no value in the dump for {text} ({r.stderr.strip()[:300]})")
            failures += 1
        elif got[k] != want:
            print(f"FAIL seed {seed}: {text}: pyk2cuda's constants {sorted(got[k], key=repr)}, CPython's "
                  f"{sorted(want, key=repr)}")
            failures += 1
    for at in range(0, len(big), 20):   # in modules of 20 lines: a compilation stops reporting at 50 errors
        part = big[at:at + 20]
        src, first = module([t for t, _ in part])
        with open(path, "w") as f:
            f.write(src)
        r = subprocess.run([opts.pyk2cuda, "emit", path, "--sig", "k(complex128[::1])"], capture_output=True, text=True)
        for k, (text, want) in enumerate(part):
            if not any(f":{first + k}:" in line and "E-int-too-large" in line for line in r.stderr.splitlines()):
                print(f"FAIL seed {seed}: {text} holds the constant {want} in CPython (past uint64); "
                      f"pyk2cuda gave no E-int-too-large at line {first + k}")
                failures += 1
    print(f"{'ok  ' if not failures else 'FAIL'} fold seed {seed}: {len(good)} expressions, {len(big)} holding "
          f"an int past uint64, {failures} differ")
    return failures


def main():
    ap = argparse.ArgumentParser(prog="fold_check.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--seeds", default="1:5", help="FIRST:LAST, inclusive")
    ap.add_argument("--count", type=int, default=400, help="expressions per seed")
    opts = ap.parse_args()
    first, _, last = opts.seeds.partition(":")
    with tempfile.TemporaryDirectory(prefix="pyk2cuda-fold-") as work:
        failures = sum(run_seed(opts, s, work) for s in range(int(first), int(last or first) + 1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
