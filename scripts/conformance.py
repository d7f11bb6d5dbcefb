#!/usr/bin/env python3
"""Numba conformance (issue 12): Numba's own CUDA tests, run by Numba's simulator and by pyk2cuda.

    nice -n 10 /usr/bin/python3 scripts/conformance.py [--build build] [--timeout 120] [MODULE ...]

runs each test module of numba/cuda/tests/cudapy (Debian's python3-numba 0.56.4, read in place
from /usr/lib/python3/dist-packages; nothing of Numba is copied into the repository) twice, each
in its own process with a timeout:

  sim       NUMBA_ENABLE_CUDASIM=1, numba.cuda is Numba's own simulator (the reference);
  pyk2cuda  the same helpers, but `numba.cuda`, `numba.types` and numba's top-level type names
            (float32, void, ...) are pyk2cuda's (the package built in BUILD/python, on its
            simulator: PYK2CUDA_DEVICE=sim).

MODULE names (test_math, ...) choose a subset; none means every test_*.py of the folder.
It writes, per module and mode, the counts (run, passed, failed, errored, skipped) and every
test's outcome to BUILD/conformance/results.json, and rewrites the table and the grouped reasons
between the markers of docs/conformance.md. `--one MODE FILE` is the per-module worker.

How pyk2cuda takes numba.cuda over in the test process (docs/conformance.md, "The shim"): the
worker first imports Numba's helpers under the simulator (numba.cuda.testing, numba.tests.support,
numba.core), so that CUDATestCase and skip_on_cudasim behave identically in both modes; then it
drops every other numba.cuda.* module from sys.modules and puts pyk2cuda's modules in their
place, before the test module is loaded from its file. A test module that imports a numba.cuda
submodule pyk2cuda lacks (numba.cuda.random, numba.cuda.cudadrv...) fails to import, and its
tests count as errored: that is a missing name, not a skip.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBA_TESTS = "/usr/lib/python3/dist-packages/numba/cuda/tests/cudapy"
DOC = os.path.join(ROOT, "docs", "conformance.md")
BEGIN, END = "<!-- conformance:begin -->", "<!-- conformance:end -->"
MODES = ("sim", "pyk2cuda")
_PACKAGE = "conformance_cudapy"
# Numba's top-level names that the pyk2cuda mode replaces with pyk2cuda's (signatures are
# handed to pyk2cuda's compiler as text, so they must be pyk2cuda's type objects).
_TYPE_NAMES = ["void", "none", "boolean", "bool_", "int8", "int16", "int32", "int64", "uint8",
               "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64",
               "complex128", "intp", "uintp", "double", "byte"]


# ---------------------------------------------------------------- the worker (one module, one mode)

def _install_shim():
    """numba.cuda, numba.types and numba's type names answered by pyk2cuda; Numba's test
    helpers (already imported under the simulator) stay Numba's."""
    import numba
    import numba.cuda.testing  # noqa: F401 (the helpers, imported while numba.cuda is Numba's)
    import numba.tests.support  # noqa: F401
    import pyk2cuda
    from pyk2cuda import cuda, types
    keep = {"numba.cuda.testing"}
    for name in [n for n in sys.modules if n.startswith("numba.cuda.") and n not in keep]:
        del sys.modules[name]
    sys.modules["numba.cuda"] = cuda
    sys.modules["numba.types"] = types
    for name, module in cuda.SUBMODULES.items():   # numba.cuda.args, .devicearray, .random
        sys.modules["numba.cuda." + name] = module
    # A test that asks the simulator for its list of vector types (test_vector_type does, as
    # ENABLE_CUDASIM is on) gets pyk2cuda's list, which is numba.cuda.vector_types' here.
    sys.modules["numba.cuda.simulator.vector_types"] = cuda.SUBMODULES["vector_types"]
    numba.cuda = cuda
    numba.types = types
    for name in _TYPE_NAMES:
        setattr(numba, name, getattr(pyk2cuda, name))


