"""numba.jit and numba.njit for pyk2cuda: functions the host calls, compiled for the CPU.

A function decorated `@jit`, `@njit`, `@jit(nopython=True)` or `@njit(parallel=True, cache=True,
fastmath=True)` is translated by pyk2cuda's own compiler, as a kernel is, and called from the
host it runs on the CPU: the C it becomes is built by the host compiler the simulator uses
(cached as any module), and run once on one simulated thread (p2c_module_call). As in Numba it is
specialized lazily on its arguments' types, or on the decorator's signatures, chosen by the
library's one dispatcher. Called from a kernel, the same function is a device function compiled
into the kernel (source.py). docs/python.md, "CPU functions"."""
import os
import sys
import warnings

from . import _core, source as _source, types as _types
from ._core import CompileError

# Options of numba.jit that pyk2cuda accepts and that change nothing in the C it writes:
# nopython (it always compiles without objects), nogil (the call holds the GIL), cache (the
# compile cache is always on), fastmath, error_model, inline, looplift, forceinline, and Numba's
# wrapper switches.
_IGNORED = {"nopython", "nogil", "cache", "fastmath", "error_model", "inline",
            "looplift", "forceinline", "no_cpython_wrapper", "no_cfunc_wrapper", "_nrt"}
# The options written into the decorator the translator reads: debug= and boundscheck= as
# cuda.jit's; parallel= runs prange loops over the cores (src/analysis/parallel.c).
_READ = ("debug", "boundscheck", "parallel")


def _check_options(options):
    for key in options:
        if key not in _IGNORED and key not in _READ:
            raise TypeError("jit() got an unexpected keyword argument '%s'" % key)


# The diagnostics that mean "Python pyk2cuda does not compile" (a list, a dict, a comprehension, a
# string function, an object global, an array method, allocation or NumPy function it lacks): the
# function then runs as plain Python for those argument types, with one warning. Any other error
# (a type it cannot take, a wrong result) stays a CompileError at the Python line.
_PYTHON_ONLY = {"E-unsupported", "E-undefined", "E-global-type", "E-not-callable", "E-alloc",
                "E-unknown-builtin"}

# $PYK2CUDA_TIERS=1: each call says on stderr which tier ran it (docs/python.md, "CPU functions":
# the first tier, libtcc's code, until the optimized build is ready; $PYK2CUDA_LIBTCC=0 turns the
# first tier off). Read once, at import.
_SAY_TIERS = os.environ.get("PYK2CUDA_TIERS", "") not in ("", "0")


def _say_tiers(dispatcher):
    for sig, tier, why in dispatcher._host_tiers():
        if tier:
            print("pyk2cuda: %s%s ran on the %s tier%s" % (dispatcher.__name__, sig[sig.index("("):], tier,
                                                         " (%s)" % why if why and tier != "first" else ""),
                  file=sys.stderr)


def _python_only(exc):
    """The first diagnostic of `exc` that says the function uses Python pyk2cuda does not compile,
    as 'FILE:LINE:COL: message', or None when some error is of another kind."""
    errors = [d for d in getattr(exc, "diagnostics", None) or () if d[3] == "error"]
    if not errors or any(d[4] not in _PYTHON_ONLY for d in errors):
        return None
    f, line, col, _, _, msg = errors[0]
    return "%s:%d:%d: %s" % (f, line, col, msg)


class CPUDispatcher(_core._Kernel):
    """A @jit function: call it as the function itself; `f.py_func` is the Python function."""

    _unit = None
    _options = {}
    _sigs = None

    def _build(self):
        """The source to translate: the function's synthetic module, written with the decorator
        @numba.njit (and its signatures), its free names frozen now (source.py)."""
        self._unit = _source.build(self.py_func, kind="host", signatures=self._sigs, options=self._options)
        return self._unit.filename, self._unit.source

    def _fix_error(self, exc):
        """`exc` at the user's lines; a raise (or failed assert) of the function as its own class
        with its own message, as Numba's njit raises it (`ValueError('too big')`)."""
        if self._unit is None:
            return exc
        from .cuda import _raised
        return _raised(self._unit.remap(exc), self._unit.exceptions, lambda failure, msg: msg, False)

    # The argument types that run as plain Python (docs/python.md, "CPU functions"): for a lazily
    # specialized function, the type tuples (_types_of's texts) whose specialization failed for a
    # reason _python_only names; for declared signatures, those signatures' argument types. A
    # type tuple that compiles keeps its native code. Empty (the call's fast path) until one fails.
    _python_types = ()
    _all_python = False   # declared signatures, none of which compiles

    def __call__(self, *args):
        if self._python_types and (self._all_python or self._runs_as_python(args)):
            return self.py_func(*args)
        try:
            result = self._call(*args)
            if _SAY_TIERS:
                _say_tiers(self)
            return result
        except CompileError as e:
            self._fall_back(e, _types_of(args))
        return self.py_func(*args)

    def _runs_as_python(self, args):
        """Whether these arguments' types are ones that run as plain Python."""
        got = _types_of(args)
        return got is not None and any(_takes(want, got) for want in self._python_types)

    def _fall_back(self, exc, types, stacklevel=3):
        """The argument types `types` of a function pyk2cuda cannot compile for them because of the
        Python it uses run as plain Python from now on, after one warning naming the construct
        and its line; other errors raise."""
        where = _python_only(exc)
        if where is None or types is None:
            raise exc
        from .numba_names import NumbaWarning
        warnings.warn(NumbaWarning("pyk2cuda cannot compile '%s' for (%s) (%s); it runs as plain Python "
                                   "for these argument types" % (self.__name__, ", ".join(map(str, types)), where)),
                      stacklevel=stacklevel)
        self._python_types = tuple(self._python_types) + (types,)

    def __get__(self, obj, objtype=None):
        return self   # a jitted function stays one as a class attribute, as in Numba

    @property
    def signatures(self):
        return [sig for sig, _, _, _ in self._specs()]

    def inspect_cuda(self, signature=None):
        """The generated C (CUDA C, which the simulator's host build compiles): {signature: text}."""
        got = {sig: text for sig, text, _, _ in self._specs()}
        return got if signature is None else got[str(signature)]


