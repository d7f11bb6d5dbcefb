"""numba.cuda's names for pyk2cuda: `from pyk2cuda import cuda`.

Kernels, device arrays, streams and events are the C extension's (pyk2cuda._core); this module
only gives them Numba's names and signatures. Where a name behaves differently from numba.cuda,
docs/python.md says so."""
import contextlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import _core, args, cudadrv, launchconfig, source as _source, types
from .args import In, Out, InOut
from .types import *  # noqa: F401,F403 (numba-cuda's numba.cuda exports numba's type names too)
from ._core import Error, CompileError

# Options of numba.cuda.jit accepted besides debug and boundscheck: all change nothing here but
# extensions (the kernel's extensions list), fastmath, lineinfo, link, launch_bounds, forceinline
# and opt=False (_code_options); docs/python.md says why for each.
_IGNORED_OPTIONS = {"inline", "opt", "lineinfo", "cache", "max_registers", "fastmath", "shared_memory_carveout",
                    "forceinline", "link", "lto", "launch_bounds", "extensions"}


def _code_options(debug, options):
    """The options written into the translated source's @cuda.jit(...), where the translator
    reads them: debug= and boundscheck= as given, fastmath (True, or any non-empty set of
    Numba's flags: all of NVRTC's fast math, as Numba's CUDA target does), lineinfo when set,
    launch_bounds (a kernel's __launch_bounds__) and opt=False (NVVM's -opt=0) when
    optimization is off (docs/python.md, "Options that change the code")."""
    given = (("debug", debug), ("boundscheck", options.get("boundscheck")),
             ("fastmath", bool(options.get("fastmath")) or None),
             ("lineinfo", bool(options.get("lineinfo")) or None),
             ("link", _links(options.get("link")) or None),
             ("launch_bounds", options.get("launch_bounds")),
             ("forceinline", bool(options.get("forceinline")) or None),
             ("opt", False if not options.get("opt", True) else None))
    return {name: value for name, value in given if value is not None}


def _again(checks):
    """cuda.jit's keyword arguments for a second kernel of the same options (_code_options'
    result): opt= as they say, but False with debug=True, whose warning about optimization was
    given once already (and -G turns optimization off anyway)."""
    return dict(checks, opt=checks.get("opt", True) and not checks.get("debug"))


def _check_carveout(carveout):
    """numba-cuda's check of shared_memory_carveout= (a preference of how much of L1 is shared
    memory, which pyk2cuda does not pass to the driver: docs/python.md), with its messages."""
    if isinstance(carveout, str):
        names = ["default", "maxl1", "maxshared"]
        if carveout.lower() not in names:
            raise ValueError("Invalid carveout value: %s. Must be -1 to 100 or one of %s" % (carveout, names))
    elif isinstance(carveout, int):
        if not -1 <= carveout <= 100:
            raise ValueError("Carveout must be between -1 and 100")
    else:
        raise TypeError("shared_memory_carveout must be str or int, got %s" % type(carveout).__name__)


def _check_options(options):
    if options.get("shared_memory_carveout") is not None:
        _check_carveout(options["shared_memory_carveout"])
    if options.get("cache") and options.get("link"):
        raise RuntimeError("Cannot pickle CUDACodeLibrary with linking files: cache=True cannot "
                           "be used with link=")
    for key, value in options.items():
        if key not in _IGNORED_OPTIONS and key not in ("debug", "boundscheck", "sanitize"):
            raise TypeError("cuda.jit() got an unexpected keyword argument '%s'" % key)


_RAISED = {}

def _numba_message(failure, msg):
    """Numba's text for an exception a kernel raised (its kernel wrapper's, 0.56-0.60): "In
    function 'k', file F, line N, tid=[x, y, z] ctaid=[x, y, z]: message", from the failure the
    C API recorded (exc.failure: p2c_compiler_last_failure)."""
    ids = ["[%s]" % ", ".join(str(i) for i in failure[key]) for key in ("thread", "block")]
    where = "In function '%s', file %s, line %d, " % (failure["kernel"], failure["file"], failure["line"]) \
        if failure["kernel"] else ""
    text = "%stid=%s ctaid=%s" % (where, ids[0], ids[1])
    return text if msg is None else text + ": " + msg


