"""Ahead-of-time bundles from Python (docs/aot.md): pyk2cuda.build and Kernel.build do what
`pyk2cuda build` does, through the same library call (p2c_module_bundle)."""
import os

from . import _core


def build(source, out, signatures=(), kernels=(), arch="sm_90", with_sim=False):
    """Writes an ahead-of-time bundle: OUT.h and OUT.c (and OUT_sim.cc with with_sim), whose
    name (OUT's last part, a C identifier) prefixes every C name. `source` is a .py file's path
    (its kernels, or those named in `kernels`, with their decorators' signatures and
    `signatures`, "name(types)" strings as `--sig` takes them), or a kernel made by cuda.jit (its
    decorator's signatures, the specializations its launches made, and `signatures`). `arch`:
    "sm_XY" or a list of them, one CUBIN each. Returns the paths written. Raises CompileError for
    errors in the Python, Error for what a bundle cannot hold or NVRTC's failures."""
    out = os.fspath(out)
    archs = [arch] if isinstance(arch, str) else list(arch)
    if isinstance(source, _core._Kernel):
        filename, text = source._build() if source._unit is None else (source._unit.filename, source._unit.source)
        kernels = [source.__name__]
        made = ["%s%s" % (source.__name__, spec[0][spec[0].index("("):]) for spec in source._specs()]
        signatures = list(signatures) + made
    else:
        filename = os.fspath(source)
        with open(filename, "rb") as f:
            text = f.read()
    files = _core.bundle(filename, text, list(kernels), list(signatures), archs, bool(with_sim),
                         os.path.basename(out))
    written = []
    for suffix, content in files:
        path = out + suffix
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        written.append(path)
    return written
