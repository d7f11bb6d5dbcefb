"""numba.cuda's names for pyk2cuda: `from pyk2cuda import cuda`.

Kernels, device arrays, streams and events are the C extension's (pyk2cuda._core); this module
only gives them Numba's names and signatures. Where a name behaves differently from numba.cuda,
docs/python.md says so."""
import contextlib
import os
import re
import shutil
import subprocess
import tempfile

from . import _core
from ._core import Error, CompileError

# Options of numba.cuda.jit that change nothing here (docs/python.md says why for each).
_IGNORED_OPTIONS = {"inline", "opt", "lineinfo", "cache", "max_registers", "fastmath",
                    "forceinline", "link", "lto"}


def _source_of(func):
    """The file a kernel comes from and its bytes: kernels are translated from their module's
    source file, as the command line translates them."""
    code = func.__code__
    path = code.co_filename
    if not os.path.isfile(path):
        raise Error("%s: '%s' has no source file (defined in %s): pyk2cuda translates kernels "
                    "from their module's file, so define them in a .py file"
                    % (func.__name__, func.__name__, path))
    if func.__qualname__ != func.__name__:
        raise Error("%s:%d: '%s' is defined inside another function or class; kernels and "
                    "device functions must be defined at the top level of their module"
                    % (path, code.co_firstlineno, func.__qualname__))
    with open(path, "rb") as f:
        return path, f.read()


def _check_options(options):
    for key, value in options.items():
        if key == "link" and value:
            raise Error("cuda.jit(link=...): linking external code is not supported")
        if key not in _IGNORED_OPTIONS and key not in ("debug", "boundscheck"):
            raise TypeError("cuda.jit() got an unexpected keyword argument '%s'" % key)


def _signature_list(sig):
    sigs = sig if isinstance(sig, (list, tuple)) else [sig]
    for s in sigs:
        if not isinstance(s, str) and not hasattr(s, "args"):
            raise TypeError("a signature is a string or a type such as void(float32[:]), got %r" % (s,))
    return [str(s) for s in sigs]


def _sig_for(name, sig):
    """'void(float32[:])' as the compiler's 'name(float32[:])'."""
    i = sig.find("(")
    return name + (sig[i:] if i >= 0 else "(" + sig + ")")


def _launch_nothing(*args):
    """forall(0)'s launcher: no threads, so no launch."""


