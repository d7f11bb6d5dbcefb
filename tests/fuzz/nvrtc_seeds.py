#!/usr/bin/env python3
"""Writes the seeds of fuzz_nvrtc: each golden case (tests/golden/cases.txt) as its source
with its --sig options as "# sig: ..." lines on top.

    nvrtc_seeds.py OUT_DIR [NAME...]     (no NAME: every case)"""
import os
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    out, wanted = sys.argv[1], set(sys.argv[2:])
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(ROOT, "tests", "golden", "cases.txt")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, path, *args = shlex.split(line)
            if wanted and name not in wanted:
                continue
            sigs = [args[i + 1] for i, a in enumerate(args) if a == "--sig"]
            with open(os.path.join(ROOT, path), "rb") as src:
                body = src.read()
            with open(os.path.join(out, name + ".py"), "wb") as dst:
                dst.write("".join(f"# sig: {s}\n" for s in sigs).encode() + body)


if __name__ == "__main__":
    main()
