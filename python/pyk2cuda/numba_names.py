"""Numba's modules outside numba.cuda that scripts written for Numba import beside the kernel API,
answered by pyk2cuda under `python3 -m pyk2cuda` (docs/python.md):

- numba.core.errors: Numba's warning classes (NumbaWarning, NumbaPerformanceWarning, ...), which
  scripts filter, and its error classes as pyk2cuda's: TypingError and LoweringError are
  pyk2cuda.CompileError (what a kernel that does not compile raises), NumbaError pyk2cuda.Error;
- numba.core.types: pyk2cuda.types;
- numba.np.numpy_support: from_dtype, as_dtype, carray, farray, numpy_version (cuda.np's).

Any other name of these modules is an AttributeError naming it, and any other module of
numba.core or numba.np an ImportError: never Numba's own."""
import types as _modules

from . import _core, cuda, types


class NumbaWarning(Warning):
    """Numba's base class of its warnings."""


class NumbaPerformanceWarning(NumbaWarning):
    """Numba's warning about slow code (numba-cuda: a grid smaller than the GPU, host arrays
    copied at a launch). pyk2cuda does not issue it; scripts filter it."""


class NumbaDeprecationWarning(NumbaWarning, DeprecationWarning):
    """Numba's deprecation warning."""


class NumbaPendingDeprecationWarning(NumbaWarning, PendingDeprecationWarning):
    """Numba's pending deprecation warning."""


def _module(name, doc, **names):
    m = _modules.ModuleType(name, doc)
    m.__dict__.update(names)
    return m


errors = _module("numba.core.errors", "numba.core.errors, as pyk2cuda answers it.",
                 NumbaWarning=NumbaWarning, NumbaPerformanceWarning=NumbaPerformanceWarning,
                 NumbaDeprecationWarning=NumbaDeprecationWarning,
                 NumbaPendingDeprecationWarning=NumbaPendingDeprecationWarning,
                 NumbaError=_core.Error, TypingError=_core.CompileError,
                 LoweringError=_core.CompileError)
core = _module("numba.core", "numba.core: its errors and types modules.", errors=errors, types=types)
np = _module("numba.np", "numba.np: its numpy_support module.", numpy_support=cuda.np.numpy_support)

# The modules by their full names, for sys.modules.
MODULES = {"numba.core": core, "numba.core.errors": errors, "numba.core.types": types,
           "numba.np": np, "numba.np.numpy_support": cuda.np.numpy_support}
