"""How a Python function becomes the source the translator reads (docs/python.md, "How a function
becomes a kernel").

pyk2cuda compiles function objects, as Numba does. A kernel's own source (inspect/linecache),
dedented and without its decorators, goes into a small synthetic module together with one line per
free name it uses, each resolved from the function's globals and closure when the kernel is first
compiled (Numba freezes globals then too):
- a module (math, numpy, cuda, numba, ...) becomes an import line with the user's alias;
- an int, float, bool, complex, NumPy scalar or tuple of them becomes a module-level constant, a
  NumPy array a constant array;
- a kernel, device function or @njit function becomes a device function of the module, under the
  name the caller uses, its own free names resolved the same way;
- a numba type (float32, ...), a CUDA vector type (cuda.float32x4, ...) or a function of
  math/cmath/operator/numpy becomes an import of it;
- a str becomes a module-level str constant (a kernel may give it as an exception's message);
- an exception class becomes `class NAME(Exception): pass` (a kernel raises it by name; the host
  raises the class itself, found in Unit.exceptions), an Enum or IntEnum class a class of the
  same members and values;
- a function of cuda.declare_device becomes its declaration, `NAME = cuda.declare_device(...)`
  with its link= paths made absolute (link_text);
- a host function that kernels cannot use and says why (`_p2c_refused_in_kernels`: numba-cuda's
  numpy_support.carray) is a CompileError with that reason, anything else one at its first use.
The translator then sees a module it already understands; the decorators it reads are written
here, from the signatures converted by `signature_text`, never taken from the user's file.

The function's lines keep their line numbers where the module has room for that (blank lines pad
it), so the generated CUDA C and inspect_types() name the user's lines; `Unit.remap` turns every
diagnostic's location back into the user's FILE:LINE:COL (columns shifted back by the dedent)."""
import ast
import inspect
import os
import re
import types as _pytypes

from . import _core, kept
from . import types as _types
from ._core import Error, CompileError

# The modules a kernel may use, as the import line that gives the translator each one.
_MODULES = {"math": "import math", "cmath": "import cmath", "operator": "import operator",
            "numpy": "import numpy", "numba": "import numba", "pyk2cuda": "import numba",
            "numba.cuda": "from numba import cuda", "pyk2cuda.cuda": "from numba import cuda",
            "numba.types": "from numba import types", "numba.core.types": "from numba import types",
            "pyk2cuda.types": "from numba import types"}
# Modules whose functions and types a kernel may name directly (`from math import sqrt`).
_FUNCTION_MODULES = ("math", "cmath", "operator", "numpy")
_CUDA, _VECTORIZE, _NUMPY, _NJIT = "__p2c_cuda", "__p2c_vectorize", "__p2c_np", "__p2c_njit"
_GUVECTORIZE, _STENCIL = "__p2c_guvectorize", "__p2c_stencil"
_ENUM_IMPORT = "from enum import Enum as __p2c_Enum, IntEnum as __p2c_IntEnum"
# Three lines, so that a function defined at line 5 of its file keeps its line numbers.
_HEADER = ["from numba import cuda as %s" % _CUDA,
           "from numba import vectorize as %s, guvectorize as %s, njit as %s, stencil as %s"
           % (_VECTORIZE, _GUVECTORIZE, _NJIT, _STENCIL),
           "import numpy as %s" % _NUMPY]
# NumPy scalar types that are Python's own types to Numba (a global np.float64 is a float64).
_PLAIN_NUMPY = {"float64": float, "int64": int, "bool": bool, "complex128": complex}


# ---- signatures ----

def _type_text(t):
    """One argument type as the translator's text: 'float32', 'float32[:, ::1]'."""
    if isinstance(t, str):
        return t.strip()
    if hasattr(t, "ndim") and hasattr(t, "dtype") and hasattr(t, "layout"):   # 0-d: 'float64[()]'
        return _type_text(t.dtype) + _core.array_dims(t.ndim, t.layout)
    text = str(t)
    if text.endswith("*"):   # CPointer(dtype), pyk2cuda's or Numba's: its name is 'dtype*'
        raise TypeError("CPointer(%s) in a signature: pyk2cuda's kernels take no pointer "
                        "arguments (pass a device array)" % text[:-1])
    if text.startswith("Record("):   # a record type, Numba's spelling (the translator parses it)
        return text
    if re.fullmatch(r"\[(char|unichr) x [0-9]+\]", text):   # CharSeq(n), UnicodeCharSeq(n), as Numba names them
        return text
    if re.fullmatch(r"(datetime64|timedelta64)\[[a-zA-Z]+\]", text):   # Numba's NPDatetime('D'), NPTimedelta
        return text
    if not re.fullmatch(r"[a-z_][a-z0-9_]*(\[[\s:,1]*\])?", text):
        raise TypeError("%r is not a type pyk2cuda can take in a signature (scalars, arrays of "
                        "them)" % (t,))
    return "void" if text == "none" else _types.canonical_name(text)


