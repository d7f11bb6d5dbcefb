"""The explore view from Python (docs/explore.md): kern.inspect_cuda(html=True), kern.explore(path)
and the _repr_html_ Jupyter shows; the page's figures are ptxas's, as get_regs_per_thread and
get_shared_mem_per_block give them (they run the toolkit's ptxas on the PTX, where it is installed)."""
import json
import os
import shutil
import re

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
import kernels as K

SIG = "void(float32[::1], float32[::1])"


def page_data(page):
    m = re.search(r'<script type="application/json" id="p2c-data">(.*?)</script>', page, re.S)
    assert m, "no data in the page"
    return json.loads(m.group(1))


def launched():
    x = np.ones(1000, np.float32)
    K.block_sums[8, K.TPB](x, np.zeros(8, np.float32))
    return K.block_sums


def test_inspect_cuda_html_is_the_explore_page():
    k = launched()
    page = k.inspect_cuda(SIG, html=True, arch="sm_80", block=128)
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page.split("<script")[0]
    d = page_data(page)
    assert d["arch"] == "sm_80" and d["block"] == 128
    [kern] = d["kernels"]
    assert kern["name"] == "block_sums" and kern["signature"] == SIG
    assert kern["resources"]["shared"] == 4 * K.TPB        # cuda.shared.array(TPB, float32)
    assert kern["resources"]["registers"] > 0 and kern["occupancy"]["blocks_per_sm"] > 0
    # every parameter's type is on its name
    types = {name: ty for _, _, name, ty in kern["names"]}
    assert types["x"] == "array(float32, 1d, C)" and types["buf"] == "array(float32, 1d, C, shared)"
    assert set(k.inspect_cuda(html=True)) == {SIG}


def test_page_figures_are_ptxas_figures():
    k = launched()
    from pyk2cuda.cuda import _cuda_tool
    try:
        _cuda_tool("ptxas")
    except pyk2cuda.Error:
        pytest.skip("no ptxas (CUDA toolkit) to compare with")
    r = page_data(k.inspect_cuda(SIG, html=True, arch="sm_90"))["kernels"][0]["resources"]
    usage = k.resource_usage(SIG, arch="sm_90")
    assert r["registers"] == usage["registers"] == k.get_regs_per_thread(SIG)
    assert r["shared"] == usage["shared"]
    assert r["stack"] == usage["stack_frame"]
    assert (r["spill_stores"], r["spill_loads"]) == (usage["spill_stores"], usage["spill_loads"])


def test_explore_writes_the_file_and_repr_html_embeds_it(tmp_path):
    k = launched()
    path = k.explore(str(tmp_path / "view.html"))
    with open(path, encoding="utf-8") as f:
        assert page_data(f.read())["kernels"][0]["name"] == "block_sums"
    shown = k._repr_html_()
    assert shown.startswith("<iframe") and "srcdoc=" in shown and "&lt;!DOCTYPE html&gt;" in shown


