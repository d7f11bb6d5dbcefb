"""Numba's type names, importable from pyk2cuda: `float32`, `int32[:, ::1]`, `void(float32[:])`.

They exist to be written in signatures, as in Numba; str() of each is the signature text the
compiler reads (a signature is always handed to the C library as that text, never evaluated)."""

from . import _core

# The library's one table of scalar type names (p2c_type_spelling, src/types/types.c): each name a
# signature may use, with Numba's meaning ("float_" is float32), and whether numba.core.types has
# it (those become this module's type objects; the others are NumPy's spellings).
_SPELLINGS = {name: canonical for name, canonical, _ in _core.type_spellings()}
_NUMBA_NAMES = [name for name, _, numba in _core.type_spellings() if numba]


def canonical_name(name):
    """The type's own name for a scalar type name ("f4", "float_" -> "float32"); other text as it is."""
    return _SPELLINGS.get(name, name)


def _slice_contiguous(s):
    """Whether slice s of an array type is '::1' (else ':'); anything else is a TypeError."""
    if not isinstance(s, slice) or s.start is not None or s.stop is not None or s.step not in (None, 1):
        raise TypeError("array types are written with ':' and '::1', e.g. float32[:, ::1]")
    return s.step == 1


class Type:
    """A type of a signature: a scalar type, an array type or a function signature. As Numba's
    types.Type, it is made with its name (`Type(name="...")`) and has `.name`."""

    def __init__(self, name):
        self._text = self.name = name

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text

    def __eq__(self, other):
        return isinstance(other, Type) and str(self) == str(other)

    def __hash__(self):
        return hash(self._text)


