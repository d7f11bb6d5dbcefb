#!/usr/bin/env python3
"""Numba conformance (issue 12): Numba's own CUDA tests, run by Numba's simulator and by pyk2cuda.

    nice -n 10 /usr/bin/python3 scripts/conformance.py [--build build] [--timeout 120] [MODULE ...]
    nice -n 10 /usr/bin/python3 scripts/conformance.py --suite numba-cuda [--timeout 600] [MODULE ...]

runs each test module of numba/cuda/tests/cudapy (Debian's python3-numba 0.56.4, read in place
from /usr/lib/python3/dist-packages; with --suite numba-cuda, the newest numba-cuda's, read in
place from a virtual environment this script makes under BUILD; nothing of Numba is copied into
the repository) twice, each in its own process with a timeout:

  sim       NUMBA_ENABLE_CUDASIM=1, numba.cuda is Numba's own simulator (the reference);
  pyk2cuda  the same helpers, but `numba.cuda`, `numba.types` and numba's top-level type names
            (float32, void, ...) are pyk2cuda's (the package built in BUILD/python, on its
            simulator: PYK2CUDA_DEVICE=sim).

With --device gpu a third mode runs each module:

  gpu       as pyk2cuda, on the GPU path (PYK2CUDA_DEVICE=gpu): NVRTC, the CUDA driver API, a
            real GPU or the driver stand-in that PYK2CUDA_LIBCUDA names (docs/runtime.md).

and the table goes to its own part of docs/conformance.md ("The GPU path"). --ci-subset runs the
modules of CI_GPU_MODULES (below: a few of each API, cheap enough for the standin suite);
--check makes the exit status 1 when a test pyk2cuda passes on its simulator does not pass on
the GPU path.

MODULE names (test_math, ...) choose a subset; none means every test_*.py of the folder.
It writes, per module and mode, the counts (run, passed, failed, errored, skipped) and every
test's outcome to BUILD/conformance/results.json (BUILD/conformance-numba-cuda/), and rewrites
the table and the grouped reasons between the suite's markers of docs/conformance.md.
`--one MODE FILE [SUITE]` is the per-module worker.

How pyk2cuda takes numba.cuda over in the test process (docs/conformance.md, "The shim"): the
worker first imports Numba's helpers under the simulator (numba.cuda.testing, numba.tests.support,
numba.core), so that CUDATestCase and skip_on_cudasim behave identically in both modes; then it
drops every other numba.cuda.* module from sys.modules and puts pyk2cuda's modules in their
place, before the test module is loaded from its file. A test module that imports a numba.cuda
submodule pyk2cuda lacks (numba.cuda.random, numba.cuda.cudadrv...) fails to import, and its
tests count as errored: that is a missing name, not a skip. numba-cuda's layout (its helpers
live under numba.cuda) is handled by _numba_cuda_helpers.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBA_TESTS = "/usr/lib/python3/dist-packages/numba/cuda/tests/cudapy"
DOC = os.path.join(ROOT, "docs", "conformance.md")
AS_GPU_DOC = os.path.join(ROOT, "docs", "conformance-as-gpu.md")
BEGIN, END = "<!-- conformance:begin -->", "<!-- conformance:end -->"
MODES = ("sim", "pyk2cuda")
GPU_MODES = ("sim", "pyk2cuda", "gpu")
# --as-gpu: the compute capability skip decisions are made for (an H100/H200's, the device the
# GPU path is tested for), and the modes that run (Numba's simulator cannot run the tests it
# skips, so it is no reference there: each test's own assertions are).
AS_GPU_CC = (9, 0)
AS_GPU_MODES = ("pyk2cuda",)
AS_GPU_DEVICE_MODES = ("pyk2cuda", "gpu")
AS_BEGIN, AS_END = "<!-- conformance-as-gpu:begin -->", "<!-- conformance-as-gpu:end -->"
AS_GPU_BEGIN, AS_GPU_END = "<!-- conformance-as-gpu-device:begin -->", "<!-- conformance-as-gpu-device:end -->"
# The modules the standin suite runs with --device gpu (standin-conformance): between them they
# touch every API of the kernel language and the runtime (device arrays and their copies,
# atomics, constant, shared and local memory, grid sync, records, datetimes, enums, exceptions
# from kernels, intrinsics, math, printing, random numbers, reductions, streams and events,
# vector types), each module cheap; the whole folder by hand.
# (test_math and test_vector_type, a third of the subset's time, are left to the full run.)
CI_GPU_MODULES = ["test_array", "test_atomics", "test_constmem", "test_cooperative_groups",
                  "test_datetime", "test_enums", "test_exception", "test_intrinsics",
                  "test_print", "test_random", "test_record_dtype", "test_reduction", "test_sm",
                  "test_sync", "test_device_func", "test_userexc"]
GPU_BEGIN, GPU_END = "<!-- conformance-gpu:begin -->", "<!-- conformance-gpu:end -->"
_PACKAGE = "conformance_cudapy"
# What a child process needs to prepare the private package as its parent did (_prepare): the
# parent's settings, and this file's path.
CHILD_SETTINGS, CHILD_HARNESS = "P2C_CONFORMANCE_CHILD", "P2C_CONFORMANCE_HARNESS"
# Numba's top-level names that the pyk2cuda mode replaces with pyk2cuda's (signatures are
# handed to pyk2cuda's compiler as text, so they must be pyk2cuda's type objects).
_TYPE_NAMES = ["void", "none", "boolean", "bool_", "int8", "int16", "int32", "int64", "uint8",
               "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64",
               "complex128", "intp", "uintp", "double", "byte"]


# ---------------------------------------------------------------- the worker (one module, one mode)

def _install_shim(suite):
    """numba.cuda, numba.types and numba's type names answered by pyk2cuda; Numba's test
    helpers (already imported under the simulator) stay Numba's."""
    import numba
    lent = {}
    if suite == "numba-cuda":
        keep, lent = _numba_cuda_helpers()
    else:
        import numba.cuda.testing  # noqa: F401 (the helpers, imported while numba.cuda is Numba's)
        import numba.tests.support  # noqa: F401
        keep = {"numba.cuda.testing": sys.modules["numba.cuda.testing"]}
        keep["numba.core.errors"] = _errors_as_pyk2cuda(sys.modules["numba.core.errors"])
        _tuple_types_as_numbas()
    import pyk2cuda
    from pyk2cuda import cuda, types
    for name, value in lent.items():
        if not hasattr(cuda, name):   # never in place of one of pyk2cuda's names
            setattr(cuda, name, value)
    for name in [n for n in sys.modules if n.startswith("numba.cuda.")]:
        del sys.modules[name]
    sys.modules.update(keep)
    sys.modules["numba.cuda"] = cuda
    sys.modules["numba.types"] = types
    for name, module in cuda.SUBMODULES.items():   # numba.cuda.args, .devicearray, .random
        sys.modules["numba.cuda." + name] = module
    # A test that asks the simulator for its list of vector types (test_vector_type does, as
    # ENABLE_CUDASIM is on) gets pyk2cuda's numba.cuda.simulator.vector_types (SUBMODULES).
    numba.cuda = cuda
    numba.types = types
    numba.vectorize = _vectorize_for_cuda(numba.vectorize, pyk2cuda.vectorize)
    for name in _TYPE_NAMES:
        setattr(numba, name, getattr(pyk2cuda, name))
    # numba.typeof makes type objects that tests hand to pyk2cuda's kernels (inspect_asm's
    # signature), as the type names are; `from numba import errors` is the errors module the
    # test modules get (TypingError is pyk2cuda.CompileError), as `numba.core.errors` is.
    numba.typeof = pyk2cuda.typeof
    if "numba.core.errors" in keep:
        numba.errors = keep["numba.core.errors"]