def _raised(exc, classes=None, message=_numba_message, bounds_error=True):
    """A launch that failed on a `raise ValueError(...)` or a failed assert in a debug=True kernel
    comes from the C API as a bounds-record error, 'FILE:LINE:COL: error: ValueError: msg in
    kernel ...'. As in Numba, it is raised as that exception's class (a builtin, or the module's
    class of that name from `classes`, a Unit's exceptions) with Numba's message: here a class
    derived from both it and pyk2cuda.Error (BoundsError for IndexError), with the same data.
    `message(failure, msg)` is the exception's text (None: no arguments, as `raise ValueError`);
    a @jit host function's is its own message, as Numba's njit raises it (cpu.py), and its
    IndexError (bounds_error False) an IndexError by name too."""
    failure = getattr(exc, "failure", None) if isinstance(exc, _core.BoundsError) else None
    if not failure or not failure["raised"]:
        return exc   # another error, or an index out of bounds: BoundsError, an IndexError
    name, colon, msg = failure["exception"].partition(": ")
    msg = msg if colon else None
    cls = (classes or {}).get(name) or getattr(__import__("builtins"), name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        return exc
    args = (message(failure, msg),)
    args = () if args[0] is None else args
    if cls is IndexError and bounds_error:   # BoundsError is pyk2cuda's IndexError
        new = _core.BoundsError(*args)
    else:
        if cls not in _RAISED:
            # A division by zero in a debug kernel is Numba's ZeroDivisionError on a GPU and, in
            # Numba's simulator (NumPy's error state), FloatingPointError: it is both here.
            bases = (Error, cls, FloatingPointError) if cls is ZeroDivisionError else (Error, cls)
            try:
                _RAISED[cls] = type(cls.__name__, bases, {"__module__": cls.__module__})
            except TypeError:  # a class whose layout cannot be combined (OSError's family)
                _RAISED[cls] = cls
        new = _RAISED[cls](*args)
    for key in ("status", "status_name", "diagnostics", "failure"):
        if hasattr(exc, key):
            setattr(new, key, getattr(exc, key))
    return new


def _numba_class(exc):
    """`exc` as numba-cuda raises its kind, with the same data: the driver's refusal of a launch
    (status 'cuda', a block over the kernel's launch bounds among them) is also cuda.core's
    CUDAError where the program has loaded cuda.core (numba-cuda launches through it); an
    invalid launch_bounds= (E-launch-bounds) is also a ValueError."""
    if not isinstance(exc, Error):
        return exc
    extra = None
    if getattr(exc, "status_name", None) == "cuda":
        extra = getattr(sys.modules.get("cuda.core._utils.cuda_utils"), "CUDAError", None)
    elif isinstance(exc, CompileError) and any(d[4] == "E-launch-bounds" for d in exc.diagnostics):
        extra = ValueError
    if not (isinstance(extra, type) and issubclass(extra, Exception)) or isinstance(exc, extra):
        return exc
    key = (type(exc), extra)
    if key not in _RAISED:
        try:
            _RAISED[key] = type(type(exc).__name__, key, {"__module__": type(exc).__module__})
        except TypeError:   # layouts that cannot be combined: left as it is
            _RAISED[key] = None
    if _RAISED[key] is None:
        return exc
    new = _RAISED[key](*exc.args)
    new.__dict__.update(exc.__dict__)
    return new


def _rebuilt_kernel(name, unit, params, calls, options, sanitize, extensions):
    """A kernel from a pickle (Kernel.__reduce__): made from its translated source."""
    k = Kernel(None, name, unit.filename, unit.source, params, calls is not None, calls, sanitize)
    k._options, k._sanitize, k._calls = options, sanitize, calls
    k._set_unit(unit)
    k._specialized = calls is not None and len(calls) == 1
    k.extensions.extend(extensions)
    return k


def _launch_nothing(*args):
    """forall(0)'s launcher: no threads, so no launch."""


class Kernel(_core._Kernel):
    """A @cuda.jit kernel: `kern[grid, block](args)`, `kern[grid, block, stream, sharedmem]`,
    `kern.forall(n)(args)`."""

    _unit = None
    _held_warnings = ()
    _options = {}   # the decorator's debug= and boundscheck=, written into the translated source

    _cache = None   # cache=True: its caching.FunctionCache
    _fresh = False  # recompile(): translate the function, not the module the cache holds

    def _build(self):
        """The source to translate (asked for by the C side at the first translation): the
        function's synthetic module, its free names frozen now (source.py), or with cache=True
        the module the cache holds for it (caching.py)."""
        cached = self._cache.unit() if self._cache is not None and not self._fresh else None
        self._unit = cached or _source.build(self.py_func, options=self._options)
        return self._unit.filename, self._unit.source

    def _compile_warnings(self, diagnostics):
        """The translation's warnings (asked for by the C side after a translation that has
        some: [(file, line, column, "warning", code, message)]), issued as Numba issues them: a
        NumbaWarning (the program's own class, _numba_warning_class), at the user's line."""
        import warnings
        NumbaWarning = _numba_warning_class("NumbaWarning")
        if self._unit is None:   # a signed kernel's translation, in its constructor: see _set_unit
            self._held_warnings = list(diagnostics)
            return
        for file, line, col, _, code, message in diagnostics:
            at = self._unit.where(line, col) if self._unit and file == self._unit.filename else None
            file, line = (at[0], at[1]) if at else (file, line)
            warnings.warn_explicit(NumbaWarning("%s [%s]" % (message, code)), NumbaWarning, file, line)

    def _set_unit(self, unit):
        """The translated unit of a kernel made from it (signed, or rebuilt from a pickle), and the
        warnings its constructor's translation held until the unit could place them."""
        self._unit = unit
        held, self._held_warnings = self._held_warnings, ()
        if held:
            self._compile_warnings(held)

    def _low_occupancy(self, blocks):
        """Asked by the C side when a launch configuration has fewer than 128 blocks: Numba's
        NumbaPerformanceWarning, when Numba's config asks for it (_numba_config)."""
        if not self.__dict__.get("_quiet") and _numba_config("CUDA_LOW_OCCUPANCY_WARNINGS"):
            _performance_warning("Grid size %d will likely result in GPU under-utilization due "
                                 "to low occupancy." % blocks)

    def _host_array_copied(self):
        """Asked by the C side for each host array a launch copies in and back: Numba's
        NumbaPerformanceWarning, when Numba's config asks for it."""
        if not self.__dict__.get("_quiet") and _numba_config("CUDA_WARN_ON_IMPLICIT_COPY"):
            _performance_warning("Host array used in CUDA kernel will incur copy overhead to/from "
                                 "device.")

    def _specialized_now(self, index):
        """Called by the C side when a launch made specialization `index`: cache=True counts it
        as a hit or a miss and writes a missed one to the cache."""
        if self._cache is not None:
            self._cache.note(self._specs()[index][0], self._unit)

    @property
    def stats(self):
        """Numba's Dispatcher.stats: (cache_path, cache_hits, cache_misses), the Counters by
        signature; cache_path None and no counts without cache=True."""
        if self._cache is None:
            import collections
            from .caching import CompileStats
            return CompileStats(None, collections.Counter(), collections.Counter())
        return self._cache.stats()

    def recompile(self):
        """Numba's Dispatcher.recompile: every specialization is made again from the function,
        its globals frozen anew; with cache=True, the next specialization of each signature
        replaces its cache entry (a kernel declared with signatures: now)."""
        if self.py_func is None:
            raise TypeError("kernel '%s' was rebuilt from a pickle: it cannot be recompiled"
                            % self.__name__)
        self._unit = None
        self._fresh = True
        self._recompile(self._calls)
        if self._calls is not None:
            for i in range(len(self._specs())):
                self._specialized_now(i)

    def _fix_error(self, exc):
        """`exc` with its locations in the user's source (asked for on a failed launch), an
        exception the kernel raised as its own class (_raised), and numba-cuda's classes of a
        launch's errors (_numba_class). A kernel running from a program shared with other
        kernels (_batch) maps them through that program's module."""
        unit = self.__dict__.get("_program_unit") or self._unit
        if not isinstance(exc, (CompileError, _core.BoundsError)):   # the device's: no locations
            return _numba_class(exc)
        if unit is None:
            return _numba_class(_raised(exc))
        return _numba_class(_raised(unit.remap(exc), unit.exceptions))

    _batch_key = None   # a signed kernel's batch (_batched), None: it joins none

    def _batch(self):
        """Asked by the C side once, before this signed kernel's first compile for the GPU: the
        signed kernels of its module with the same options that no GPU compile has used yet are
        translated together (their units merged, each global as each froze it) and join one
        program, which NVRTC compiles once for all (docs/python.md, "One NVRTC program for a
        module's signed kernels"). Nothing is batched where the units cannot share a module or
        the merged module does not translate: each kernel then compiles on its own, as before."""
        group = _batched.pop(self._batch_key, []) if self._batch_key is not None else []
        group = [k for k in (ref() for ref in group) if k is not None]
        if len(group) < 2 or self not in group:
            return
        unit = _source.merge([k._unit for k in group])
        if unit is None:
            return
        names = list(dict.fromkeys(k.__name__ for k in group))
        calls = list(dict.fromkeys(c for k in group for c in k._calls))
        try:
            program = self._program(unit.source, names, calls)
        except Error:
            return
        for k in group:
            if k._join(program):
                k._program_unit = unit

    def build(self, out, signatures=(), arch="sm_90", with_sim=False):
        """An ahead-of-time bundle of this kernel's specializations: pyk2cuda.build (docs/aot.md)."""
        from .aot import build
        return build(self, out, signatures=signatures, arch=arch, with_sim=with_sim)

    def forall(self, ntasks, *args, **kw):
        """A launcher over ntasks threads. As in Numba, forall(0) launches nothing (a launch of
        no blocks would be an error) and a negative count is a ValueError when it is created."""
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %d" % ntasks)
        if ntasks == 0:
            return _launch_nothing
        return super().forall(ntasks, *args, **kw)

    def _prepare_args(self, given, stream):
        """Numba's argument preparation, asked for by a launch when the kernel has extensions or
        an argument is a cuda.In/Out/InOut: each extension's prepare_args(ty, val, stream=,
        retr=), the last one first (ty is None: pyk2cuda types the arguments itself, as Numba's
        simulator passes None), then an ArgHint's to_device. Returns (the arguments to launch
        with, the functions to call after the launch)."""
        retr = []
        out = []
        stream = 0 if stream is None else stream
        for val in given:
            ty = None
            for extension in reversed(self.extensions):
                ty, val = extension.prepare_args(ty, val, stream=stream, retr=retr)
            if isinstance(val, args.ArgHint):
                val = val.to_device(retr, stream=stream)
            out.append(val)
        return tuple(out), retr

    def _compile_for_args(self, *args):
        """numba-cuda's Dispatcher._compile_for_args: the specialization for these arguments,
        made now if new. A launch that needs a new one calls it on the instance, with the launch
        configuration current on its thread (launchconfig.current_launch_config()), so that code
        wrapping it sees the configuration, as under numba-cuda. Returns the overload made."""
        index = self._compile_args(args)
        if launchconfig._take_mark(self):
            self.__dict__.setdefault("_config_sensitive", set()).add(self._specs()[index][0])
        return _Overload(self, index)

    def mark_launch_config_sensitive(self):
        """numba-cuda's: called while a launch compiles this kernel, marks the specialization it
        makes as depending on the launch configuration (overloads[...].launch_config_sensitive).
        pyk2cuda's translation never reads the configuration, so the mark is recorded and
        nothing is compiled again per configuration (docs/python.md)."""
        cfg = launchconfig.ensure_current_launch_config()
        if cfg.dispatcher is not self:
            raise RuntimeError("mark_launch_config_sensitive() must be called on the active "
                               "dispatcher")
        launchconfig._mark(self)

    def bind(self):
        """Numba loads the kernel's module on the device here; pyk2cuda does that at the first
        launch, so there is nothing to do."""

    _calls = None   # the decorator's signatures, as the C side takes them (None: lazy)

    def __reduce__(self):
        """Pickled as what it is made of, as Numba pickles a dispatcher: the module translated for
        it (its source, globals frozen: built now if no launch built it yet, as Numba's pickle
        freezes them then), the map back to the user's lines, the signatures and options. The
        kernel rebuilt from it compiles from that source (the compile cache finds what was
        compiled before), in this process or another; its py_func is None (the function itself
        is not pickled)."""
        if self._unit is None:
            self._unit = _source.build(self.py_func, options=self._options)
        return (_rebuilt_kernel, (self.__name__, self._unit, self._params, self._calls,
                                  dict(self._options), self._sanitize, list(self.extensions)))

    _specialized = False   # declared with one signature, or made by specialize()

    def specialize(self, *args):
        """A kernel with the one signature these arguments have, or these types (Numba's
        Dispatcher.specialize, which takes either): one per signature, made on first use and
        returned again after. A specialized kernel cannot be specialized again, as in Numba."""
        if self._specialized:
            raise RuntimeError("Dispatcher already specialized")
        if self.py_func is None:
            raise TypeError("kernel '%s' was rebuilt from a pickle, which keeps its translated "
                            "source, not its Python function: it cannot be specialized" % self.__name__)
        sig = "void(%s)" % ", ".join(str(a) if isinstance(a, types.Type) else _arg_type_text(a)
                                     for a in args)
        made = self.__dict__.setdefault("_made", {})
        key = _arg_types(sig)
        if key not in made:
            made[key] = self._sibling(sig)
        return made[key]

    def compile(self, sig):
        """Numba's Dispatcher.compile: the specialization for `sig` (argument types, or a
        signature whose return type is void) made now, as a launch with such arguments would
        make it; returns this kernel (inspect_asm(sig) then has it)."""
        key = _sig_key(sig)
        if any(_arg_types(s) == key for s in self.signatures):
            return self
        compiled = self.__dict__.setdefault("_compiled", {})
        if key not in compiled:
            compiled[key] = self._sibling("void(%s)" % ", ".join(str(t) for t in key))
        return self

    def _sibling(self, sig):
        """A kernel of the same function and options for one signature."""
        return jit(sig, sanitize=self._sanitize, **_again(self._options))(self.py_func)

    @property
    def specializations(self):
        """Numba's {argument types: the kernel specialize() made for them}."""
        return dict(self.__dict__.get("_made", {}))

    @property
    def signatures(self):
        return [sig for sig, _, _, _ in self._specs()]

    @property
    def overloads(self):
        """Numba's {argument types: compiled kernel}: one entry per specialization, keyed by
        the tuple of its argument types (equal to pyk2cuda's type objects, int32[:, ::1])."""
        return {_arg_types(sig): _Overload(self, i) for i, (sig, _, _, _) in enumerate(self._specs())}

    def _pick(self, signature):
        """The specializations an inspect_* call is about: all of them, or the one `signature`
        names, given as its text ('void(float64[:])', a signature object) or as Numba's key,
        the tuple of argument types (as `overloads` has them)."""
        specs = self._specs()
        if signature is None:
            return list(range(len(specs)))
        for i, (sig, _, _, _) in enumerate(specs):
            if sig == str(signature) or (isinstance(signature, tuple) and _arg_types(sig) == signature):
                return [i]
        raise KeyError("no specialization %s of '%s' (it has %s)" % (signature, self.__name__,
                                                                       [s[0] for s in specs]))

    def inspect_cuda(self, signature=None, html=False, arch=None, block=256, shared=0, findings=None):
        """The generated CUDA C: a dict {signature: text}, or one text for `signature`. With
        html=True, the explore view instead (docs/explore.md): the page of each specialization,
        which shows the Python, CUDA C and PTX linked, the resources and the occupancy for
        `arch` (default sm_90) at `block` threads and `shared` bytes of dynamic shared memory,
        and the sanitizer's `findings` (a sanitized launch's exc.findings) at their lines."""
        specs = self._specs()
        if html:
            got = {specs[i][0]: self._explore(i, arch, block, shared, findings) for i in self._pick(signature)}
        else:
            got = {specs[i][0]: specs[i][1] for i in self._pick(signature)}
        return got if signature is None else next(iter(got.values()))

    def explore(self, path, signature=None, arch=None, block=256, shared=0, findings=None):
        """Writes the explore view of `signature` (default: the only specialization) to `path`:
        one self-contained HTML file, as `pyk2cuda explore` writes it (docs/explore.md), with
        the sanitizer's `findings` (exc.findings of a sanitized launch) at their lines."""
        if signature is None:
            sigs = self.signatures
            if len(sigs) != 1:
                raise ValueError("'%s' has %d specializations (%s): say which with signature=" % (
                    self.__name__, len(sigs), ", ".join(sigs)))
            signature = sigs[0]
        page = self.inspect_cuda(signature, html=True, arch=arch, block=block, shared=shared, findings=findings)
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
        return path

    def _repr_html_(self):
        """Jupyter's view of a kernel: the explore view of each specialization, each in an
        iframe of its own (the page is a whole document with its own style and script)."""
        import html as _html
        pages = self.inspect_cuda(html=True)
        if not pages:
            return "<p>%s: no specialization yet (launch it, or give a signature)</p>" % _html.escape(self.__name__)
        return "".join('<iframe title="%s" srcdoc="%s" style="width:100%%;height:640px;border:1px solid #ddd">'
                       '</iframe>' % (_html.escape(self.__name__ + " " + sig), _html.escape(page))
                       for sig, page in pages.items())

    def inspect_types(self, signature=None, file=None):
        """Prints each specialization's Python with the types inferred for it."""
        import sys
        out = file or sys.stdout
        specs = self._specs()
        for i in self._pick(signature):
            print("%s %s" % (self.__name__, specs[i][0]), file=out)
            print(specs[i][2], file=out)

    def inspect_asm(self, signature=None, arch=None):
        """The PTX (NVRTC, no GPU needed): a dict {signature: text}, or one text. A signature
        compile(sig) made is asked of the kernel it made."""
        compiled = self.__dict__.get("_compiled", {})
        if signature is not None and compiled and _sig_key(signature) in compiled:
            return compiled[_sig_key(signature)].inspect_asm(None, arch).popitem()[1]
        specs = self._specs()
        got = _BySignature({specs[i][0]: self._ptx(i, arch)[0] for i in self._pick(signature)})
        for kernel in ({} if signature is not None else compiled).values():
            got.update(kernel.inspect_asm(None, arch))
        return got if signature is None else next(iter(got.values()))

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
        a dict {signature: {...}} (that answers to Numba's keys too, _BySignature), or one dict
        for `signature`. Needs ptxas (CUDA toolkit)."""
        arch = arch or _default_arch()
        specs = self._specs()
        got = _BySignature()
        for i in self._pick(signature):
            with tempfile.TemporaryDirectory() as tmp:
                report, _ = self._ptxas(i, arch, tmp)
            got[specs[i][0]] = dict(_parse_ptxas(report, specs[i][3]),
                                    constant=_ptx_const_bytes(self._ptx(i, arch)[0]))
        return got if signature is None else next(iter(got.values()))

    def _usage(self, key, signature):
        """One figure of resource_usage, as Numba's get_* methods give theirs: for `signature`,
        for the one signature of a kernel declared with exactly one, else {signature: value},
        which Numba's keys (tuples of argument types, `sig.args`) find too."""
        if signature is None and getattr(self, "_specialized", False):
            signature = self.signatures[0]
        got = self.resource_usage(signature)
        return got[key] if signature is not None else _BySignature((s, u[key]) for s, u in got.items())

    def get_regs_per_thread(self, signature=None):
        """Registers per thread (ptxas, resource_usage)."""
        return self._usage("registers", signature)

    def get_shared_mem_per_block(self, signature=None):
        """Static shared memory per block in bytes (ptxas, resource_usage)."""
        return self._usage("shared", signature)

    def get_local_mem_per_thread(self, signature=None):
        """Local memory per thread in bytes: ptxas's stack frame (resource_usage)."""
        return self._usage("stack_frame", signature)

    def get_max_threads_per_block(self, signature=None):
        """The most threads a block of a launch may have (the device's limit, lowered by the
        kernel's registers; the simulator's 1024), for `signature`, the one signature of a
        kernel declared with one, else {signature: value} (as _usage answers)."""
        if signature is None and self._specialized:
            signature = self.signatures[0]
        specs = self._specs()
        got = _BySignature((specs[i][0], self._max_threads(i)) for i in self._pick(signature))
        return got if signature is None else next(iter(got.values()))

    def get_const_mem_size(self, signature=None):
        """Constant memory in bytes (ptxas, resource_usage)."""
        return self._usage("constant", signature)

    def inspect_sass(self, signature=None, arch=None):
        """The SASS (nvdisasm of the CUBIN ptxas makes from the PTX): a dict {signature: text}, or
        one text. Needs ptxas (CUDA toolkit) and nvdisasm, found where the explore view finds it
        (the library's search, p2c_find_nvdisasm: $PYK2CUDA_NVDISASM, NVIDIA's wheels, $PATH,
        the toolkit; docs/explore.md)."""
        arch = arch or _default_arch()
        nvdisasm = _find_nvdisasm()
        specs = self._specs()
        got = {}
        for i in self._pick(signature):
            with tempfile.TemporaryDirectory() as tmp:
                _, cubin = self._ptxas(i, arch, tmp)
                p = subprocess.run([nvdisasm, cubin], capture_output=True, text=True)
            if p.returncode != 0:
                raise Error("nvdisasm failed on %s: %s" % (self.__name__, p.stderr.strip()))
            got[specs[i][0]] = p.stdout
        return got if signature is None else next(iter(got.values()))


class _Overload:
    """One specialization of a kernel, as Numba's overloads[argtypes] gives it: `cooperative`
    (it uses cuda.cg.this_grid(), so it is launched with every block resident at once) and
    max_cooperative_grid_blocks(blockdim, dynsmemsize=0), the most blocks such a launch may have
    on the device in use (the GPU's occupancy times its multiprocessors, as Numba computes it;
    the simulator's limit, docs/simulator.md)."""

    def __init__(self, kernel, index):
        self._kernel, self._index = kernel, index

    @property
    def cooperative(self):
        return self._kernel._cooperative(self._index, 1, 0)[0]

    @property
    def launch_config_sensitive(self):
        """Marked by mark_launch_config_sensitive() while its launch compiled it."""
        sig = self._kernel._specs()[self._index][0]
        return sig in self._kernel.__dict__.get("_config_sensitive", ())

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        threads = 1
        for d in (blockdim if isinstance(blockdim, tuple) else (blockdim,)):
            threads *= int(d)
        return self._kernel._cooperative(self._index, threads, int(dynsmemsize))[1]


class _BySignature(dict):
    """{signature text: value}, as pyk2cuda's inspect_* methods give them, that also answers to
    Numba's keys, the tuples of argument types (`kernel.inspect_asm()[(float64[::1],)]`)."""

    def __missing__(self, key):
        if isinstance(key, (tuple, list)):
            want = _sig_key(tuple(key))
            for text, value in self.items():
                if _arg_types(text) == want:
                    return value
        raise KeyError(key)


def _sig_key(sig):
    """The argument types of a signature in any of Numba's forms (text, a tuple of types,
    Numba's own type objects), as a tuple of pyk2cuda's types."""
    text = _source.signature_text(tuple(sig) if isinstance(sig, list) else sig)[0]
    return _arg_types(text if "(" in text else "(%s)" % text)


def _arg_types(signature):
    """The argument types of 'void(int32[:, ::1], int64)' as a tuple of type objects."""
    from .types import Type
    inner = signature[signature.index("(") + 1:signature.rindex(")")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return tuple(Type(p.strip()) for p in parts if p.strip())


def _arg_type_text(a):
    """The signature type of a launch argument, as a lazy kernel would specialize for it."""
    if isinstance(a, bool):
        return "bool"
    if isinstance(a, int):
        return "int64"
    if isinstance(a, float):
        return "float64"
    if isinstance(a, complex):
        return "complex128"
    if isinstance(a, tuple):
        fields = getattr(type(a), "_fields", None)
        if fields is not None and len(fields) == len(a):   # a namedtuple: pyk2cuda's spelling
            return "NamedTuple(%s)" % ", ".join([type(a).__name__] + ["%s=%s" % (f, _arg_type_text(v))
                                                                    for f, v in zip(fields, a)])
        return "Tuple(%s)" % ", ".join(_arg_type_text(v) for v in a)
    np = _numpy()
    dtype = getattr(a, "dtype", None)
    if dtype is None:
        raise TypeError("specialize: cannot type an argument of type %s" % type(a).__name__)
    name = "bool" if np.dtype(dtype) == np.bool_ else np.dtype(dtype).name
    ndim = getattr(a, "ndim", 0)
    if not ndim:
        return name
    strides = getattr(a, "strides", None) or types._c_strides(a.shape, np.dtype(dtype).itemsize)
    return name + _core.array_dims(ndim, _core.array_layout(np.dtype(dtype).itemsize, a.shape, strides))


def _is_contiguous(a):
    flags = a.flags
    return flags["C_CONTIGUOUS"] or flags["F_CONTIGUOUS"]


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=None, abi="c", abi_info=None, output="ptx", forceinline=False, launch_bounds=None):
    """numba-cuda's cuda.compile: (the code of `pyfunc` compiled for `sig`, its return type), by
    NVRTC for compute capability `cc` (a (major, minor) or (major, minor, 'a'|'f') tuple;
    default: the GPU's, or 9.0). `output` 'ptx' gives the PTX text, 'ltoir' NVRTC's LTO-IR
    (bytes). A device function (device=True, the default) is exported alone, an extern "C"
    __device__ function (its PTX a `.visible .func`) named `abi_info['abi_name']` or the
    function's own name; a return type in `sig` converts the result to it. abi='numba' gives
    the same function (pyk2cuda has no Numba ABI); a kernel (device=False) takes abi='numba'
    only and must return nothing. fastmath=, lineinfo=, debug=, opt=, launch_bounds= as
    cuda.jit's (docs/python.md, "compile and friends")."""
    _check_compile_request(device, abi, output, forceinline)
    debug, opt = bool(debug), opt is None or bool(opt)
    _warn_debug_opt(debug, opt, lineinfo)
    sig_text = _one_compile_signature(sig)
    options = _code_options(debug, {"fastmath": fastmath, "lineinfo": lineinfo, "opt": opt,
                                    "forceinline": forceinline,
                                    "launch_bounds": None if device else launch_bounds})
    arch = _compile_arch(cc)
    if device:
        name = (abi_info or {}).get("abi_name") if abi == "c" else None
        k = _export_device(getattr(pyfunc, "py_func", pyfunc), sig_text, options, name)
        return _code(k, arch, output), _return_type(k.signatures[0])
    k = _compile_kernel(pyfunc, sig_text, options)
    return _code(k, arch, output), types.void


def _check_compile_request(device, abi, output, forceinline):
    """numba-cuda's checks of cuda.compile's options, with its exceptions and words."""
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError("Unsupported output type: %s" % (output,))
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    if abi not in ("numba", "c"):
        raise NotImplementedError("Unsupported ABI: %s" % (abi,))
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    if forceinline and not device:
        raise ValueError("Cannot force-inline kernels")


def _one_compile_signature(sig):
    """The one signature text of compile's `sig`: a list here is the argument types (Numba's
    compile_ptx(f, [int32, ...]), compile_ptx(f, []) for none), not a list of signatures as
    cuda.jit([...]) takes."""
    sigs = _source.signature_text(tuple(sig) if isinstance(sig, list) else sig)
    if len(sigs) != 1:
        raise TypeError("compile takes one signature, got %d" % len(sigs))
    return sigs[0]


def _code(k, arch, output):
    """The code of kernel object k's one specialization for `arch`: its PTX text (output 'ptx')
    or NVRTC's LTO-IR (bytes, 'ltoir')."""
    return k._ptx(0, arch)[0] if output == "ptx" else k._ltoir(0, arch)


def _compile_arch(cc):
    """NVRTC's architecture for compile's `cc`: sm_XY, or sm_XYa / sm_XYf for numba-cuda's
    (major, minor, 'a'|'f') of the architecture- and family-specific features; None: the GPU's,
    or sm_90."""
    if not cc:
        return _default_arch()
    cc = tuple(cc)
    if len(cc) not in (2, 3) or (len(cc) == 3 and cc[2] not in ("a", "f")):
        raise ValueError("cc must be (major, minor) or (major, minor, 'a' or 'f'), got %r" % (cc,))
    return "sm_%d%d%s" % (int(cc[0]), int(cc[1]), cc[2] if len(cc) == 3 else "")


def _return_type(sig_text):
    """The return type of a specialization's signature text ('int32(int32, int32)')."""
    return types.from_spelling(sig_text[:sig_text.index("(")])


def _compile_kernel(pyfunc, sig_text, options):
    """`pyfunc` as a kernel for `sig_text`, compiled; a kernel returning a value is numba-cuda's
    TypeError."""
    try:
        return jit(sig_text, **_again(options))(pyfunc)
    except CompileError as e:
        codes = {d[4]: d[5] for d in e.diagnostics}
        if "E-kernel-return" in codes:
            raise TypeError("CUDA kernel must have void return type.") from None
        if "E-launch-bounds" in codes:
            raise ValueError(codes["E-launch-bounds"]) from None
        raise


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True,
                               fastmath=False, opt=None, abi="c", abi_info=None, output="ptx",
                               forceinline=False, launch_bounds=None):
    """compile for the current device's compute capability."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=get_current_device().compute_capability, opt=opt, abi=abi,
                   abi_info=abi_info, output=output, forceinline=forceinline,
                   launch_bounds=launch_bounds)


def compile_ptx(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False, cc=None,
                opt=None, abi="numba", abi_info=None, forceinline=False, launch_bounds=None):
    """numba.cuda.compile_ptx: compile's PTX, a kernel with the Numba ABI by default."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device, fastmath=fastmath,
                   cc=cc, opt=opt, abi=abi, abi_info=abi_info, output="ptx",
                   forceinline=forceinline, launch_bounds=launch_bounds)


