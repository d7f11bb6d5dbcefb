#!/usr/bin/python3
"""The sanitizer's corpus: `pyk2cuda run --sanitize` on small kernels, each with one kind of bug
and the same kernel fixed (docs/simulator.md, "Sanitizer").

    /usr/bin/python3 tests/sanitize/run_corpus.py --pyk2cuda BIN [FILE.py ...]

Every tests/sanitize/*.py says what to run and what must be found, in comments:

    # sanitize-run: KERNEL RUN-ARGUMENTS...
    # sanitize-expect: shared-memory race 38:29 36:13     (one line per finding)
    # sanitize-expect: clean

A run must find exactly the findings listed (kind and Python positions, both accesses of a
race, in either order), each once, with exit status 3 and a summary line that counts them; a
clean run exits 0 with nothing on stderr. Prints one line per run, then 'N passed, N failed'."""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The message of each kind (sanitize.c, sim_san_format) and its word in the summary line.
KINDS = {
    "shared-memory race": (r"shared-memory race on ", "shared-memory race"),
    "global-memory race": (r"global-memory race on ", "global-memory race"),
    "uninitialized read": (r"read of (shared|local) array ", "uninitialized read"),
    "divergent barrier": (r"divergent barrier: ", "divergent barrier"),
    "warp operation": (r"warp operation with mask ", "warp operation"),
    # --sanitize implies --check-bounds: an index out of bounds stops the launch, reported alone
    # (no summary line)
    "index out of bounds": (r"index -?\d+ is out of bounds ", None),
}


def parse(path):
    """[(kernel, args, [(kind, frozenset of positions)] or [] for clean)]"""
    runs = []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"# sanitize-run: (\S+) (.*)", line)
        if m:
            runs.append((m.group(1), m.group(2).split(), []))
            continue
        m = re.match(r"# sanitize-expect: (.*)", line)
        if m and m.group(1).strip() != "clean":
            words = m.group(1).split()
            kind = " ".join(w for w in words if ":" not in w)
            runs[-1][2].append((kind, frozenset(w for w in words if ":" in w)))
    return runs


def found(rel, err):
    """The findings on stderr as (kind, positions), and the summary line."""
    out, summary = [], None
    for line in err.splitlines():
        if line.startswith("sanitize: "):
            summary = line
            continue
        m = re.match(re.escape(rel) + r":(\d+):(\d+): error: (.*)", line)
        if not m:
            return None, f"unexpected line {line!r}"
        text = m.group(3)
        kind = next((k for k, (pat, _) in KINDS.items() if re.match(pat, text)), None)
        if kind is None:
            return None, f"unknown finding {line!r}"
        positions = {f"{m.group(1)}:{m.group(2)}"}
        other = re.search(re.escape(rel) + r":(\d+):(\d+) by", text)
        if other:
            positions.add(f"{other.group(1)}:{other.group(2)}")
        out.append((kind, frozenset(positions)))
    return out, summary


def check_summary(summary, want):
    if all(KINDS[k][1] is None for k, _ in want):
        return None if summary is None else f"unexpected summary {summary!r}"
    if summary is None:
        return "no summary line"
    for kind, (_, word) in KINDS.items():
        if word is None:
            continue
        n = sum(1 for k, _ in want if k == kind)
        if not re.search(rf"\b{n} {word}", summary):
            return f"summary {summary!r} does not count {n} {word}"
    return None


def check_run(bin_, rel, kernel, args, want):
    with tempfile.TemporaryDirectory() as out_dir:
        p = subprocess.run([bin_, "run", rel, kernel, "--device", "sim", "--sanitize",
                            "--out-dir", out_dir] + args, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300)
    err = p.stderr.decode()
    if not want:
        return None if p.returncode == 0 and err == "" else f"exit {p.returncode}, stderr {err!r}"
    if p.returncode != 3:
        return f"exit {p.returncode}, expected 3: {err!r}"
    got, summary = found(rel, err)
    if got is None:
        return summary
    if len(got) != len(set(got)):
        return f"a finding reported twice: {err!r}"
    if sorted(got, key=str) != sorted(want, key=str):
        return f"found {sorted(got, key=str)}, expected {sorted(want, key=str)}"
    return check_summary(summary, want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(ROOT, "tests", "sanitize", "*.py")))
    passed = failed = 0
    for path in files:
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        for kernel, args, want in parse(path):
            why = check_run(os.path.abspath(a.pyk2cuda), rel, kernel, args, want)
            name = f"{rel} {kernel}"
            if why:
                failed += 1
                print(f"FAIL {name}: {why}")
            else:
                passed += 1
                print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
