"""Numba's type names, importable from pyk2cuda: `float32`, `int32[:, ::1]`, `void(float32[:])`.

They exist to be written in signatures, as in Numba; str() of each is the signature text the
compiler reads (a signature is always handed to the C library as that text, never evaluated)."""

_SCALARS = ["boolean", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
            "uint64", "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp",
            "double", "byte"]
# Spellings that name another type, as in Numba.
_ALIASES = {"boolean": "bool", "bool_": "bool", "intp": "int64", "uintp": "uint64",
            "double": "float64", "byte": "uint8"}


def _slice_text(s):
    if not isinstance(s, slice) or s.start is not None or s.stop is not None or s.step not in (None, 1):
        raise TypeError("array types are written with ':' and '::1', e.g. float32[:, ::1]")
    return "::1" if s.step == 1 else ":"


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
        dims = dims if isinstance(dims, tuple) else (dims,)
        return ArrayType(self, [_slice_text(d) for d in dims])

    def __call__(self, *args):
        """float32(int32[:]) is a signature; float32(2.5), as in Numba, the value as that type."""
        if len(args) == 1 and not isinstance(args[0], (Type, str)):
            return self.dtype.type(args[0])
        return Signature(self, args)

    @property
    def dtype(self):
        import numpy
        return numpy.dtype(self._text if self._text != "bool" else "bool")


class ArrayType(Type):
    def __init__(self, dtype, dims):
        self.dtype = dtype
        self.ndim = len(dims)
        self.layout = ("C" if dims[-1] == "::1" else "F" if dims[0] == "::1" else "A")
        super().__init__("%s[%s]" % (dtype, ", ".join(dims)))


class Signature(Type):
    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)
        super().__init__("%s(%s)" % (return_type, ", ".join(str(a) for a in args)))


class VoidType(Type):
    def __call__(self, *args):
        return Signature(self, args)


void = none = VoidType("void")
for _name in _SCALARS:
    globals()[_name] = ScalarType(_ALIASES.get(_name, _name))
del _name

__all__ = ["void", "none"] + _SCALARS
