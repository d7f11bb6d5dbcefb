"""numba.cuda.deviceufunc (numba-cuda's): how a generalized ufunc's call is scheduled.

GUFuncEngine.from_signature('(m,n),(n,p)->(m,p)').schedule(input shapes) gives the
GUFuncSchedule a CUDA gufunc (cuda.GUFunc) launches with: each input's core shape (ishapes),
each output's (oshapes), the loop dimensions (loopdims: the largest of the inputs' outer shapes),
their product (loopn, the threads launched), which inputs are the same for every loop index
(pinned: an outer shape () or (1,)), and the outputs' whole shapes (output_shapes). The layout is
read by the translator's own reader (p2c_gufunc_layout), the one place of its grammar, so a layout
the decorator takes is scheduled as it was compiled. The rules, and the errors' texts, are
Numba's (docs/python.md, "Generalized ufuncs")."""
from . import _core

__all__ = ["parse_signature", "GUFuncEngine", "GUFuncSchedule"]


def parse_signature(sig):
    """'(m,n),(n,p)->(m,p)' as ([('m', 'n'), ('n', 'p')], [('m', 'p')]): the inputs' and the
    outputs' dimension names. A ValueError says why a text is not a layout (an output dimension
    no input names included)."""
    inputs, outputs = _core.gufunc_layout(sig)
    return list(inputs), list(outputs)


def _product(shape):
    """The number of elements of `shape` (1 for ())."""
    n = 1
    for d in shape:
        n *= d
    return n


class GUFuncSchedule:
    """One call's schedule (GUFuncEngine.schedule): ishapes, oshapes, loopdims, loopn, pinned
    and output_shapes, as Numba's GUFuncSchedule names them."""

    def __init__(self, parent, ishapes, oshapes, loopdims, pinned):
        self.parent = parent
        self.ishapes = ishapes
        self.oshapes = oshapes
        self.loopdims = loopdims
        self.loopn = _product(loopdims)
        self.pinned = pinned
        self.output_shapes = [loopdims + s for s in oshapes]

    def __str__(self):
        import pprint
        names = ("ishapes", "oshapes", "loopdims", "loopn", "pinned")
        return pprint.pformat({name: getattr(self, name) for name in names})


class GUFuncEngine:
    """The scheduler of one layout: sin and sout (the inputs' and outputs' dimension names),
    nin and nout (their counts)."""

    @classmethod
    def from_signature(cls, signature):
        return cls(*parse_signature(signature))

    def __init__(self, inputsig, outputsig):
        self.sin = [tuple(s) for s in inputsig]
        self.sout = [tuple(s) for s in outputsig]
        self.nin = len(self.sin)
        self.nout = len(self.sout)

    def _split(self, shapes):
        """Each input's (outer shape, core shape), and each dimension name's size; a ValueError
        where an input has too few dimensions or two sizes for one name."""
        sizes, split = {}, []
        for n, (shape, names) in enumerate(zip(shapes, self.sin), 1):
            shape = tuple(shape)
            if len(shape) < len(names):
                raise ValueError("arg #%d: insufficient inner dimension" % n)
            cut = len(shape) - len(names)
            for axis, (dim, name) in enumerate(zip(shape[cut:], names), cut):
                if sizes.setdefault(name, dim) != dim:
                    raise ValueError("arg #%d: shape[%d] mismatch argument" % (n, axis))
            split.append((shape[:cut], shape[cut:]))
        return split, sizes

    def schedule(self, ishapes):
        """The GUFuncSchedule of a call whose inputs have these shapes: the loop dimensions are
        the largest outer shape (the first of the largest); every other input's outer shape must
        be it, or () or (1,) (pinned: the same core for every loop index)."""
        if len(ishapes) != self.nin:
            raise TypeError("invalid number of input argument")
        split, sizes = self._split(ishapes)
        outer = [o for o, _ in split]
        counts = [_product(o) for o in outer]
        loopdims = outer[counts.index(max(counts))] if outer else ()
        pinned = []
        for n, o in enumerate(outer, 1):
            if o != loopdims and o not in ((), (1,)):
                raise ValueError("arg #%d: outer dimension mismatch" % n)
            pinned.append(o != loopdims)
        oshapes = [tuple(sizes[name] for name in names) for names in self.sout]
        return GUFuncSchedule(self, [core for _, core in split], oshapes, loopdims, pinned)