def test_explore_needs_a_signature_when_there_are_several(tmp_path):
    @cuda.jit
    def twice(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2

    twice[1, 8](np.zeros(8, np.float32))
    twice[1, 8](np.zeros(8, np.int64))
    with pytest.raises(ValueError, match="2 specializations"):
        twice.explore(str(tmp_path / "v.html"))
    twice.explore(str(tmp_path / "v.html"), signature="void(int64[::1])")


def test_repr_html_before_any_specialization():
    @cuda.jit
    def never(x):
        x[0] = 1

    assert "no specialization yet" in never._repr_html_()


def test_findings_on_the_page(tmp_path):
    """A sanitized launch's exc.findings, given to explore(), are on the page at their lines, as
    the C API has them (explore --sanitize's page: tests/explore/check_pages.py); a list of
    anything else is refused."""
    if pyk2cuda._core.device_kind() == "gpu":
        pytest.skip("the checker runs on the simulator, and this process's device is a GPU")

    @cuda.jit(sanitize=True)
    def racy(out):
        c = cuda.shared.array(1, dtype=np.float32)
        if cuda.threadIdx.x == 0:
            c[0] = 1.0
        out[cuda.threadIdx.x] = c[0]

    with pytest.raises(pyk2cuda.Error) as e:
        racy[1, 4](np.zeros(4, np.float32))
    [f] = e.value.findings
    d = page_data(open(racy.explore(str(tmp_path / "racy.html"), findings=e.value.findings), encoding="utf-8").read())
    [g] = d["findings"]
    assert (g["kind"], g["line"], g["column"], g["other_line"], g["other_column"], g["message"], g["kernel"]) == \
        (f["kind"], f["line"], f["column"], f["other_line"], f["other_column"], f["message"], "racy")
    assert g["kind"] == "shared-race" and d["python"][g["line"] - 1].strip() == "out[cuda.threadIdx.x] = c[0]"
    assert d["python"][g["other_line"] - 1].strip() == "c[0] = 1.0"
    assert tuple(g["thread"]) == f["thread"] and tuple(g["block"]) == f["block"]
    assert page_data(racy.inspect_cuda(racy.signatures[0], html=True))["findings"] == []
    with pytest.raises(ValueError, match="findings"):
        racy.inspect_cuda(racy.signatures[0], html=True, findings=[{"line": 3}])
    with pytest.raises(TypeError, match="findings"):
        racy.inspect_cuda(racy.signatures[0], html=True, findings="no")


# nvdisasm from NVIDIA's wheel, where scripts/deps.sh --nvdisasm fetched it (CI does)
WHEEL_NVDISASM = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                              "third_party", "nvdisasm", "nvidia", "cu13", "bin", "nvdisasm")


def test_inspect_sass_finds_the_nvdisasm_the_page_finds(monkeypatch, tmp_path):
    """inspect_sass runs the nvdisasm the explore view runs (p2c_find_nvdisasm, one search): where
    the page has SASS, inspect_sass gives it; where the page says none was found, inspect_sass's
    error says the same words: with $PYK2CUDA_NVDISASM pointing nowhere, and with nothing on any
    of the places searched."""
    k = launched()
    if os.access(WHEEL_NVDISASM, os.X_OK):
        monkeypatch.setenv("PYK2CUDA_NVDISASM", WHEEL_NVDISASM)
    d = page_data(k.inspect_cuda(SIG, html=True, arch="sm_90"))
    if d["sass"]:
        if not shutil.which("ptxas") and not os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
            with pytest.raises(pyk2cuda.Error, match="ptxas"):
                k.inspect_sass(SIG, arch="sm_90")
        else:
            sass = k.inspect_sass(SIG, arch="sm_90")
            assert ".text.block_sums" in sass and "EXIT" in sass
    else:
        with pytest.raises(pyk2cuda.Error) as e:
            k.inspect_sass(SIG, arch="sm_90")
        assert d["sass_error"] == "no SASS: " + str(e.value)
    monkeypatch.setenv("PYK2CUDA_NVDISASM", "/nonexistent/nvdisasm")
    nowhere = str(tmp_path)
    for env in ({}, {"PYK2CUDA_NVDISASM": "", "PATH": nowhere, "CUDA_HOME": nowhere, "CUDA_PATH": nowhere,
                     "CONDA_PREFIX": nowhere, "PYK2CUDA_SITE_PACKAGES": nowhere}):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        if env and os.access("/usr/local/cuda/bin/nvdisasm", os.X_OK):
            continue   # the toolkit's own: found, as the page would find it
        d = page_data(k.inspect_cuda(SIG, html=True, arch="sm_90"))
        with pytest.raises(pyk2cuda.Error) as e:
            k.inspect_sass(SIG, arch="sm_90")
        assert e.value.status_name == "no_cuda" and str(e.value).startswith("nvdisasm was not found (tried $PYK2CUDA_NVDISASM")
        assert d["sass_error"] == "no SASS: " + str(e.value), (d["sass_error"], str(e.value))
