"""Ahead-of-time bundles from Python (docs/aot.md): pyk2cuda.build and Kernel.build do what
`pyk2cuda build` does, through the same library call (p2c_module_bundle)."""
import os
import re

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
    unit = None
    if isinstance(source, _core._Kernel):
        filename, text = source._build() if source._unit is None else (source._unit.filename, source._unit.source)
        unit = source._unit
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
        if unit is not None and suffix == ".h":
            content = _user_lines(content, unit)
        path = out + suffix
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        written.append(path)
    return written


def _user_lines(header, unit):
    """A kernel object's header with each launcher's "defined at" FILE:LINE, a line of the module
    translated for the kernel (docs/python.md), as the user's file and line (Unit.where). A file
    name the header's comments had to change (a "*/" in it) is left as it is."""
    def user(m):
        at = unit.where(int(m.group(1)), 0)
        return "%s:%d" % (at[0], at[1]) if at else m.group(0)
    return re.sub(re.escape(unit.filename) + r":(\d+)", user, header)
