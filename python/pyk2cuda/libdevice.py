"""numba.cuda.libdevice and numba.cuda.libdevicefuncs (docs/python.md, "libdevice").

`libdevice` has one name per function of CUDA's libdevice that Numba offers (`libdevice.sin`,
`libdevice.sincos`, `libdevice.byte_perm`, ...): names kernels and device functions call, which
the translator types and compiles (src/builtins/libdevice.def, the one list, from which the
build writes _libdevice_table.py); on the host they are only names, and calling one is an error,
as in Numba. `libdevicefuncs` describes them as Numba's module does: `functions` maps libdevice's
C name ("__nv_sin") to (result type, [arg(name, ty, is_ptr), ...]), and `create_signature` gives
the signature a call has (out-parameters returned after the result, as a tuple)."""
import collections as _collections
import types as _modules

from ._core import Error as _Error
from . import types as _types
from ._libdevice_table import PROTOTYPES as _PROTOTYPES

_TYPES = {"i": _types.int32, "l": _types.int64, "h": _types.int16, "f": _types.float32,
          "d": _types.float64, "v": _types.void}


def _function(name):
    """The host object of libdevice function `name`."""
    def call(*args):
        raise _Error("libdevice.%s() can only be called in a kernel or device function" % name)
    call.__name__ = call.__qualname__ = name
    call.__module__ = "numba.cuda.libdevice"
    call.__doc__ = "libdevice's __nv_%s (https://docs.nvidia.com/cuda/libdevice-users-guide/)" % name
    return call


libdevice = _modules.ModuleType("numba.cuda.libdevice", "numba.cuda.libdevice: CUDA's libdevice "
                                "functions, called from kernels and device functions.")
libdevice.__dict__.update((name, _function(name)) for name in _PROTOTYPES)

arg = _collections.namedtuple("arg", ("name", "ty", "is_ptr"))


def _entry(proto):
    """(result type, [arg, ...]) of a prototype "R:PARAMS"."""
    names = iter("xyz")
    args = [arg("ptr%d" % i if c.isupper() else next(names), _TYPES[c.lower()], c.isupper())
            for i, c in enumerate(proto[2:])]
    return _TYPES[proto[0]], args


def create_signature(retty, args):
    """The signature of a call: the non-pointer arguments, and the result followed by the
    pointers' values (a tuple of two or more; a void result is left out)."""
    returns = ([] if retty is _types.void else [retty]) + [a.ty for a in args if a.is_ptr]
    ret = returns[0] if len(returns) == 1 else _types.Tuple(returns)
    return _types.Signature(ret, [a.ty for a in args if not a.is_ptr])


libdevicefuncs = _modules.ModuleType("numba.cuda.libdevicefuncs",
                                     "numba.cuda.libdevicefuncs: the libdevice functions' types.")
libdevicefuncs.arg = arg
libdevicefuncs.functions = {"__nv_" + name: _entry(proto) for name, proto in _PROTOTYPES.items()}
libdevicefuncs.create_signature = create_signature
