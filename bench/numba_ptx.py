"""numba-cuda's PTX for one kernel of a .py file, for bench/compile_vs.py and bench/registers.py.
Run by a Python that has numba-cuda (no GPU needed; the CUDA toolkit's NVVM):

    numba_ptx.py FILE.py KERNEL 'void(types)' sm_XY [--out OUT.ptx] [--repeat N]

Loads FILE.py (a fresh import, as a user's process would), compiles KERNEL's Python function
with `numba.cuda.compile_ptx` for the architecture, writes the PTX to --out, and with --repeat N
compiles it N more times and prints the median of those compiles in ms (a second compile in a
long-lived process)."""
import argparse
import importlib.util
import statistics
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("kernel")
    ap.add_argument("signature")
    ap.add_argument("arch")
    ap.add_argument("--out")
    ap.add_argument("--repeat", type=int, default=0)
    a = ap.parse_args()
    from numba.cuda import compile_ptx

    spec = importlib.util.spec_from_file_location("sample", a.path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, a.kernel).py_func
    cc = (int(a.arch[3:-1]), int(a.arch[-1]))
    ptx, _ = compile_ptx(fn, a.signature, cc=cc)
    if a.out:
        with open(a.out, "w") as f:
            f.write(ptx)
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        compile_ptx(fn, a.signature, cc=cc)
        times.append((time.perf_counter() - t0) * 1e3)
    if times:
        print(statistics.median(times))


if __name__ == "__main__":
    main()