def _errors_as_pyk2cuda(numba_errors):
    """numba.core.errors as the test modules import it: Numba's module, but TypingError and
    LoweringError are pyk2cuda.CompileError, as `python3 -m pyk2cuda` answers them
    (pyk2cuda.numba_names), so that a test expecting a kernel to fail typing judges pyk2cuda's
    error (its class and message), not Numba's class. Numba's own modules keep the module they
    imported: only imports after the shim (the test modules') get this copy."""
    import types
    from pyk2cuda import CompileError
    errors = types.ModuleType(numba_errors.__name__, numba_errors.__doc__)
    errors.__dict__.update(numba_errors.__dict__)
    errors.TypingError = errors.LoweringError = CompileError
    return errors


def _tuple_types_as_numbas():
    """pyk2cuda's tuple types count as Numba's in isinstance (virtual subclasses of
    numba.core.types' Tuple, UniTuple and BaseTuple, whose metaclass is an ABCMeta): the shim
    leaves numba.core.types Numba's, so a test that asks whether a signature pyk2cuda made
    (libdevicefuncs.create_signature) returns a tuple asks Numba's classes, as it would under
    Numba, where numba.types and numba.core.types are one module."""
    from numba.core import types as numba_types
    from pyk2cuda import types
    for name in ("BaseTuple", "Tuple", "UniTuple"):
        getattr(numba_types, name).register(getattr(types, name))


def _vectorize_for_cuda(numba_vectorize, ours):
    """numba.vectorize as `python3 -m pyk2cuda` serves it: target='cuda' is pyk2cuda's; the CPU
    targets stay Numba's (tests compare with them)."""
    def vectorize(*args, **options):
        return (ours if options.get("target") == "cuda" else numba_vectorize)(*args, **options)
    return vectorize


def _numba_cuda_helpers():
    """numba-cuda's test helpers, imported under its simulator, by the names the shim keeps.

    numba-cuda carries inside numba.cuda what Numba 0.56 had outside it (numba.core.config,
    numba.core.errors, numba.tests.support): the shim keeps those that are settings, exception
    classes and test helpers, and nothing of numba-cuda's compiler. numba.cuda.core becomes a
    module with config and errors only (and callconv's class name, below), so that `from
    numba.cuda.core import ir` (numba-cuda's compiler internals, tested by test_ir, test_ssa...)
    is an import error, not numba-cuda's code passing in pyk2cuda's column. numba.cuda.config (the same settings module, which tests read
    to choose skips and code paths) is lent to pyk2cuda's numba.cuda as an attribute. Its errors
    module (and Numba's numba.core.errors, where Numba is installed beside it) is the test
    modules' copy whose TypingError and LoweringError are pyk2cuda.CompileError, as with
    Debian's suite (_errors_as_pyk2cuda)."""
    import types
    import numba.cuda.testing  # noqa: F401 (the helpers, imported while numba.cuda is numba-cuda's)
    import numba.cuda.tests.support  # noqa: F401
    from numba.cuda.core import config, errors
    errors = _errors_as_pyk2cuda(errors)
    core = types.ModuleType("numba.cuda.core")
    core.config, core.errors = config, errors
    # test_compiler imports numba-cuda's calling-convention class at its top, for one test that
    # uses the extension API (@intrinsic, out of scope): a class of that name that nothing is
    # an instance of lets the module's other tests run.
    core.callconv = types.ModuleType("numba.cuda.core.callconv")
    core.callconv.CUDACallConv = type("CUDACallConv", (), {})
    names = ("numba.cuda.testing", "numba.cuda.tests", "numba.cuda.tests.support",
             "numba.cuda.core.config")
    keep = {name: sys.modules[name] for name in names}
    keep["numba.cuda.core"], keep["numba.cuda.core.errors"] = core, errors
    keep["numba.cuda.core.callconv"] = core.callconv
    if "numba.core.errors" in sys.modules:   # Numba beside numba-cuda (its HAS_NUMBA imports)
        keep["numba.core.errors"] = _errors_as_pyk2cuda(sys.modules["numba.core.errors"])
    return keep, {"config": config}


