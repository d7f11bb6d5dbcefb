"""numba.cuda.bf16 and numba.cuda._internal.cuda_bf16: numba-cuda's bfloat16 type and
intrinsics (docs/python.md, "bfloat16"); numba.cuda._internal.cuda_fp8's fp8 types and
numba.cuda.api.is_fp8_supported (docs/python.md, "fp8").

The names are the translator's (src/builtins/table.c, the rows under numba.cuda.bf16, the one
list): a name of these modules is a host object that stands for the row of the same name, made
when it is first imported (a module __getattr__), which kernels and device functions call and
source.py writes into the translated module as `from numba.cuda.bf16 import NAME`. Calling one on
the host is an error, as in numba-cuda; a name the translator lacks is reported when a kernel
using it is compiled, naming it. `bfloat16` (and _internal's `nv_bfloat16`) is the type,
pyk2cuda.types.bfloat16."""
import enum as _enum
import types as _modules

from ._core import Error as _Error
from . import types as _types


def _intrinsic(name):
    """The host object of numba.cuda.bf16's intrinsic `name`."""
    def call(*args):
        raise _Error("numba.cuda.bf16.%s() can only be called in a kernel or device function" % name)
    call.__name__ = call.__qualname__ = name
    call.__module__ = "numba.cuda.bf16"
    call._p2c_path = "numba.cuda.bf16." + name
    return call


def _module(name, internal):
    """numba.cuda.bf16 (internal False) or numba.cuda._internal.cuda_bf16, whose names are
    cuda_bf16.h's: `__hadd` is bf16's `hadd`, `nv_bfloat16` the type."""
    m = _modules.ModuleType(name, __doc__)
    made = {"bfloat16": _types.bfloat16}
    if internal:
        made["nv_bfloat16"] = _types.bfloat16

    def getattr_(attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        if attr not in made:
            made[attr] = _intrinsic(attr[2:] if internal and attr.startswith("__") else attr)
        return made[attr]
    m.__getattr__ = getattr_
    m.bfloat16 = _types.bfloat16
    if internal:
        m.nv_bfloat16 = _types.bfloat16
    return m


bf16 = _module("numba.cuda.bf16", False)
cuda_bf16 = _module("numba.cuda._internal.cuda_bf16", True)


class saturation_t(_enum.IntEnum):
    """cuda_fp8.h's __nv_saturation_t."""
    NOSAT = 0
    SATFINITE = 1


class fp8_interpretation_t(_enum.IntEnum):
    """cuda_fp8.h's __nv_fp8_interpretation_t."""
    E4M3 = 0
    E5M2 = 1


def _fp8_module():
    """numba.cuda._internal.cuda_fp8: the fp8 types (constructors and conversions in kernels),
    its enums, and its functions, which the translator knows by this module's name (the cvt_*
    intrinsics; a kernel that calls another is a compile error naming it)."""
    m = _modules.ModuleType("numba.cuda._internal.cuda_fp8", _fp8_module.__doc__)
    m.fp8_e5m2, m.fp8_e4m3, m.fp8_e8m0 = _types.fp8_e5m2, _types.fp8_e4m3, _types.fp8_e8m0
    m.saturation_t, m.fp8_interpretation_t = saturation_t, fp8_interpretation_t

    def getattr_(attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        f = _intrinsic(attr)
        f.__module__ = m.__name__
        f._p2c_path = m.__name__ + "." + attr
        setattr(m, attr, f)
        return f
    m.__getattr__ = getattr_
    return m


def is_fp8_supported():
    """numba-cuda's numba.cuda.api.is_fp8_supported: True on pyk2cuda's simulator, which has the
    fp8 types; on a GPU, whether its compute capability is 8.9 or more, as numba-cuda answers."""
    from . import _core
    if _core.device_kind() != "gpu":
        return True
    return tuple(_core.device_info()["compute_capability"]) >= (8, 9)


cuda_fp8 = _fp8_module()
_internal = _modules.ModuleType("numba.cuda._internal", "numba-cuda's generated bindings: cuda_bf16, cuda_fp8.")
_internal.cuda_bf16, _internal.cuda_fp8 = cuda_bf16, cuda_fp8
api = _modules.ModuleType("numba.cuda.api", "numba.cuda.api: is_fp8_supported.")
api.is_fp8_supported = is_fp8_supported
# Registered by cuda.py under numba.cuda's name (pyk2cuda.cuda.NAME, numba.cuda.NAME).
SUBMODULES = {"bf16": bf16, "_internal": _internal, "_internal.cuda_bf16": cuda_bf16,
              "_internal.cuda_fp8": cuda_fp8, "api": api}
