"""numba.stencil for pyk2cuda: a stencil computed by a kernel pyk2cuda generates from it.

    @stencil
    def smooth(a):
        return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) / 4

    b = smooth(a)          # Numba's result, computed on the GPU or on the simulator

A stencil function indexes its arrays relative to the element being computed (`a[-1, 0]` is the
element one row up). Called with arrays, it returns a new array of the first one's shape, each
element the function's value there, and `cval` (default 0) on the border, where a relative index
would leave the array; the border's width in each dimension is the neighbourhood, inferred from
the constant offsets the function uses or given as `neighborhood=((lo, hi), ...)`. Arguments
named in `standard_indexing=` are indexed as usual; scalars are passed as they are; `out=` is
written instead of a new array (its border is left alone unless `cval` was given, as in Numba).

How (docs/python.md, "Stencils"): at a call, for the arguments' types, a module holding the
function under a @stencil decorator of its options (the neighbourhood, and cval where the border
is written) is given to the C library, which rewrites the function into a device function of the
element's indices and makes the kernel beside it, one thread per output element
(src/frontend/stencil.c); the kernel is specialized for the arguments' types and, without out=,
for the result its signature completes with (the output's dtype, as Numba infers it). Here stay
Numba's call-time checks and facts (which inputs are indexed relatively, the neighbourhood it
infers, checked at the user's line), the output and the launch, on the GPU when there is one
(host arrays copied in and back) and on the simulator otherwise. `inspect_cuda()` shows the
generated CUDA C, `kernel_source()` the module. A call inside a @jit function puts the same
decorated function in that function's module (add_to_host_module)."""
import ast

from . import _core, cuda, source as _source, types as _types
from ._core import CompileError

# What Numba's stencil decorator accepts besides the function (numba/stencils/stencil.py).
_OPTIONS = ("cval", "standard_indexing", "neighborhood")
_BLOCKS = {1: (256,), 2: (16, 16), 3: (8, 8, 4)}   # threads per block, the last axis first


def stencil(func_or_mode="constant", **options):
    """numba.stencil: @stencil, @stencil(cval=..., neighborhood=..., standard_indexing=...),
    @stencil('constant', ...), stencil(func)."""
    for option in options:
        if option not in _OPTIONS:
            raise ValueError("Unknown stencil option " + option)
    if isinstance(func_or_mode, str):
        if func_or_mode != "constant":
            raise ValueError("Unsupported mode style " + func_or_mode)
        return lambda func: StencilFunc(func, options)
    return StencilFunc(func_or_mode, options)


def _fail(piece, node, message, line=None, col=None):
    """A CompileError at `node`'s place in the user's source (E-stencil)."""
    line = node.lineno if line is None else line
    col = node.col_offset if col is None else col
    at = piece.at(line - piece.node.lineno + 1, _char_col(piece, line, col) + 1)
    exc = CompileError("%s:%d:%d: error: %s" % (at + (message,)))
    exc.status, exc.status_name = 1, "source"
    exc.diagnostics = [at + ("error", "E-stencil", message)]
    raise exc


def _char_col(piece, line, col):
    """The character column of ast's UTF-8 byte column `col` on `line` (ast's numbering)."""
    text = piece.lines[line - piece.node.lineno]
    return len(text.encode()[:col].decode(errors="ignore"))


def _folded(node):
    """The value an expression of literals folds to as CPython folds it (`-1`, `1 - 2`, `(0, -1)`),
    or None when it names or calls anything."""
    if any(isinstance(n, (ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.Lambda,
                          ast.NamedExpr)) for n in ast.walk(node)):
        return None
    try:
        return eval(compile(ast.Expression(node), "<offset>", "eval"), {"__builtins__": {}})
    except Exception:   # noqa: BLE001 (a literal expression CPython cannot fold: not constant)
        return None


