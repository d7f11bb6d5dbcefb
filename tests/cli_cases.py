#!/usr/bin/env python3
"""Runs the command-line test cases: golden CUDA C, diagnostics, and NVRTC compiles.

  cli_cases.py golden  --pyk2cuda BIN [--update]   emitted CUDA C vs tests/golden/NAME.cu
  cli_cases.py diag    --pyk2cuda BIN [--update]   stderr + exit code vs tests/diag/NAME.err
  cli_cases.py nvrtc   --pyk2cuda BIN              every golden case compiles for sm_75 and sm_90

Golden cases are listed in tests/golden/cases.txt, one per line: NAME FILE [ARGS...] (shell
quoting). Diagnostic cases are tests/diag/*.py; the first line may be `# args: ...` with extra
arguments for `pyk2cuda check`. --update rewrites the expected files: review their diff
(git diff tests/) before committing it. Prints one line per case and ends with
'N passed, N failed'."""
import argparse, concurrent.futures, difflib, os, shlex, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHS = ["sm_75", "sm_90"]


def run(cmd):
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def golden_cases():
    with open(os.path.join(ROOT, "tests/golden/cases.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, path, *args = shlex.split(line)
                yield name, path, args


def compare(name, expected_path, actual, update):
    if update:
        with open(expected_path, "w") as f:
            f.write(actual)
        return True, "updated"
    if not os.path.exists(expected_path):
        return False, f"missing {os.path.relpath(expected_path, ROOT)} (run with --update)"
    with open(expected_path) as f:
        expected = f.read()
    if expected == actual:
        return True, ""
    diff = difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "expected", "actual")
    return False, "".join(list(diff)[:60])


def check_golden(bin_, update):
    for name, path, args in golden_cases():
        rc, out, err = run([bin_, "emit", path] + args)
        if rc != 0:
            yield name, False, f"exit {rc}: {err.strip()}"
            continue
        yield (name, *compare(name, os.path.join(ROOT, "tests/golden", name + ".cu"), out, update))


def check_diag(bin_, update):
    d = os.path.join(ROOT, "tests/diag")
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".py"):
            continue
        path = os.path.join("tests/diag", fn)
        with open(os.path.join(ROOT, path), "rb") as f:
            first = f.readline().decode("utf-8", "replace")
        # "# args: ..." adds arguments to `check`; "# command: emit ..." replaces the command.
        cmd, args = "check", []
        if first.startswith("# args:"):
            args = shlex.split(first[len("# args:"):])
        elif first.startswith("# command:"):
            cmd, *args = shlex.split(first[len("# command:"):])
        rc, out, err = run([bin_, cmd, path] + args)
        actual = f"exit {rc}\n{err}"
        ok, msg = compare(fn, os.path.join(d, fn[:-3] + ".err"), actual, update)
        if ok and not update and rc not in (1, 2):   # a file of warnings alone compiles
            if rc != 0 or ": warning: " not in err or ": error: " in err:
                ok, msg = False, f"expected exit 1 or 2 (0 with warnings only), got {rc}"
        yield fn[:-3], ok, msg


def check_nvrtc(bin_, update):
    rc, _, err = run([bin_, "ptx", "tests/golden/nvrtc_probe.py", "--arch", "sm_90"])
    if rc == 3 and "NVRTC not found" in err:
        print("SKIP: NVRTC is not installed on this machine")
        sys.exit(77)
    # PTX is made without ptxas (for the virtual architecture), so each case is also compiled to
    # a CUBIN, which runs ptxas on it. --no-cache: NVRTC runs every time. The cases run on every
    # core at once (each NVRTC compile is a process of its own), reported in order.
    work = tempfile.mkdtemp(prefix="p2c-nvrtc-")
    jobs = [(name, path, args, arch) for name, path, args in golden_cases() for arch in ARCHS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = pool.map(lambda ij: nvrtc_case(bin_, work, ij[0], *ij[1]), enumerate(jobs))
        yield from results
    os.rmdir(work)


def nvrtc_case(bin_, work, i, name, path, args, arch):
    """(name@arch, ok, message) of one golden case compiled to PTX and to a CUBIN for arch."""
    rc, out, err = run([bin_, "ptx", path, "--arch", arch, "--no-cache"] + args)
    ok = rc == 0 and ".entry" in out and f".target {arch}" in out
    if ok:
        cubin = os.path.join(work, f"{i}.cubin")
        rc, _, err = run([bin_, "ptx", path, "--arch", arch, "--no-cache", "--cubin", "-o", cubin] + args)
        ok = rc == 0 and os.path.getsize(cubin) > 0
        if os.path.exists(cubin):
            os.remove(cubin)
    return f"{name}@{arch}", ok, "" if ok else f"exit {rc}: {err.strip()[:2000]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["golden", "diag", "nvrtc"])
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--update", action="store_true")
    a = ap.parse_args()
    check = {"golden": check_golden, "diag": check_diag, "nvrtc": check_nvrtc}[a.mode]
    passed = failed = 0
    for name, ok, msg in check(os.path.abspath(a.pyk2cuda), a.update):
        print(("ok   " if ok else "FAIL ") + name + ("" if ok and not msg else ": " + msg.rstrip()))
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or passed == 0 else 0)


if __name__ == "__main__":
    main()