def _one_signature(sig, need_return):
    """'ret(args)' or '(args)' text of one signature: a string, a tuple of argument types, or a
    Signature (pyk2cuda's or Numba's, with .args and .return_type)."""
    if isinstance(sig, str):   # the translator reads every spelling (p2c_type_spelling)
        return sig
    if isinstance(sig, tuple):
        args, ret = sig, None
    elif hasattr(sig, "args") and hasattr(sig, "return_type"):
        args, ret = sig.args, sig.return_type
    else:
        raise TypeError("a signature is a string, a tuple of argument types or a type such as "
                        "void(float32[:]), got %r" % (sig,))
    if need_return and ret is None:
        raise TypeError("a vectorize signature needs a return type, as in float32(float32), "
                        "got %r" % (sig,))
    text = "(%s)" % ", ".join(_type_text(a) for a in args)
    return text if ret is None else _type_text(ret) + text


def signature_text(sig, need_return=False):
    """The signatures Numba accepts (a string, a tuple of argument types, a Signature or type
    object, or a list of any of those) as a list of signature texts."""
    sigs = sig if isinstance(sig, list) else [sig]
    return [_one_signature(s, need_return) for s in sigs]


def call_signature(name, sig):
    """'void(float32[:])' or '(float32[:])' as the compiler's 'name(float32[:])'."""
    i = sig.find("(")
    return name + (sig[i:] if i >= 0 else "(" + sig + ")")


def is_signature(obj):
    """Whether cuda.jit's first argument is a signature rather than the function to compile."""
    if isinstance(obj, (str, tuple, list)) or hasattr(obj, "args"):
        return True
    return not (hasattr(obj, "__code__") or hasattr(obj, "py_func"))


# ---- a function's own source ----

