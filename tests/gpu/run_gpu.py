#!/usr/bin/python3
"""The gpu suite's sample cases: every case of tests/gpu/cases.txt on the GPU.

    /usr/bin/python3 tests/gpu/run_gpu.py --pyk2cuda PATH [run_diff.py options]

Exits 77 (skipped, for meson) when `pyk2cuda info` finds no CUDA driver or device (it says
"no GPU: the simulator will run kernels"); otherwise
runs tests/diff/run_diff.py on this folder's cases with `--device gpu` and exits as it does.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "diff"))


def main(argv):
    if "--pyk2cuda" not in argv:
        print("run_gpu: error: --pyk2cuda PATH is required", file=sys.stderr)
        return 2
    pyk2cuda = argv[argv.index("--pyk2cuda") + 1]
    probe = subprocess.run([pyk2cuda, "info"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    # `info` reports a machine without a GPU (exit 0) with the library's line "no GPU: ..."
    # (p2c_environment_info), after the reason.
    if probe.returncode != 0 or "\nno GPU: " in "\n" + probe.stdout:
        print("skipped: " + (probe.stdout + probe.stderr).strip().replace("\n", "; "))
        return 77
    print(probe.stdout, end="")
    import run_diff  # noqa: E402  (imports numba's simulator for the oracle)
    return run_diff.main(argv + ["--cases", os.path.join(HERE, "cases.txt"), "--device", "gpu",
                                 "--jobs", "1", "--timeout", "600"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
