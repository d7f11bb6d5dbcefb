#!/usr/bin/python3
"""A driver older than NVRTC, on the stand-in (standin suite, `standin-old-driver`).

    old_driver.py --pyk2cuda PATH --nvrtc12 LIBNVRTC_DOUBLE

With PYK2CUDA_STANDIN_DRIVER_VERSION=12.4 the stand-in refuses NVRTC 13's CUBIN as a CUDA 12.4
driver does; with no NVRTC of CUDA 12 anywhere, `pyk2cuda run --device gpu` must fail (exit 3)
with a message naming both versions and what to do, and `pyk2cuda info` must say that NVRTC and
the driver do not fit. With NVIDIA's two wheels in a site-packages folder (the CUDA 13 one, found
first, and the cu12 one, played by tests/standin/nvrtc12's NVRTC 12.4 double), the launch must
run with the cu12 NVRTC and give the right sums, and info say which NVRTC modules are compiled
with. The same launch with the default driver version (13.0) must run, and info say that they
fit. Run it through on_standin.py (which sets PYK2CUDA_LIBCUDA and counts the kernels).

An older GPU (check_old_arch): PTX for sm_53, which NVRTC 13 does not compile for, must come
from the cu12 wheel's NVRTC (the double plays CUDA 12.4's list of architectures), and without
one fail (exit 3) with a message naming NVRTC 13's oldest arch and the NVRTC to install.
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


def real_nvrtc(pyk2cuda):
    """The NVRTC 13 `pyk2cuda info` finds here (its "NVRTC 13.x: PATH" line)."""
    p = subprocess.run([pyk2cuda, "info"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("NVRTC 13.") and ": " in line:
            return os.path.realpath(line.split(": ", 1)[1])
    raise SystemExit(f"FAIL: no NVRTC 13 in pyk2cuda info:\n{p.stdout}")


def wheels_site(tmp, real13, nvrtc12):
    """A site-packages folder holding NVIDIA's NVRTC wheels as pip lays them out: the CUDA 13 one
    (links to the real NVRTC 13 and its builtins) and the cu12 one (the NVRTC 12.4 double)."""
    site = os.path.join(tmp, "site")
    cu13 = os.path.join(site, "nvidia", "cu13", "lib")
    cu12 = os.path.join(site, "nvidia", "cuda_nvrtc", "lib")
    os.makedirs(cu13)
    os.makedirs(cu12)
    folder = os.path.dirname(real13)
    for name in os.listdir(folder):
        if name.startswith(("libnvrtc.so.13", "libnvrtc-builtins.so.13")):
            os.symlink(os.path.join(folder, name), os.path.join(cu13, name))
    os.symlink(os.path.abspath(nvrtc12), os.path.join(cu12, "libnvrtc.so.12"))
    return site, cu12


def check_fallback(pyk2cuda, nvrtc12, tmp):
    """The CUDA 12.4 driver with the cu12 wheel beside the CUDA 13 one: 0 when the launch runs
    with the cu12 NVRTC, its sums are right, and info names that NVRTC."""
    import numpy as np
    real13 = real_nvrtc(pyk2cuda)
    site, cu12 = wheels_site(tmp, real13, nvrtc12)
    env = dict(os.environ, PYK2CUDA_STANDIN_DRIVER_VERSION="12.4", PYK2CUDA_SITE_PACKAGES=site,
               P2C_TEST_REAL_NVRTC=real13)
    env.pop("PYK2CUDA_NVRTC", None)
    out_dir = os.path.join(tmp, "fallback")
    p = run(pyk2cuda, out_dir, env)
    if p.returncode != 0:
        print(f"FAIL fallback NVRTC: exit {p.returncode}, stderr:\n{p.stderr}")
        return 1
    c = np.load(os.path.join(out_dir, "c.npy"))
    if not np.array_equal(c, 2.0 * np.arange(1000)):
        print(f"FAIL fallback NVRTC: wrong sums {c[:8]}")
        return 1
    line = info_fit_line(pyk2cuda, env)
    want = ("NVRTC and driver: they fit: the driver (CUDA 12.4) is older than NVRTC 13.",
            "compiled with NVRTC 12.4 instead (" + os.path.join(cu12, "libnvrtc.so.12") + ")")
    if not line.startswith(want[0]) or want[1] not in line:
        print(f"FAIL info, fallback NVRTC: {line}")
        return 1
    print("ok fallback NVRTC:", line)
    return 0


def check_old_arch(pyk2cuda, nvrtc12, tmp):
    """PTX for sm_53 with the cu12 wheel (its NVRTC compiles it) and without (a clear refusal);
    0 when both are right. --no-cache: the compile must run, not be remembered."""
    real13 = real_nvrtc(pyk2cuda)
    site, _ = wheels_site(os.path.join(tmp, "old_arch"), real13, nvrtc12)
    args = [pyk2cuda, "ptx", VECADD, "--sig", "vecadd(int32[:], int32[:], float64[:])",
            "--arch", "sm_53", "--no-cache"]
    env = dict(os.environ, PYK2CUDA_SITE_PACKAGES=site, P2C_TEST_REAL_NVRTC=real13)
    p = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0 or ".target sm_53" not in p.stdout:
        print(f"FAIL old arch with the cu12 NVRTC: exit {p.returncode}, stderr:\n{p.stderr}")
        return 1
    p = subprocess.run(args, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    want = ("NVRTC 13.", " compiles for sm_75 and newer, not sm_53; an NVRTC of CUDA 12 does",
            "nvidia-cuda-nvrtc-cu12", "no NVRTC of CUDA 12 found (tried")
    if p.returncode != 3 or not all(w in p.stderr for w in want):
        print(f"FAIL old arch without an NVRTC of CUDA 12: exit {p.returncode}, stderr:\n{p.stderr}")
        return 1
    print("ok old arch:", p.stderr.strip().splitlines()[-1])
    return 0


def without_folder(folder):
    """This environment with `folder` taken off LD_LIBRARY_PATH: meson puts the double's folder
    there (the test depends on it), and the runs without an NVRTC of CUDA 12 must not find it."""
    env = dict(os.environ)
    paths = [p for p in env.get("LD_LIBRARY_PATH", "").split(":")
             if p and os.path.realpath(p) != os.path.realpath(folder)]
    env["LD_LIBRARY_PATH"] = ":".join(paths)
    return env


def main(argv):
    pyk2cuda = argv[argv.index("--pyk2cuda") + 1]
    nvrtc12 = argv[argv.index("--nvrtc12") + 1]
    env = without_folder(os.path.dirname(os.path.abspath(nvrtc12)))
    os.environ.clear()
    os.environ.update(env)
    with tempfile.TemporaryDirectory() as tmp:
        if check_fallback(pyk2cuda, nvrtc12, tmp) != 0 or check_old_arch(pyk2cuda, nvrtc12, tmp) != 0:
            return 1
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