class _Piece:
    """One function of the module: its dedented lines from `def` to its end (a lambda becomes a
    def returning its expression), and for each line where it came from: `origin[i]`, the
    user's line, and `delta[i]`, what to add to a column to get the user's column."""

    def __init__(self, func):
        code = getattr(func, "__code__", None)
        name = getattr(func, "__name__", "?")
        if code is None:
            raise TypeError("cuda.jit takes a Python function, got %s" % type(func).__name__)
        self.file = code.co_filename
        self.code = code
        lines, first = _source_lines(func, code, name)
        first = max(first, 1)
        indent = re.match(r"[ \t]*", lines[0]).group(0)
        text = [(l[len(indent):] if l.startswith(indent) else l).rstrip("\r\n") for l in lines]
        deltas = [len(indent) if l.startswith(indent) else 0 for l in lines]
        try:
            tree = ast.parse("\n".join(text) + "\n")
        except SyntaxError as e:
            tree = _lambda_alone(text, deltas, code, first) if name == "<lambda>" else None
            if tree is None:
                raise Error("%s:%d: the source of '%s' could not be read back (%s)" % (self.file, first, name, e.msg))
        if name == "<lambda>":
            self._from_lambda(tree, text, first, deltas)
            return
        node = tree.body[0] if tree.body else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise Error("%s:%d: the source found for '%s' is not its def (was the file changed?)"
                        % (self.file, first, name))
        span = range(node.lineno - 1, node.end_lineno)
        self.lines = [text[i] for i in span]
        self.origin = [first + i for i in span]
        self.delta = [deltas[i] for i in span]
        self.node = node
        self.def_line = self.origin[0]

    def _from_lambda(self, tree, text, first, deltas):
        """`lambda a, b: EXPR` as `def _lambda(a, b):` / `    return EXPR`: the one lambda on its
        line with the code's parameters."""
        params = list(self.code.co_varnames[:self.code.co_argcount])
        line = self.code.co_firstlineno - first + 1
        found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line
                 and [a.arg for a in n.args.args] == params]
        if len(found) != 1:
            raise Error("%s:%d: pyk2cuda cannot tell this lambda from the others on its line: "
                        "define the function with def" % (self.file, self.code.co_firstlineno))
        body = found[0].body
        expr = ast.get_source_segment("\n".join(text) + "\n", body)
        if body.lineno != body.end_lineno:
            expr = "(" + " ".join(l.strip() for l in expr.splitlines()) + ")"
        ret = "    return "
        self.lines = ["def _lambda(%s):" % ", ".join(params), ret + expr]
        self.node = ast.parse("\n".join(self.lines) + "\n").body[0]
        self.origin = [first + line - 1, first + body.lineno - 1]
        self.delta = [deltas[line - 1] + found[0].col_offset,
                      deltas[body.lineno - 1] + body.col_offset - len(ret)]
        self.def_line = self.origin[0]

    def __getstate__(self):
        """What a pickled kernel keeps of it (cuda.Kernel.__reduce__): the lines and where they
        came from, which map errors back; not the code object (pickle takes none) and the
        syntax tree, which only building the module read."""
        return {key: value for key, value in self.__dict__.items() if key not in ("code", "node")}

    def at(self, line, col):
        """The user's (file, line, column) of 1-based `line` (from the def) and 1-based `col`."""
        return self.file, self.origin[line - 1], col + self.delta[line - 1]

    def renamed(self, name):
        """Its lines with the def naming `name` (the caller's name for it)."""
        if name == self.node.name:
            return list(self.lines)
        first = re.sub(r"\bdef\s+%s\b" % re.escape(self.node.name), "def " + name, self.lines[0], 1)
        return [first] + self.lines[1:]

    def attribute_uses(self, name):
        """(attribute, line, column) of each `name.attribute` load in the function (line from
        the def, column from 0), in source order; a bare use of `name` is an error."""
        uses = []
        attrs = {id(n.value) for n in ast.walk(self.node) if isinstance(n, ast.Attribute)}
        for n in ast.walk(self.node):
            if isinstance(n, ast.Name) and n.id == name and id(n) not in attrs:
                _fail(self, n.lineno - self.node.lineno + 1, n.col_offset, "module '%s' can be used "
                      "in kernels only as `%s.function` (a jitted function or a constant of it)" % (name, name))
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
                uses.append((n.attr, n.lineno - self.node.lineno + 1, n.col_offset))
        return sorted(uses, key=lambda u: (u[1], u[2]))

    def flatten(self, line, col, name, attr):
        """Rewrites `name.attr` at (line from the def, column from 0) as `name_attr`."""
        text = self.lines[line - 1]
        dotted = "%s.%s" % (name, attr)
        if text[col:col + len(dotted)] != dotted:
            _fail(self, line, col, "write '%s' without spaces or line breaks: pyk2cuda compiles it "
                  "as one name" % dotted)
        self.lines[line - 1] = text[:col] + name + "_" + attr + text[col + len(dotted):]

    def free_names(self):
        """(name, line, column) of each global or closure name it reads, first use first; the
        line counts from the def (1), the column from 0 in the dedented text."""
        names = set()
        stack = [self.code]
        while stack:
            c = stack.pop()
            names.update(c.co_names)
            names.update(c.co_freevars)
            stack.extend(k for k in c.co_consts if isinstance(k, _pytypes.CodeType))
        # Default values are evaluated outside the code object, as the def runs: the names they
        # read (a module constant) are frozen with the rest.
        args = getattr(self.node, "args", None)
        for d in (args.defaults + [k for k in args.kw_defaults if k is not None]) if args else []:
            names.update(n.id for n in ast.walk(d) if isinstance(n, ast.Name))
        uses = {}
        for n in ast.walk(self.node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names:
                pos = (n.lineno - self.node.lineno + 1, n.col_offset)  # from the def line
                if n.id not in uses or pos < uses[n.id]:
                    uses[n.id] = pos
        return sorted(((k, l, c) for k, (l, c) in uses.items()), key=lambda u: (u[1], u[2]))


def _lambda_alone(text, deltas, code, first):
    """The parse of the lambdas on the code's line when its lines do not parse alone (a lambda
    on a continuation line: `    lambda: None, tuple(), cc=(9, 0, "a"))`): each `lambda ...`
    cut where its expression ends (a comma or closing bracket outside brackets, or the line's
    end), parenthesized; `text` and `deltas` are changed to match. None if that fails too."""
    import io
    import tokenize
    line = code.co_firstlineno - first   # index in text
    if not 0 <= line < len(text):
        return None
    rest = "\n".join(text[line:]) + "\n"
    cuts, start, depth, in_body = [], None, 0, False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(rest).readline):
            if start is None:
                if tok.type == tokenize.NAME and tok.string == "lambda" and tok.start[0] == 1:
                    start, depth, in_body = tok.start, 0, False
                continue
            closes = tok.string in ")]}" and depth == 0
            ends = (tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER) and depth == 0) or closes
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}" and depth:
                depth -= 1
            elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
                in_body = True
            if ends or (in_body and tok.type == tokenize.OP and tok.string == "," and depth == 0):
                cuts.append((start, tok.start))
                start = None
    except (tokenize.TokenError, SyntaxError):
        pass
    if len(cuts) != 1 or cuts[0][1][0] != 1:   # one lambda, on one line
        return None
    (_, c0), (_, c1) = cuts[0]
    text[line] = "(" + text[line][c0:c1].rstrip() + ")"
    deltas[line] += c0 - 1
    try:
        return ast.parse("\n" * line + text[line] + "\n")   # at its line
    except SyntaxError:
        return None


def _source_lines(func, code, name):
    """(lines, first line) of `func`'s source: the text it was exec'd from when pyk2cuda kept
    it (kept.py: that text is known to compile to this very code), else inspect's (files and
    linecache)."""
    found = kept.source_lines(code)
    if found is not None:
        return found
    try:
        return inspect.getsourcelines(func)
    except (OSError, TypeError):
        # `from None`: inspect's OSError says less than this message, and a chained traceback
        # buries it (the REPL is where users meet it first).
        raise Error("%s: '%s' has no source (defined in %s): pyk2cuda compiles a function from "
                    "its source, so define it in a .py file, or by exec of a string after "
                    "pyk2cuda is imported" % (name, name, code.co_filename)) from None


def check_source(func):
    """Raises Error now when `func` has no source to compile later."""
    _Piece(func)


# ---- the synthetic module ----

