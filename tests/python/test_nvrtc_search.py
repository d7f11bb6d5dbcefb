"""Where NVRTC is found (docs/runtime.md, "Where NVRTC is found"): NVIDIA's pip wheels in the
running Python's site-packages, which the package offers to the library's search at import, and
what `pyk2cuda.info()` and `pyk2cuda info` report about the NVRTC and driver found.

The fake wheels link the toolkit's real libnvrtc (found with ldconfig -p) into a folder on
sys.path laid out as the wheels are; the loader path also has NVRTC here, so a report naming the
fake folder shows the wheel came first."""
import os
import re
import subprocess
import sys

import pytest

import pyk2cuda

from conftest import run_script


def toolkit_nvrtc():
    """The folder of the libnvrtc.so.13 the dynamic linker knows, or None."""
    out = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"\slibnvrtc\.so\.13 \(.*\) => (\S+)", out)
    return os.path.dirname(m.group(1)) if m else None


def fake_wheel(site, layout, soname="libnvrtc.so.13"):
    """Links NVRTC and its builtins into site/layout, as the wheel installs them."""
    toolkit = toolkit_nvrtc()
    if not toolkit:
        pytest.skip("no libnvrtc.so.13 known to ldconfig")
    lib = os.path.join(site, layout)
    os.makedirs(lib)
    os.symlink(os.path.join(toolkit, "libnvrtc.so.13"), os.path.join(lib, soname))
    for name in os.listdir(toolkit):
        if re.fullmatch(r"libnvrtc-builtins\.so\.\d+\.\d+", name):
            os.symlink(os.path.join(toolkit, name), os.path.join(lib, name))
    return lib


def clean_env(**extra):
    """The environment of a fresh process whose NVRTC search depends only on `extra`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYK2CUDA_SITE_PACKAGES", "PYK2CUDA_NVRTC", "CONDA_PREFIX")}
    env.update(extra)
    return env


@pytest.mark.parametrize("layout,soname", [("nvidia/cu13/lib", "libnvrtc.so.13"),
                                           ("nvidia/cuda_nvrtc/lib", "libnvrtc.so.12")])
def test_info_names_nvrtc_from_a_wheel_on_sys_path(tmp_path, layout, soname):
    lib = fake_wheel(str(tmp_path / "site"), layout, soname)
    pythonpath = os.pathsep.join(filter(None, [str(tmp_path / "site"), os.environ.get("PYTHONPATH")]))
    code = "import pyk2cuda; print(pyk2cuda.info())"
    p = subprocess.run([sys.executable, "-c", code], env=clean_env(PYTHONPATH=pythonpath),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert re.search(r"^NVRTC 1\d\.\d+: " + re.escape(os.path.join(lib, soname)) + "$", p.stdout,
                     re.M), p.stdout
    assert re.search(r"^  builtins: " + re.escape(lib) + r"/libnvrtc-builtins\.so\.\d+\.\d+$",
                     p.stdout, re.M), p.stdout


def test_the_command_line_takes_the_site_packages_too(tmp_path):
    cli = os.environ.get("PYK2CUDA_CLI")
    if not cli:
        pytest.skip("PYK2CUDA_CLI not set (meson test sets it)")
    lib = fake_wheel(str(tmp_path / "site"), "nvidia/cu13/lib")
    env = clean_env(PYK2CUDA_SITE_PACKAGES="/nonexistent" + os.pathsep + str(tmp_path / "site"))
    p = subprocess.run([cli, "info"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert f": {lib}/libnvrtc.so.13\n" in p.stdout, p.stdout
    # and it compiles through that NVRTC
    src = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "vecadd.py")
    p = subprocess.run([cli, "ptx", src, "--sig", "vecadd(float32[:], float32[:], float32[:])", "--no-cache", "-o", str(tmp_path / "v.ptx")], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert ".entry" in (tmp_path / "v.ptx").read_text()


def test_import_offers_sys_path_unless_the_user_chose():
    code = "import os, sys, pyk2cuda; print(os.environ['PYK2CUDA_SITE_PACKAGES'])"
    rc, out, err = run_script(["-c", code], env={"PYK2CUDA_SITE_PACKAGES": "/chosen"})
    assert rc == 0 and out.strip() == "/chosen", err
    p = subprocess.run([sys.executable, "-c", code + "; print(os.pathsep.join(sys.path))"],
                       env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    offered, path = p.stdout.splitlines()
    assert p.returncode == 0 and offered, p.stderr
    assert set(offered.split(os.pathsep)) <= {os.path.abspath(d) for d in path.split(os.pathsep) if d}


@pytest.mark.gpu
def test_info_says_nvrtc_and_driver_fit():
    text = pyk2cuda.info()
    assert re.search(r"^CUDA driver: \d+\.\d+ ", text, re.M), text
    assert "NVRTC and driver: they fit (the driver (CUDA " in text, text
