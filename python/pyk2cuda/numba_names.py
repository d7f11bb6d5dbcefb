"""Numba's modules outside numba.cuda that scripts written for Numba import beside the kernel API,
answered by pyk2cuda under `python3 -m pyk2cuda` (docs/python.md):

- numba.core.errors: Numba's warning classes (NumbaWarning, NumbaPerformanceWarning, ...), which
  scripts filter, and its error classes as pyk2cuda's: TypingError and LoweringError are
  pyk2cuda.CompileError (what a kernel that does not compile raises), NumbaError pyk2cuda.Error;
- numba.core.types: pyk2cuda.types;
- numba.np.numpy_support: from_dtype, as_dtype, carray, farray, numpy_version (cuda.np's);
- numba itself: pyk2cuda's names, with numba.core and numba.np, and `numba.__version__`, the
  Numba version whose CUDA target pyk2cuda's behaviour is measured against (NUMBA_VERSION), which
  scripts compare with the version a feature needs.

Any other name of these modules is an AttributeError naming it, and any other module of
numba.core or numba.np an ImportError: never Numba's own."""
import types as _modules

from . import _core, cuda, types


class NumbaWarning(Warning):
    """Numba's base class of its warnings."""


class NumbaPerformanceWarning(NumbaWarning):
    """Numba's warning about slow code: a grid of fewer than 128 blocks, host arrays copied at a
    launch (docs/python.md, "Performance warnings"), which pyk2cuda issues as Numba does."""


class NumbaInvalidConfigWarning(NumbaWarning):
    """Numba's warning about options that do not go together: cuda.jit(debug=True) with
    optimization on (opt=True, the default), which pyk2cuda gives as Numba does."""


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
                 NumbaInvalidConfigWarning=NumbaInvalidConfigWarning,
                 NumbaPendingDeprecationWarning=NumbaPendingDeprecationWarning,
                 NumbaError=_core.Error, TypingError=_core.CompileError,
                 LoweringError=_core.CompileError)
core = _module("numba.core", "numba.core: its errors and types modules.", errors=errors, types=types)
np = _module("numba.np", "numba.np: its numpy_support module.", numpy_support=cuda.np.numpy_support)

# The newest Numba that docs/conformance.md measures pyk2cuda against: numba-cuda 0.30.4's
# tests run on Numba 0.68.1 (Debian's Numba 0.56.4 is the other reference).
NUMBA_VERSION = "0.68.1"


class _NumbaModule(_modules.ModuleType):
    """`numba` under python3 -m pyk2cuda: pyk2cuda's names (numba.cuda, numba.float32, ...) and
    numba's own attributes; a name neither has is an AttributeError naming it."""

    def __getattr__(self, name):
        import pyk2cuda
        try:
            return getattr(pyk2cuda, name)
        except AttributeError:
            raise AttributeError("module 'numba' (pyk2cuda) has no attribute '%s'" % name) from None


def numba_module():
    """The module that answers `import numba`."""
    m = _NumbaModule("numba", "numba, as pyk2cuda answers it (pyk2cuda.numba_names).")
    m.__dict__.update(__version__=NUMBA_VERSION, core=core, np=np, cuda=cuda, types=types)
    return m


# The modules by their full names, for sys.modules.
MODULES = {"numba.core": core, "numba.core.errors": errors, "numba.core.types": types,
           "numba.np": np, "numba.np.numpy_support": cuda.np.numpy_support}