class Unit:
    """The module source built for one kernel or ufunc, and the map back to the user's lines."""

    def __init__(self, filename):
        self.filename = filename
        self.source = b""
        self.segments = []   # (first synthetic line, _Piece)
        self.exceptions = {}  # name -> the exception class a kernel raises by that name
        self.captured = []   # the device arrays captured from globals, kept alive with the unit

    def __getstate__(self):
        """What pickling keeps (caching.py's entries, a pickled kernel): everything, except that
        a unit whose kernels hold a captured device array's address cannot be kept, since the
        address means nothing in another process (Numba's serializer refuses it so, with this
        PicklingError)."""
        if self.captured:
            import pickle
            raise pickle.PicklingError("Cannot serialize kernels or device functions referencing "
                                       "global device arrays. Pass the array(s) as arguments to "
                                       "the kernel instead.")
        return self.__dict__

    def where(self, line, col):
        """(file, line, column) in the user's source of a synthetic position, or None."""
        for start, p in self.segments:
            if 0 <= line - start < len(p.lines):
                return p.at(line - start + 1, col)
        return None

    def remap(self, exc):
        """The same error with every location in the user's source (CompileError: each
        diagnostic; other errors: FILE:LINE:COL at the start of a line of the message)."""
        diags = getattr(exc, "diagnostics", None)
        if diags:
            fixed = []
            for d in diags:
                at = self.where(d[1], d[2]) if d[0] == self.filename else None
                if at is None and d[0] == self.filename:
                    if d[3] == "note":
                        continue
                    at = ("<globals frozen by pyk2cuda>", d[1], d[2])
                fixed.append(tuple(at or d[:3]) + tuple(d[3:]))
            text = "\n".join("%s:%d:%d: %s: %s" % (f, l, c, s, m) for f, l, c, s, _, m in fixed)
        else:
            fixed = diags
            text = re.sub(r"(?m)^%s:(\d+):(\d+):" % re.escape(self.filename), self._fix_match, str(exc))
        new = type(exc)(text)
        for key in ("status", "status_name"):
            if hasattr(exc, key):
                setattr(new, key, getattr(exc, key))
        new.diagnostics = fixed if fixed is not None else []
        failure = getattr(exc, "failure", None)
        if failure and failure["file"] == self.filename:   # the data, as the text above
            at = self.where(failure["line"], failure["column"])
            if at:
                failure = dict(failure, file=at[0], line=at[1], column=at[2])
        new.failure = failure
        return new

    def _fix_match(self, m):
        at = self.where(int(m.group(1)), int(m.group(2)))
        return "%s:%d:%d:" % at if at else m.group(0)