def compile_ptx_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=False,
                                   fastmath=False, opt=None, abi="numba", abi_info=None,
                                   forceinline=False, launch_bounds=None):
    """compile_ptx for the current device's compute capability."""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                       fastmath=fastmath, cc=get_current_device().compute_capability, opt=opt,
                       abi=abi, abi_info=abi_info, forceinline=forceinline,
                       launch_bounds=launch_bounds)


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
                opt=None, abi="c", abi_info=None, output="ltoir", forceinline=False,
                launch_bounds=None):
    """numba-cuda's compile_all: ([code], return type), compile's code in a list, where
    numba-cuda adds the code of each linked file: pyk2cuda compiles linked CUDA C into the
    function's own code, so the list has that one item."""
    code, resty = compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                          fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                          output=output, forceinline=forceinline, launch_bounds=launch_bounds)
    return [code], resty


def _export_device(func, sig, options, abi_name=None):
    """`func` translated alone as an exported device function for `sig` (a Kernel object whose
    one specialization is that function: P2cKernelInfo.exported; never launched), under
    `abi_name` (the C ABI's, exactly, else a ValueError) or its own. A return type in `sig` is
    the function's (name:ret(args), which the translator converts the returns to)."""
    _source.check_source(func)
    name = abi_name or _source.function_name(func)
    if not name.isidentifier():
        raise ValueError("abi_name %r: pyk2cuda names exported functions with Python "
                         "identifiers" % (name,))
    unit = _source.build(func, options=dict(options, device=True), name=name)
    code = func.__code__
    params = tuple(code.co_varnames[:code.co_argcount])
    spec = name + ":" + sig if not sig.startswith("(") else _source.call_signature(name, sig)
    try:
        k = Kernel(func, name, unit.filename, unit.source, params, True, [spec], False)
    except (CompileError, _core.BoundsError) as e:
        raise unit.remap(e) from None
    k._unit = unit
    if abi_name and k._specs()[0][3] != name:
        raise ValueError("abi_name %r cannot be the exported function's name: it is a C, C++ "
                         "or CUDA name, or one pyk2cuda's code uses" % (name,))
    return k


