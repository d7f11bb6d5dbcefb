"""numba.cuda's vector types: `cuda.float32x4`, `cuda.int2`, ... (docs/python.md, "Vector types").

Each is a name kernels call (`v = cuda.float32x4(a, b, c, d)`, then `v.x`); the translator types
and compiles them (src/typeinfer/infer_vector.c). On the host they are only names: calling one
outside a kernel is an error, as in Numba. `vector_types` maps each of Numba's names to its
object, as numba.cuda.vector_types does; `aliases` lists the other names of the same object
(`float4` for float32x4; long and ulong are 64 bits, as on Linux)."""
from ._core import Error
from . import types as _types

_BASES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
          "float64"]
# Numba's C names for the base types, on Linux (long is 64 bits there).
_ALIASES = {"char": "int8", "short": "int16", "int": "int32", "long": "int64",
            "longlong": "int64", "uchar": "uint8", "ushort": "uint16", "uint": "uint32",
            "ulong": "uint64", "ulonglong": "uint64", "float": "float32", "double": "float64"}
_LANES = "xyzw"


class VectorType:
    """One vector type: `name` ("float32x4"), `base_type` (pyk2cuda.float32), `num_elements`
    (4), `aliases` (["float4"]). The same object stands for the type and its constructor
    (Numba's user_facing_object)."""

    def __init__(self, base, lanes):
        self.name = self.__name__ = "%sx%d" % (base, lanes)
        self.base_type = getattr(_types, base)
        self.num_elements = lanes
        self.attr_names = tuple(_LANES[:lanes])
        self.aliases = []

    @property
    def user_facing_object(self):
        return self

    def __call__(self, *args):
        raise Error("cuda.%s() can only be called in a kernel or device function" % self.name)

    def __repr__(self):
        return "<%s>" % self.name


vector_types = {}
for _base in _BASES:
    for _lanes in range(1, 5):
        _v = VectorType(_base, _lanes)
        vector_types[_v.name] = _v
for _alias, _base in _ALIASES.items():
    for _lanes in range(1, 5):
        vector_types["%sx%d" % (_base, _lanes)].aliases.append("%s%d" % (_alias, _lanes))
del _base, _lanes, _v, _alias


def all_names():
    """{name: object} of every vector type name and alias, as numba.cuda exports them."""
    names = dict(vector_types)
    for v in vector_types.values():
        for a in v.aliases:
            names[a] = v
    return names
