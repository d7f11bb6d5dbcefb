#!/usr/bin/python3
"""Runs one command of the standin suite on the CUDA driver stand-in, and proves it ran there.

    on_standin.py --pyk2cuda PATH --standin LIBCUDA [--min-kernels N] -- COMMAND ARG...

Checks that `pyk2cuda info` with PYK2CUDA_LIBCUDA=LIBCUDA names the stand-in's device, runs
COMMAND with PYK2CUDA_LIBCUDA and PYK2CUDA_DEVICE=gpu set, and fails when it fails, when it
skips (exit 77: a skip proves nothing here), or when fewer than N kernels (default 1) ran to
their end on the stand-in (counted through PYK2CUDA_STANDIN_COUNT, see docs/runtime.md).
"""
import os
import subprocess
import sys
import tempfile

DEVICE = "pyk2cuda CUDA stand-in"


def main(argv):
    if "--" not in argv:
        print("on_standin: usage: --pyk2cuda PATH --standin LIB [--min-kernels N] -- CMD...",
              file=sys.stderr)
        return 2
    split = argv.index("--")
    opts, command = argv[:split], argv[split + 1:]
    pyk2cuda = opts[opts.index("--pyk2cuda") + 1]
    standin = os.path.abspath(opts[opts.index("--standin") + 1])
    least = int(opts[opts.index("--min-kernels") + 1]) if "--min-kernels" in opts else 1
    env = dict(os.environ, PYK2CUDA_LIBCUDA=standin, PYK2CUDA_DEVICE="gpu")
    info = subprocess.run([pyk2cuda, "info"], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if info.returncode != 0 or DEVICE not in info.stdout:
        print(f"on_standin: `pyk2cuda info` does not name the stand-in:\n{info.stdout}",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        count_file = os.path.join(tmp, "count")
        env["PYK2CUDA_STANDIN_COUNT"] = count_file
        rc = subprocess.run(command, env=env).returncode
        kernels = 0
        if os.path.exists(count_file):
            with open(count_file) as f:
                kernels = sum(int(line.split()[1]) for line in f if line.startswith("kernels "))
    print(f"on_standin: {kernels} kernels ran on the stand-in; the command exited {rc}")
    if rc == 77:
        print("on_standin: the command skipped: on the stand-in that is a failure", file=sys.stderr)
        return 1
    if rc != 0:
        return rc
    if kernels < least:
        print(f"on_standin: expected at least {least} kernels on the stand-in", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