def _first_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _decide_skips_as_on_a_device(cc):
    """Make the test helpers decide as on a device of compute capability `cc`, not as on
    Numba's simulator (issue 28's "as on a GPU" mode).

    Numba's skip decorators read config.ENABLE_CUDASIM when a test module is loaded, and tests
    read it in their bodies to choose a code path: switching it off after the helpers were
    imported (under the simulator) makes `skip_on_cudasim` keep its tests and the bodies take
    the hardware path. `cc_X_or_above` would ask Numba's driver for the device; it answers for
    `cc` instead, so `skip_unless_cc_*` decide as on that device."""
    testing = sys.modules["numba.cuda.testing"]
    testing.config.ENABLE_CUDASIM = False
    testing.cc_X_or_above = lambda major, minor: cc >= (major, minor)
    # Grid-sync tests skip where Numba finds no libcudadevrt.a; Numba 0.56 cannot find it in a
    # CUDA 13 toolkit at all (it looks for nvvm/lib64 first and stops). pyk2cuda links no
    # cudadevrt, so they run, as on a machine where Numba finds it.
    testing.cudadevrt_missing = lambda: False
    _count_nrt_allocations_as_none()


def _count_nrt_allocations_as_none():
    """MemoryLeakMixin (test_array_reductions) compares NRT's allocation counters before and
    after each test; the support module holds the simulator's rtsys, whose counters are None.
    pyk2cuda's kernels allocate nothing through an NRT, so its counters read zero throughout.
    Only numba-cuda's suite has that module (Debian's Numba keeps its support in numba.tests)."""
    import collections
    support = sys.modules.get("numba.cuda.tests.support")
    if support is None:
        return
    stats = collections.namedtuple("_nrt_stats", "alloc free mi_alloc mi_free")(0, 0, 0, 0)

    class NoNrt:
        def memsys_enable_stats(self):
            pass

        def memsys_disable_stats(self):
            pass

        def get_allocation_stats(self):
            return stats
    support.rtsys = NoNrt()


def _shim_child_processes(mode, folder, suite, skips):
    """The Python processes a test starts answer numba.cuda with pyk2cuda too, and can import
    the private package as this process has it (conformance_child/sitecustomize.py says why)."""
    child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conformance_child")
    if child not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (child, os.environ.get("PYTHONPATH")) if p)
    os.environ[CHILD_SETTINGS] = json.dumps([mode, folder, suite, skips])
    os.environ[CHILD_HARNESS] = os.path.abspath(__file__)


def _import_extension_usecases_as_on_the_simulator(package):
    """Numba's tests share a helper module (extensions_usecases) that, off the simulator, defines
    a type with Numba's extension API (a StructModel, @lower): a module that imports it would
    fail to import as a whole, though only its tests that use that type are out of scope
    (conformance_scope). Imported first, while config.ENABLE_CUDASIM is still on, it defines
    the type's name without the extension API."""
    helper = os.path.join(package.__path__[0], "extensions_usecases.py")
    if os.path.exists(helper):
        import importlib
        importlib.import_module(_PACKAGE + ".extensions_usecases")


class HarnessCannotRun(Exception):
    """A test the harness does not start (conformance_scope.NOT_RUNNABLE): a miss, with why."""


def _stop_not_runnable(tests):
    """Each test of NOT_RUNNABLE raises HarnessCannotRun with its reason instead of running."""
    from conformance_scope import NOT_RUNNABLE
    for test in tests:
        why = NOT_RUNNABLE.get(_short(test.id()))
        if why:
            def refuse(self, why=why):
                raise HarnessCannotRun(why)
            setattr(type(test), test._testMethodName, refuse)