class _Builder:
    def __init__(self, main, host=False):
        self.main = main
        self.host = host     # the module of a @jit function the host calls (build's kind 'host')
        self.imports = list(_HEADER)
        self.constants = []
        self.classes = []    # (name, lines) of each class kernels name
        self.exceptions = {}
        self.captured = []   # device arrays captured from globals (Unit.captured)
        self.pieces = []     # (_Piece, name, decorator)
        self.bound = {}      # name -> the object it stands for
        self.compiled = set()

    def add_function(self, func, name, decorator):
        piece = _Piece(func)
        self.pieces.append((piece, name, decorator))
        self.compiled.add((id(func), name))
        self.bound[name] = func
        for free, line, col in piece.free_names():
            self.bind(func, piece, free, line, col)
        return piece   # stencil.py rewrites its lines after its names are bound

    def bind(self, func, piece, name, line, col):
        found, value = _lookup(func, name)
        if not found or value is func:
            return
        if _is_user_module(value):
            self._bind_module_attributes(func, piece, name, value)
            return
        self._bind_value(piece, name, value, line, col)

    def _bind_module_attributes(self, func, piece, name, module):
        """`mod.f` of a module of the user's (not a library's): each such attribute becomes the
        name `mod_f`, which has the same length (the '.' becomes '_', so every column stays),
        bound to the attribute's value as any global is."""
        used = set(func.__code__.co_varnames) | set(func.__code__.co_names) | set(func.__code__.co_freevars)
        for attr, line, col in piece.attribute_uses(name):
            flat = "%s_%s" % (name, attr)
            if flat in used and flat not in self.bound:
                _fail(piece, line, col, "'%s.%s' cannot be compiled: the function also uses the name "
                      "'%s'" % (name, attr, flat))
            if not hasattr(module, attr):
                _fail(piece, line, col, "module '%s' has no attribute '%s'" % (module.__name__, attr))
            piece.flatten(line, col, name, attr)
            self._bind_value(piece, flat, getattr(module, attr), line, col, "%s.%s" % (name, attr))

    def _bind_value(self, piece, name, value, line, col, shown=None):
        """Binds `name` to `value` as _classify says; `shown` is the user's spelling of the name
        in messages (mod.f for mod_f)."""
        if name in self.bound:
            old = self.bound[name]
            if old is value or _same_callee(old, value) or _classify(name, old) == _classify(name, value):
                return
            _fail(piece, line, col, "'%s' names two different objects in the functions compiled "
                  "together (%s and %s); rename one" % (shown or name, _kind(self.bound[name]), _kind(value)))
        self.bound[name] = value
        in_host = getattr(value, "_p2c_in_host_module", None)
        if self.host and in_host is not None:   # a @stencil called in a @jit function (stencil.py)
            in_host(self, name)
            return
        declaration = getattr(value, "_p2c_declaration", None)
        if callable(declaration):   # cuda.declare_device's function: its declaration, as written
            self.constants.append(declaration(name))
            return
        refused = getattr(value, "_p2c_refused_in_kernels", None)
        if isinstance(refused, str):   # a host name kernels cannot use, with its reason
            _fail(piece, line, col, "'%s' cannot be used in a kernel: it is %s" % (shown or name, refused))
        if getattr(value, "_can_compile", True) is False:   # Numba's @jit(sig): no new types
            _fail(piece, line, col, "Untyped global name '%s': using cpu function on device but its "
                  "compilation is disabled (Numba's @jit with signatures compiles only those, for the "
                  "CPU; use @cuda.jit(device=True) or @jit without signatures)" % (shown or name))
        what = _classify(name, value)
        if what is None:
            _fail(piece, line, col, "Untyped global name '%s': a global of type %s, which kernels "
                  "cannot use (they can use modules, numbers, tuples, NumPy arrays, types and jitted "
                  "functions)" % (shown or name, _kind(value)))
        kind, text = what
        if kind == "captured":
            self.captured.append(value)
            kind = "constant"
        if kind == "import":
            self.imports.append(text)
        elif kind == "constant":
            self.constants.append("%s = %s" % (name, text))
        elif kind == "class":
            self._add_class(piece, line, col, name, value)
        elif (id(text), name) not in self.compiled:
            self.add_function(text, name, _device_decorator(value))

    def _add_class(self, piece, line, col, name, cls):
        """An exception class as `class NAME(Exception): pass`; an Enum or IntEnum class with
        its members (aliases included) and their values, which must be constants."""
        if issubclass(cls, BaseException):
            self.exceptions[name] = cls
            self.classes.append((name, ["class %s(Exception):" % name, "    pass"]))
            return
        import enum
        base = "__p2c_IntEnum" if issubclass(cls, enum.IntEnum) or _is_fast_int_enum(cls) else "__p2c_Enum"
        lines = ["class %s(%s):" % (name, base)]
        for member, obj in cls.__members__.items():
            text = _constant(int(obj) if isinstance(obj, int) else obj.value)
            if text is None:
                _fail(piece, line, col, "enum '%s' cannot be used in kernels: member '%s' has a "
                      "value of type %s, which is not a constant number" % (name, member, _kind(obj.value)))
            lines.append("    %s = %s" % (member, text))
        if _ENUM_IMPORT not in self.imports:
            self.imports.append(_ENUM_IMPORT)
        self.classes.append((name, lines if len(lines) > 1 else lines + ["    pass"]))

    def unit(self):
        pieces = [(name, piece, decorator, piece.renamed(name)) for piece, name, decorator in self.pieces]
        u = _laid_out(self.main.file, _Parts(self.imports, pieces, self.constants, self.classes),
                      self.exceptions)
        u.captured = list(self.captured)
        return u


class _Parts:
    """What a Unit's module is made of, kept so that units can be merged (merge): the import
    lines, the functions as (name, _Piece, decorator, lines), the constants' lines ("N = 4") and
    the classes as (name, lines)."""

    def __init__(self, imports, pieces, constants, classes):
        self.imports, self.pieces = list(imports), list(pieces)
        self.constants, self.classes = list(constants), list(classes)


def _laid_out(filename, parts, exceptions):
    """The Unit of `parts`: the imports, then each function of the user's file at its own line
    (blank lines pad the module; functions from other files follow where they fall), then the
    constants and the classes."""
    u = Unit(filename)
    u.exceptions = dict(exceptions)
    u.parts = parts
    out = list(parts.imports)
    for name, piece, decorator, lines in parts.pieces:
        if piece.file == u.filename:
            while len(out) < piece.def_line - 2:
                out.append("")
        out.append(decorator)
        u.segments.append((len(out) + 1, piece))
        out.extend(lines)
    out.extend(parts.constants)
    for _, lines in parts.classes:
        out.extend(lines)
    u.source = ("\n".join(out) + "\n").encode()
    return u


def _import_names(line):
    """The names an import line binds ("import numpy as np": np)."""
    node = ast.parse(line).body[0]
    return [a.asname or a.name.split(".")[0] for a in node.names]


