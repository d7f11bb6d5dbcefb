#!/usr/bin/env python3
"""Runs the examples of the documentation, so that they cannot drift from what pyk2cuda does.

  run_examples.py --pyk2cuda BIN --pythonpath DIR (FILE.md | FOLDER)...   (a folder: its *.md)

Every fenced block whose info string is `python` or `console` is run, unless the info string
also says `norun` (say why next to it: e.g. a step another test covers). A python block runs as a
script; a console block's `$ ` lines (with `\\` continuations) run in bash, the other lines being
the output a reader would see, not compared. Each runs in a fresh folder holding links to the
repository's samples/ and tests/, with BIN's folder first on PATH (the `pyk2cuda` command) and
DIR on PYTHONPATH (the package); a block passes when it exits 0. Prints one line per block and
ends with 'N passed, N failed'."""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNABLE = ("python", "console")


def blocks(path):
    """(first line number, language, text) of each runnable fenced block of the file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        info = lines[i][3:].split() if lines[i].startswith("```") else None
        i += 1
        if info is None:
            continue
        start, body = i, []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        if info and info[0] in RUNNABLE and "norun" not in info:
            yield start, info[0], "\n".join(body) + "\n"


def console_commands(text):
    """The commands of a console block: its `$ ` lines, continuation lines joined."""
    commands, current = [], None
    for line in text.split("\n"):
        if current is not None:
            current += "\n" + line
        elif line.startswith("$ "):
            current = line[2:]
        else:
            continue
        if not current.endswith("\\"):
            commands.append(current)
            current = None
    return commands


def run_block(lang, text, env):
    with tempfile.TemporaryDirectory() as d:
        for name in ("samples", "tests"):
            os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
        if lang == "python":   # a file: pyk2cuda compiles kernels from their source
            script = os.path.join(d, "example.py")
            with open(script, "w", encoding="utf-8") as f:
                f.write(text)
            cmd = [sys.executable, script]
        else:
            cmd = ["bash", "-e", "-c", "\n".join(console_commands(text))]
        p = subprocess.run(cmd, cwd=d, env=env, capture_output=True, timeout=600)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("files", nargs="+")
    opts = ap.parse_args()
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(opts.pyk2cuda)) + os.pathsep
               + os.environ.get("PATH", ""), PYTHONPATH=os.path.abspath(opts.pythonpath))
    paths = []
    for p in opts.files:
        paths += sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(".md")) \
            if os.path.isdir(p) else [p]
    passed = failed = 0
    for path in paths:
        for line, lang, text in blocks(path):
            where = f"{os.path.relpath(path, ROOT)}:{line}"
            rc, out = run_block(lang, text, env)
            if rc == 0:
                passed += 1
                print(f"ok {where} ({lang})")
            else:
                failed += 1
                print(f"FAIL {where} ({lang}): exit {rc}\n" + out[-3000:])
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
