"""Registers, spills, shared memory and PTX instructions of every sample kernel: pyk2cuda's
code next to numba-cuda's, both assembled by the same ptxas for the same architecture; and the
PTX instructions of each.

    python3 bench/registers.py --pyk2cuda build/tools/pyk2cuda \\
        [--numba-python VENV/bin/python] [--arch sm_90]

pyk2cuda's PTX comes from `pyk2cuda ptx`, numba-cuda's from `numba.cuda.compile_ptx` run by
--numba-python (a Python with numba-cuda, such as the one `scripts/conformance.py --suite
numba-cuda --setup` prints; numba-cuda compiles PTX without a GPU, with the CUDA toolkit's NVVM). Both are assembled with `ptxas -v`.
Without --numba-python only pyk2cuda's column is filled. Prints a Markdown table for
bench/RESULTS.md. Needs ptxas (the CUDA toolkit); no GPU.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (file, kernel, signature): every sample kernel, and the reduction kernels of bench/kernels.py.
KERNELS = [
    ("samples/vecadd.py", "vecadd", "void(int32[::1], int32[::1], float64[::1])"),
    ("samples/smooth.py", "smooth_gpu", "void(int32[:, ::1], int32[:, ::1])"),
    ("samples/normalize.py", "partial_sums", "void(float32[::1], float32[::1])"),
    ("samples/normalize.py", "total_sum", "void(float32[::1], float32[::1])"),
    ("samples/normalize.py", "divide", "void(float32[::1], float32[::1])"),
    ("samples/great_circle.py", "great_circle", "void(float64[:, ::1], float64, float64)"),
    ("samples/matmul.py", "matmul", "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"),
    ("samples/hello_index.py", "hello_index", "void(int64[::1])"),
    ("bench/kernels.py", "block_sum", "void(float32[::1], float32[::1])"),
    ("bench/kernels.py", "copy", "void(float32[::1], float32[::1])"),
]

NUMBA_PTX = os.path.join(ROOT, "bench", "numba_ptx.py")


def assemble(ptx, arch, work):
    """ptxas -v: (registers, spill bytes, shared bytes, PTX instructions)."""
    cubin = os.path.join(work, "k.cubin")
    r = subprocess.run(["ptxas", f"-arch={arch}", "-v", ptx, "-o", cubin],
                       capture_output=True, text=True, check=True)
    info = r.stderr
    regs = int(re.search(r"Used (\d+) registers", info).group(1))
    spills = sum(int(n) for n in re.findall(r"(\d+) bytes spill (?:stores|loads)", info))
    smem = re.search(r"(\d+) bytes smem", info)
    # PTX instructions (this machine has no cuobjdump for SASS): statements inside the entry
    # that are not directives, labels or braces.
    count = sum(1 for line in open(ptx).read().splitlines()
                if line.strip().endswith(";") and not line.strip().startswith((".", "//")))
    return regs, spills, int(smem.group(1)) if smem else 0, count


def ours(pyk2cuda, path, name, sig, arch, work):
    ptx = os.path.join(work, "ours.ptx")
    r = subprocess.run([pyk2cuda, "ptx", path, "-k", name, "--sig", name + sig[len("void"):],
                        "--arch", arch, "--no-cache", "-o", ptx], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)  # the notes pyk2cuda prints on success are not shown
    return assemble(ptx, arch, work)


def numbas(python, path, name, sig, arch, work):
    ptx = os.path.join(work, "numba.ptx")
    r = subprocess.run([python, NUMBA_PTX, path, name, sig, arch, "--out", ptx],
                       capture_output=True, text=True)
    if r.returncode != 0:
        errors = [l for l in r.stderr.splitlines() if "Error" in l] or r.stderr.splitlines()[-1:]
        print(f"numba-cuda failed on {name}: {errors[-1].strip()}", file=sys.stderr)
        return None
    return assemble(ptx, arch, work)


def cell(v):
    return "-" if v is None else f"{v[0]} / {v[1]} / {v[2]} / {v[3]}"


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    ap.add_argument("--numba-python")
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args(argv)
    os.chdir(ROOT)
    print(f"### Registers / spill bytes / shared bytes / PTX instructions, {a.arch}\n")
    print("| kernel | pyk2cuda | numba-cuda | registers, ours - numba's |")
    print("|---|---|---|---:|")
    worse = 0
    with tempfile.TemporaryDirectory() as work:
        for path, name, sig in KERNELS:
            o = ours(a.pyk2cuda, path, name, sig, a.arch, work)
            n = numbas(a.numba_python, path, name, sig, a.arch, work) if a.numba_python else None
            delta = "-" if n is None else f"{o[0] - n[0]:+d}"
            worse += n is not None and o[0] > n[0]
            print(f"| {name} ({path}) | {cell(o)} | {cell(n)} | {delta} |")
    print(f"\n{worse} kernel(s) use more registers than numba-cuda's")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