def _first_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _worker(mode, path):
    import importlib.util
    import unittest
    if mode == "pyk2cuda":
        _install_shim()
    # A private package over the tests' folder, so that their relative imports
    # (`from .extensions_usecases import ...`) resolve without importing numba.cuda.tests.
    import types
    package = types.ModuleType(_PACKAGE)
    package.__path__ = [os.path.dirname(os.path.abspath(path))]
    sys.modules[_PACKAGE] = package
    if mode == "pyk2cuda":
        # The tests' helper modules (recursion_usecases, ...) are imported by their full name:
        # they load from the same folder, their kernels compiled by pyk2cuda too.
        tests = types.ModuleType("numba.cuda.tests")
        tests.__path__ = [os.path.dirname(package.__path__[0])]
        tests.cudapy = package
        sys.modules["numba.cuda.tests"] = tests
        sys.modules["numba.cuda.tests.cudapy"] = package
    name = _PACKAGE + "." + os.path.splitext(os.path.basename(path))[0]
    out = {"tests": {}}
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    except BaseException as e:  # noqa: B902 (an import failure is this module's result)
        out["import_error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        print(json.dumps(out))
        return 0
    tests = list(_flatten(suite))  # before run(): a suite drops its tests as it runs them
    result = unittest.TestResult()
    suite.run(result)
    failed, errored, skipped = _by_test(result.failures), _by_test(result.errors), _by_test(result.skipped)
    for test in tests:
        tid = test.id()
        if tid in errored:
            out["tests"][tid] = ["error", _first_line(errored[tid])]
        elif tid in failed:
            out["tests"][tid] = ["fail", _first_line(failed[tid])]
        elif tid in skipped:
            out["tests"][tid] = ["skip", skipped[tid][:200]]
        else:
            out["tests"][tid] = ["pass", ""]
    # setUpClass/setUpModule failures are reported under a pseudo-test id.
    for tid, tb in errored.items():
        out["tests"].setdefault(tid, ["error", _first_line(tb)])
    sys.stdout.flush()
    print("\n" + json.dumps(out))
    return 0


def _by_test(pairs):
    """{test id: text of its first report}; a subTest's report counts for the test it is in."""
    out = {}
    for t, text in pairs:
        out.setdefault(getattr(t, "test_case", t).id(), text)
    return out


def _flatten(suite):
    import unittest
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


# ---------------------------------------------------------------- the driver

def _run_one(mode, path, build, out, timeout):
    env = dict(os.environ)
    env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if mode == "pyk2cuda":
        env["PYTHONPATH"] = os.path.join(build, "python")
        env["PYK2CUDA_DEVICE"] = "sim"
        env["PYK2CUDA_CACHE_DIR"] = os.path.join(out, "cache")
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", mode, path],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, cwd=out)
    except subprocess.TimeoutExpired:
        return {"timeout": True, "tests": {}, "seconds": round(time.time() - t0, 1)}
    lines = p.stdout.decode(errors="replace").strip().splitlines()
    try:
        res = json.loads(lines[-1])
    except (IndexError, ValueError):
        res = {"tests": {}, "crash": "exit %d: %s" % (p.returncode,
                                                       _first_line(p.stderr.decode(errors="replace")))}
    res["seconds"] = round(time.time() - t0, 1)
    return res


def counts(res):
    c = {"run": 0, "pass": 0, "fail": 0, "error": 0, "skip": 0}
    for outcome, _ in res.get("tests", {}).values():
        c[outcome] += 1
        c["run"] += outcome != "skip"
    return c


def _status(res):
    if res.get("timeout"):
        return "timeout"
    if "import_error" in res:
        return "import error"
    if "crash" in res:
        return "crashed"
    return ""


# Reasons pyk2cuda fails a test Numba's simulator passes, by the text of the error; the first
# pattern that matches names the group (order matters: specific before general).
REASONS = [
    ("kernel or device function defined inside a function or class (pyk2cuda translates "
     "module-level functions only)", ["defined inside another function", "has no source file"]),
    ("cuda.jit(...) called on a function that is not decorated in its source (pyk2cuda finds "
     "kernels by their decorator in the module's source)", ["no kernel named"]),
    ("numba.cuda submodule that pyk2cuda lacks (numba.cuda.random, cudadrv, ...)",
     ["is not a package", "No module named 'numba.cuda"]),
    ("missing name in pyk2cuda's numba.cuda, numba.types or its objects",
     ["has no attribute", "cannot import name"]),
    ("signature not accepted (Numba's type objects, a tuple of argument types)",
     ["bad signature", "a signature is a string"]),
    ("unsupported construct or builtin in the kernel language (compile error)",
     ["CompileError", "not supported", "unsupported"]),
    ("argument or launch configuration rejected at launch (launch-path strictness)",
     ["TypeError", "ValueError"]),
    ("different result (a test assertion failed)", ["AssertionError"]),
    ("module timed out", ["timeout"]),
]


def reason_of(text):
    for group, patterns in REASONS:
        if any(p in text for p in patterns):
            return group
    return "other"


def _regressions(results):
    """(module, test id, pyk2cuda's outcome text) for each test sim passes and pyk2cuda does not."""
    out = []
    for mod, modes in sorted(results.items()):
        sim, pk = modes["sim"], modes["pyk2cuda"]
        for tid, (outcome, _) in sorted(sim.get("tests", {}).items()):
            if outcome != "pass":
                continue
            got = pk.get("tests", {}).get(tid)
            if got and got[0] == "pass":
                continue
            text = (got[1] if got else pk.get("import_error") or pk.get("crash")
                    or ("timeout" if pk.get("timeout") else "not run"))
            out.append((mod, tid, text))
    return out


def render(results, elapsed):
    rows = ["| module | sim: run / pass / fail / err / skip | pyk2cuda: run / pass / fail / err / skip"
            " | sim passes, pyk2cuda passes |", "|---|---|---|---|"]
    tot = {m: {"run": 0, "pass": 0, "fail": 0, "error": 0, "skip": 0} for m in MODES}
    both = sim_pass = 0
    for mod, modes in sorted(results.items()):
        cells = []
        for m in MODES:
            c = counts(modes[m])
            for k in c:
                tot[m][k] += c[k]
            st = _status(modes[m])
            cells.append("%d / %d / %d / %d / %d%s" % (c["run"], c["pass"], c["fail"], c["error"],
                                                     c["skip"], " (%s)" % st if st else ""))
        sp = [t for t, (o, _) in modes["sim"].get("tests", {}).items() if o == "pass"]
        pp = sum(1 for t in sp if modes["pyk2cuda"].get("tests", {}).get(t, [""])[0] == "pass")
        both += pp
        sim_pass += len(sp)
        rows.append("| %s | %s | %s | %d / %d |" % (mod, cells[0], cells[1], pp, len(sp)))
    rows.append("| **total** | %s | %s | **%d / %d (%.1f %%)** |" % (
        *["%d / %d / %d / %d / %d" % (tot[m]["run"], tot[m]["pass"], tot[m]["fail"], tot[m]["error"],
                                      tot[m]["skip"]) for m in MODES],
        both, sim_pass, 100.0 * both / sim_pass if sim_pass else 0.0))
    regs = _regressions(results)
    groups = {}
    for mod, tid, text in regs:
        groups.setdefault(reason_of(text), []).append((tid, text))
    lines = rows + ["", "Tests that Numba's simulator passes and pyk2cuda does not, by reason "
                    "(%d in all; grouped by the text of pyk2cuda's error):" % len(regs), ""]
    for group, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        tid, text = items[0]
        lines.append("- %s: **%d**, e.g. `%s`: `%s`" % (group, len(items), tid.split(".", 1)[-1],
                                                        text.replace("`", "'")[:160]))
    lines += ["", "Generated by `nice -n 10 /usr/bin/python3 scripts/conformance.py` in %.0f s "
              "(%d modules; both modes, one process each, on a shared 2-core machine)." % (elapsed, len(results))]
    return "\n".join(lines)


def _write_doc(table):
    with open(DOC) as f:
        text = f.read()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(DOC, "w") as f:
        f.write(head + BEGIN + "\n" + table + "\n" + END + tail)


def main(argv):
    if len(argv) >= 4 and argv[1] == "--one":
        return _worker(argv[2], argv[3])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--timeout", type=int, default=120, help="seconds per module and mode")
    ap.add_argument("--no-doc", action="store_true", help="do not rewrite docs/conformance.md")
    ap.add_argument("--tests", default=NUMBA_TESTS, help="the folder of Numba's test modules")
    ap.add_argument("--out", help="folder of results.json and the cache (default BUILD/conformance)")
    ap.add_argument("--render", action="store_true",
                    help="no run: rewrite docs/conformance.md from the last results.json")
    ap.add_argument("modules", nargs="*")
    a = ap.parse_args(argv[1:])
    build = os.path.abspath(a.build)
    if not glob.glob(os.path.join(build, "python", "pyk2cuda", "_core*.so")):
        print("conformance: no pyk2cuda package in %s/python (meson setup %s && meson compile -C %s)"
              % (build, a.build, a.build), file=sys.stderr)
        return 2
    out = os.path.abspath(a.out or os.path.join(build, "conformance"))
    os.makedirs(os.path.join(out, "cache"), exist_ok=True)
    paths = ([os.path.join(a.tests, m if m.endswith(".py") else m + ".py") for m in a.modules]
             or sorted(glob.glob(os.path.join(a.tests, "test_*.py"))))
    if a.render:
        with open(os.path.join(out, "results.json")) as f:
            saved = json.load(f)
        _write_doc(render(saved["results"], saved["seconds"]))
        return 0
    t0 = time.time()
    results = {}
    for path in paths:
        mod = os.path.splitext(os.path.basename(path))[0]
        results[mod] = {m: _run_one(m, path, build, out, a.timeout) for m in MODES}
        print("%-40s %s" % (mod, "  ".join(
            "%s %d/%d pass%s" % (m, counts(results[mod][m])["pass"], counts(results[mod][m])["run"],
                                 " (%s)" % _status(results[mod][m]) if _status(results[mod][m]) else "")
            for m in MODES)), flush=True)
    elapsed = time.time() - t0
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"results": results, "seconds": elapsed}, f, indent=1, sort_keys=True)
    table = render(results, elapsed)
    print(table)
    if not a.no_doc:
        _write_doc(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
