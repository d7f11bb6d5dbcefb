"""numba.cuda.extending (numba.extending's CUDA twin), numba.cuda.misc.special and numba.cuda.utils,
as pyk2cuda answers them (cuda.SUBMODULES serves them as numba.cuda.extending, numba.cuda.misc,
numba.cuda.misc.special and numba.cuda.utils; docs/python.md, "Modules a program imports").

- register_jitable(func), register_jitable(**options)(func): a plain Python function that
  kernels and @jit functions may call, compiled into them as a device function; called from the
  host it runs as Python, as in Numba.
- literal_unroll(container): Numba's marker of a loop over a tuple (`for x in
  literal_unroll(t)`); in a kernel the translator reads it (src/builtins/table.c), and called
  from the host it returns its argument, as Numba's does.
- The rest of Numba's extension API (overload, overload_method, overload_attribute, intrinsic,
  type_callable, make_attribute_wrapper...) extends Numba's own typing and lowering, which
  pyk2cuda does not have: the names exist so that a module importing them loads, and using
  one is a NotImplementedError that says so.
- utils.PYVERSION: the running Python's (major, minor), which scripts compare versions with."""
import functools
import sys
import types as _pytypes


class _Jitable:
    """A function of register_jitable: callable from the host (plain Python) and, through
    py_func, a device function of the kernels that use it (source.py classifies by py_func)."""

    def __init__(self, func):
        self.py_func = func
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)


def register_jitable(*args, **options):
    """Numba's register_jitable: `@register_jitable` or `@register_jitable(**options)`; the
    options are Numba's jit options, which change nothing in the C a device function becomes."""
    if len(args) == 1 and not options and isinstance(args[0], _pytypes.FunctionType):
        return _Jitable(args[0])
    if args:
        raise TypeError("register_jitable takes a function, or keyword options only")
    return _Jitable


def literal_unroll(container):
    """Numba's literal_unroll: its argument, unchanged, when called from the host."""
    return container


literal_unroll._p2c_import = "literal_unroll"   # how source.py writes it into a translated module


def _unsupported(name):
    """A name of Numba's extension API: importable; calling it says why pyk2cuda cannot."""
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            "numba.cuda.extending.%s is Numba's extension API, which extends Numba's own typing "
            "and lowering: pyk2cuda compiles kernels with its own compiler and has no such API "
            "(write the implementation as a device function, or use register_jitable)" % name)
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


_EXTENSION_API = ("overload", "overload_method", "overload_attribute", "overload_classmethod",
                  "intrinsic", "type_callable", "make_attribute_wrapper", "lower_builtin",
                  "lower_getattr", "lower_getattr_generic", "lower_setattr",
                  "lower_setattr_generic", "lower_cast", "typeof_impl", "register_model",
                  "box", "unbox", "reflect")


def _module(name, doc, **names):
    m = _pytypes.ModuleType(name, doc)
    m.__dict__.update(names)
    return m


extending = _module("pyk2cuda.cuda.extending", __doc__, register_jitable=register_jitable,
                    **{name: _unsupported(name) for name in _EXTENSION_API})
special = _module("pyk2cuda.cuda.misc.special", "numba.cuda.misc.special: literal_unroll.",
                  literal_unroll=literal_unroll)
misc = _module("pyk2cuda.cuda.misc", "numba.cuda.misc: its special module.", special=special)
utils = _module("pyk2cuda.cuda.utils", "numba.cuda.utils: PYVERSION.", PYVERSION=sys.version_info[:2])
