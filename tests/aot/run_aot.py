#!/usr/bin/env python3
"""The ahead-of-time bundle tests (docs/aot.md; meson test --suite aot).

Builds bundles of samples/vecadd.py and samples/smooth.py with `pyk2cuda build`, compiles
samples/aot/main.c (C) and main.cc (C++) and tests/aot/two_bundles.c against them with the host's
own compilers (no pyk2cuda header or library), and checks:
  - the programs' results (each program checks itself against C/C++ computations) on the GPU
    path, run on the CUDA driver stand-in (PYK2CUDA_LIBCUDA);
  - with no driver the C program starts and reports it (status and message, exit 1), and
    PYK2CUDA_DEVICE=sim is refused by a bundle without a simulator part;
  - the executables need no libpyk2cuda and no Python (ldd), and every global symbol the bundles'
    objects define starts with the bundle's name (nm), so two bundles link into one program;
  - a small bundle's header equals tests/aot/vec.h (golden; --update rewrites it after review).

    run_aot.py --pyk2cuda BUILD/tools/pyk2cuda --standin BUILD/tests/standin/libcuda.so.1 [--update]
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

BUNDLES = [
    # name, source, signature, archs
    ("vec", "samples/vecadd.py", "vecadd(int32[::1], int32[::1], float64[::1])", "sm_90"),
    ("img", "samples/smooth.py", "smooth_gpu(int32[:, ::1], int32[:, ::1])", "sm_80,sm_90"),
    ("vec64", "samples/vecadd.py", "vecadd(int64[::1], int64[::1], float64[::1])", "sm_80"),
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


def build_bundles(pyk2cuda, out):
    for name, src, sig, archs in BUNDLES:
        must([pyk2cuda, "build", src, "--sig", sig, "--arch", archs, "-o", os.path.join(out, name)],
             "pyk2cuda build " + name, cwd=ROOT)


def compile_programs(out):
    cc = os.environ.get("CC", "cc")
    cxx = os.environ.get("CXX", "c++")
    flags = ["-O2", "-Wall", "-Wextra", "-I" + out]
    for name, _, _, _ in BUNDLES:
        must([cc, "-std=c11", "-pedantic", "-Werror"] + flags + ["-c", os.path.join(out, name + ".c"),
             "-o", os.path.join(out, name + ".o")], "cc " + name + ".c")
    objs = lambda *names: [os.path.join(out, n + ".o") for n in names]
    libs = ["-ldl", "-lpthread"]
    must([cc, "-std=c11"] + flags + [os.path.join(ROOT, "samples/aot/main.c")] + objs("vec", "img") + libs +
         ["-o", os.path.join(out, "aot_c")], "cc main.c")
    must([cxx, "-std=c++17"] + flags + [os.path.join(ROOT, "samples/aot/main.cc")] + objs("vec", "img") + libs +
         ["-o", os.path.join(out, "aot_cxx")], "c++ main.cc")
    must([cc, "-std=c11"] + flags + [os.path.join(HERE, "two_bundles.c")] + objs("vec", "vec64") + libs +
         ["-o", os.path.join(out, "two_bundles")], "cc two_bundles.c")


def expect_run(exe, env, want_rc, want_text, what):
    rc, out, err = run([exe], env=env)
    if rc != want_rc or want_text not in out + err:
        fail("%s: exit %d, expected %d and %r in the output:\n%s%s" % (what, rc, want_rc, want_text, out, err))
    else:
        print("ok: %s: %s" % (what, (out + err).strip().splitlines()[-1]))


def check_runs(out, standin):
    base = {k: v for k, v in os.environ.items() if k not in ("PYK2CUDA_DEVICE", "PYK2CUDA_LIBCUDA")}
    on_standin = dict(base, PYK2CUDA_LIBCUDA=standin)
    expect_run(os.path.join(out, "aot_c"), on_standin, 0, "aot C sample: ok on gpu", "C sample on the stand-in")
    expect_run(os.path.join(out, "aot_cxx"), on_standin, 0, "aot C++ sample: ok on gpu", "C++ sample on the stand-in")
    expect_run(os.path.join(out, "two_bundles"), on_standin, 0, "two bundles: ok on gpu and gpu",
               "two bundles (CUBIN and PTX) on the stand-in")
    no_driver = dict(base, PYK2CUDA_LIBCUDA=os.path.join(out, "no-such-libcuda.so"))
    expect_run(os.path.join(out, "aot_c"), no_driver, 1, "vec: no CUDA driver: ", "C sample without a driver")
    expect_run(os.path.join(out, "aot_c"), dict(on_standin, PYK2CUDA_DEVICE="sim"), 1,
               "PYK2CUDA_DEVICE=sim, but this bundle has no simulator part", "PYK2CUDA_DEVICE=sim without --with-sim")


def check_dependencies(out):
    for exe in ("aot_c", "aot_cxx", "two_bundles"):
        rc, text, err = run(["ldd", os.path.join(out, exe)])
        bad = [l.strip() for l in text.splitlines() if re.search(r"pyk2cuda|python|nvrtc|libcuda", l)]
        if rc != 0 or bad:
            fail("%s depends on %s" % (exe, bad or err))
    for name, _, _, _ in BUNDLES:
        rc, text, err = run(["nm", "-g", "--defined-only", os.path.join(out, name + ".o")])
        syms = [l.split()[-1] for l in text.splitlines() if l.strip()]
        foreign = [s for s in syms if not s.startswith(name + "_")]
        rc2, undef, _ = run(["nm", "-u", os.path.join(out, name + ".o")])
        ours = [l.split()[-1] for l in undef.splitlines() if "p2c" in l or "Py" in l]
        if rc != 0 or foreign or ours or not syms:
            fail("%s.o: global symbols without the prefix %s, or undefined pyk2cuda/Python ones %s" % (name, foreign, ours))
    print("ok: no pyk2cuda, Python, NVRTC or libcuda among the programs' libraries; bundle symbols prefixed")


def check_refusals(pyk2cuda, out):
    """Usage errors of `pyk2cuda build`: exit 2 and a message saying what was wrong."""
    vec = ["build", "samples/vecadd.py", "--sig", BUNDLES[0][2]]
    cases = [
        (vec + ["-o", os.path.join(out, "9lives")], "bad bundle name '9lives'"),
        (vec + ["--arch", "sm_9x", "-o", os.path.join(out, "v")], "bad architecture 'sm_9x'"),
        (vec + ["--arch", "sm_90,sm_90", "-o", os.path.join(out, "v")], "architecture sm_90 given twice"),
        (vec, "build needs -o OUT/NAME"),
        (vec + ["--check-bounds", "-o", os.path.join(out, "v")], "cannot check bounds"),
    ]
    for args, want in cases:
        rc, text, err = run([pyk2cuda] + args, cwd=ROOT)
        if rc != 2 or want not in err:
            fail("pyk2cuda %s: exit %d, expected 2 and %r:\n%s" % (" ".join(args), rc, want, err))
    if os.path.exists(os.path.join(out, "v.h")):
        fail("a refused build wrote files")
    print("ok: %d refused builds exit 2 with their reason" % len(cases))


def check_golden(out, update):
    golden = os.path.join(HERE, "vec.h")
    text = open(os.path.join(out, "vec.h")).read()
    if update:
        open(golden, "w").write(text)
        print("updated " + golden)
    elif not os.path.exists(golden) or open(golden).read() != text:
        fail("vec.h differs from tests/aot/vec.h (review, then run_aot.py --update)")
    else:
        print("ok: vec.h equals tests/aot/vec.h")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--standin", required=True)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--keep", help="build in this folder and keep it")
    a = ap.parse_args()
    out = a.keep or tempfile.mkdtemp(prefix="pyk2cuda-aot-")
    os.makedirs(out, exist_ok=True)
    try:
        build_bundles(os.path.abspath(a.pyk2cuda), out)
        check_golden(out, a.update)
        check_refusals(os.path.abspath(a.pyk2cuda), out)
        compile_programs(out)
        check_dependencies(out)
        check_runs(out, os.path.abspath(a.standin))
    finally:
        if not a.keep:
            shutil.rmtree(out, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