def _is_offset(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _local_constants(func_node):
    """{name: value} of the function's local variables bound once, by `name = CONSTANT` (an int or
    a tuple of ints), which Numba's stencils take as constant offsets (`k = 1` then `a[k]`)."""
    stores = {}
    for n in ast.walk(func_node):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    found = {}
    for n in ast.walk(func_node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and stores[n.targets[0].id] == 1:
            value = _folded(n.value)
            if _is_offset(value) or (isinstance(value, tuple) and value and all(map(_is_offset, value))):
                found[n.targets[0].id] = value
    return found


class _Access:
    """One relative index `a[c0, c1, ...]`: its components' nodes and their constant offsets
    (None where not constant), or for an index given whole (`a[idx]`, idx a tuple) that node and
    the tuple's offsets."""

    def __init__(self, node, components, offsets, whole):
        self.node = node
        self.components = components
        self.offsets = offsets
        self.whole = whole


class _Analysis:
    """What a stencil function's source says for a number of dimensions: its relative accesses
    (checked), and the neighbourhood, given or inferred from their constant offsets."""

    def __init__(self, piece, params, standard, ndim, neighborhood):
        self.piece = piece
        self.consts = _local_constants(piece.node)
        self.accesses = []
        for node in ast.walk(piece.node):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                    node.value.id in params and node.value.id not in standard:
                self._access(node, ndim, neighborhood is not None)
        self.relative = sorted({a.node.value.id for a in self.accesses}, key=params.index)
        self.neighborhood = self._neighborhood(ndim, neighborhood)

    def _value(self, node):
        """A constant index's value (literals, or a local constant's name), else None."""
        if isinstance(node, ast.Name):
            return self.consts.get(node.id)
        return _folded(node)

    def _access(self, node, ndim, given):
        """Checks one subscript of a relatively indexed argument and records it."""
        if not isinstance(node.ctx, ast.Load):
            _fail(self.piece, node, "Assignments to arrays passed to stencil kernels is not allowed "
                  "('%s' is an argument of the stencil)" % node.value.id)
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for p in parts:
            if isinstance(p, (ast.Slice, ast.Starred)):
                _fail(self.piece, p, "a slice in a stencil's relative index is not supported by "
                      "pyk2cuda: index single elements, as in %s[-1]" % node.value.id)
        values = [self._value(p) for p in parts]
        whole = len(parts) == 1 and ndim > 1 and not _is_offset(values[0])
        if whole:   # a tuple given whole: `idx = (0, 1)` then `a[idx]`
            offsets = list(values[0]) if isinstance(values[0], tuple) else [None] * ndim
            count = len(values[0]) if isinstance(values[0], tuple) else ndim
        else:
            offsets = [v if _is_offset(v) else None for v in values]
            count = len(parts)
        if count != ndim:
            _fail(self.piece, node, "Stencil index does not match array dimensionality: '%s' is "
                  "indexed with %d offset(s), the stencil's input has %d dimension(s)"
                  % (node.value.id, count, ndim))
        if None in offsets and not given:
            at = index if whole else parts[offsets.index(None)]
            _fail(self.piece, at, "stencil kernel index is not constant, 'neighborhood' option "
                  "required (a relative index is a constant offset such as -1, or a local "
                  "variable bound once to one)")
        self.accesses.append(_Access(node, parts, offsets, whole))

    def _neighborhood(self, ndim, given):
        """((lo, hi), ...) per dimension: the given one, or the smallest that holds every
        constant offset and 0, as Numba infers it."""
        if given is not None:
            return tuple((int(lo), int(hi)) for lo, hi in given)
        if not self.accesses:
            _fail(self.piece, self.piece.node, "Stencil kernel with no accesses to relatively "
                  "indexed arrays: pyk2cuda cannot infer its neighborhood")
        found = [[0, 0] for _ in range(ndim)]
        for a in self.accesses:
            for d, offset in enumerate(a.offsets):
                found[d] = [min(found[d][0], offset), max(found[d][1], offset)]
        return tuple(tuple(f) for f in found)

def _array_like(value):
    return getattr(value, "ndim", 0) > 0 and (hasattr(value, "__cuda_array_interface__") or
                                              hasattr(value, "__array_interface__"))


class StencilFunc:
    """A @stencil function: call it with its arguments (and out=) to get the result array."""

    def __init__(self, func, options):
        self.py_func = getattr(func, "py_func", func)
        self.__name__ = getattr(self.py_func, "__name__", "stencil")
        self.__doc__ = getattr(self.py_func, "__doc__", None)
        _source.check_source(self.py_func)
        code = self.py_func.__code__
        self._params = list(code.co_varnames[:code.co_argcount])
        self.options = dict(options)
        self.neighborhood = options.get("neighborhood")
        standard = options.get("standard_indexing", ())
        self._standard = (standard,) if isinstance(standard, str) else tuple(standard)
        if self._params and self._params[0] in self._standard:
            raise ValueError("The first argument to a stencil kernel must use relative indexing, "
                             "not standard indexing.")
        if set(self._standard) - set(self._params):
            raise ValueError("Standard indexing requested for an array name not present in the "
                             "stencil kernel definition.")
        self._made = {}   # argument types -> _Made

    # A stencil in a kernel is a name pyk2cuda's translator refuses (source.py); in a @jit function
    # the host calls, its call compiles to a loop nest (add_to_host_module).
    _p2c_refused_in_kernels = "a @stencil function (call it from the host or a @jit function)"

    def _p2c_in_host_module(self, builder, name):
        add_to_host_module(self, builder, name)

    def __call__(self, *args, out=None, **kwargs):
        if kwargs:
            raise TypeError("a stencil takes its arguments by position and out=, got %s"
                            % ", ".join(sorted(kwargs)))
        if len(args) != len(self._params):
            raise TypeError("stencil '%s' takes %d argument(s), %d given"
                            % (self.__name__, len(self._params), len(args)))
        if not args or not _array_like(args[0]):
            raise ValueError("The first argument to a stencil kernel must be the primary input array.")
        ndim = args[0].ndim
        if ndim > 3:
            raise ValueError("pyk2cuda computes stencils of 1 to 3 dimensions, the input has %d" % ndim)
        if self.neighborhood is not None and len(self.neighborhood) != ndim:
            raise ValueError("%d dimensional neighborhood specified for %d dimensional input array"
                             % (len(self.neighborhood), ndim))
        key = tuple(_types.typeof(a) for a in args) + ((_types.typeof(out),) if out is not None else ())
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = _Made(self, args, out)
        return made.run(args, out)

    def kernel_source(self, *args):
        """The module compiled for these arguments' types (after a call): the stencil function
        under its @stencil decorator, which the C library makes the kernel of."""
        return self._pick(args).unit.source.decode()

    def inspect_cuda(self):
        """{argument types: the generated CUDA C} of every call's kernel so far."""
        got = {key: m.kernel.inspect_cuda() for key, m in self._made.items()}
        return {key: next(iter(c.values())) for key, c in got.items() if c}

    def _pick(self, args):
        key = tuple(_types.typeof(a) for a in args)
        for k, m in self._made.items():
            if k[:len(key)] == key:
                return m
        raise KeyError("stencil '%s' was not called with these types" % self.__name__)


class _Made:
    """A stencil for one tuple of argument types: Numba's facts for the call (the relatively
    indexed inputs, the neighbourhood), and the kernel the C library makes of the stencil
    function (src/frontend/stencil.c), specialized for these types; its signature gives the
    result's dtype."""

    def __init__(self, sf, args, out):
        self.sf = sf
        ndim = args[0].ndim
        self.ndim = ndim
        self.fill = out is None or "cval" in sf.options
        self.cval = sf.options.get("cval", 0)
        self.relative, self.neighborhood = self._analyse(ndim)
        if sf.neighborhood is None:   # as Numba: the inferred one is the stencil's from now on
            sf.neighborhood = [list(pair) for pair in self.neighborhood]
        if _source._constant(self.cval) is None:
            raise TypeError("cval must be a number, got %r" % (self.cval,))
        types = [cuda._arg_type_text(a) for a in args] + ([cuda._arg_type_text(out)] if out is not None else [])
        if isinstance(self.cval, complex) and self.fill:   # Numba's check, before a complex is stored
            _, dtype = self._compile(types, out, False)
            if dtype.kind != "c":
                raise ValueError("cval type does not match stencil return type.")
        self.kernel, self.dtype = self._compile(types, out, self.fill)
        self.unit = self.kernel._unit
        self.kernel._quiet = True   # Numba's stencils warn of no grid size or host copy: a call is no launch

    def _compile(self, types, out, with_cval):
        """(the kernel for these argument types, the result's dtype): the C library's kernel of
        the stencil function (its out the given one, else the type the function returns)."""
        unit = self._unit(with_cval)
        name = self._name()
        out_name = "out" if "out" not in self.sf._params else "_out"   # the kernel's (stencil.c, fresh_name)
        try:
            kernel = cuda.Kernel(self.sf.py_func, name, unit.filename, unit.source,
                                 tuple(self.sf._params) + (out_name,), True,
                                 [_source.call_signature(name, "(%s)" % ", ".join(types))], False)
            sig = kernel._specs()[0][0]
        except CompileError as e:
            raise unit.remap(e) from None
        kernel._unit = unit
        if out is not None:
            return kernel, out.dtype
        result = str(cuda._arg_types(sig)[-1])   # 'float64[:, ::1]': the result array C made
        return kernel, _types.as_dtype(_types.ScalarType(result[:result.index("[")]))

    def _analyse(self, ndim):
        """(the relatively indexed arguments, the neighbourhood) for ndim dimensions."""
        piece = _source._Piece(self.sf.py_func)
        a = _Analysis(piece, self.sf._params, self.sf._standard, ndim, self.sf.neighborhood)
        return a.relative, a.neighborhood

    def _name(self):
        name = self.sf.__name__
        return name if name.isidentifier() else "_lambda"

    def _unit(self, with_cval):
        """The module: the stencil function under its name, with a @stencil decorator of its
        options and, `with_cval` (where this call writes the border), its cval (0 when none was
        given: the border of a new result is 0)."""
        builder = _source._Builder(_source._Piece(self.sf.py_func))
        builder.add_function(self.sf.py_func, self._name(), _decorator(self.sf, with_cval, self.cval))
        return builder.unit()

    def run(self, args, out):
        """Checks the arrays' shapes as Numba does, makes the output, launches the kernel."""
        first = args[0]
        for name, a in zip(self.sf._params, args):
            if name in self.relative and a is not first:   # its indices were checked: same ndim
                if any(s < f for s, f in zip(a.shape, first.shape)):
                    raise ValueError("Secondary stencil array has some dimension smaller the same "
                                     "dimension in the first stencil input.")
        if out is None:
            out = self._new_output(first)
        elif out.ndim != first.ndim or any(s < f for s, f in zip(out.shape, first.shape)):
            raise ValueError("out= has shape %s, smaller than the stencil's input %s"
                             % (tuple(out.shape), tuple(first.shape)))
        if out.size:
            block = _BLOCKS[self.ndim]
            extents = tuple(reversed(out.shape))
            grid = tuple((e + b - 1) // b for e, b in zip(extents, block))
            if any(g > 65535 for g in grid[1:]):   # CUDA's limit on a grid's y and z
                raise ValueError("stencil '%s': an input of shape %s needs %s blocks of %s threads, "
                                 "more than CUDA's 65535 along y or z"
                                 % (self.sf.__name__, tuple(out.shape), grid, block))
            self.kernel[grid, block](*(tuple(args) + (out,)))
        return out

    def _new_output(self, first):
        """The result array: a device array when the input is one, else a NumPy array."""
        if isinstance(first, _core.DeviceArray) or (hasattr(first, "__cuda_array_interface__")
                                                    and not hasattr(first, "__array_interface__")):
            return cuda.device_array(first.shape, self.dtype)
        import numpy
        return numpy.empty(first.shape, self.dtype)


# ---- a stencil called inside a @jit function (compiled into it) ----

def _decorator(sf, with_cval, cval=None):
    """The @stencil decorator the C library reads in a module (src/frontend/stencil.c): the
    stencil's options, and cval (the given one, else `cval`) only when `with_cval` (without it the
    border keeps what the result array holds, as Numba leaves an out= array's border)."""
    parts = []
    if with_cval:
        value = sf.options.get("cval", cval)
        text = _source._constant(value)
        if text is None:
            raise TypeError("cval must be a number, got %r" % (value,))
        parts.append("cval=%s" % text)
    if sf.neighborhood is not None:
        parts.append("neighborhood=%r" % (tuple(tuple(int(v) for v in pair) for pair in sf.neighborhood),))
    if sf._standard:
        parts.append("standard_indexing=%r" % (tuple(sf._standard),))
    return "@%s(%s)" % (_source._STENCIL, ", ".join(parts))


def add_to_host_module(sf, builder, name):
    """Adds to a @jit function's module (source.py's _Builder), whose code calls stencil `sf` under
    `name`, the stencil function with its decorator: the C library compiles each call of it into a
    loop nest on the CPU, as Numba's njit compiles its _stencil_wrapper (docs/python.md,
    "Stencils")."""
    builder.add_function(sf.py_func, name, _decorator(sf, "cval" in sf.options))