def _types_of(args):
    """The arguments' types as a lazy function specializes for them (signature texts, cuda.py's
    _arg_type_text), or None when one has none (the call then fails at that argument)."""
    from .cuda import _arg_type_text
    try:
        return tuple(_arg_type_text(a) for a in args)
    except TypeError:
        return None


def _takes(want, got):
    """Whether argument types `got` (texts) are the types `want` (a failed call's texts, or a
    failed signature's types): the same, where a signature's array of any layout (A, all ':')
    takes every layout."""
    return len(want) == len(got) and all(
        str(w) == g or (isinstance(w, _types.ArrayType) and w.layout == "A" and g.replace("::1", ":") == str(w))
        for w, g in zip(want, got))


def _declared(func, sigs, checks):
    """A dispatcher compiled now (as Numba compiles declared signatures) for the signatures that
    compile, or None when none does; and [(signature, its CompileError)] of those that do not,
    for a reason _python_only names. All are translated together first; when that fails for such
    a reason, each alone, so that a signature that compiles keeps its native code. Any other
    error raises."""
    try:
        return _compiled(func, sigs, checks), []
    except CompileError as e:
        if _python_only(e) is None:
            raise
        if len(sigs) == 1:
            return None, [(sigs[0], e)]
    good, failed = [], []
    for sig in sigs:
        try:
            _compiled(func, [sig], checks)
            good.append(sig)
        except CompileError as e:
            if _python_only(e) is None:
                raise
            failed.append((sig, e))
    return (_compiled(func, good, checks) if good else None), failed


def _compiled(func, sigs, checks):
    """A dispatcher of `func` translated for signatures `sigs`; its errors at the user's lines."""
    code = func.__code__
    unit = _source.build(func, kind="host", signatures=sigs, options=checks)
    try:
        d = CPUDispatcher(func, func.__name__, unit.filename, unit.source,
                          tuple(code.co_varnames[:code.co_argcount]), True, None)
    except CompileError as e:
        raise unit.remap(e) from None
    d._unit = unit
    return d


def _arg_types(sig):
    """A signature text's argument types (types.parse_signature's of what its parentheses hold:
    it reads no array return type)."""
    inner = sig[sig.index("(") + 1:sig.rindex(")")]
    return tuple(_types.parse_signature("(%s,)" % inner)) if inner.strip() else ()


def _make(func, sigs, options):
    func = getattr(func, "py_func", func)
    _source.check_source(func)
    code = func.__code__
    params = tuple(code.co_varnames[:code.co_argcount])
    checks = {k: v for k, v in options.items() if k in _READ and v is not None}
    if not sigs:
        d = CPUDispatcher(func, func.__name__, code.co_filename, None, params, False, None)
    else:
        d, failed = _declared(func, sigs, checks)
        if d is None:   # no signature compiles: every call runs as plain Python
            d = CPUDispatcher(func, func.__name__, code.co_filename, None, params, False, None)
            d._all_python = True
        for sig, error in failed:
            d._fall_back(error, _arg_types(sig), stacklevel=4)   # at the decorator's line
        sigs = [s for s in sigs if s not in {f for f, _ in failed}]
    d._options = checks
    d._sigs = sigs
    d.__doc__ = func.__doc__
    return d


def prange(*args):
    """numba.prange: a range whose iterations Numba may run on several cores in a parallel=True
    function. pyk2cuda compiles it as range: its iterations run in order, on one core."""
    return range(*args)


prange._p2c_import = "prange"   # how source.py writes it into a translated module


def jit(signature_or_function=None, locals=None, **options):
    """numba.jit: @jit, @jit(sig), @jit([sigs]), @jit(nopython=True, ...), jit(sig)(func)."""
    if locals:
        raise TypeError("jit(locals=...): pyk2cuda does not take declared local types")
    if options.pop("forceobj", False):
        raise TypeError("jit(forceobj=True): pyk2cuda compiles without Python objects only")
    _check_options(options)
    if signature_or_function is not None and not _source.is_signature(signature_or_function):
        return _make(signature_or_function, None, options)
    sigs = _source.signature_text(signature_or_function) if signature_or_function is not None else None
    return lambda func: _make(func, sigs, options)


def njit(*args, **options):
    """numba.njit: jit with nopython=True, which is how pyk2cuda compiles every @jit function."""
    options.pop("nopython", None)
    return jit(*args, **options)