def _warn_debug_opt(debug, opt, lineinfo=False):
    """Numba's warnings for debug=True with optimization on (its default), which CUDA does not
    support (pyk2cuda's debug=True compiles with NVRTC's -G, which turns optimization off), and
    for debug=True with lineinfo=True (debug's full debug info includes the lines)."""
    import warnings
    cls = _numba_warning_class("NumbaInvalidConfigWarning")
    if debug and opt:
        warnings.warn(cls("debug=True with opt=True (the default) is not supported by CUDA. This "
                          "may result in a crash - set debug=False or opt=False."), stacklevel=3)
    if debug and lineinfo:
        warnings.warn(cls("debug and lineinfo are mutually exclusive. Use debug to get full debug "
                          "info (this disables some optimizations), or lineinfo for line info only "
                          "with code generation unaffected."), stacklevel=3)


def _kernel_intrinsic(name, doc):
    """numba-cuda's cuda.`name`, a function kernels call (the translator knows it by its name,
    and a kernel that holds it in a variable reaches it through _p2c_path); called from
    the host, an error, as Numba's intrinsics are."""
    def intrinsic(*args, **kwargs):
        raise Error("cuda.%s can only be called from a kernel or a device function" % name)
    intrinsic.__name__ = intrinsic.__qualname__ = name
    intrinsic.__doc__ = doc
    intrinsic._p2c_path = "numba.cuda." + name
    return intrinsic


# numba-cuda's loads and stores with a cache hint (PTX's ld.global.ca ...; docs/semantics.md).
for _hint, _what in (("ldca", "cache at all levels"), ("ldcg", "cache in L2, not L1"),
                     ("ldcs", "cache streaming, likely accessed once"), ("ldlu", "last use"),
                     ("ldcv", "do not cache, fetch again")):
    globals()[_hint] = _kernel_intrinsic(_hint, "%s(array, i): element i of array, loaded with "
                                         "ld.global.%s (%s)." % (_hint, _hint[2:], _what))
for _hint, _what in (("stcg", "cache in L2, not L1"), ("stcs", "cache streaming, likely accessed once"),
                     ("stwb", "cache write-back at all coherent levels"), ("stwt", "cache write-through")):
    globals()[_hint] = _kernel_intrinsic(_hint, "%s(array, i, value): stores value into element i "
                                         "of array with st.global.%s (%s)." % (_hint, _hint[2:], _what))
del _hint, _what


class NvdisasmNotFound(Error, RuntimeError):
    """inspect_sass without nvdisasm: numba-cuda's RuntimeError ("nvdisasm was not found"), a
    pyk2cuda.Error too (status_name 'no_cuda', as the library's search reports it)."""


def _find_nvdisasm():
    """The nvdisasm the library's search finds (p2c_find_nvdisasm), else NvdisasmNotFound with
    the places it tried."""
    try:
        return _core.find_nvdisasm()
    except Error as e:
        err = NvdisasmNotFound(str(e))   # "nvdisasm was not found (tried ...)", the page's words
        err.status_name = getattr(e, "status_name", "no_cuda")
        raise err from None


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
                         ("shared", r"(\d+) bytes smem")):
        m = re.search(pattern, text)
        if m:
            usage[key] = int(m.group(1))
    return usage


# A module-scope constant memory variable of PTX: `.const .align 8 .b8 arr[256]`, `.const .f32 c;`.
_PTX_CONST = re.compile(r"^\s*\.const\s+(?:\.align\s+\d+\s+)?\.[bsuf](\d+)\s+[\w$]+((?:\[\d+\])*)", re.M)


def _ptx_const_bytes(ptx):
    """The bytes of user constant memory (cuda.const.array_like) the PTX declares: what the
    driver's CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, Numba's get_const_mem_size, reports (ptxas -v
    does not print it)."""
    total = 0
    for bits, dims in _PTX_CONST.findall(ptx):
        n = int(bits) // 8
        for d in re.findall(r"\d+", dims):
            n *= int(d)
        total += n
    return total


# numba-cuda's holders of code to link (cudadrv.linkable_code): cuda.CUSource, ...
globals().update(cudadrv.LINKABLE)


def _links(link):
    """A link= value (one path or linkable, or a list, tuple or set of them) as a list."""
    return [] if link is None else list(link) if isinstance(link, (list, tuple, set)) else [link]


class ExternFunction:
    """What cuda.declare_device returns, as Numba's: the external function's `name` and its
    signature `sig` (.args, .return_type), and numba-cuda's `link` (the files to link) and `abi`.
    A kernel that calls it gets the declaration in its translated module (_p2c_declaration),
    where the translator reads it (docs/python.md, "CUDA C linked into kernels")."""

    def __init__(self, name, sig, link, abi):
        self.name = name
        self.sig = sig
        self.link = link
        self.abi = abi

    def _p2c_declaration(self, name):
        """The line of the translated module that declares this function under `name`."""
        sig = _source.signature_text(self.sig, need_return=True)[0]
        return _source.declare_device_line(name, self.name, sig, self.link, self.abi)

    def __repr__(self):
        return "<ExternFunction %s %s>" % (self.name, self.sig)


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Numba's declaration of an external device function: `sig` a signature with a return type
    (a string, or a type called on argument types), else a TypeError as Numba's; numba-cuda's
    `link` (one linkable or path, or a list, tuple or set of them) and `abi` ("numba" or "c",
    else its NotImplementedError). Kernels and device functions call it (ExternFunction)."""
    if abi not in ("numba", "c"):
        raise NotImplementedError("Unsupported ABI: %s" % (abi,))
    sig = types.parse_signature(sig) if isinstance(sig, str) else sig
    if getattr(sig, "return_type", None) is None:
        raise TypeError("Return type must be provided for device declarations")
    if use_cooperative:
        raise NotImplementedError("declare_device(use_cooperative=True): external functions that "
                                  "use cooperative groups are not supported by pyk2cuda")
    return ExternFunction(name, sig, _links(link), abi)


class DeviceFunction:
    """A @cuda.jit(device=True) function: compiled into each kernel that calls it, under the
    name the kernel uses for it. inspect_asm(sig) gives its PTX alone (compile_ptx(device=True)
    with its decorator's options)."""

    def __init__(self, func, sigs=None, options=None):
        self.py_func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self._sigs = sigs or []
        self._options = dict(options or {})

    def inspect_asm(self, signature=None, arch=None):
        """The PTX of the function exported alone, as compile_ptx(device=True) makes it: a dict
        {signature: text} over its decorator's signatures, or one text for `signature`."""
        sigs = self._sigs if signature is None else _source.signature_text(signature)
        got = {}
        for sig in sigs:
            kernel = _export_device(self.py_func, sig, self._options)
            got[kernel.signatures[0]] = kernel._ptx(0, arch or _default_arch())[0]
        return got if signature is None else next(iter(got.values()))

    def __call__(self, *args, **kwargs):
        raise Error("device function '%s' can only be called from a kernel" % self.__name__)

    def __getitem__(self, config):
        """f[grid, block]: a device function is no kernel; Numba's RuntimeError."""
        raise RuntimeError("Cannot compile a device function as a kernel (device function '%s': "
                           "make it @cuda.jit without device=True to launch it)" % self.__name__)

    def inspect_sass(self, signature=None):
        """A device function has no SASS of its own (it is compiled into its callers): Numba's
        RuntimeError."""
        raise RuntimeError("Cannot inspect SASS of a device function ('%s': inspect the kernel "
                           "that calls it)" % self.__name__)

    @property
    def _p2c_device_sigs(self):
        """The decorator's signatures, which calls from kernels convert their arguments to
        (source.py writes them into the translated decorator)."""
        return list(self._sigs)


def _numba_config(name, env=None, default=1):
    """A setting of Numba's config as Numba reads it: numba.core.config's attribute when the
    program has Numba's config loaded (its NUMBA_* environment, and what the program or
    override_config set since), else $NUMBA_<env or name>, an integer, with Numba's default."""
    for module in ("numba.cuda.core.config", "numba.core.config"):   # numba-cuda's, then Numba's
        config = sys.modules.get(module)
        if config is not None and hasattr(config, name):
            return getattr(config, name)
    try:
        return int(os.environ.get("NUMBA_" + (env or name), str(default)))
    except ValueError:
        return default


def _performance_warning(message):
    """A NumbaPerformanceWarning at the user's line (the caller of the kernel's hook). Its class
    is numba.core.errors' of the `numba` the program imported, so that warnings filters and
    checks naming it work: Numba's own when the program imported Numba, else pyk2cuda's
    (numba_names, which python3 -m pyk2cuda answers `numba.core.errors` with)."""
    import warnings
    warnings.warn(_numba_warning_class("NumbaPerformanceWarning")(message), stacklevel=3)


def _numba_warning_class(name):
    """Numba's warning class `name` as the program knows it, so that its filters and
    pytest.warns(...) catch ours: numba-cuda's (numba.cuda.core.errors), else Numba's
    (numba.core.errors), where the program has loaded them, else pyk2cuda's (numba_names)."""
    from . import numba_names
    for module in ("numba.cuda.core.errors", "numba.core.errors"):
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and issubclass(cls, Warning):
            return cls
    return getattr(numba_names, name)


def _function_cache(func, options):
    """cache=True's cache of a kernel (caching.py), None without it. Numba cannot cache a kernel
    that links external code, and says so with this RuntimeError (docs/python.md, "cache=True")."""
    if not options.get("cache"):
        return None
    from .caching import FunctionCache
    return FunctionCache(func)


# Signed kernels no GPU compile has used yet, by batch key (file, the options written into the
# source, sanitize): weak references, so that a kernel dropped unlaunched is not kept. Kernel._batch
# takes a whole list at once.
_batched = {}


def _await_batch(kernel, key):
    """Puts a signed kernel in its batch (Kernel._batch), dropping the batch's dead entries."""
    import weakref
    kernel._batch_key = key
    live = [ref for ref in _batched.get(key, []) if ref() is not None]
    _batched[key] = live + [weakref.ref(kernel)]


def jit(func_or_sig=None, device=False, debug=None, **options):
    """numba.cuda.jit: @cuda.jit, @cuda.jit(sig), @cuda.jit([sigs]), @cuda.jit(device=True),
    cuda.jit(sig)(func). A signature takes any of Numba's forms (source.signature_text).
    debug= and boundscheck= go into the decorator of the source translated, where the translator
    reads them (debug=True and boundscheck=True check every array index, debug=True also reports
    raises: docs/semantics.md); sanitize=True (pyk2cuda's own option) runs the kernel's launches
    on the simulator under its checker."""
    _check_options(options)
    if device and options.get("link"):
        raise ValueError("link keyword invalid for device function")
    if debug is None and _numba_config("CUDA_DEBUGINFO_DEFAULT", "CUDA_DEBUGINFO", 0):
        debug = True   # Numba's default for debug=: $NUMBA_CUDA_DEBUGINFO, as its jit reads it
    if options.get("opt") is None:   # Numba's default for opt=: its OPT setting ($NUMBA_OPT) not 0
        options["opt"] = _numba_config("OPT", default=3) != 0
    _warn_debug_opt(debug, options["opt"], options.get("lineinfo"))
    sanitize = bool(options.get("sanitize"))
    checks = _code_options(debug, options)

    def make(func, sigs):
        func = getattr(func, "py_func", func)
        _source.check_source(func)
        if device:
            return DeviceFunction(func, sigs, checks)
        code = func.__code__
        params = tuple(code.co_varnames[:code.co_argcount])
        cache = _function_cache(func, options)
        if not sigs:
            k = Kernel(func, func.__name__, code.co_filename, None, params, False, None, sanitize)
        else:
            unit = (cache and cache.unit()) or _source.build(func, options=checks)
            name = _source.function_name(func)   # a lambda's is _lambda, as the unit names it
            calls = [_source.call_signature(name, s) for s in sigs]
            try:
                k = Kernel(func, name, unit.filename, unit.source, params, True, calls, sanitize)
            except (CompileError, _core.BoundsError) as e:
                raise _numba_class(unit.remap(e)) from None
            k._set_unit(unit)
            k._calls = calls
            _await_batch(k, (unit.filename, tuple(sorted(checks.items())), sanitize))
        k._options = checks
        k._sanitize = sanitize
        k._specialized = bool(sigs) and len(sigs) == 1
        k._cache = cache
        if cache is not None and sigs:
            for i in range(len(k._specs())):
                k._specialized_now(i)
        k.extensions.extend(options.get("extensions") or ())   # Numba's kernel extensions
        k.__doc__ = func.__doc__
        return k

    if func_or_sig is not None and not _source.is_signature(func_or_sig):
        return make(func_or_sig, None)
    sigs = _source.signature_text(func_or_sig) if func_or_sig is not None else None
    return lambda func: make(func, sigs)


class Reduce:
    """numba.cuda.Reduce(binop): a reduction of a 1-d array by a binary function, compiled as a
    device function once per dtype. reducer(arr, size=None, res=None, init=0, stream=0) returns
    the reduction of init and arr[:size] (init if that is empty), or writes it into res[0].
    It reduces in one thread (Numba runs a tree reduction over blocks): the same result for an
    associative and commutative binop, as Numba requires."""

    def __init__(self, functor):
        op = jit(device=True)(functor)

        def reduce_one_thread(arr, init, out):
            acc = init
            for i in range(arr.size):
                acc = op(acc, arr[i])
            out[0] = acc
        self._kernel = jit(reduce_one_thread)
        self._kernel._quiet = True   # one thread by design: no performance warnings

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        if size is not None:
            arr = arr[:size]
        init = arr.dtype.type(init)
        if arr.size < 1:
            if res is not None:
                res[:1].copy_to_device(_numpy().array([init]), stream=stream)
                return None
            return init
        out = device_array(1, arr.dtype)
        self._kernel[1, 1, stream](arr, init, out)
        if res is not None:
            res[:1].copy_to_device(out, stream=stream)
            return None
        return out.copy_to_host(stream=stream)[0]


reduce = Reduce


def _host_copy(arr, stream=0):
    """A NumPy copy of a device array, also of one with negative strides, whose copy_to_host is
    Numba's NotImplementedError: the axes that run backwards are copied forwards, then flipped."""
    flip = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in arr.strides)
    if flip == tuple(slice(None) for _ in flip):
        return arr.copy_to_host(stream=stream)
    return arr[flip].copy_to_host(stream=stream)[flip]