class Kernel(_core._Kernel):
    """A @cuda.jit kernel: `kern[grid, block](args)`, `kern[grid, block, stream, sharedmem]`,
    `kern.forall(n)(args)`."""

    def forall(self, ntasks, *args, **kw):
        """A launcher over ntasks threads. As in Numba, forall(0) launches nothing (a launch of
        no blocks would be an error) and a negative count is a ValueError when it is created."""
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %d" % ntasks)
        if ntasks == 0:
            return _launch_nothing
        return super().forall(ntasks, *args, **kw)

    @property
    def specializations(self):
        return {sig: cuda for sig, cuda, _, _ in self._specs()}

    @property
    def signatures(self):
        return [sig for sig, _, _, _ in self._specs()]

    def _pick(self, signature):
        specs = self._specs()
        if signature is None:
            return list(range(len(specs)))
        for i, (sig, _, _, _) in enumerate(specs):
            if sig == str(signature):
                return [i]
        raise KeyError("no specialization %s of '%s' (it has %s)" % (signature, self.__name__,
                                                                       [s[0] for s in specs]))

    def inspect_cuda(self, signature=None):
        """The generated CUDA C: a dict {signature: text}, or one text for `signature`."""
        specs = self._specs()
        got = {specs[i][0]: specs[i][1] for i in self._pick(signature)}
        return got if signature is None else got[str(signature)]

    def inspect_types(self, signature=None, file=None):
        """Prints each specialization's Python with the types inferred for it."""
        import sys
        out = file or sys.stdout
        specs = self._specs()
        for i in self._pick(signature):
            print("%s %s" % (self.__name__, specs[i][0]), file=out)
            print(specs[i][2], file=out)

    def inspect_asm(self, signature=None, arch=None):
        """The PTX (NVRTC, no GPU needed): a dict {signature: text}, or one text."""
        specs = self._specs()
        got = {specs[i][0]: self._ptx(i, arch)[0] for i in self._pick(signature)}
        return got if signature is None else got[str(signature)]

    def _ptxas(self, i, arch, cubin):
        """Runs ptxas -v on specialization i's PTX; returns (its report, the CUBIN's path)."""
        ptxas = _cuda_tool("ptxas")
        ptx = self._ptx(i, arch)[0]
        src = os.path.join(cubin, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        out = os.path.join(cubin, "k.cubin")
        p = subprocess.run([ptxas, "-v", "--gpu-name", arch, src, "-o", out], capture_output=True, text=True)
        if p.returncode != 0:
            raise Error("ptxas rejected the PTX of %s: %s" % (self.__name__, p.stderr.strip()))
        return p.stderr, out

    def resource_usage(self, signature=None, arch=None):
        """Per specialization, what ptxas reports for the kernel (registers, spills, stack
        frame, shared and constant memory), compiled for `arch` (default: the GPU's, or sm_90):
        a dict {signature: {...}}, or one dict for `signature`. Needs ptxas (CUDA toolkit)."""
        arch = arch or _default_arch()
        specs = self._specs()
        got = {}
        for i in self._pick(signature):
            with tempfile.TemporaryDirectory() as tmp:
                report, _ = self._ptxas(i, arch, tmp)
            got[specs[i][0]] = _parse_ptxas(report, specs[i][3])
        return got if signature is None else got[str(signature)]

    def inspect_sass(self, signature=None, arch=None):
        """The SASS (nvdisasm of the CUBIN ptxas makes from the PTX): a dict {signature: text}, or
        one text. Needs ptxas and nvdisasm (CUDA toolkit)."""
        arch = arch or _default_arch()
        nvdisasm = _cuda_tool("nvdisasm")
        specs = self._specs()
        got = {}
        for i in self._pick(signature):
            with tempfile.TemporaryDirectory() as tmp:
                _, cubin = self._ptxas(i, arch, tmp)
                p = subprocess.run([nvdisasm, cubin], capture_output=True, text=True)
            if p.returncode != 0:
                raise Error("nvdisasm failed on %s: %s" % (self.__name__, p.stderr.strip()))
            got[specs[i][0]] = p.stdout
        return got if signature is None else got[str(signature)]


def _cuda_tool(name):
    """A CUDA toolkit program: on PATH, else under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda."""
    found = shutil.which(name)
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if not found and root and os.access(os.path.join(root, "bin", name), os.X_OK):
            found = os.path.join(root, "bin", name)
    if not found:
        raise Error("%s (CUDA toolkit) was not found on PATH or in $CUDA_HOME/bin, $CUDA_PATH/bin, "
                    "/usr/local/cuda/bin" % name)
    return found


def _default_arch():
    return _core.device_info()["arch"] if _core.device_kind() == "gpu" else "sm_90"


def _parse_ptxas(report, symbol):
    """ptxas -v's lines for the entry `symbol`, as numbers."""
    usage = {"registers": 0, "spill_stores": 0, "spill_loads": 0, "stack_frame": 0, "shared": 0,
             "constant": 0, "barriers": 0}
    block = report.split("Compiling entry function '%s'" % symbol, 1)
    if len(block) < 2:
        raise Error("ptxas reported nothing for the entry '%s'" % symbol)
    text = block[1].split("Compiling entry function", 1)[0]
    for key, pattern in (("stack_frame", r"(\d+) bytes stack frame"),
                         ("spill_stores", r"(\d+) bytes spill stores"),
                         ("spill_loads", r"(\d+) bytes spill loads"),
                         ("registers", r"Used (\d+) registers"),
                         ("barriers", r"used (\d+) barriers"),
                         ("shared", r"(\d+) bytes smem"),
                         ("constant", r"(\d+) bytes cmem\[0\]")):
        m = re.search(pattern, text)
        if m:
            usage[key] = int(m.group(1))
    return usage


class DeviceFunction:
    """A @cuda.jit(device=True) function: callable from kernels of the same file."""

    def __init__(self, func):
        self.py_func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__

    def __call__(self, *args, **kwargs):
        raise Error("device function '%s' can only be called from a kernel" % self.__name__)


def jit(func_or_sig=None, device=False, debug=None, **options):
    """numba.cuda.jit: @cuda.jit, @cuda.jit('void(float32[:])'), @cuda.jit([sigs]),
    @cuda.jit(device=True). debug=True turns on bounds checking of every array index."""
    _check_options(options)
    bounds = bool(debug) or bool(options.get("boundscheck"))

    def make(func, sigs):
        if device:
            _source_of(func)
            return DeviceFunction(func)
        path, source = _source_of(func)
        code = func.__code__
        params = tuple(code.co_varnames[:code.co_argcount])
        extra = [_sig_for(func.__name__, s) for s in sigs] if sigs else None
        k = Kernel(func, func.__name__, path, source, params, bool(sigs), extra, bounds)
        k.__doc__ = func.__doc__
        return k

    if callable(func_or_sig) and not hasattr(func_or_sig, "args"):
        return make(func_or_sig, None)
    sigs = _signature_list(func_or_sig) if func_or_sig is not None else None
    return lambda func: make(func, sigs)


def vectorize(signatures, target="cuda", **options):
    """numba.vectorize([...], target='cuda'): a ufunc that runs on the device."""
    if target != "cuda":
        raise NotImplementedError("vectorize: pyk2cuda compiles target='cuda' ufuncs only, not '%s'" % target)

    def make(func):
        path, source = _source_of(func)
        return _core._Ufunc(func, func.__name__, path, source)
    return make


# ---- memory ----

def _numpy():
    import numpy
    return numpy


def to_device(obj, stream=0, copy=True, to=None):
    """A device array holding a copy of a host array (or `to.copy_to_device(obj)`)."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    return _core.to_device(obj, stream)


def device_array(shape, dtype=float, strides=None, order="C", stream=0):
    """A new zero-filled device array (Numba leaves it uninitialized)."""
    if strides is not None:
        raise Error("device_array(strides=...) is not supported: give order='C' or 'F'")
    return _core.device_array(shape, _numpy().dtype(dtype).char, order)


def _order_of(ary):
    if isinstance(ary, _core.DeviceArray):
        return "F" if ary.is_f_contiguous() and not ary.is_c_contiguous() else "C"
    flags = getattr(ary, "flags", None)
    return "F" if flags is not None and flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"] else "C"


def device_array_like(ary, stream=0):
    return device_array(ary.shape, ary.dtype, order=_order_of(ary), stream=stream)


def pinned_array(shape, dtype=float, strides=None, order="C"):
    """A NumPy array in page-locked host memory (plain host memory on the simulator)."""
    np = _numpy()
    if strides is not None:
        raise Error("pinned_array(strides=...) is not supported: give order='C' or 'F'")
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    count = 1
    for n in shape:
        count *= n
    buf = _core.host_buffer(count * dtype.itemsize)
    return np.frombuffer(buf, dtype=dtype, count=count).reshape(shape, order=order)


def pinned_array_like(ary):
    return pinned_array(ary.shape, ary.dtype, order=_order_of(ary))


mapped_array = pinned_array


@contextlib.contextmanager
def pinned(*arrays):
    """Page-locks the host arrays for the block, as Numba does, so that copies from and to them
    on a stream are asynchronous (GPU; nothing to do on the simulator)."""
    locked = []
    try:
        for ary in arrays:
            address = _core.pin_host(ary)
            if address is not None:
                locked.append(address)
        yield
    finally:
        for address in locked:
            _core.unpin_host(address)


def as_cuda_array(obj, sync=True):
    """A device array viewing a GPU array of another library (CuPy, PyTorch) through its
    __cuda_array_interface__, without a copy (GPU only)."""
    return _core.as_device_array(obj)


def is_cuda_array(obj):
    return hasattr(obj, "__cuda_array_interface__")


# ---- streams, events, devices ----

stream = _core.stream
default_stream = _core.default_stream
event_elapsed_time = _core.event_elapsed_time
synchronize = _core.synchronize


def event(timing=True):
    return _core.event()


def is_available():
    """True: kernels can run, on the GPU or, without one, on the simulator (as Numba's
    simulator answers). pyk2cuda.device_kind() says which."""
    return True


def detect():
    """Prints what was found, as numba.cuda.detect does, and returns True."""
    text, _ = _core.environment()
    print(text.rstrip())
    print("pyk2cuda: " + _core.why())
    return True


class _Device:
    def __init__(self, ordinal):
        self.id = ordinal

    @property
    def _info(self):
        if _core.device_kind() == "gpu":
            return _core.device_info()
        return {"name": "pyk2cuda CPU simulator", "compute_capability": (9, 0)}

    @property
    def name(self):
        return self._info["name"]

    @property
    def compute_capability(self):
        return tuple(self._info["compute_capability"])

    def __enter__(self):
        select_device(self.id)
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<pyk2cuda device %d: %s>" % (self.id, self.name)


class _Gpus:
    """cuda.gpus: the devices launches can use (the simulator counts as one)."""

    def __len__(self):
        return max(1, _core.gpu_count()) if _core.device_kind() == "gpu" else 1

    def __getitem__(self, i):
        if not 0 <= i < len(self):
            raise IndexError("no device %d" % i)
        return _Device(i)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def current(self):
        return get_current_device()


gpus = _Gpus()


def select_device(ordinal):
    """Chooses the GPU `ordinal` for launches (before the first one); 0 on the simulator."""
    if os.environ.get("PYK2CUDA_DEVICE", "auto") == "sim" or _core.gpu_count() == 0:
        if ordinal != 0:
            raise Error("select_device(%d): there is no GPU; the simulator is device 0" % ordinal)
        _core.select("sim")
    else:
        _core.select("gpu", ordinal)
    return _Device(ordinal)


def get_current_device():
    _core.device_kind()
    return _Device(0)


def close():
    """Numba releases the context; here the device stays open until the interpreter exits."""