def merge(units):
    """One Unit holding the functions of several units of one file (the Python package's signed
    kernels of a module, compiled as one program: cuda.py, _batch), each global as each unit froze
    it; None when they cannot share a module: a name defined differently in two of them (two
    kernels of one name, a global frozen with two values, a unit without its parts)."""
    parts = [getattr(u, "parts", None) for u in units]
    if not units or None in parts or len({u.filename for u in units}) != 1:
        return None
    defined = {}   # name -> the text that defines it in the merged module
    merged = _Parts([], [], [], [])
    for p in parts:
        for line in p.imports:
            if line not in merged.imports:
                if any(defined.setdefault(n, line) != line for n in _import_names(line)):
                    return None
                merged.imports.append(line)
        for name, piece, decorator, lines in p.pieces:
            text = (piece.file, piece.def_line, decorator, tuple(lines))
            if defined.setdefault(name, text) != text:
                return None
            if all(n != name for n, _, _, _ in merged.pieces):
                merged.pieces.append((name, piece, decorator, lines))
        for line in p.constants:
            name = line.split(" = ", 1)[0]
            if defined.setdefault(name, line) != line:
                return None
            if line not in merged.constants:
                merged.constants.append(line)
        for name, lines in p.classes:
            if defined.setdefault(name, tuple(lines)) != tuple(lines):
                return None
            if all(n != name for n, _ in merged.classes):
                merged.classes.append((name, lines))
    exceptions = {}
    for u in units:
        for name, cls in u.exceptions.items():
            if exceptions.setdefault(name, cls) is not cls:
                return None
    filename = units[0].filename
    captured = [a for u in units for a in getattr(u, "captured", ())]
    own = sorted((p for p in merged.pieces if p[1].file == filename), key=lambda p: p[1].def_line)
    merged.pieces = own + [p for p in merged.pieces if p[1].file != filename]
    u = _laid_out(filename, merged, exceptions)
    u.captured = captured
    return u


def _device_decorator(value):
    """The decorator of a device function the kernel calls: with its own signatures when it is
    a @cuda.jit(sig, device=True) function, whose calls convert their arguments to them as
    Numba's do; a bare one (typed per call) otherwise."""
    sigs = getattr(value, "_p2c_device_sigs", None) or []
    given = "".join("%r, " % s for s in sigs) if len(sigs) <= 1 else "%r, " % list(sigs)
    return "@%s.jit(%sdevice=True)" % (_CUDA, given)


def _same_callee(a, b):
    return getattr(a, "py_func", a) is getattr(b, "py_func", b)


def _kind(value):
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__name__)


def _fail(piece, line, col, message):
    at = piece.at(line, col + 1)
    exc = CompileError("%s:%d:%d: error: %s" % (at + (message,)))
    exc.status, exc.status_name = 1, "source"
    exc.diagnostics = [at + ("error", "E-global-type", message)]
    raise exc


def _lookup(func, name):
    """(found, value) of a free name: the closure's cell, else the function's globals. Builtins
    are the translator's own (range, len, ...), so they are not looked up."""
    code = func.__code__
    if name in code.co_freevars and func.__closure__:
        cell = func.__closure__[code.co_freevars.index(name)]
        try:
            return True, cell.cell_contents
        except ValueError:
            return False, None
    if name in func.__globals__:
        return True, func.__globals__[name]
    return False, None


def _classify(name, value):
    """('import', line), ('constant', text), ('function', pyfunc) or None."""
    if isinstance(value, _pytypes.ModuleType):
        return "import", _import_line(value.__name__, name)
    py = getattr(value, "py_func", None)
    if isinstance(py, _pytypes.FunctionType):
        return "function", py
    if _is_class_kernels_name(value):
        return "class", value
    if isinstance(value, str):
        return "constant", repr(value)
    if _is_enum_member(value):
        return None   # Numba freezes the member; pyk2cuda reads members through their class
    interface = _device_interface(value)
    if interface is not None:
        return _captured(interface)
    text = _constant(value)
    if text is not None:
        return "constant", text
    return _named_import(name, value)


# Top-level packages whose modules the translator knows by their import lines (_MODULES); any
# other module is the user's, whose attributes are bound one by one (_bind_module_attributes).
_LIBRARIES = ("math", "cmath", "operator", "numpy", "numba", "pyk2cuda", "enum")


def _is_user_module(value):
    return isinstance(value, _pytypes.ModuleType) and value.__name__.split(".")[0] not in _LIBRARIES


def _is_class_kernels_name(value):
    """An exception class, or an Enum/IntEnum class (enum is imported when one exists), or an
    integer enum of cuda.bindings (cudaRoundMode, which numba-cuda's fp8 intrinsics take)."""
    if not isinstance(value, type):
        return False
    if issubclass(value, BaseException) or _is_fast_int_enum(value):
        return True
    import sys
    enum = sys.modules.get("enum")
    return enum is not None and issubclass(value, enum.Enum)


def _is_fast_int_enum(cls):
    """cuda.bindings' enums (its FastEnum classes): int subclasses with __members__, frozen as an
    IntEnum of the same members."""
    return (type(cls).__name__ == "FastEnumMetaclass" and type(cls).__module__.startswith("cuda.bindings")
            and issubclass(cls, int) and isinstance(getattr(cls, "__members__", None), dict))


def _is_enum_member(value):
    import sys
    enum = sys.modules.get("enum")
    return enum is not None and isinstance(value, enum.Enum)


