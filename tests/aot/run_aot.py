#!/usr/bin/env python3
"""The ahead-of-time bundle tests (docs/aot.md; meson test --suite aot).

Builds bundles of samples/vecadd.py, samples/smooth.py, tests/aot/warp_sum.py, the @vectorize
ufuncs of samples/aot/ufuncs.py, tests/aot/kinds.py (a kernel of each kind the simulator part
runs: blocks, lockstep, regions, grid regions) and tests/aot/types.py (complex, float16,
datetime and tuple arguments) with `pyk2cuda build`, with and without
--with-sim, compiles samples/aot/main.c (C), main.cc (C++), ufunc.c, tests/aot/two_bundles.c,
warp.c, kinds.c and types.c against them with the host's own compilers (no
pyk2cuda header or library), and checks:
  - the programs' results (each program checks itself against C/C++ computations) on the GPU
    path, run on the CUDA driver stand-in (PYK2CUDA_LIBCUDA), and on the simulator part (no
    driver, or PYK2CUDA_DEVICE=sim), a fibers kernel too; the ufunc
    launchers', kinds.c's and types.c's results on both also against Numba's (ufuncs; the CUDA
    simulator) for the same Python (with --oracle);
  - with no driver and no simulator part the C program starts and reports it (status and
    message, exit 1), and PYK2CUDA_DEVICE=sim is refused by a bundle without a simulator part;
  - the executables need no libpyk2cuda and no Python (ldd), and every global symbol the bundles'
    objects define starts with the bundle's name (nm), so two bundles link into one program;
  - a small bundle's header equals tests/aot/vec.h, the ufunc bundle's tests/aot/uf.h (golden;
    --update rewrites them after review).

    run_aot.py --pyk2cuda BUILD/tools/pyk2cuda --standin BUILD/tests/standin/libcuda.so.1 [--oracle PYTHON] [--update]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name, source, signature, archs; each is built twice: in plain/ (the GPU path only) and in sim/
# (--with-sim)
BUNDLES = [
    ("vec", "samples/vecadd.py", "vecadd(int32[::1], int32[::1], float64[::1])", "sm_90"),
    ("img", "samples/smooth.py", "smooth_gpu(int32[:, ::1], int32[:, ::1])", "sm_80,sm_90"),
    ("vec64", "samples/vecadd.py", "vecadd(int64[::1], int64[::1], float64[::1])", "sm_80"),
    ("warp", "tests/aot/warp_sum.py", "warp_sum(int32[::1], int32[::1])", "sm_90"),
    ("uf", "samples/aot/ufuncs.py", None, "sm_90"),   # @vectorize ufuncs: their decorators' signatures
    ("kinds", "tests/aot/kinds.py", ["scale(float32[::1], float32[::1], float32)", "stride_scale(int32[::1], int32[::1])",
                                     "block_sum(int64[::1], int64[::1])",
                                     "grid_rotate(float32[::1], float32[::1], float32[::1])",
                                     "warp_reduce(int32[::1], int64[::1], int64[::1])",
                                     "ring(int32[::1], int64[::1])"], "sm_90"),
    ("types", "tests/aot/types.py", ["cmul(complex128[::1], complex64[::1], complex128)",
                                     "hscale(float16[::1], float16, float16[::1])",
                                     "shift(datetime64[s][::1], timedelta64[s], timedelta64[s][::1])",
                                     "affine(float64[::1], Tuple(int32, float64), UniTuple(float32, 2))"], "sm_90"),
]
# the simulator's compile flags (src/runtime/sim/sim.c), as docs/aot.md asks for NAME_sim.cc
SIM_FLAGS = ["-O2", "-fwrapv", "-fno-strict-aliasing", "-ffp-contract=off", "-fno-math-errno"]
# program, its sources, the bundles it links
PROGRAMS = [
    ("aot_c", ["samples/aot/main.c"], ["vec", "img"]),
    ("aot_cxx", ["samples/aot/main.cc"], ["vec", "img"]),
    ("two_bundles", ["tests/aot/two_bundles.c"], ["vec", "vec64"]),
    ("warp", ["tests/aot/warp.c"], ["warp"]),
    ("aot_ufunc", ["samples/aot/ufunc.c"], ["uf"]),
    ("kinds", ["tests/aot/kinds.c"], ["kinds"]),
    ("types", ["tests/aot/types.c"], ["types"]),
]
# programs whose simulator-part results are compared with Numba's: program, what it prints when
# it succeeded (then " on BACKEND"), the Python it runs, the comparison (run by the oracle Python)
COMPARED = [
    ("aot_ufunc", "aot ufunc sample: ok", "samples/aot/ufuncs.py", "ufunc_numba.py"),
    ("kinds", "kinds: ok", "tests/aot/kinds.py", "kinds_numba.py"),
    ("types", "types: ok", "tests/aot/types.py", "types_numba.py"),
]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def must(cmd, what, **kw):
    rc, out, err = run(cmd, **kw)
    if rc != 0:
        sys.exit("%s failed (exit %d): %s\n%s%s" % (what, rc, " ".join(cmd), out, err))
    return out


def build_bundles(pyk2cuda, out, with_sim):
    os.makedirs(out, exist_ok=True)
    for name, src, sig, archs in BUNDLES:
        sigs = [] if sig is None else [sig] if isinstance(sig, str) else sig
        must([pyk2cuda, "build", src] + [a for x in sigs for a in ("--sig", x)] + ["--arch", archs, "-o", os.path.join(out, name)] +
             (["--with-sim"] if with_sim else []), "pyk2cuda build " + name, cwd=ROOT)


def compile_programs(out, with_sim):
    """Each bundle's C with the C compiler (C11, pedantic, warnings as errors), its simulator part
    with the C++ compiler, then each program linked by its own language's compiler."""
    cc = os.environ.get("CC", "cc")
    cxx = os.environ.get("CXX", "c++")
    flags = ["-O2", "-Wall", "-Wextra", "-I" + out]
    for name, _, _, _ in BUNDLES:
        must([cc, "-std=c11", "-pedantic", "-Werror"] + flags + ["-c", os.path.join(out, name + ".c"),
             "-o", os.path.join(out, name + ".o")], "cc " + name + ".c")
        if with_sim:
            must([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror"] + SIM_FLAGS +
                 ["-c", os.path.join(out, name + "_sim.cc"), "-o", os.path.join(out, name + "_sim.o")],
                 "c++ " + name + "_sim.cc")
    for exe, srcs, bundles in PROGRAMS:
        objs = [os.path.join(out, b + suffix) for b in bundles for suffix in ([".o", "_sim.o"] if with_sim else [".o"])]
        compiler = [cxx, "-std=c++17"] if srcs[0].endswith(".cc") else [cc, "-std=c11"]
        must(compiler + flags + [os.path.join(ROOT, s) for s in srcs] + objs + ["-ldl", "-lpthread", "-lm",
             "-o", os.path.join(out, exe)], "compiling " + exe)


def expect_run(exe, env, want_rc, want_text, what, args=()):
    rc, out, err = run([exe] + list(args), env=env)
    if rc != want_rc or want_text not in out + err:
        fail("%s: exit %d, expected %d and %r in the output:\n%s%s" % (what, rc, want_rc, want_text, out, err))
    else:
        print("ok: %s: %s" % (what, (out + err).strip().splitlines()[-1]))


def check_compared_runs(out, standin, oracle):
    """The COMPARED programs on the stand-in and on the simulator part; both parts' results
    against Numba's for the same Python (with the oracle Python)."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYK2CUDA_DEVICE", "PYK2CUDA_LIBCUDA")}
    no_driver = dict(base, PYK2CUDA_LIBCUDA=os.path.join(out, "no-such-libcuda.so"))
    for exe, ok, source, script in COMPARED:
        dumps = []
        for part, env, backend in (("plain", dict(base, PYK2CUDA_LIBCUDA=standin), "gpu"), ("sim", no_driver, "sim")):
            dumps.append(os.path.join(out, "%s-results-%s" % (exe, backend)))
            os.makedirs(dumps[-1], exist_ok=True)
            expect_run(os.path.join(out, part, exe), env, 0, ok + " on " + backend,
                       exe + (" on the stand-in" if backend == "gpu" else " on the simulator part"), [dumps[-1]])
        if not oracle:
            print("note: %s's results are not compared with Numba's here (no oracle Python: meson "
                  "-Doracle_python)" % exe)
            continue
        for dump in dumps:
            rc, text, err = run([oracle, os.path.join(HERE, script), os.path.join(ROOT, source), dump])
            if rc != 0:
                fail("%s (%s) against Numba:\n%s%s" % (exe, dump, text, err))
            else:
                print("ok: %s (%s): %s" % (exe, os.path.basename(dump), text.strip().splitlines()[-1]))


def check_runs(out, standin):
    plain, sim = os.path.join(out, "plain"), os.path.join(out, "sim")
    base = {k: v for k, v in os.environ.items() if k not in ("PYK2CUDA_DEVICE", "PYK2CUDA_LIBCUDA")}
    gpu = dict(base, PYK2CUDA_LIBCUDA=standin)
    no_driver = dict(base, PYK2CUDA_LIBCUDA=os.path.join(out, "no-such-libcuda.so"))
    forced_sim = dict(gpu, PYK2CUDA_DEVICE="sim")
    exe = lambda folder, name: os.path.join(folder, name)
    # the GPU path, on the stand-in (CUBINs; vec64 from its PTX)
    expect_run(exe(plain, "aot_c"), gpu, 0, "aot C sample: ok on gpu", "C sample on the stand-in")
    expect_run(exe(plain, "aot_cxx"), gpu, 0, "aot C++ sample: ok on gpu", "C++ sample on the stand-in")
    expect_run(exe(plain, "two_bundles"), gpu, 0, "two bundles: ok on gpu and gpu", "two bundles (CUBIN, PTX) on the stand-in")
    expect_run(exe(plain, "warp"), gpu, 0, "warp: ok on gpu", "a warp shuffle on the stand-in")
    # no GPU and no simulator part: the program starts and is told why nothing runs
    expect_run(exe(plain, "aot_c"), no_driver, 1, "vec: no CUDA driver: ", "C sample without a driver")
    expect_run(exe(plain, "aot_c"), forced_sim, 1, "PYK2CUDA_DEVICE=sim, but this bundle has no simulator part",
               "PYK2CUDA_DEVICE=sim without --with-sim")
    # the simulator part: chosen without a driver, or by PYK2CUDA_DEVICE=sim; the GPU otherwise
    expect_run(exe(sim, "aot_c"), no_driver, 0, "aot C sample: ok on sim", "C sample on the simulator part")
    expect_run(exe(sim, "aot_cxx"), forced_sim, 0, "aot C++ sample: ok on sim", "C++ sample, PYK2CUDA_DEVICE=sim")
    expect_run(exe(sim, "two_bundles"), no_driver, 0, "two bundles: ok on sim and sim",
               "two bundles of one kernel on the simulator part")
    expect_run(exe(sim, "aot_c"), gpu, 0, "aot C sample: ok on gpu", "a --with-sim bundle on the stand-in")
    expect_run(exe(sim, "warp"), no_driver, 0, "warp: ok on sim", "a fibers kernel on the simulator part")
    expect_run(exe(sim, "aot_c"), dict(no_driver, PYK2CUDA_DEVICE="gpu"), 1, "no CUDA driver",
               "PYK2CUDA_DEVICE=gpu without a driver")


def check_dependencies(out):
    # at -O0 the kernels' inline functions are emitted as weak symbols: they too must be prefixed
    sim = os.path.join(out, "sim")
    must([os.environ.get("CXX", "c++"), "-std=c++17", "-O0", "-fwrapv", "-c", os.path.join(sim, "vec_sim.cc"),
          "-o", os.path.join(sim, "vec_sim_O0.o")], "c++ -O0 vec_sim.cc")
    for folder in ("plain", "sim"):
        d = os.path.join(out, folder)
        for exe, _, _ in PROGRAMS:
            rc, text, err = run(["ldd", os.path.join(d, exe)])
            bad = [l.strip() for l in text.splitlines() if re.search(r"pyk2cuda|python|nvrtc|libcuda", l)]
            if rc != 0 or bad:
                fail("%s/%s depends on %s" % (folder, exe, bad or err))
        for obj in sorted(f for f in os.listdir(d) if f.endswith(".o")):
            name = re.sub(r"(_sim|_sim_O0)?\.o$", "", obj)
            rc, text, err = run(["nm", "-g", "--defined-only", os.path.join(d, obj)])
            syms = [l.split()[-1] for l in text.splitlines() if l.strip()]
            # a kernel's static shared array is a static local of its (renamed) function: C++
            # mangles it inside NAME__k_KERNEL, as unique to the bundle as the kernel's name
            foreign = [s for s in syms if not s.startswith(name + "_") and not re.match(r"_ZZ\d+%s__k_" % name, s)]
            rc2, undef, _ = run(["nm", "-u", os.path.join(d, obj)])
            ours = [l.split()[-1] for l in undef.splitlines() if re.search(r"p2c|Py|nvrtc|^\s*U cu", l)]
            if rc != 0 or foreign or ours or not syms:
                fail("%s/%s: global symbols without the prefix %s_: %s; undefined ones of pyk2cuda, Python, "
                     "NVRTC or CUDA: %s" % (folder, obj, name, foreign, ours))
    print("ok: no pyk2cuda, Python, NVRTC or libcuda among the programs' libraries; bundle symbols prefixed")


def check_refusals(pyk2cuda, out):
    """Usage errors of `pyk2cuda build`: exit 2 and a message saying what was wrong."""
    vec = ["build", "samples/vecadd.py", "--sig", BUNDLES[0][2]]
    cases = [
        (vec + ["-o", os.path.join(out, "9lives")], "bad bundle name '9lives'"),
        (vec + ["--arch", "sm_9x", "-o", os.path.join(out, "v")], "bad architecture 'sm_9x'"),
        (vec + ["--arch", "sm_90,sm_90", "-o", os.path.join(out, "v")], "architecture sm_90 given twice"),
        (vec, "build needs -o OUT/NAME"),
        (vec + ["--check-bounds", "-o", os.path.join(out, "v")], "vecadd cannot check bounds"),
        (["build", "tests/aot/refused.py", "-k", "debug_kernel", "--sig", "debug_kernel(float32[::1])",
          "-o", os.path.join(out, "v")], "debug_kernel cannot check bounds or report raises in a bundle yet"),
        (["build", "tests/aot/refused.py", "-k", "pair_sum", "--sig", "pair_sum(float32[::1], Tuple(float32[::1], float32))",
          "-o", os.path.join(out, "v")], "parameter 'p' is a tuple holding arrays, tuples, records or enum members"),
        (["build", "tests/aot/refused.py", "-k", "first_x", "--sig",
          "first_x(float32[::1], Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False))", "-o", os.path.join(out, "v")],
         "parameter 'r' is a record, which bundle launchers do not take yet"),
    ]
    for args, want in cases:
        rc, text, err = run([pyk2cuda] + args, cwd=ROOT)
        if rc != 2 or want not in err:
            fail("pyk2cuda %s: exit %d, expected 2 and %r:\n%s" % (" ".join(args), rc, want, err))
    if os.path.exists(os.path.join(out, "v.h")):
        fail("a refused build wrote files")
    print("ok: %d refused builds exit 2 with their reason" % len(cases))


def check_golden(out, update):
    """The headers of a small bundle and of the ufunc bundle, against tests/aot/vec.h and uf.h."""
    for name in ("vec.h", "uf.h"):
        golden = os.path.join(HERE, name)
        text = open(os.path.join(out, name)).read()
        if update:
            open(golden, "w").write(text)
            print("updated " + golden)
        elif not os.path.exists(golden) or open(golden).read() != text:
            fail("%s differs from tests/aot/%s (review, then run_aot.py --update)" % (name, name))
        else:
            print("ok: %s equals tests/aot/%s" % (name, name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--standin", required=True)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--oracle", help="a Python with NumPy and Numba, for the ufunc comparison")
    ap.add_argument("--keep", help="build in this folder and keep it")
    a = ap.parse_args()
    out = a.keep or tempfile.mkdtemp(prefix="pyk2cuda-aot-")
    os.makedirs(out, exist_ok=True)
    try:
        for folder, with_sim in (("plain", False), ("sim", True)):
            build_bundles(os.path.abspath(a.pyk2cuda), os.path.join(out, folder), with_sim)
            compile_programs(os.path.join(out, folder), with_sim)
        check_golden(os.path.join(out, "plain"), a.update)
        check_refusals(os.path.abspath(a.pyk2cuda), out)
        check_dependencies(out)
        check_runs(out, os.path.abspath(a.standin))
        check_compared_runs(out, os.path.abspath(a.standin), a.oracle)
    finally:
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
