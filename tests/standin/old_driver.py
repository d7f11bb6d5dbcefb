#!/usr/bin/python3
"""A driver older than NVRTC, on the stand-in (standin suite, `standin-old-driver`).

    old_driver.py --pyk2cuda PATH

With PYK2CUDA_STANDIN_DRIVER_VERSION=12.4 the stand-in refuses NVRTC 13's CUBIN as a CUDA 12.4
driver does; `pyk2cuda run --device gpu` must fail (exit 3) with a message naming both versions
and what to do, and `pyk2cuda info` must say that NVRTC and the driver do not fit. The same
launch with the default driver version (13.0) must run, and info say that they fit. Run it through
on_standin.py (which sets PYK2CUDA_LIBCUDA and counts the kernels).
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VECADD = os.path.join(HERE, "..", "..", "samples", "vecadd.py")


def run(pyk2cuda, out_dir, env):
    args = [pyk2cuda, "run", VECADD, "vecadd", "--grid", "4", "--block", "256", "--device", "gpu",
            "arange:int32[1000]", "arange:int32[1000]", "zeros:float64[1000]", "--out-dir", out_dir]
    return subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def info_fit_line(pyk2cuda, env):
    """The "NVRTC and driver:" line of `pyk2cuda info`, or what info printed without one."""
    p = subprocess.run([pyk2cuda, "info"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith("NVRTC and driver:")]
    return lines[0] if p.returncode == 0 and len(lines) == 1 else f"exit {p.returncode}:\n{p.stdout}"


def check_info(pyk2cuda):
    """info's verdict at 12.4 and at 13.0; 0 when both are right."""
    old = info_fit_line(pyk2cuda, dict(os.environ, PYK2CUDA_STANDIN_DRIVER_VERSION="12.4"))
    want = ("NVRTC and driver: they do not fit: the CUDA driver (CUDA 12.4) is older than NVRTC "
            "(CUDA 13.")
    if not old.startswith(want) or "install an NVIDIA driver for CUDA 13" not in old:
        print(f"FAIL info, old driver: {old}")
        return 1
    new = info_fit_line(pyk2cuda, dict(os.environ))
    if not new.startswith("NVRTC and driver: they fit (the driver (CUDA 13.0) loads what NVRTC 13."):
        print(f"FAIL info, current driver: {new}")
        return 1
    print("ok info:", old)
    print("ok info:", new)
    return 0


def main(argv):
    pyk2cuda = argv[argv.index("--pyk2cuda") + 1]
    with tempfile.TemporaryDirectory() as tmp:
        old = run(pyk2cuda, os.path.join(tmp, "old"),
                  dict(os.environ, PYK2CUDA_STANDIN_DRIVER_VERSION="12.4"))
        want = "the CUDA driver (CUDA 12.4) is older than NVRTC (CUDA 13."
        if old.returncode != 3 or want not in old.stderr or "install an NVIDIA driver" not in old.stderr:
            print(f"FAIL old driver: exit {old.returncode}, stderr:\n{old.stderr}")
            return 1
        print("ok old driver:", old.stderr.splitlines()[0])
        new = run(pyk2cuda, os.path.join(tmp, "new"), dict(os.environ))
        if new.returncode != 0:
            print(f"FAIL current driver: exit {new.returncode}, stderr:\n{new.stderr}")
            return 1
        print("ok current driver")
    return check_info(pyk2cuda)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