def _device_interface(value):
    """The __cuda_array_interface__ of a device array (pyk2cuda's, Numba's or another library's),
    or None for anything else (an array whose interface cannot be made: a record array's)."""
    try:
        interface = getattr(value, "__cuda_array_interface__", None)
    except (AttributeError, TypeError):
        return None
    return interface if isinstance(interface, dict) else None


def _captured(interface):
    """('captured', text): a device array a kernel reads from a global, as numba-cuda captures one:
    its pointer, shape and strides frozen into the code (src/frontend/lower_captured.c), so the
    kernel reads and writes the array's memory as it is at each launch; None where its typestr
    is not a number type's."""
    shape = tuple(int(n) for n in interface["shape"])
    typestr = interface["typestr"]
    np = _numpy_if_loaded()
    if np is None or np.dtype(typestr).kind not in "biufc":
        return None
    strides = interface.get("strides") or _types._c_strides(shape, np.dtype(typestr).itemsize)
    return "captured", "%s._captured_array(%#x, %r, %r, %r)" % (
        _CUDA, int(interface["data"][0]), shape, tuple(int(s) for s in strides), typestr)


def _import_line(module, alias):
    """The import that gives the translator `module` under the user's name for it."""
    line = _MODULES.get(module)
    if line is None:
        if module.startswith("pyk2cuda."):
            module = "numba." + module[len("pyk2cuda."):]
        parent, _, last = module.rpartition(".")
        line = "from %s import %s" % (parent, last) if parent else "import " + module
    return line if line.rsplit(" ", 1)[1] == alias else line + " as " + alias


def _named_import(name, value):
    """A numba type, a CUDA vector type, or a function or type of math/cmath/operator/numpy, as
    an import."""
    mod = type(value).__module__ or ""
    if mod == "pyk2cuda.vector_types":
        return "import", "from numba.cuda import %s as %s" % (value.name, name)
    if mod.startswith("pyk2cuda.types") or mod.startswith("numba.core.types"):
        try:
            text = _type_text(value)
        except TypeError:
            return None
        if re.fullmatch(r"[a-z0-9_]+", text):
            return "import", "from numba import %s as %s" % (text if text != "bool" else "boolean", name)
        return None
    numba_name = getattr(value, "_p2c_import", None)   # pyk2cuda's own numba names (prange)
    if isinstance(numba_name, str):
        return "import", "from numba import %s as %s" % (numba_name, name)
    path = getattr(value, "_p2c_path", None)   # a name of a numba module the translator knows (bf16)
    if isinstance(path, str):
        module, _, last = path.rpartition(".")
        return "import", "from %s import %s as %s" % (module, last, name)
    own = getattr(value, "__name__", None)
    if not isinstance(own, str):
        return None
    for module in _FUNCTION_MODULES:
        m = __import__(module)
        if getattr(m, own, None) is value:
            return "import", "from %s import %s as %s" % (module, own, name)
    return None