class Ufunc(_core._Ufunc):
    """A vectorize(target='cuda') ufunc: call it on arrays and scalars. As Numba's, it takes
    out= (a host or device array of the result's shape and dtype, written and returned) and
    stream= (accepted: the call is done when it returns)."""

    def __call__(self, *args, out=None, stream=0, **kw):
        if kw:
            raise TypeError("ufunc '%s' got an unexpected keyword argument '%s'"
                            % (self.__name__, next(iter(kw))))
        # Arrays of other objects' __cuda_array_interface__ are device arrays here, as in Numba;
        # tuples and lists (namedtuples too) are arrays, np.asarray's, as Numba's ufuncs take them.
        args = tuple(as_cuda_array(a) if _foreign(a) else _numpy().asarray(a)
                     if isinstance(a, (tuple, list)) else a for a in args)
        if out is not None and _foreign(out):
            out = as_cuda_array(out)
        try:
            result = super().__call__(*args)
        except (CompileError, _core.BoundsError) as e:
            raise _raised(self._unit.remap(e), self._unit.exceptions) from None
        return result if out is None else _store_out(self.__name__, result, out, stream)

    def __reduce__(self):
        """Pickled as its translated module (as Kernel.__reduce__); its py_func is None after."""
        return (_rebuilt_ufunc, (self.__name__, self._unit))

    def reduce(self, arg, stream=0):
        """Numba's CUDA ufunc reduce: a binary ufunc folded over a 1-d array (host or device),
        pairwise as Numba pairs the elements (so that float sums round alike): an even length
        adds its second half to its first, an odd one reduces all but the last element, then
        adds the last (a ufunc of another arity is refused by its first call). The result is
        an element of arg's dtype; `stream` is accepted (each call is done when it returns)."""
        np = _numpy()
        host = _host_copy(arg) if isinstance(arg, _core.DeviceArray) else np.asarray(arg)
        if host.ndim != 1:
            raise ValueError("ufunc '%s': reduce takes a 1-d array, not %d-d" % (self.__name__, host.ndim))
        if host.size == 0:
            raise TypeError("Reduction on an empty array.")
        return np.asarray(self._pairwise(host), dtype=host.dtype)[0]

    def _pairwise(self, mem):
        """Numba's order of reduce's ufunc calls over mem (Ufunc.reduce): a 1-element array."""
        n = mem.shape[0]
        if n == 1:
            return mem
        if n % 2:
            return self(self._pairwise(mem[:n - 1]), mem[n - 1:])
        return self._pairwise(self(mem[:n // 2], mem[n // 2:]))


def _rebuilt_ufunc(name, unit):
    """A ufunc from a pickle (Ufunc.__reduce__), translated from its source again."""
    u = Ufunc(None, name, unit.filename, unit.source)
    u._unit = unit
    return u


def _store_out(name, result, out, stream):
    """A ufunc's result written to its out= array (Numba: the type must match)."""
    np = _numpy()
    shape = tuple(np.shape(result)) if not isinstance(result, _core.DeviceArray) else result.shape
    if tuple(out.shape) != shape or np.dtype(out.dtype) != np.dtype(result.dtype):
        raise ValueError("ufunc '%s': out= is %s%s, the result is %s%s"
                         % (name, np.dtype(out.dtype), tuple(out.shape), np.dtype(result.dtype), shape))
    if isinstance(out, _core.DeviceArray):
        host = result.copy_to_host() if isinstance(result, _core.DeviceArray) else result
        out.copy_to_device(np.ascontiguousarray(host).reshape(shape) if out.is_c_contiguous()
                           else np.asfortranarray(host), stream=stream)
    else:
        host = result.copy_to_host() if isinstance(result, _core.DeviceArray) else result
        np.copyto(out, host)
    return out


# What Numba's CUDA vectorize takes besides its signatures and target (numba's Vectorize reads
# identity and cache; its DeviceVectorize the rest, below).
_VECTORIZE_OPTIONS = ("identity", "cache")


def _check_vectorize_options(options):
    """Numba's DeviceVectorize: nopython= is a RuntimeWarning (redundant on the CUDA target), any
    option it does not know a KeyError naming it; identity= and cache= are taken (and change
    nothing here)."""
    for opt in options:
        if opt == "nopython":
            import warnings
            warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning, stacklevel=3)
        elif opt not in _VECTORIZE_OPTIONS:
            raise KeyError("Unrecognized options. cuda vectorize target does not support option: "
                           "'%s'" % opt)


def vectorize(signatures, target="cuda", **options):
    """numba.vectorize([...], target='cuda'): a ufunc that runs on the device, compiled now (as
    Numba compiles it) from the function and the globals it uses as they are now; its calls
    reuse that translation."""
    if target != "cuda":
        raise NotImplementedError("vectorize: pyk2cuda compiles target='cuda' ufuncs only, not '%s'" % target)
    _check_vectorize_options(options)
    sigs = _source.signature_text(signatures)   # the result type, when not given, from typing

    def make(func):
        unit = _source.build(func, "ufunc", sigs)
        try:  # translated now, once; every call reuses the module (docs/python.md)
            u = Ufunc(func, func.__name__, unit.filename, unit.source)
        except (CompileError, _core.BoundsError) as e:
            raise _raised(unit.remap(e), unit.exceptions) from None
        u._unit = unit
        return u
    return make


# ---- generalized ufuncs: guvectorize(target='cuda') ----
# The translator makes the gufunc's kernel (src/frontend/guvectorize.c: one thread per index of
# the loop dimensions, flattened into one); what is here is the caller's half, as Numba's
# GeneralizedUFunc and GUFuncCallSteps (numba/cuda/deviceufunc.py) do it: the arguments and
# outputs given, the schedule (deviceufunc.GUFuncEngine), the signature, the outputs, the
# flattening, the launch.

from . import deviceufunc  # noqa: E402


def _count_args(n):
    return "%d positional argument%s" % (n, "" if n == 1 else "s")


class GUFunc:
    """A guvectorize(target='cuda') gufunc: call it with host or device arrays (and scalars) for
    the inputs, and optionally the outputs (all of them positionally after the inputs, or as
    out=: an array, or a tuple of one per output), and stream=. As Numba's: the loop dimensions
    are the largest outer shape, an input whose outer shape is () or (1,) is the same for every
    loop index; the signature is the first whose types match exactly, else the first whose each
    type NumPy casts safely to the argument's (Numba's test, in that order), host inputs cast
    to it; the result is a host array for host arguments, else a device array (the outputs
    given, converted), a tuple of them for several outputs; max_blocksize is kept (Numba
    ignores it too)."""

    def __init__(self, kernel, layout, unit):
        self._kernel = kernel
        self._unit = unit
        self._engine = deviceufunc.GUFuncEngine.from_signature(layout)
        self.__name__ = kernel.py_func.__name__
        self.max_blocksize = 2 ** 30
        np = _numpy()
        # each argument's dtype: its array type's text without the dimensions ("datetime64[D]")
        self._dtypes = [tuple(np.dtype(re.sub(r"\[[\s:,1]*\]$", "", str(t))) for t in _arg_types(sig))
                        for sig, _, _, _ in kernel._specs()]

    @property
    def ufunc(self):
        return self

    def _signature(self, dtypes):
        """The argument dtypes of the signature the inputs take (Numba's kernelmap search)."""
        nin = self._engine.nin
        for sig in self._dtypes:
            if sig[:nin] == dtypes:
                return sig
        np = _numpy()
        for sig in self._dtypes:
            if all(np.can_cast(want, have) for want, have in zip(sig[:nin], dtypes)):
                return sig
        raise TypeError("no matching signature")

    def _outputs_given(self, args, out):
        """The outputs the call gives, one per output (None: to be made), from the arguments
        after the inputs or out=; Numba's TypeError for a count of arguments that is neither the
        inputs nor the inputs and the outputs, and its ValueError for outputs given both ways."""
        nin, nout = self._engine.nin, self._engine.nout
        if out is None and len(args) not in (nin, nin + nout):
            raise TypeError("This gufunc accepts %s (when providing input only) or %s (when "
                            "providing input and output). Got %s." % (
                                _count_args(nin), _count_args(nin + nout), _count_args(len(args))))
        if out is not None and len(args) > nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        if out is None:
            return list(args[nin:]) or [None] * nout
        if nout == 1:
            return [out]
        if not isinstance(out, tuple) or len(out) != nout:
            raise ValueError("gufunc '%s' has %d outputs: out= takes a tuple of %d arrays"
                             % (self.__name__, nout, nout))
        return list(out)

    def __call__(self, *args, out=None, stream=0, **kw):
        if kw:
            raise TypeError("gufunc '%s' got an unexpected keyword argument '%s'" % (self.__name__, next(iter(kw))))
        np = _numpy()
        nin = self._engine.nin
        outs = self._outputs_given(args, out)
        on_device = [is_cuda_array(a) for a in args[:nin]]
        outs_on_device = [o is not None and is_cuda_array(o) for o in outs]
        to_host = not any(on_device) and not any(outs_on_device)
        inputs = [_as_device_array(a) if d else np.asarray(a) for a, d in zip(args, on_device)]
        outs = [_as_device_array(o) if d else None if o is None else np.asarray(o)
                for o, d in zip(outs, outs_on_device)]
        schedule = self._engine.schedule([tuple(a.shape) for a in inputs])
        sig = self._signature(tuple(np.dtype(a.dtype) for a in inputs))
        for o, shape in zip(outs, schedule.output_shapes):
            if o is not None and tuple(o.shape) != shape:
                raise ValueError("output shape mismatch")
        inputs = [self._cast(a, want, d) for a, want, d in zip(inputs, sig, on_device)]
        params = [self._flattened(a, core, pinned, schedule, stream)
                  for a, core, pinned in zip(inputs, schedule.ishapes, schedule.pinned)]
        results = [self._result(o, to_host, (schedule.loopn,) + core, dtype, stream)
                   for o, core, dtype in zip(outs, schedule.oshapes, sig[nin:])]
        try:
            self._kernel.forall(schedule.loopn, tpb=min(256, self.max_blocksize), stream=stream)(*params, *results)
        except (CompileError, _core.BoundsError) as e:
            raise _raised(self._unit.remap(e), self._unit.exceptions) from None
        done = [self._finish(r, o, to_host, shape, stream)
                for r, o, shape in zip(results, outs, schedule.output_shapes)]
        return done[0] if len(done) == 1 else tuple(done)

    @staticmethod
    def _result(out, to_host, shape, dtype, stream):
        """The device array the kernel writes an output to, shaped (loopn,) + its core shape:
        the device output given when it is so shaped, else a new one."""
        if out is not None and not to_host and _has_shape(out, shape):
            return out
        return device_array(shape, dtype, stream=stream)

    @staticmethod
    def _cast(a, want, on_device):
        """An input cast to its signature's dtype (host arrays: Numba casts with .astype, which
        its device arrays lack)."""
        if _numpy().dtype(a.dtype) == want:
            return a
        if on_device:
            raise TypeError("compatible signature is possible by casting but %s does not support "
                            ".astype()" % type(a))
        return a.astype(want)

    @staticmethod
    def _flattened(a, core, pinned, schedule, stream):
        """An input as the kernel takes it, (loopn,) + its core shape: a device array already so
        shaped as it is, anything else through the host (reshaped, a pinned input repeated)."""
        shape = (schedule.loopn,) + core
        if isinstance(a, _core.DeviceArray):
            if _has_shape(a, shape):
                return a
            a = _host_copy(a, stream)
        np = _numpy()
        whole = np.broadcast_to(a.reshape(core) if pinned else a, schedule.loopdims + core)
        return to_device(np.ascontiguousarray(whole).reshape(shape), stream)

    @staticmethod
    def _finish(result, out, to_host, shape, stream):
        """What the call returns for one output: a host array for host arguments (the output
        given filled), the device result, or the device output given (filled from the result
        when it was not launched on)."""
        if to_host:
            host = result.copy_to_host(stream=stream).reshape(shape)
            if out is None:
                return host
            _numpy().copyto(out, host)
            return out
        if out is None:
            if _has_shape(result, shape):
                return result
            return to_device(result.copy_to_host(stream=stream).reshape(shape), stream)
        if result is not out:
            out.copy_to_device(result.copy_to_host(stream=stream).reshape(shape), stream=stream)
        return out


def _has_shape(a, shape):
    return tuple(a.shape) == tuple(shape)


def _as_device_array(obj):
    return obj if isinstance(obj, _core.DeviceArray) else as_cuda_array(obj)


def _check_gufunc_options(cache, options, writable_args=()):
    """Numba's CUDA gufunc builder's refusals, with its messages (writable_args=, which names
    inputs a CPU gufunc may write, is refused by Numba's CUDA target too)."""
    if cache:
        raise TypeError("caching is not supported")
    if writable_args:
        raise TypeError("writable_args are not supported")
    if not options.pop("nopython", True):
        raise TypeError("nopython flag must be True")
    if options:
        raise TypeError("The following target options are not supported: %s"
                        % ", ".join(repr(k) for k in options))


def _make_gufunc(func, signatures, layout):
    """The GUFunc of `func`: translated now, with its kernel (as Numba compiles it when
    decorated)."""
    func = getattr(func, "py_func", func)
    sigs = _source.signature_text(signatures)
    unit = _source.build(func, "gufunc", sigs, layout=layout)
    params = tuple(func.__code__.co_varnames[:func.__code__.co_argcount])
    try:
        k = Kernel(func, func.__name__, unit.filename, unit.source, params, True, None, False)
    except (CompileError, _core.BoundsError) as e:
        e = unit.remap(e)
        returns = [d[5] for d in getattr(e, "diagnostics", ()) if d[4] == "E-gufunc-return"]
        if returns:   # Numba refuses a signature with a return type with a TypeError
            raise TypeError(returns[0]) from None
        raise _raised(e, unit.exceptions) from None
    k._unit = unit
    return GUFunc(k, layout, unit)


def guvectorize(signatures, layout, target="cuda", identity=None, cache=False, writable_args=(), **options):
    """numba.guvectorize([...], layout, target='cuda'): a generalized ufunc that runs on the
    device (GUFunc), compiled now from the function and the globals it uses as they are now."""
    if target != "cuda":
        raise NotImplementedError("guvectorize: pyk2cuda compiles target='cuda' gufuncs only, not '%s'" % target)
    _check_gufunc_options(cache, dict(options), writable_args)
    if isinstance(signatures, str):
        signatures = [signatures]
    return lambda func: _make_gufunc(func, list(signatures), layout)


class CUDAGUFuncVectorize:
    """numba.cuda.vectorizers.CUDAGUFuncVectorize: what numba.guvectorize(..., target='cuda')
    builds a gufunc with, when numba.cuda is pyk2cuda's (Numba's decorator calls it so)."""

    def __init__(self, func, sig, identity=None, cache=False, targetoptions=None, writable_args=()):
        _check_gufunc_options(cache, dict(targetoptions or {}), writable_args)
        self.py_func = func
        self.signature = sig
        self._sigs = []

    def add(self, sig=None):
        self._sigs.append(sig)

    def disable_compile(self):
        """Every signature is given when decorated: nothing is compiled at a call."""

    def build_ufunc(self):
        return _make_gufunc(self.py_func, self._sigs, self.signature)


# ---- memory ----

def _devicearray_module():
    """cuda.devicearray: Numba's module of device-array names (DeviceNDArray, ...)."""
    import types
    m = types.ModuleType(__name__ + ".devicearray")
    m.DeviceNDArray = m.DeviceNDArrayBase = m.DeviceRecord = _core.DeviceArray
    m.is_cuda_ndarray = is_cuda_array
    m.auto_device = _auto_device
    m.from_array_like = _from_array_like
    return m


def _from_array_like(ary, stream=0, gpu_data=None):
    """Numba's devicearray.from_array_like: a new device array of ary's shape, dtype and strides
    (zero-filled), on `stream`. Strides other than a contiguous array's (C or Fortran order) are
    a ValueError here, where Numba allocates the bytes they span; gpu_data (memory to reuse) is
    not supported."""
    if gpu_data is not None:
        raise NotImplementedError("from_array_like(gpu_data=...): pyk2cuda allocates the memory itself")
    dtype = _numpy().dtype(ary.dtype)
    layout = _core.array_layout(dtype.itemsize, tuple(ary.shape), tuple(ary.strides))
    if layout in "CF":   # the library's one rule of a layout from strides
        return device_array(ary.shape, dtype, order=layout, stream=stream)
    raise ValueError("from_array_like: strides %s are not those of a contiguous array of shape %s: "
                     "give a C- or Fortran-ordered array" % (tuple(ary.strides), tuple(ary.shape)))


def _auto_device(obj, stream=0, copy=True, user_explicit=False):
    """Numba's devicearray.auto_device: (a device array for `obj`, whether one was made). A
    device array is itself; anything else becomes a NumPy array, copied to a new device array
    (copy=False: a new zero-filled one of its shape and dtype). As in Numba, an array whose
    memory is not one contiguous block (its broadcast axes aside) is a ValueError here, where
    cuda.to_device copies it to a contiguous one."""
    if isinstance(obj, _core.DeviceArray):
        return obj, False
    np = _numpy()
    if not isinstance(obj, np.ndarray):
        obj = np.asarray(obj)
    core = obj[tuple(0 if s == 0 else slice(None) for s in obj.strides)] if obj.size else obj
    if not (core.flags["C_CONTIGUOUS"] or core.flags["F_CONTIGUOUS"]):
        raise ValueError("Array contains non-contiguous buffer and cannot be transferred as a "
                         "single memory region. Please ensure contiguous buffer with numpy "
                         ".ascontiguousarray()")
    if copy:
        return to_device(obj, stream), True
    return device_array_like(obj, stream=stream), True


def _numpy():
    import numpy
    return numpy


def to_device(obj, stream=0, copy=True, to=None):
    """A device array holding a copy of a host array (or `to.copy_to_device(obj)`). Anything
    that is not an array (a list, a range, a scalar) becomes one with np.asarray first, as
    Numba's auto_device converts it."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if not isinstance(obj, _core.DeviceArray) and not _has_buffer(obj) and not hasattr(obj, "__cuda_array_interface__"):
        obj = _numpy().asarray(obj)
    return _core.to_device(obj, stream)


def _assigned(view, value):
    """What `d[key] = value` writes into view = d[key] (a 0-d view for an element), asked for by
    DeviceArray's item assignment, with Numba's checks: `value` (a device array, a host array,
    anything np.asarray takes, a scalar) may have fewer dimensions than the view and axes of
    length 1, which are broadcast; more dimensions, or an axis of another length, is Numba's
    ValueError. Its elements are converted to the view's dtype as NumPy's assignment converts
    them. Returns the NumPy array to write, or None when nothing is left to write."""
    np = _numpy()
    if isinstance(value, _core.DeviceArray) and value.shape == view.shape and \
            value.dtype == view.dtype and value.strides == view.strides and _is_contiguous(view):
        view.copy_to_device(value)   # the same layout: device to device
        return None
    rhs = value.copy_to_host() if isinstance(value, _core.DeviceArray) else np.asarray(value)
    if rhs.ndim > view.ndim:
        raise ValueError("Can't assign %s-D array to %s-D self" % (rhs.ndim, view.ndim))
    shape = (1,) * (view.ndim - rhs.ndim) + rhs.shape
    for axis, (have, given) in enumerate(zip(view.shape, shape)):
        if given != 1 and given != have:
            raise ValueError("Can't copy sequence with size %d to array axis %d with dimension %d"
                             % (given, axis, have))
    if view.size == 0:
        return None
    out = np.empty(view.shape, view.dtype, order=_order_of(view))
    out[...] = rhs.reshape(shape)
    return out


def _transposed(d, axes):
    """d.T and d.transpose(*axes) (a tuple of ints, or one tuple or list of them), as compiled
    Numba's DeviceNDArray: the axes in their order give `d` itself; a 2-D array's transpose is a
    new C-ordered array made by cuda.kernels.transpose on d's stream (not a view: writes to it
    do not reach `d`); other axes of a 2-D array are Numba's ValueError. Beyond Numba, which
    transposes 2-D arrays only, another array's .T is NumPy's view with the axes reversed; other
    axes for it are Numba's NotImplementedError."""
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if axes and tuple(axes) == tuple(range(d.ndim)):
        return d
    if d.ndim == 2:
        if axes and sorted(axes) != [0, 1]:
            raise ValueError("invalid axes list %r" % (axes,))
        return _kernels.transpose(d)
    if axes:
        raise NotImplementedError("transposing a non-2D DeviceNDArray isn't supported")
    return d._reversed_axes()


def _has_buffer(obj):
    try:
        memoryview(obj).release()
        return True
    except (TypeError, ValueError):   # ValueError: NumPy's datetime64 arrays (their int64 view has one)
        return False


def device_array(shape, dtype=float, strides=None, order="C", stream=0):
    """A new zero-filled device array (Numba leaves it uninitialized); on the GPU the zeros are
    written on `stream`, or without one on a stream of the device's own (never the legacy
    default stream, which would wait for every other stream's work)."""
    if strides is not None:
        raise Error("device_array(strides=...) is not supported: give order='C' or 'F'")
    dtype = _numpy().dtype(dtype)
    if dtype.names is not None or dtype.kind in "SU":   # records, S<n>, U<n>: from zeroed host
        return _core.to_device(_numpy().zeros(shape, dtype, order=order), stream)   # memory (dtype)
    # datetime64/timedelta64: the unit is in dtype.str ('<M8[D]'), not in dtype.char ('M');
    # complex: dtype.char ('D') is not a buffer format, its typestr ('<c16') is read
    return _core.device_array(shape, dtype.str if dtype.kind in "mMc" else dtype.char, order, stream)


def _order_of(ary):
    """'C' or 'F', as NumPy's order='K' chooses for a new array like `ary`: a contiguous array
    keeps its order; a strided view takes the order its strides run in (first axis fastest:
    'F'), as np.zeros_like(view) does."""
    flags = getattr(ary, "flags", None)
    if flags is None or flags["C_CONTIGUOUS"]:
        return "C"
    if flags["F_CONTIGUOUS"]:
        return "F"
    strides = [abs(s) for s in ary.strides]
    return "F" if len(strides) > 1 and strides[0] < strides[-1] else "C"


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


def mapped_array(shape, dtype=float, strides=None, order="C", stream=0, portable=False, wc=False):
    """Numba's mapped (zero-copy) array: here a page-locked NumPy array, which a launch copies
    like any host array (docs/python.md), with a __cuda_array_interface__ (its memory is
    device-accessible at its host address). `portable` and `wc` (Numba's allocation flags) change
    nothing pyk2cuda's results depend on; `stream` is the interface's stream."""
    return _host_device_array(pinned_array(shape, dtype, strides, order), stream)


def managed_array(shape, dtype=float, strides=None, order="C", stream=0, attach_global=True):
    """Numba's managed (unified) memory array: here as mapped_array, page-locked host memory
    that the host and launches both see (a launch copies it like any host array, so what a
    kernel writes is there when the launch returns), with a __cuda_array_interface__.
    attach_global changes nothing here; `stream` is the interface's stream."""
    return _host_device_array(pinned_array(shape, dtype, strides, order), stream)


def _host_device_array(ary, stream):
    """`ary`, a NumPy array over pyk2cuda's page-locked memory, as a HostDeviceArray whose
    __cuda_array_interface__ names `stream` (0: none)."""
    view = ary.view(_host_device_class())
    view._p2c_stream = stream if stream else None
    return view


_HOST_DEVICE_CLASS = []


def _host_device_class():
    """HostDeviceArray: a NumPy array in memory the device reads at the host's address (a mapped
    or managed array, Numba's MappedNDArray and ManagedNDArray), which exports
    __cuda_array_interface__ (v3) besides NumPy's interfaces. Made at the first need (NumPy is
    imported then)."""
    if not _HOST_DEVICE_CLASS:
        np = _numpy()

        class HostDeviceArray(np.ndarray):
            _p2c_stream = None

            def __array_finalize__(self, obj):
                self._p2c_stream = getattr(obj, "_p2c_stream", None)

            @property
            def __cuda_array_interface__(self):
                c_order = self.flags["C_CONTIGUOUS"]
                return {"shape": self.shape, "strides": None if c_order else self.strides,
                        "typestr": self.dtype.str, "version": 3,
                        "data": (self.ctypes.data if self.size else 0, not self.flags["WRITEABLE"]),
                        "stream": None if self._p2c_stream is None else self._p2c_stream.handle}

        HostDeviceArray.__module__, HostDeviceArray.__qualname__ = __name__, "HostDeviceArray"
        _HOST_DEVICE_CLASS.append(HostDeviceArray)
    return _HOST_DEVICE_CLASS[0]


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return mapped_array(ary.shape, ary.dtype, order=_order_of(ary))


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


# ---- the CUDA array interface: consuming other objects' device memory ----

def as_cuda_array(obj, sync=True):
    """A device array viewing the memory of an object with __cuda_array_interface__ (CuPy,
    PyTorch on the GPU; on the simulator, pyk2cuda's own device, mapped and managed arrays or an
    object passing their interface on), without a copy; it keeps `obj` alive. As in Numba, with
    sync=True and CUDA_ARRAY_INTERFACE_SYNC on, the producer's stream is synchronized first."""
    if not is_cuda_array(obj):
        raise TypeError("*obj* doesn't implement the cuda array interface.")
    return _from_interface(obj.__cuda_array_interface__, obj, sync)


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A device array viewing the memory a __cuda_array_interface__ dict describes (Numba's):
    `owner`, when given, is kept alive by it. Masks (the interface's 'mask') are refused."""
    return _from_interface(desc, owner, sync)


class _Interface:
    """An interface dict and the object that owns its memory, as one object for the C side."""

    def __init__(self, desc, owner):
        self.__cuda_array_interface__, self.owner = desc, owner


def _from_interface(desc, owner, sync):
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported")
    handle = desc.get("stream")
    stream = _core.external_stream_of(handle) if handle not in (None, _LEGACY_DEFAULT_STREAM) else None
    if stream is not None and sync and _cai_sync_enabled():
        stream.synchronize()
    return _core.as_device_array(_Interface(desc, owner), stream)


# The legacy default stream's number in the interface: pyk2cuda's default stream, after whose
# work every piece of pyk2cuda's work (launches, copies, on any stream it made) is ordered, so a
# consumer has nothing to synchronize for it; as_cuda_array's .stream is then 0, the default.
_LEGACY_DEFAULT_STREAM = 1


def _cai_sync_enabled():
    """Numba's CUDA_ARRAY_INTERFACE_SYNC: whether consuming a foreign array synchronizes the stream
    its interface names. numba.config's value where the program has Numba's config loaded (a
    script that sets it for numba.cuda sets it for pyk2cuda), else $NUMBA_CUDA_ARRAY_INTERFACE_SYNC
    (default 1), as Numba reads it."""
    for name in ("numba.core.config", "numba.cuda.core.config"):
        config = sys.modules.get(name)
        if config is not None and hasattr(config, "CUDA_ARRAY_INTERFACE_SYNC"):
            return bool(config.CUDA_ARRAY_INTERFACE_SYNC)
    return os.environ.get("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "1").strip() not in ("0", "")


def _cai_sync(handle):
    """Called by a launch for each foreign argument whose interface names a stream: as Numba's
    kernel launch does, synchronizes that stream when CUDA_ARRAY_INTERFACE_SYNC is on, and says
    whether it did; when it did not, the launch is ordered after the stream on the device (GPU)."""
    if handle == _LEGACY_DEFAULT_STREAM or not _cai_sync_enabled():
        return False
    _core.external_stream_of(handle).synchronize()
    return True


def _foreign(obj):
    """Whether obj is another object's __cuda_array_interface__ (not one of pyk2cuda's device
    arrays, nor a NumPy array that also exports one)."""
    return not isinstance(obj, _core.DeviceArray) and not _has_buffer(obj) and is_cuda_array(obj)


def is_cuda_array(obj):
    return hasattr(obj, "__cuda_array_interface__")


# ---- streams, events, devices ----

stream = _core.stream
default_stream = _core.default_stream
# Numba's legacy_default_stream(): pyk2cuda's default stream is the null stream of the driver
# calls it makes (cuLaunchKernel, not the per-thread _ptsz variants), which is CUDA's legacy
# default stream.
legacy_default_stream = _core.default_stream


@contextlib.contextmanager
def defer_cleanup():
    """Numba's cuda.defer_cleanup(): device memory released inside the block (device arrays
    dropped there) is freed when the outermost block ends, not before. pyk2cuda's frees never
    make the host wait, but each is queued on the legacy default stream, which orders it after
    every stream's work: inside a pipeline of streams, a free would make the streams meet. On
    the simulator nothing is freed on a device, so the block changes nothing."""
    _core.defer_cleanup_enter()
    try:
        yield
    finally:
        _core.defer_cleanup_exit()


def per_thread_default_stream():
    """Numba's per-thread default stream. pyk2cuda launches and copies on CUDA's legacy default
    stream (the only default stream it uses), so this is that stream: work on it is ordered
    with every other stream's, a stricter order than the per-thread stream's, never a looser
    one (the same results; less overlap with other host threads' work)."""
    return _core.default_stream()


def external_stream(ptr):
    """Numba's stream over a CUstream another library made. As on Numba's simulator, the
    simulator has none (RuntimeError); on the GPU pyk2cuda launches only on streams it made,
    so it is a NotImplementedError naming it."""
    if _core.device_kind() != "gpu":
        raise RuntimeError("External streams are unsupported in the simulator")
    raise NotImplementedError("cuda.external_stream(0x%x): pyk2cuda launches only on streams it "
                              "created (cuda.stream())" % int(ptr))
event_elapsed_time = _core.event_elapsed_time
synchronize = _core.synchronize


def event(timing=True):
    return _core.event()


def is_available():
    """True: kernels can run, on the GPU or, without one, on the simulator (as Numba's
    simulator answers). pyk2cuda.device_kind() says which."""
    return True


def is_bfloat16_supported():
    """Whether kernels can use bfloat16 (numba-cuda's test): True on pyk2cuda's simulator, which
    computes it as the GPU does; on a GPU, whether its compute capability is 8.0 or more, as
    numba-cuda answers (docs/python.md, "bfloat16")."""
    if _core.device_kind() != "gpu":
        return True
    return tuple(_core.device_info()["compute_capability"]) >= (8, 0)


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
        if isinstance(i, slice):   # Numba's gpus is a list: gpus[1:] (test_caching's multi-GPU test)
            return [self[j] for j in range(*i.indices(len(self)))]
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


class _Deallocations:
    """Numba's memory_manager.deallocations, the frees it has pending: pyk2cuda frees device
    memory when its last array goes (or at the end of cuda.defer_cleanup()), so len() counts
    the device arrays that released their memory since the last clear()."""

    def __len__(self):
        return _core.deallocations()

    def clear(self):
        _core.deallocations(True)


class _MemoryManager:
    """The part of Numba's memory manager that scripts read: its deallocations."""

    def __init__(self):
        self.deallocations = _Deallocations()


class Context:
    """Numba's CUDA context (cuda.current_context()): the device launches use, its memory manager
    and synchronize(). pyk2cuda keeps one per process, open until the interpreter exits."""

    def __init__(self):
        self.memory_manager = _MemoryManager()

    @property
    def device(self):
        return get_current_device()

    def synchronize(self):
        synchronize()

    def reset(self):
        """Numba destroys the context's memory; pyk2cuda's is freed with its arrays."""

    def get_ipc_handle(self, memory):
        """An IpcHandle another process opens (pyk2cuda/ipc.py)."""
        return ipc.context_ipc_handle(memory)


_CONTEXT = []


def current_context(devnum=None):
    """The context of the device in use (made at the first call, which chooses the device)."""
    _core.device_kind()
    if not _CONTEXT:
        _CONTEXT.append(Context())
    return _CONTEXT[0]


devicearray = _devicearray_module()


def _array_over_pointer(ptr, shape, dtype, order):
    """Numba's numpy_support.carray/farray on the host: a NumPy array viewing the memory a ctypes
    pointer points to (a typed pointer gives its dtype; a c_void_p needs dtype=)."""
    import ctypes
    np_ = _numpy()
    ptr = getattr(ptr, "_as_parameter_", ptr)
    if isinstance(dtype, types.Type):   # cuda.float32, as numba-cuda's tests give it
        dtype = dtype.dtype
    dtype = None if dtype is None else np_.dtype(dtype)
    if isinstance(ptr, ctypes.c_void_p):
        if dtype is None:
            raise TypeError("explicit dtype required for void* argument")
        address = ptr.value
    elif isinstance(ptr, ctypes._Pointer):
        own = np_.dtype(ptr._type_)
        if dtype is not None and dtype != own:
            raise TypeError("mismatching dtype '%s' for pointer %s" % (dtype, ptr))
        dtype, address = own, ctypes.cast(ptr, ctypes.c_void_p).value
    else:
        raise TypeError("expected a ctypes pointer, got %r" % (ptr,))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    count = int(np_.prod(shape, dtype=np_.intp))
    buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np_.frombuffer(buf, dtype).reshape(shape, order=order)


def carray(ptr, shape, dtype=None):
    """numpy_support.carray: a C-ordered NumPy array over a ctypes pointer's memory (host)."""
    return _array_over_pointer(ptr, shape, dtype, "C")


def farray(ptr, shape, dtype=None):
    """numpy_support.farray: a Fortran-ordered NumPy array over a ctypes pointer's memory (host)."""
    return _array_over_pointer(ptr, shape, dtype, "F")


# In a kernel they would make an array of a pointer argument, which pyk2cuda's kernels never
# have (CPointer in a signature is refused): naming one there is a compile error saying so.
for _f in (carray, farray):
    _f._p2c_refused_in_kernels = ("numba.cuda.np.numpy_support.%s, an array over a raw pointer: "
                                  "pyk2cuda's kernels take no pointers (pass the device array "
                                  "itself)" % _f.__name__)


def _np_module():
    """cuda.np: numba-cuda's numba.cuda.np, of which pyk2cuda gives numpy_support's from_dtype,
    as_dtype (pyk2cuda's types), carray and farray (host only)."""
    import types as modules
    support = modules.ModuleType(__name__ + ".np.numpy_support")
    support.from_dtype, support.as_dtype = types.from_dtype, types.as_dtype
    support.carray, support.farray = carray, farray
    import numpy
    support.numpy_version = tuple(int(part) for part in numpy.__version__.split(".")[:2])
    m = modules.ModuleType(__name__ + ".np")
    m.numpy_support = support
    return m


np = _np_module()


def _submodule(name, doc, **names):
    import types as modules
    m = modules.ModuleType("%s.%s" % (__name__, name), doc)
    m.__dict__.update(names)
    return m


def _typing_module():
    """cuda.typing: of numba-cuda's numba.cuda.typing, signature(return_type, *args), the
    signature return_type(*args) (pyk2cuda's types)."""
    import types as modules
    m = modules.ModuleType(__name__ + ".typing")
    m.signature = lambda return_type, *args: types.Signature(return_type, args)
    m.typeof = _submodule("typing.typeof", "numba.cuda.typing.typeof: typeof(value).",
                          typeof=types.typeof)
    return m


typing = _typing_module()

# numba-cuda's flag for whether Numba's CPU compiler (the `numba` package) can be imported beside
# it; pyk2cuda needs no Numba, tests use the flag to choose their reference.
HAS_NUMBA = importlib.util.find_spec("numba") is not None

# CUDA IPC (pyk2cuda/ipc.py): a device array's gpu_data and get_ipc_handle(), the context's
# get_ipc_handle (above), cuda.open_ipc_array, and the driver module's names for them.
from . import ipc  # noqa: E402
_core.DeviceArray.gpu_data = property(ipc.gpu_data, doc="the device memory the array's elements span")
# device_ctypes_pointer: the extension's int, as an int with ctypes' .value (numba-cuda's tests
# read `.value` of its c_size_t; Numba 0.56's with NVIDIA's bindings compare it as an int).
_c_pointer = _core.DeviceArray.device_ctypes_pointer
_core.DeviceArray.device_ctypes_pointer = property(lambda d: ipc.DevicePointer(_c_pointer.__get__(d)),
                                                   doc=_c_pointer.__doc__)
_core.DeviceArray.get_ipc_handle = ipc.array_ipc_handle
open_ipc_array = ipc.open_ipc_array
cudadrv.driver.IpcHandle, cudadrv.driver.MemoryPointer = ipc.IpcHandle, ipc.MemoryPointer
cudadrv.driver.device_to_host = ipc.device_to_host
driver = cudadrv.driver   # cuda.driver, as numba-cuda's scripts reach it

# numba.cuda.random: `cuda.random`. Imported last: it uses jit.
from . import random  # noqa: E402
# The vector types (cuda.float32x4, cuda.float4, ...): names kernels call.
from . import vector_types  # noqa: E402
globals().update(vector_types.all_names())

# numba.cuda's submodules that pyk2cuda gives, importable as pyk2cuda.cuda.NAME (this module is
# not a package, so each is registered by its dotted name) and as numba.cuda.NAME under
# python3 -m pyk2cuda; any other is an ImportError naming it.
cudadrv.devicearray = devicearray
runtime = cudadrv.runtime   # numba.cuda.runtime: get_version()
from . import launchconfig  # noqa: E402
# numba.cuda.compiler: where Numba's own tests (and scripts copied from them) import compile_ptx
# from; the rest of that module is Numba's compiler (its passes, run_frontend), which pyk2cuda
# does not have: those names are ImportErrors.
compiler = _submodule("compiler", "numba.cuda.compiler: compile and its friends.",
                      compile=compile, compile_all=compile_all,
                      compile_for_current_device=compile_for_current_device, compile_ptx=compile_ptx,
                      compile_ptx_for_current_device=compile_ptx_for_current_device)
from .libdevice import libdevice, libdevicefuncs  # noqa: E402
# numba.cuda.bf16 and numba.cuda._internal (its cuda_bf16): bfloat16's intrinsics.
from . import bf16 as _bf16  # noqa: E402
bf16, _internal = _bf16.bf16, _bf16._internal
is_fp8_supported = _bf16.is_fp8_supported   # numba-cuda's numba.cuda.api.is_fp8_supported
bfloat16 = types.bfloat16   # numba-cuda's cuda.bfloat16
# numba.cuda.vectorizers: where numba.guvectorize(..., target='cuda') finds its builder.
vectorizers = _submodule("vectorizers", "numba.cuda.vectorizers: the CUDA gufunc builder.",
                         CUDAGUFuncVectorize=CUDAGUFuncVectorize)


class _CUDACodeLibrary:
    """numba.cuda.codegen.CUDACodeLibrary: Numba's holder of a kernel's LLVM IR, PTX and CUBINs,
    part of its compiler; pyk2cuda has no such object, so making one is a NotImplementedError.
    The name exists because modules import it (Numba's test_caching)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("numba.cuda.codegen.CUDACodeLibrary is Numba's compiler's code "
                                  "library: pyk2cuda has none (inspect_asm() gives the PTX)")


# numba.cuda.codegen: the module's name and CUDACodeLibrary (above), nothing of Numba's codegen.
codegen = _submodule("codegen", "numba.cuda.codegen: CUDACodeLibrary's name only.",
                     CUDACodeLibrary=_CUDACodeLibrary)
SUBMODULES = {"codegen": codegen, "vectorizers": vectorizers, "compiler": compiler, "launchconfig": launchconfig, "args": args, "devicearray": devicearray, "random": random, "cudadrv": cudadrv,
              "vector_types": vector_types, "types": types, "np": np,
              "np.numpy_support": np.numpy_support, "typing": typing,
              "typing.typeof": typing.typeof, "libdevice": libdevice, "libdevicefuncs": libdevicefuncs}
SUBMODULES.update(_bf16.SUBMODULES)
SUBMODULES.update(("cudadrv." + name, m) for name, m in cudadrv.SUBMODULES.items())
# numba.cuda.deviceufunc: the gufunc call's scheduler (GUFuncEngine), a module file of its own.
SUBMODULES["deviceufunc"] = deviceufunc
# numba.cuda.cudadrv.devices (cuda.devices): the context of the device in use; reset() is
# Numba's release of every context, which pyk2cuda keeps until the interpreter exits.
devices = _submodule("cudadrv.devices", "numba.cuda.cudadrv.devices: get_context(), reset(), gpus.",
                     get_context=current_context, reset=close, gpus=gpus)
cudadrv.devices = devices
SUBMODULES["cudadrv.devices"] = devices
# numba.cuda.kernels (cuda.kernels): Numba's shipped kernels, of which pyk2cuda has transpose.
from . import kernels as _kernels  # noqa: E402
kernels = _submodule("kernels", "numba.cuda.kernels: transpose.", transpose=_kernels.transpose_module)
SUBMODULES.update({"kernels": kernels, "kernels.transpose": _kernels.transpose_module})
# numba.cuda.simulator: what code that checks config.ENABLE_CUDASIM imports from Numba's simulator
# (test_vector_type takes simulator.vector_types' list); here pyk2cuda's own modules.
simulator = _submodule("simulator", "numba.cuda.simulator: pyk2cuda's vector_types.",
                       vector_types=vector_types)
SUBMODULES.update({"simulator": simulator, "simulator.vector_types": vector_types})
SUBMODULES["cudadrv.devicearray"] = devicearray
# numba.cuda.extending (register_jitable; Numba's extension API by name only), numba.cuda.misc.special
# (literal_unroll) and numba.cuda.utils (PYVERSION): extending.py.
from .extending import extending, misc, utils  # noqa: E402
SUBMODULES.update({"extending": extending, "misc": misc, "misc.special": misc.special, "utils": utils})
for _name, _module in SUBMODULES.items():
    sys.modules[__name__ + "." + _name] = _module
_core._set_arg_hint(args.ArgHint)
_core._set_assigned(_assigned)
_core._set_cai_sync(_cai_sync)
_core._set_transposed(_transposed)