class ScalarType(Type):
    """float32, int64, ...: index it to make an array type, call it to make a signature."""

    def __getitem__(self, dims):
        dims = dims if isinstance(dims, tuple) and dims else (dims,)
        contiguous = [_slice_contiguous(d) for d in dims]
        return ArrayType(self, len(dims), _core.slices_layout(len(dims), contiguous[0], contiguous[-1]))

    def __call__(self, *args):
        """float32(int32[:]) is a signature; float32(2.5), as in Numba, the value as that type."""
        if len(args) == 1 and not isinstance(args[0], (Type, str)):
            return self.dtype.type(args[0])
        return Signature(self, args)

    @property
    def dtype(self):
        import numpy
        return numpy.dtype(self._text if self._text != "bool" else "bool")

    @property
    def bitwidth(self):
        """Numba's bitwidth of a number type: the bits of one value (8 for int8, 64 for float64)."""
        return self.dtype.itemsize * 8

    @property
    def underlying_float(self):
        """Numba's Complex.underlying_float: float32 for complex64, float64 for complex128."""
        if not self._text.startswith("complex"):
            raise AttributeError("'%s' has no underlying_float (not a complex type)" % self._text)
        return ScalarType("float%d" % (int(self._text[len("complex"):]) // 2))


class ArrayType(Type):
    """float32[:, ::1]; also made as Numba's types.Array(dtype, ndim, layout) ('C', 'F', 'A').
    Its text is the library's (p2c_array_dims): '::1' where the layout is contiguous."""

    def __init__(self, dtype, ndim, layout):
        if layout not in ("C", "F", "A") or isinstance(ndim, bool) or not isinstance(ndim, int):
            raise ValueError("Array(dtype, ndim, layout): ndim from 0 to 8, layout 'C', 'F' or 'A'")
        dims = _core.array_dims(ndim, layout)
        self.dtype = dtype
        self.ndim = ndim
        self.layout = layout
        super().__init__("%s%s" % (dtype, dims))


class Signature:
    """ret(args), made by calling a type. As Numba's Signature it is not a Type (Numba's tests
    tell a signature from a bare type by isinstance(sig, types.Type))."""

    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)
        self._text = "%s(%s)" % (return_type, ", ".join(str(a) for a in args))

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text

    def __eq__(self, other):
        return isinstance(other, Signature) and str(self) == str(other)

    def __hash__(self):
        return hash(self._text)


class BaseTuple(Type):
    """A tuple type, as Numba's: its element `types` in order, iterable and sized. Made as Numba
    makes them: Tuple(types) is a UniTuple when all elements are one type, else a Tuple."""

    def __init__(self, name, elems):
        self.types = tuple(elems)
        self.count = len(self.types)
        super().__init__(name)

    def __iter__(self):
        return iter(self.types)

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        return self.types[i]


class UniTuple(BaseTuple):
    """UniTuple(dtype, count): `count` values of type `dtype`, Numba's 'UniTuple(float64 x 2)'."""

    def __init__(self, dtype, count):
        self.dtype = dtype
        super().__init__("UniTuple(%s x %d)" % (dtype, count), [dtype] * count)


class Tuple(BaseTuple):
    """Tuple(types): values of several types, Numba's 'Tuple(float64, int32)'; one type
    throughout makes a UniTuple, as numba.types.Tuple does."""

    def __new__(cls, types):
        types = tuple(types)
        if types and all(t == types[0] for t in types):
            return UniTuple(types[0], len(types))
        return super().__new__(cls)

    def __init__(self, types):
        super().__init__("Tuple(%s)" % ", ".join(str(t) for t in types), types)


class CPointer(Type):
    """Numba's CPointer(dtype), a pointer to `dtype` values: its name is Numba's, 'float32*'.
    It exists so that code naming it imports and builds signatures; pyk2cuda's kernels take no
    pointers (an array is passed as a device array), so a signature with one is a TypeError
    naming it when a kernel is compiled for it (source.signature_text)."""

    def __init__(self, dtype, addrspace=None):
        self.dtype = dtype
        self.addrspace = addrspace
        super().__init__("%s*" % dtype)


class VoidType(Type):
    def __call__(self, *args):
        return Signature(self, args)


class RecordType(ScalarType):
    """A NumPy structured dtype as a type (Numba's Record, from_dtype(dtype)): its text is Numba's
    name of it, `Record(a[type=int32;offset=0],b[type=float64;offset=8];16;True)`, which is also
    the spelling signatures take; rec[:] is an array type."""

    def __init__(self, dtype):
        self._dtype = dtype
        super().__init__(record_name(dtype))

    @property
    def dtype(self):
        return self._dtype


class CharSeqType(ScalarType):
    """Numba's CharSeq(n) "[char x n]" (NumPy's S<n>) and UnicodeCharSeq(n) "[unichr x n]"
    (NumPy's U<n>): the element type of arrays of bytes and of str; seq[:] is an array type."""

    def __init__(self, chars, unicode):
        if not isinstance(chars, int) or isinstance(chars, bool) or not 1 <= chars <= 1 << 20:
            raise ValueError("a character sequence has 1 to 1048576 characters, not %r" % (chars,))
        self.count = chars
        self.unicode = unicode
        super().__init__("[%s x %d]" % ("unichr" if unicode else "char", chars))

    def __call__(self, *args):
        raise TypeError("%s is not callable (character sequences are array elements)" % self)

    @property
    def dtype(self):
        import numpy
        return numpy.dtype("%s%d" % ("<U" if self.unicode else "S", self.count))


def CharSeq(count):
    """Numba's types.CharSeq(count): NumPy's S<count>."""
    return CharSeqType(count, False)


def UnicodeCharSeq(count):
    """Numba's types.UnicodeCharSeq(count): NumPy's U<count>."""
    return CharSeqType(count, True)


def _charseq_of(dtype):
    """The character sequence type of an S<n> or U<n> dtype (native byte order), or None."""
    if dtype.kind == "S":
        return CharSeq(dtype.itemsize)
    if dtype.kind == "U" and dtype.byteorder in "=<|":
        return UnicodeCharSeq(dtype.itemsize // 4)
    return None


def _field_type_text(sub):
    if not sub.shape and _charseq_of(sub.base) is not None:
        return str(_charseq_of(sub.base))
    name = canonical_name(sub.base.name)
    if not sub.shape:
        return name
    dims = ", ".join(str(d) for d in sub.shape)
    return "nestedarray(%s, (%s%s))" % (name, dims, "," if len(sub.shape) == 1 else "")


def record_fields(dtype):
    """(itemsize, aligned, ((name, typestr, offset, shape), ...)) of a structured dtype, in
    dtype.names order: what the extension makes its P2cRecord from."""
    fields = []
    for name in dtype.names:
        sub, offset = dtype.fields[name][:2]
        if sub.base.names is not None:
            raise TypeError("record field '%s': records inside records are not supported" % name)
        fields.append((name, sub.base.str, offset, tuple(sub.shape)))
    return dtype.itemsize, bool(dtype.isalignedstruct), tuple(fields)


def record_name(dtype):
    """Numba's name of a structured dtype (str(numba.from_dtype(dtype)))."""
    parts = []
    for name in dtype.names:
        sub, offset = dtype.fields[name][:2]
        parts.append("%s[type=%s;offset=%d]" % (name, _field_type_text(sub), offset))
    return "Record(%s;%d;%s)" % (",".join(parts), dtype.itemsize, bool(dtype.isalignedstruct))


def from_dtype(dtype):
    """Numba's from_dtype: the type of a NumPy dtype (a scalar type, or a record type)."""
    import numpy
    dtype = numpy.dtype(dtype)
    if dtype.names is not None:
        return RecordType(dtype)
    if dtype.kind in "SU" and _charseq_of(dtype) is not None:
        return _charseq_of(dtype)
    if dtype.kind in "mM":   # Numba's NPDatetime(unit), NPTimedelta(unit): one unit, no multiple
        unit, count = numpy.datetime_data(dtype)
        if count != 1:
            raise TypeError("from_dtype: unsupported dtype %s (a unit with a multiple)" % dtype)
        return ScalarType(dtype.name)   # 'datetime64[D]', 'timedelta64' (the generic unit)
    name = "bool" if dtype == numpy.bool_ else dtype.name
    if name not in _SPELLINGS:
        raise TypeError("from_dtype: unsupported dtype %s" % dtype)
    return ScalarType(canonical_name(name))


def as_dtype(ty):
    """Numba's as_dtype: the NumPy dtype of a scalar or record type (from_dtype's inverse)."""
    if not isinstance(ty, ScalarType):
        raise TypeError("as_dtype: %s has no NumPy dtype" % ty)
    return ty.dtype


void = none = VoidType("void")
NoneType = VoidType   # Numba's class of `none` (compile_ptx's return type of a kernel)
# numba-cuda's bfloat16 (numba.cuda.types.bfloat16, numba.cuda.bf16.bfloat16): a type kernels
# compute with and convert to and from; not a signature's type (no NumPy dtype holds it).
bfloat16 = ScalarType("bfloat16")
# numba-cuda's fp8 types (numba.cuda._internal.cuda_fp8), likewise kernel-only.
fp8_e5m2, fp8_e4m3, fp8_e8m0 = ScalarType("fp8_e5m2"), ScalarType("fp8_e4m3"), ScalarType("fp8_e8m0")
for _fp8 in (fp8_e5m2, fp8_e4m3, fp8_e8m0):
    _fp8.__name__ = _fp8.name   # numba-cuda's are classes: tests name them by __name__
del _fp8
for _name in _NUMBA_NAMES:
    globals()[_name] = ScalarType(_SPELLINGS[_name])
del _name

Array = ArrayType

# Numba's domains, the sets of scalar types that `ty in types.signed_domain` asks of.
signed_domain = frozenset(ScalarType(n) for n in ("int8", "int16", "int32", "int64"))
unsigned_domain = frozenset(ScalarType(n) for n in ("uint8", "uint16", "uint32", "uint64"))
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset(ScalarType(n) for n in ("float32", "float64"))
complex_domain = frozenset(ScalarType(n) for n in ("complex64", "complex128"))
number_domain = integer_domain | real_domain | complex_domain


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def typeof(value):
    """Numba's typeof for the values a kernel takes: a Python bool, int, float or complex is bool,
    int64, float64 or complex128; a NumPy scalar its dtype's type; an array (NumPy, a device array
    or anything with __cuda_array_interface__) array(dtype, ndim, layout), where the layout is 'C'
    for a C-contiguous array (a 1-d contiguous one too), 'F' for a Fortran-contiguous one, else
    'A'. Anything else is a TypeError naming its class."""
    import numpy
    if isinstance(value, (bool, numpy.bool_)):
        return ScalarType("bool")
    if isinstance(value, int):
        return ScalarType("int64")
    if isinstance(value, float):
        return ScalarType("float64")
    if isinstance(value, complex):
        return ScalarType("complex128")
    if isinstance(value, numpy.generic):
        return from_dtype(value.dtype)
    shape = getattr(value, "shape", None)   # () for a 0-d array: array(dtype, 0d, C)
    if shape is not None and (isinstance(value, numpy.ndarray) or hasattr(value, "__cuda_array_interface__")):
        dtype = numpy.dtype(value.dtype)
        # its strides (a device array's None means C order), by the library's rule
        strides = tuple(value.strides or _c_strides(shape, dtype.itemsize))
        layout = _core.array_layout(dtype.itemsize, shape, strides)
        return ArrayType(from_dtype(dtype), len(shape), layout)
    raise TypeError("typeof: %s values have no type pyk2cuda's kernels take"
                    % type(value).__name__)


def parse_signature(text):
    """A signature written as Numba's text, 'int32(float32[:])', as the objects it names: a
    Signature, or a tuple of argument types where the text gives no return type
    ('(float32[:],)'), as Numba's normalize_signature reads it. Only type names, their
    subscripts with ':' and '::1', calls and tuples are read (nothing is evaluated); anything
    else is a TypeError naming the text."""
    import ast
    try:
        tree = ast.parse(text.strip(), mode="eval").body
        return _signature_node(tree)
    except (SyntaxError, TypeError, KeyError, AttributeError) as e:
        raise TypeError("bad signature %r: %s" % (text, e)) from None


def from_spelling(text):
    """The type object of the library's spelling of a type (a specialization's signature's
    return type, 'bool', 'int32', 'void', 'float32[::1]'): a scalar type by its own name, else
    what parse_signature reads."""
    if text in _SPELLINGS.values():
        return ScalarType(text)
    return parse_signature(text)


def _signature_node(node):
    """The object an expression node of a signature text names (parse_signature)."""
    import ast
    if isinstance(node, ast.Name):
        if node.id not in _NUMBA_NAMES + ["void", "none"]:
            raise TypeError("'%s' is not a type name" % node.id)
        return globals()[node.id]
    if isinstance(node, ast.Tuple):
        return tuple(_signature_node(e) for e in node.elts)
    if isinstance(node, ast.Call) and not node.keywords:
        return _signature_node(node.func)(*[_signature_node(a) for a in node.args])
    if isinstance(node, ast.Subscript):
        dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return _signature_node(node.value)[tuple(_slice_node(d) for d in dims)]
    raise TypeError("unexpected %s" % type(node).__name__)


def _slice_node(node):
    """':' or '::1' of an array type in a signature text."""
    import ast
    if not isinstance(node, ast.Slice) or node.lower or node.upper:
        raise TypeError("array types are written with ':' and '::1'")
    step = node.step
    if step is None:
        return slice(None)
    if isinstance(step, ast.Constant) and step.value == 1:
        return slice(None, None, 1)
    raise TypeError("array types are written with ':' and '::1'")


__all__ = ["void", "none", "from_dtype", "typeof", "CPointer", "Tuple", "UniTuple", "CharSeq", "UnicodeCharSeq"] + _NUMBA_NAMES