def _constant(value):
    """The source text of a constant Numba would freeze, or None."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):   # np.float64 too (a float subclass), whose NumPy 2 repr is np.float64(...)
        value = float(value)
        return repr(value) if value == value and abs(value) != float("inf") else (
            "1e999" if value > 0 else "-1e999" if value < 0 else "(1e999 - 1e999)")
    if isinstance(value, complex):
        return "complex(%s, %s)" % (_constant(value.real), _constant(value.imag))
    if isinstance(value, tuple):
        parts = [_constant(v) for v in value]
        if any(p is None for p in parts):
            return None
        return "(" + "".join(p + ", " for p in parts) + ")"
    np = _numpy_if_loaded()
    if np is None:
        return None
    if isinstance(value, np.generic):
        name = value.dtype.name
        if name in _PLAIN_NUMPY:
            return _constant(_PLAIN_NUMPY[name](value))
        if value.dtype.kind in "biufc":
            return "%s.%s(%s)" % (_NUMPY, name, _constant(value.item()))
        if value.dtype.kind in "mM":   # a count of its unit (the generic unit is not frozen)
            unit = np.datetime_data(value.dtype)
            if unit[1] != 1 or unit[0] == "generic":
                return None
            count = value.view(np.int64).item()
            return "%s.%s(%s, %r)" % (_NUMPY, "datetime64" if value.dtype.kind == "M" else "timedelta64",
                                      "'NaT'" if count == np.iinfo(np.int64).min else count, unit[0])
        return None
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        return "%s.array(%s, dtype=%s.%s)" % (_NUMPY, _items_text(value.tolist()), _NUMPY, value.dtype.name)
    if isinstance(value, np.ndarray) and value.dtype.names is not None and value.ndim == 1:
        dtype = _record_dtype(np, value.dtype)   # an array of records: its items as tuples
        items = [tuple(f.tolist() if isinstance(f, np.ndarray) else f for f in item)
                 for item in value.tolist()]
        return None if dtype is None else "%s.array(%r, dtype=%s)" % (_NUMPY, items, dtype)
    return _record_dtype(np, value)


def _items_text(items):
    """An array's tolist() as source text: nested lists of its numbers, each as _constant
    writes it (inf and NaN as the float expressions the translator folds; repr would give
    the names inf and nan)."""
    if isinstance(items, list):
        return "[" + ", ".join(_items_text(v) for v in items) + "]"
    return _constant(items)


def _record_dtype(np, value):
    """A record dtype (a structured NumPy dtype, or a record type of one: pyk2cuda's from_dtype
    or Numba's own numba.np.numpy_support.from_dtype, which scripts import) as the
    np.dtype([...], align=...) the translator evaluates, where that call makes the same dtype
    (fields of number types and their nested arrays, and of NumPy's S<n> and U<n>, at NumPy's
    own offsets); else None."""
    is_record_type = isinstance(value, _types.RecordType) or type(value).__name__ == "Record"
    dtype = getattr(value, "dtype", None) if is_record_type else value
    if not isinstance(dtype, np.dtype) or dtype.names is None:
        return None
    fields = []
    for name in dtype.names:
        sub = dtype.fields[name][0]
        if sub.base.kind in "SU" and not sub.shape and _types._charseq_of(sub.base) is not None:
            fields.append((name, sub.base.str))   # '<U12', '|S5': a character sequence field
            continue
        if sub.base.kind not in "biufc" or sub.base.names is not None:
            return None
        fields.append((name, sub.base.name) + ((sub.shape,) if sub.shape else ()))
    aligned = bool(dtype.isalignedstruct)
    if np.dtype(fields, align=aligned) != dtype:
        return None   # explicit offsets or an itemsize of its own: not NumPy's layout
    return "%s.dtype(%r, align=%r)" % (_NUMPY, fields, aligned)


def _numpy_if_loaded():
    import sys
    return sys.modules.get("numpy")


def build(func, kind="kernel", signatures=None, options=None, layout=None, name=None):
    """The Unit for `func`: kind 'kernel' (signatures are passed to the translator apart; options,
    the decorator's debug= and boundscheck= as given, are written into `@cuda.jit(...)`, where the
    translator reads what they mean), 'ufunc' (its signature texts are written into the
    @vectorize decorator), 'gufunc' (its signature texts and layout into the @guvectorize
    decorator, from which the translator makes the gufunc's kernel) or 'host' (a @jit function
    the host calls: `@numba.njit`, with its signatures and options). `name`: the function's
    name in the module, where not its own (compile's abi_name)."""
    piece = _Piece(func)
    b = _Builder(piece, host=kind == "host")
    given = ", ".join("%s=%s" % (name, _option_text(name, value)) for name, value in sorted((options or {}).items()))
    if kind == "ufunc":
        decorator = "@%s([%s], target='cuda')" % (_VECTORIZE, ", ".join(repr(s) for s in signatures))
    elif kind == "gufunc":
        decorator = "@%s([%s], %r, target='cuda')" % (_GUVECTORIZE, ", ".join(repr(s) for s in signatures),
                                                     layout)
    elif kind == "host":   # a @jit function the host calls: its signatures in the decorator
        parts = (["[%s]" % ", ".join(repr(s) for s in signatures)] if signatures else []) + ([given] if given else [])
        decorator = "@%s%s" % (_NJIT, "(%s)" % ", ".join(parts) if parts else "")
    else:
        decorator = "@%s.jit%s" % (_CUDA, "(%s)" % given if given else "")
    b.add_function(func, name or function_name(func), decorator)
    return b.unit()


def _option_text(name, value):
    """A decorator option's value as the translated source writes it: link='s files, the ints of
    launch_bounds= (an int or a tuple of them), else the value's truth."""
    if name == "link":
        return link_text(value)
    if name == "launch_bounds":
        return repr(int(value) if isinstance(value, int) else tuple(int(v) for v in value))
    return repr(bool(value))


def link_text(items):
    """A link= list as the translated source writes it, where the translator reads it
    (src/frontend/lower_link.c): a path made absolute now (Numba opens a relative one from the
    current directory), numba-cuda's cuda.CUSource as `cuda.CUSource(text, name)`. Other code held
    in memory (PTXSource, Cubin, ...) is refused, as the translator refuses those files."""
    parts = []
    for item in items:
        if isinstance(item, (str, os.PathLike)):
            parts.append(repr(os.path.abspath(os.fspath(item))))
        elif type(item).__name__ == "CUSource" and hasattr(item, "data"):
            data = item.data.decode() if isinstance(item.data, bytes) else item.data
            parts.append("%s.CUSource(%r, %r)" % (_CUDA, data, item.name))
        else:
            raise Error("cannot link %r: pyk2cuda links only CUDA C into kernels (.cu files or "
                        "cuda.CUSource), which it compiles with the kernel for the GPU and for the "
                        "simulator" % (item,))
    return "[%s]" % ", ".join(parts)


def declare_device_line(name, symbol, sig, link, abi):
    """`name = cuda.declare_device(...)` in the translated module: an external device function."""
    return "%s = %s.declare_device(%r, %r, link=%s, abi=%r)" % (name, _CUDA, symbol, sig, link_text(link), abi)


def function_name(func):
    """The name `func` has in the translated module: its own, or `_lambda` for a lambda."""
    return func.__name__ if func.__name__.isidentifier() else "_lambda"