def _prepare(mode, folder, suite, skips):
    """The test process as a module's tests need it: the shim (pyk2cuda and GPU modes), the
    private package over the tests' `folder`, the skip decisions. The worker runs it before it
    loads a test module; a child process the test starts with multiprocessing's 'spawn' runs it
    when it first imports the package (conformance_child/sitecustomize.py), so that the test's
    functions it unpickles load from the same package, shimmed the same way. Returns the package."""
    if mode in ("pyk2cuda", "gpu"):
        _install_shim(suite)
        _shim_child_processes(mode, folder, suite, skips)
    # A private package over the tests' folder, so that their relative imports
    # (`from .extensions_usecases import ...`) resolve without importing numba.cuda.tests.
    import types
    package = types.ModuleType(_PACKAGE)
    package.__path__ = [folder]
    sys.modules[_PACKAGE] = package
    if mode in ("pyk2cuda", "gpu"):
        # The tests' helper modules (recursion_usecases, ...) are imported by their full name:
        # they load from the same folder, their kernels compiled by pyk2cuda too.
        tests = sys.modules.get("numba.cuda.tests")   # numba-cuda's: it holds tests.support
        if tests is None:
            tests = types.ModuleType("numba.cuda.tests")
            tests.__path__ = [os.path.dirname(package.__path__[0])]
            sys.modules["numba.cuda.tests"] = tests
        tests.cudapy = package
        sys.modules["numba.cuda.tests.cudapy"] = package
    if skips == "gpu":
        _import_extension_usecases_as_on_the_simulator(package)
        _decide_skips_as_on_a_device(AS_GPU_CC)
    return package


def child_package():
    """The private package, prepared in a child process as its parent worker prepared it
    (_prepare; the parent's settings in CHILD_SETTINGS)."""
    mode, folder, suite, skips = json.loads(os.environ[CHILD_SETTINGS])
    return _prepare(mode, folder, suite, skips)


def _worker(mode, path, suite, skips="sim"):
    import importlib.util
    import unittest
    _prepare(mode, os.path.dirname(os.path.abspath(path)), suite, skips)
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
    if skips == "gpu":
        _stop_not_runnable(tests)
    if mode == "list":   # the module's tests, loaded by Numba's own simulator, none run
        out["tests"] = {test.id(): ["listed", ""] for test in tests}
        print("\n" + json.dumps(out))
        return 0
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

