"""pyk2cuda: Numba-CUDA kernels compiled to CUDA C by a C compiler, run on the GPU or on a CPU
simulator.

    from pyk2cuda import cuda

    @cuda.jit
    def add(x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] + y[i]

    add[blocks, threads](x, y, out)

The names are numba's (`cuda`, `vectorize`, `float32`, `void`, ...); docs/python.md says where
the behaviour differs. Launches run on the GPU when a CUDA driver and a device are found, else on
the simulator; PYK2CUDA_DEVICE=sim|gpu or select() chooses, device_kind() tells."""
import os as _os
import sys as _sys


def _offer_site_packages():
    """Tells the library's NVRTC search where this Python keeps its packages, so that NVIDIA's
    NVRTC wheels (`pip install pyk2cuda[cu13]`) are found: the C library cannot ask Python, so
    the folders of sys.path go into PYK2CUDA_SITE_PACKAGES, unless the user set it. The wheels'
    layouts inside those folders are the library's to know (src/runtime/cuda/nvrtc.h)."""
    if "PYK2CUDA_SITE_PACKAGES" in _os.environ:
        return
    dirs = [_os.path.abspath(p) for p in _sys.path if p and _os.pathsep not in p]
    _os.environ["PYK2CUDA_SITE_PACKAGES"] = _os.pathsep.join(d for d in dirs if _os.path.isdir(d))


_offer_site_packages()
from . import _core  # noqa: E402 (after the search path is offered)
from ._core import Error, CompileError, BoundsError, DeviceArray
from .types import *  # noqa: F401,F403 (numba's type names)
from . import cuda
from .cuda import vectorize, guvectorize
from .cpu import jit, njit, prange   # Numba's meanings: CPU functions (cuda.jit makes kernels)
from .stencil import stencil         # numba.stencil, computed by a generated kernel
from .extending import literal_unroll   # numba.literal_unroll (a loop over a tuple)
from .aot import build   # ahead-of-time bundles (docs/aot.md)

__version__ = _core.version


def select(kind, ordinal=0):
    """'auto', 'gpu' or 'sim', before the first launch or allocation."""
    _core.select(kind, ordinal)


def device_kind():
    """'gpu' or 'sim': where launches run (chosen at the first need)."""
    return _core.device_kind()


def info():
    """The report `pyk2cuda info` prints, as text: pyk2cuda's version, which NVRTC was found
    (version, file, the builtins beside it), the CUDA driver's version and devices, and whether
    NVRTC and the driver fit (a driver older than NVRTC loads none of its modules)."""
    return _core.environment()[0]


def set_check_bounds(on=True):
    """Bounds checking of every array index for kernels translated from now on."""
    _core.set_check_bounds(on)


def set_sanitize(on=True):
    """The simulator's checker (races, reads before writes, barrier misuse) for kernels
    translated from now on: their launches run on the simulator and raise pyk2cuda.Error
    (status 'sanitize') with every finding. PYK2CUDA_SANITIZE=1 sets it at import."""
    _core.set_sanitize(on)
