"""numba.cuda.cudadrv: the names of Numba's driver layer that scripts and Numba's tests use,
answered by pyk2cuda's own runtime (cuda.SUBMODULES serves them as numba.cuda.cudadrv and
numba.cuda.cudadrv.driver, .devicearray, .error, .nvvm, .runtime). A name not here is an
AttributeError (an ImportError in `from ... import`) naming it; none comes from Numba.

- driver: Stream, Event (pyk2cuda's), CudaAPIError, the error of a driver call, and `driver`,
  Numba's Driver object as far as scripts use it (Driver below); its cuXxx functions (Numba's
  ctypes bindings) are not there: pyk2cuda calls the driver API from C;
- devicearray: cuda.devicearray (DeviceNDArray, ...);
- error: Numba's error classes, each pyk2cuda.Error (the one class of the C API's failures, whose
  .status_name says which tool failed), so `except CudaSupportError:` catches what it should;
- nvvm: NVVM() with is_nvvm70 True: pyk2cuda compiles through NVRTC, which
  takes everything NVVM 7.0 does; find_closest_arch(cc), which is cc (pyk2cuda compiles for the
  compute capability asked); the address-space numbers of NVVM IR;
- nvrtc: find_closest_arch (nvvm's) and _get_nvrtc_version(), the (major, minor) of the NVRTC
  pyk2cuda loads (numba-cuda's tests choose their checks by it);
- runtime: runtime.get_version(), the CUDA toolkit version of the NVRTC pyk2cuda loads (there
  is no CUDA runtime library under pyk2cuda: it uses the driver API);
- linkable_code: numba-cuda's holders of code to link (CUSource, PTXSource, Cubin, Fatbin,
  Archive, Object, LTOIR), which keep their data and name. pyk2cuda links CUDA C (CUSource) by
  compiling it with the kernel, refuses the others in link= (docs/python.md, "CUDA C linked into
  kernels"), and driver._have_nvjitlink() is False."""
import re
import sys
import types as _types

from . import _core

_PREFIX = __name__


def _module(name, doc, **names):
    m = _types.ModuleType("%s.%s" % (_PREFIX, name), doc)
    m.__dict__.update(names)
    return m


def _nvrtc_version():
    """(major, minor) of the NVRTC pyk2cuda loads, or (0, 0) where there is none."""
    text, _ = _core.environment()
    m = re.search(r"^NVRTC (\d+)\.(\d+)", text, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


class NVVM:
    """Numba's NVVM handle, as far as scripts ask it: the compiler behind pyk2cuda is NVRTC,
    which compiles what NVVM 7.0 compiles."""
    is_nvvm70 = True


def find_closest_arch(mycc):
    """Numba's closest compute capability the toolkit supports: pyk2cuda compiles for the one
    asked (compile_ptx(cc=...), the device's), and NVRTC refuses one it does not know."""
    return tuple(int(x) for x in mycc)


class LinkableCode:
    """Code to link, held in memory: `data` (its text or bytes) and `name` (the name given, else
    the kind's default). A CUSource can be linked into kernels; the other kinds are refused."""
    default_name = "<unnamed>"

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None, nrt=False):
        for what, f in (("setup_callback", setup_callback), ("teardown_callback", teardown_callback)):
            if f is not None and not callable(f):
                raise TypeError("%s must be callable" % what)
        self.data = data
        self._name = name
        self.setup_callback, self.teardown_callback, self.nrt = setup_callback, teardown_callback, nrt

    @property
    def name(self):
        return self._name or self.default_name


def _code_kind(cls_name, kind):
    return type(cls_name, (LinkableCode,), {"__doc__": "%s in memory (numba-cuda's)." % kind,
                                            "default_name": "<unnamed-%s>" % kind.split()[0].lower(),
                                            "__module__": __name__ + ".linkable_code"})


LINKABLE = {name: _code_kind(name, kind) for name, kind in (
    ("CUSource", "cu source"), ("PTXSource", "ptx source"), ("Cubin", "cubin"), ("Fatbin", "fatbin"),
    ("Archive", "archive"), ("Object", "object"), ("LTOIR", "ltoir"))}
LINKABLE["LinkableCode"] = LinkableCode

class Driver:
    """numba.cuda.cudadrv.driver.driver, Numba's one Driver object: whether a device is there,
    how many, and each one (cuda.gpus' devices: the simulator counts as one, as cuda.gpus says).
    Numba's driver also answers each CUDA driver function by its name (driver.cuMemcpyHtoD...),
    its ctypes binding; pyk2cuda calls the driver API from C, so such a name is an
    AttributeError naming it, and replacing one changes nothing that pyk2cuda does."""

    @property
    def is_available(self):
        from . import cuda
        return cuda.is_available()

    def get_device_count(self):
        from . import cuda
        return len(cuda.gpus)

    def get_device(self, devnum=0):
        from . import cuda
        return cuda.gpus[devnum]

    def list_devices(self):
        from . import cuda
        return list(cuda.gpus)

    def reset(self):
        """Numba's release of every device's context (cuda.close())."""
        from . import cuda
        cuda.close()


driver = _module("driver", "numba.cuda.cudadrv.driver: streams, events, the driver object and its error.",
                 Stream=_core.Stream, Event=_core.Event, CudaAPIError=_core.Error, Driver=Driver,
                 driver=Driver(),
                 _have_nvjitlink=lambda: False,   # pyk2cuda links CUDA C by compiling it, with no nvJitLink
                 # Handles are ints (a stream's .handle, an array's device_ctypes_pointer), as
                 # with the NVIDIA bindings, so Numba's scripts read them with int(...).
                 USE_NV_BINDING=True)
error = _module("error", "numba.cuda.cudadrv.error: Numba's error classes, each pyk2cuda.Error.",
                CudaDriverError=_core.Error, CudaRuntimeError=_core.Error,
                CudaSupportError=_core.Error, NvvmError=_core.Error, NvvmSupportError=_core.Error,
                NvrtcError=_core.Error, NvrtcCompilationError=_core.CompileError)
nvvm = _module("nvvm", "numba.cuda.cudadrv.nvvm: NVVM(), find_closest_arch and NVVM IR's address spaces.",
               NVVM=NVVM, find_closest_arch=find_closest_arch, ADDRSPACE_GENERIC=0, ADDRSPACE_GLOBAL=1, ADDRSPACE_SHARED=3,
               ADDRSPACE_CONSTANT=4, ADDRSPACE_LOCAL=5)
runtime = _module("runtime", "numba.cuda.cudadrv.runtime: the CUDA version.",
                  get_version=_nvrtc_version)
runtime.runtime = runtime   # Numba's `from numba.cuda.cudadrv.runtime import runtime`
nvrtc = _module("nvrtc", "numba.cuda.cudadrv.nvrtc: the NVRTC pyk2cuda compiles with.",
                find_closest_arch=find_closest_arch, _get_nvrtc_version=_nvrtc_version)
linkable_code = _module("linkable_code", "numba.cuda.cudadrv.linkable_code: code to link (held only).",
                        **LINKABLE)
devicearray = None          # set by cuda.py to cuda.devicearray
devices = None              # set by cuda.py: get_context(), reset()

# The modules under their dotted names (this module is not a package): name -> module.
SUBMODULES = {"driver": driver, "error": error, "nvvm": nvvm, "nvrtc": nvrtc, "runtime": runtime,
              "linkable_code": linkable_code}
for _name, _m in SUBMODULES.items():
    sys.modules["%s.%s" % (_PREFIX, _name)] = _m