def _children_cpu():
    """CPU seconds (user and system) of this process's finished children so far: a module's
    worker and the compilers it ran. Beside a module's wall seconds it tells a module that is
    slow from one that waited for a loaded machine's cores (numba-cuda's test_ufuncs: 1,777 s
    wall at load 25-30, 169 s of CPU)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run_one(mode, path, build, out, timeout, suite, skips="sim"):
    env = dict(os.environ)
    env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if mode in ("pyk2cuda", "gpu"):
        env["PYTHONPATH"] = os.path.join(build, "python")
        env["PYK2CUDA_DEVICE"] = "sim" if mode == "pyk2cuda" else "gpu"
        env["PYK2CUDA_CACHE_DIR"] = os.path.join(out, "cache")
    t0, cpu0 = time.time(), _children_cpu()
    try:
        p = subprocess.run([suite.python, os.path.abspath(__file__), "--one", mode, path, suite.name,
                            skips],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, cwd=out)
    except subprocess.TimeoutExpired:
        return {"timeout": True, "tests": {}, "seconds": round(time.time() - t0, 1),
                "cpu_seconds": round(_children_cpu() - cpu0, 1)}
    lines = p.stdout.decode(errors="replace").strip().splitlines()
    try:
        res = json.loads(lines[-1])
    except (IndexError, ValueError):
        res = {"tests": {}, "crash": "exit %d: %s" % (p.returncode,
                                                       _first_line(p.stderr.decode(errors="replace")))}
    res["seconds"] = round(time.time() - t0, 1)
    res["cpu_seconds"] = round(_children_cpu() - cpu0, 1)
    return res


def counts(res):
    c = {"run": 0, "pass": 0, "fail": 0, "error": 0, "skip": 0}
    for outcome, _ in res.get("tests", {}).values():
        c[outcome] += 1
        c["run"] += outcome != "skip"
    return c


def _progress_status(res):
    """_status as the progress line says it: a timeout with its wall and CPU seconds."""
    if res.get("timeout") and "cpu_seconds" in res:
        return "timeout after %.0f s, %.0f s of CPU" % (res["seconds"], res["cpu_seconds"])
    return _status(res)


def _status(res):
    if res.get("timeout"):
        return "timeout"
    if "import_error" in res:
        # unittest.SkipTest or pytest.skip raised by the module itself (numba-cuda's
        # test_extending on the simulator): it skips all its tests, it did not fail to import.
        skipped = res["import_error"].startswith(("SkipTest", "Skipped"))
        return "module skipped" if skipped else "import error"
    if "crash" in res:
        return "crashed"
    return ""


# numba-cuda's modules of its compiler (and of the extension API over it), which tests of the
# numba-cuda suite import by name.
_NUMBA_CUDA_INTERNALS = ("core", "compiler", "extending", "typing", "typeconv", "flags", "cgutils",
                         "datamodel", "deviceufunc", "launchconfig")

# Reasons pyk2cuda fails a test Numba's simulator passes, by the text of the error; the first
# pattern that matches names the group (order matters: specific before general).
REASONS = [
    ("the harness cannot run it (conformance_scope.NOT_RUNNABLE)", ["HarnessCannotRun", "harness:"]),
    ("kernel or device function defined inside a function or class (pyk2cuda translates "
     "module-level functions only)", ["defined inside another function", "has no source file"]),
    ("cuda.jit(...) called on a function that is not decorated in its source (pyk2cuda finds "
     "kernels by their decorator in the module's source)", ["no kernel named"]),
    ("numba-cuda's compiler internals and extension API (numba.cuda.core's IR and passes, "
     "compiler, extending, typing, ...), which pyk2cuda does not have",
     [pattern % name for name in _NUMBA_CUDA_INTERNALS
      for pattern in ("'numba.cuda.%s", "import name '%s' from 'pyk2cuda.cuda'")]),
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


def _regressions(results, base="sim", mode="pyk2cuda"):
    """(module, test id, mode's outcome text) for each test `base` passes and `mode` does not."""
    out = []
    for mod, modes in sorted(results.items()):
        sim, pk = modes[base], modes[mode]
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


def _passes(modes, mode, tests):
    """How many of `tests` pass in `mode`."""
    return sum(1 for t in tests if modes[mode].get("tests", {}).get(t, [""])[0] == "pass")


def render(results, elapsed, suite, device="sim"):
    gpu = device == "gpu"
    mode_list = GPU_MODES if gpu else MODES
    rows = ["| module | sim: run / pass / fail / err / skip | pyk2cuda: run / pass / fail / err / skip"
            + (" | GPU path: run / pass / fail / err / skip" if gpu else "")
            + " | sim passes, pyk2cuda passes |" + (" sim passes, GPU path passes |" if gpu else ""),
            "|---|---|---|---|" + ("---|---|" if gpu else "")]
    tot = {m: {"run": 0, "pass": 0, "fail": 0, "error": 0, "skip": 0} for m in mode_list}
    both = sim_pass = gpu_both = 0
    for mod, modes in sorted(results.items()):
        cells = []
        for m in mode_list:
            c = counts(modes[m])
            for k in c:
                tot[m][k] += c[k]
            st = _status(modes[m])
            cells.append("%d / %d / %d / %d / %d%s" % (c["run"], c["pass"], c["fail"], c["error"],
                                                     c["skip"], " (%s)" % st if st else ""))
        sp = [t for t, (o, _) in modes["sim"].get("tests", {}).items() if o == "pass"]
        pp = _passes(modes, "pyk2cuda", sp)
        both += pp
        sim_pass += len(sp)
        gp = _passes(modes, "gpu", sp) if gpu else 0
        gpu_both += gp
        rows.append("| %s | %s | %d / %d |%s" % (mod, " | ".join(cells), pp, len(sp),
                                                 " %d / %d |" % (gp, len(sp)) if gpu else ""))
    share = lambda n: "**%d / %d (%.1f %%)**" % (n, sim_pass, 100.0 * n / sim_pass if sim_pass else 0.0)
    rows.append("| **total** | %s | %s |%s" % (
        " | ".join("%d / %d / %d / %d / %d" % (tot[m]["run"], tot[m]["pass"], tot[m]["fail"],
                                               tot[m]["error"], tot[m]["skip"]) for m in mode_list),
        share(both), " %s |" % share(gpu_both) if gpu else ""))
    regs = _regressions(results, mode="gpu" if gpu else "pyk2cuda")
    groups = {}
    for mod, tid, text in regs:
        groups.setdefault(reason_of(text), []).append((tid, text))
    what = "pyk2cuda's GPU path" if gpu else "pyk2cuda"
    lines = rows + ["", "Tests that Numba's simulator passes and %s does not, by reason "
                    "(%d in all; grouped by the text of pyk2cuda's error):" % (what, len(regs)), ""]
    for group, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        tid, text = items[0]
        # The tests' folder is this machine's (a virtual environment's, for numba-cuda).
        text = re.sub(r"\S*/tests/cudapy/", "", text).replace("`", "'")
        lines.append("- %s: **%d**, e.g. `%s`: `%s`" % (group, len(items), tid.split(".", 1)[-1],
                                                        text[:160]))
    lines += ["", "Generated by `nice -n 10 /usr/bin/python3 scripts/conformance.py%s` in %.0f s "
              "(%d modules%s; %s modes, one process each, on a shared 2-core machine%s)." % (
                  suite.option, elapsed, len(results), suite.versions, "three" if gpu else "both",
                  "; the GPU path on %s" % _gpu_name() if gpu else "")]
    return "\n".join(lines)


def _module_of(tid):
    """test_x of conformance_cudapy.test_x.TestClass.test_y."""
    return tid.split(".")[1] if tid.startswith(_PACKAGE + ".") else tid.split(".")[0]


def _short(tid):
    """test_x.TestClass.test_y: a test's id without the private package's name."""
    return tid[len(_PACKAGE) + 1:] if tid.startswith(_PACKAGE + ".") else tid


def render_as_gpu(results, elapsed, suite, mode_list):
    """The "as on a GPU" table (per module, per mode: in-scope tests run / passed / failed /
    errored, and those the helpers still skip as a CC 9.0 device would) and the list of every
    in-scope test that does not pass, with its reason; out-of-scope tests listed with theirs."""
    from conformance_scope import out_of_scope
    head = "| module | tests | out of scope |" + "".join(
        " %s: run / pass / fail / err / skip |" % _AS_GPU_LABEL[m] for m in mode_list)
    rows = [head, "|---|---|---|" + "---|" * len(mode_list)]
    tot = {m: {"run": 0, "pass": 0, "fail": 0, "error": 0, "skip": 0} for m in mode_list}
    tests_all = scoped_out = 0
    misses = {m: [] for m in mode_list}
    excluded = []
    for mod, modes in sorted(results.items()):
        ids = sorted(set().union(*(modes[m].get("tests", {}) for m in mode_list + ("list",)
                                   if m in modes)))
        out = {t: out_of_scope(_short(t), suite.name) for t in ids}
        excluded += [(_short(t), why) for t, why in out.items() if why]
        tests_all += len(ids)
        scoped_out += sum(1 for why in out.values() if why)
        cells = []
        for m in mode_list:
            res = modes[m]
            st = _status(res)
            why = res.get("import_error") or res.get("crash") or st
            # A test the module listed but this mode never ran (its import failed, it crashed or
            # timed out) counts as errored, with the module's reason.
            got = res.get("tests", {})
            inscope = {t: got.get(t, ["error", why]) for t in ids if not out.get(t)}
            c = counts({"tests": inscope})
            for k in c:
                tot[m][k] += c[k]
            cells.append("%d / %d / %d / %d / %d%s" % (c["run"], c["pass"], c["fail"], c["error"],
                                                     c["skip"], " (%s)" % st if st else ""))
            misses[m] += [(mod, _short(t), o, text) for t, (o, text) in sorted(inscope.items())
                          if o in ("fail", "error")]
            if st and not ids:   # nothing listed either: the module itself is the miss
                misses[m].append((mod, mod, st, why))
        rows.append("| %s | %d | %d | %s |" % (mod, len(ids), sum(1 for w in out.values() if w),
                                               " | ".join(cells)))
    rows.append("| **total** | %d | %d | %s |" % (tests_all, scoped_out, " | ".join(
        "%d / **%d (%.1f %%)** / %d / %d / %d" % (
            tot[m]["run"], tot[m]["pass"], 100.0 * tot[m]["pass"] / tot[m]["run"] if tot[m]["run"] else 0,
            tot[m]["fail"], tot[m]["error"], tot[m]["skip"]) for m in mode_list)))
    lines = rows + [""]
    for m in mode_list:
        groups = {}
        for mod, tid, outcome, text in misses[m]:
            groups.setdefault(reason_of(text), []).append(tid)
        lines.append("In-scope tests that do not pass, %s, by reason (%d in all; each one is "
                     "listed in docs/conformance-as-gpu.md):" % (_AS_GPU_LABEL[m], len(misses[m])))
        lines.append("")
        for group, tids in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            lines.append("- %s: **%d**" % (group, len(tids)))
        lines.append("")
    # A run with --device gpu holds the simulator's column too: rendered from it (--render
    # --from-device), the simulator's table says so, and its seconds are that run's, both modes.
    from_device = "gpu" not in mode_list and any("gpu" in modes for modes in results.values())
    lines.append("Generated by `nice -n 10 /usr/bin/python3 scripts/conformance.py%s` in %.0f s "
                 "(%d modules%s; skip decisions as on a device of compute capability %d.%d; one "
                 "process per module and mode, on a shared 2-core machine%s)." % (
                     suite.option + (" --device gpu" if from_device else ""), elapsed, len(results),
                     suite.versions, AS_GPU_CC[0], AS_GPU_CC[1],
                     "; the GPU path on %s" % _gpu_name() if "gpu" in mode_list else
                     "; this is that run's simulator column, its seconds both modes'" if from_device else ""))
    if suite.rerun:
        lines.append("")
        lines.append("Rerun after the whole run with `--merge` (the seconds above include them): "
                     + ", ".join(suite.rerun) + ".")
    return "\n".join(lines), _as_gpu_details(misses, excluded, mode_list, suite)


_AS_GPU_LABEL = {"pyk2cuda": "pyk2cuda's simulator", "gpu": "pyk2cuda's GPU path"}


def _as_gpu_details(misses, excluded, mode_list, suite):
    """docs/conformance-as-gpu.md's part for one suite: every miss and every out-of-scope test."""
    lines = []
    for m in mode_list:
        lines += ["### In-scope tests that do not pass, %s (%d)" % (_AS_GPU_LABEL[m], len(misses[m])),
                  "", "| test | outcome | reason |", "|---|---|---|"]
        for mod, tid, outcome, text in misses[m]:
            text = re.sub(r"\S*/tests/cudapy/", "", text).replace("|", "\\|").replace("`", "'")
            lines.append("| %s | %s | %s |" % (tid, outcome, text[:200]))
        lines.append("")
    lines += ["### Out of scope (%d), by the rule in docs/conformance.md" % len(excluded), "",
              "| test | why it is out of scope |", "|---|---|"]
    lines += ["| %s | %s |" % (tid, why) for tid, why in sorted(excluded)]
    return "\n".join(lines)


def _gpu_name():
    """What ran the GPU path: the driver stand-in or a GPU, as `pyk2cuda info` names it."""
    lib = os.environ.get("PYK2CUDA_LIBCUDA", "")
    return "the CUDA driver stand-in (PYK2CUDA_LIBCUDA)" if "standin" in lib else "a GPU"


def gpu_check(results):
    """The tests pyk2cuda passes on its simulator and not on the GPU path: (module, id, text)."""
    return _regressions(results, base="pyk2cuda", mode="gpu")


def _write_as_gpu(rendered, suite):
    """The table into docs/conformance.md, every miss into docs/conformance-as-gpu.md, each
    between the suite's own markers."""
    table, details = rendered
    _write_doc(table, suite)
    _write_doc(details, suite, AS_GPU_DOC)


def _write_doc(table, suite, doc=None):
    doc = doc or DOC
    with open(doc) as f:
        text = f.read()
    head, rest = text.split(suite.begin, 1)
    _, tail = rest.split(suite.end, 1)
    with open(doc, "w") as f:
        f.write(head + suite.begin + "\n" + table + "\n" + suite.end + tail)


# ---------------------------------------------------------------- the suites

class Suite:
    """Which copy of Numba's tests runs, by which Python, and where its results go."""

    def __init__(self, name, python, tests, out, begin, end, option="", versions=""):
        self.name, self.python, self.tests, self.out = name, python, tests, out
        self.begin, self.end, self.option, self.versions = begin, end, option, versions
        self.rerun = []   # modules rerun with --merge after the whole run


def debian_suite(a, build):
    return Suite("numba", sys.executable, a.tests or NUMBA_TESTS,
                 a.out or os.path.join(build, "conformance"), BEGIN, END)


# numba-cuda's tests import pytest and filecheck (numba.cuda.testing), cffi and ml_dtypes (some
# modules); they are not among numba-cuda's own requirements.
NUMBA_CUDA_PACKAGES = ["numba-cuda", "pytest", "filecheck", "cffi", "ml_dtypes"]
NC_BEGIN, NC_END = "<!-- conformance-numba-cuda:begin -->", "<!-- conformance-numba-cuda:end -->"


def numba_cuda_python(venv, upgrade=True):
    """The Python of a virtual environment holding the newest numba-cuda from the package index
    (and the numba, NumPy and CUDA bindings it requires), made on first use. With upgrade, pip
    is asked for the newest each time; when the index cannot be reached an existing environment
    is used as it is. The interpreter is this one's: pyk2cuda's extension in BUILD/python is
    built for CPython 3.11's ABI, which Debian's and pyenv's 3.11 share."""
    python = os.path.join(venv, "bin", "python")
    fresh = not os.path.exists(python)
    if fresh:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    if fresh or upgrade:
        p = subprocess.run([python, "-m", "pip", "install", "-q", "--upgrade"] + NUMBA_CUDA_PACKAGES)
        if p.returncode != 0:
            if fresh:
                raise SystemExit("conformance: pip could not install numba-cuda into %s" % venv)
            print("conformance: pip could not upgrade numba-cuda; using %s as it is" % venv,
                  file=sys.stderr)
    return python


def _ask(python, code):
    return subprocess.run([python, "-c", code], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def numba_cuda_suite(a, build, setup=True):
    venv = os.path.abspath(a.venv or os.path.join(build, "numba-cuda-venv"))
    python = numba_cuda_python(venv, upgrade=not a.offline) if setup else os.path.join(venv, "bin", "python")
    suite = Suite("numba-cuda", python, a.tests, a.out or os.path.join(build, "conformance-numba-cuda"),
                  NC_BEGIN, NC_END, option=" --suite numba-cuda")
    if setup:
        # Found without importing numba_cuda (its import needs the CUDA bindings' set-up).
        suite.tests = suite.tests or _ask(python, "import importlib.util, os; print(os.path.join("
                                          "importlib.util.find_spec('numba_cuda').submodule_search_"
                                          "locations[0], 'numba', 'cuda', 'tests', 'cudapy'))")
        suite.versions = "; " + _ask(python, "from importlib.metadata import version as v; print("
                                     "'numba-cuda %s, numba %s, NumPy %s' % (v('numba-cuda'), "
                                     "v('numba'), v('numpy')))")
    return suite


def _merged(out, results, elapsed):
    """The last whole run's results (OUT/results.json) with `results`' modules replaced: the
    modules a change touched are rerun without rerunning the rest. Returns the merged results,
    the whole run's seconds plus this run's, and the sorted names of every module rerun since."""
    with open(os.path.join(out, "results.json")) as f:
        saved = json.load(f)
    merged = dict(saved["results"], **results)
    rerun = sorted(set(saved.get("rerun", [])) | set(results))
    return merged, saved["seconds"] + elapsed, rerun


def main(argv):
    if len(argv) >= 4 and argv[1] == "--one":
        return _worker(argv[2], argv[3], argv[4] if len(argv) > 4 else "numba",
                       argv[5] if len(argv) > 5 else "sim")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--suite", choices=("numba", "numba-cuda"), default="numba",
                    help="numba: Debian's python3-numba 0.56.4 (default); numba-cuda: the newest "
                         "numba-cuda from the package index, in a virtual environment")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per module and mode")
    ap.add_argument("--no-doc", action="store_true", help="do not rewrite docs/conformance.md")
    ap.add_argument("--tests", help="the folder of the test modules (default: the suite's)")
    ap.add_argument("--out", help="folder of results.json and the cache "
                                  "(default BUILD/conformance, BUILD/conformance-numba-cuda)")
    ap.add_argument("--venv", help="numba-cuda's virtual environment (default BUILD/numba-cuda-venv)")
    ap.add_argument("--offline", action="store_true",
                    help="numba-cuda: use the virtual environment as it is, without asking pip")
    ap.add_argument("--setup", action="store_true",
                    help="numba-cuda: only make or upgrade the virtual environment, print its python")
    ap.add_argument("--render", action="store_true",
                    help="no run: rewrite docs/conformance.md from the last results.json")
    ap.add_argument("--device", choices=("sim", "gpu"), default="sim",
                    help="gpu: also run each module on the GPU path (a GPU, or the stand-in that "
                         "PYK2CUDA_LIBCUDA names); its table goes to docs/conformance.md's GPU part")
    ap.add_argument("--ci-subset", action="store_true",
                    help="the modules of CI_GPU_MODULES (the standin suite's run)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a test pyk2cuda passes on its simulator fails on the GPU path")
    ap.add_argument("--as-gpu", action="store_true",
                    help="skip decisions as on a device of compute capability %d.%d (skip_on_cudasim "
                         "keeps its tests): pyk2cuda only (with --device gpu, its GPU path too); "
                         "tables in docs/conformance.md's \"as on a GPU\" part, every miss in "
                         "docs/conformance-as-gpu.md" % AS_GPU_CC)
    ap.add_argument("--from-device", action="store_true",
                    help="with --render and --as-gpu: the simulator's table from the last --device gpu "
                         "run's results (its pyk2cuda column), which then need not be run twice")
    ap.add_argument("--merge", action="store_true",
                    help="with MODULEs: rerun only these and keep the last results.json's other "
                         "modules (the table says which were rerun)")
    ap.add_argument("modules", nargs="*")
    a = ap.parse_args(argv[1:])
    build = os.path.abspath(a.build)
    if a.setup:
        print(numba_cuda_python(os.path.abspath(a.venv or os.path.join(build, "numba-cuda-venv"))))
        return 0
    if not glob.glob(os.path.join(build, "python", "pyk2cuda", "_core*.so")):
        print("conformance: no pyk2cuda package in %s/python (meson setup %s && meson compile -C %s)"
              % (build, a.build, a.build), file=sys.stderr)
        return 2
    if a.suite == "numba-cuda":
        suite = numba_cuda_suite(a, build, setup=not a.render)
    else:
        suite = debian_suite(a, build)
    if a.device == "gpu":
        suite.begin, suite.end = GPU_BEGIN, GPU_END
        suite.out = a.out or suite.out + "-gpu"
        suite.option += " --device gpu" + (" --ci-subset" if a.ci_subset else "")
    mode_list = GPU_MODES if a.device == "gpu" else MODES
    skips = "gpu" if a.as_gpu else "sim"
    if a.as_gpu:
        mode_list = AS_GPU_DEVICE_MODES if a.device == "gpu" else AS_GPU_MODES
        suite.begin, suite.end = (AS_GPU_BEGIN, AS_GPU_END) if a.device == "gpu" else (AS_BEGIN, AS_END)
        suite.begin = suite.begin.replace("as-gpu", "as-gpu-" + suite.name)
        suite.end = suite.end.replace("as-gpu", "as-gpu-" + suite.name)
        suite.out = (a.out or suite.out) + "-as-gpu"
        suite.option += " --as-gpu"
    out = os.path.abspath(suite.out)
    os.makedirs(os.path.join(out, "cache"), exist_ok=True)
    if a.render:
        if a.from_device:   # the --device gpu run's folder (suite.out + "-gpu" + "-as-gpu")
            out = os.path.abspath(suite.out[:-len("-as-gpu")] + "-gpu-as-gpu")
        with open(os.path.join(out, "results.json")) as f:
            saved = json.load(f)
        suite.versions = saved.get("versions", "")
        suite.rerun = saved.get("rerun", [])
        if a.as_gpu:
            _write_as_gpu(render_as_gpu(saved["results"], saved["seconds"], suite, mode_list), suite)
        else:
            _write_doc(render(saved["results"], saved["seconds"], suite, a.device), suite)
        return 0
    modules = a.modules or (CI_GPU_MODULES if a.ci_subset else [])
    paths = ([os.path.join(suite.tests, m if m.endswith(".py") else m + ".py") for m in modules]
             or sorted(glob.glob(os.path.join(suite.tests, "test_*.py"))))
    t0 = time.time()
    results = {}
    for path in paths:
        mod = os.path.splitext(os.path.basename(path))[0]
        results[mod] = {m: _run_one(m, path, build, out, a.timeout, suite, skips) for m in mode_list}
        if a.as_gpu:   # a module pyk2cuda cannot import still counts its tests
            results[mod]["list"] = _run_one("list", path, build, out, a.timeout, suite)
        print("%-40s %s" % (mod, "  ".join(
            "%s %d/%d pass%s" % (m, counts(results[mod][m])["pass"], counts(results[mod][m])["run"],
                                 " (%s)" % _progress_status(results[mod][m]) if _status(results[mod][m]) else "")
            for m in mode_list)), flush=True)
    elapsed = time.time() - t0
    rerun = []
    if a.merge and a.modules:
        results, elapsed, rerun = _merged(out, results, elapsed)
    suite.rerun = rerun
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"results": results, "seconds": elapsed, "versions": suite.versions,
                   "rerun": rerun}, f, indent=1, sort_keys=True)
    if a.as_gpu:
        table, details = render_as_gpu(results, elapsed, suite, mode_list)
        print(table)
        if not a.no_doc:
            _write_as_gpu((table, details), suite)
        return 0
    table = render(results, elapsed, suite, a.device)
    print(table)
    if not a.no_doc:
        _write_doc(table, suite)
    if a.check and a.device == "gpu":
        lost = gpu_check(results)
        for mod, tid, text in lost:
            print("GPU path fails what the simulator passes: %s: %s" % (tid, text))
        print("check: %d test(s) pass on pyk2cuda's simulator and not on the GPU path" % len(lost))
        return 1 if lost else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
