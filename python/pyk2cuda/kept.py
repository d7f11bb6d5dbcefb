"""The text of code compiled from strings (`exec`, `eval`, `compile`), kept so that a kernel
defined in such code can be compiled (docs/python.md, "Functions defined by exec of a string").

Numba compiles bytecode; pyk2cuda compiles source, and a function made by `exec` of a string has
none that `inspect` can find: its file is '<string>', which linecache does not hold. From the
import of pyk2cuda on, an audit hook (PEP 578) sees each 'compile' event (the text and its file
name) and the 'exec' event that runs a code object. When an exec comes right after the compile
of a text whose file name is a pseudo name ('<string>', '<...>') and the code object has that
file name, each function's code object inside it is mapped to the text. The map holds the code
objects by identity and weakly, so it grows and shrinks with the functions that use them.

A function's kept text is used only if compiling that text again gives a code object equal to
the function's own (same bytecode, constants, names, line numbers and columns): a wrong pairing
gives no source, never another function's. Not kept: code compiled before pyk2cuda was imported,
from an AST, with an explicit optimize level other than the interpreter's, or whose compile and
exec are apart (another audited event in between, as when `compile()`'s result is run later).
The program of `python3 -c PROGRAM` is compiled before any import: sys.orig_argv holds it, and a
function whose file is '<string>' and whose code object it compiles to takes its text from there."""
import __future__
import importlib.util
import inspect
import sys
import types
import weakref

# id(code object) -> [a weak reference to it, the text it was compiled from, whether that text
# was checked to compile to it].
_texts = {}
# The last 'compile' event of a pseudo file name: (file name, text), until the next event.
_pending = None
_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
del _name


def _nested(code):
    """`code` and every code object inside it."""
    stack = [code]
    while stack:
        c = stack.pop()
        yield c
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))


def _forget(key, ref):
    entry = _texts.get(key)
    if entry is not None and entry[0] is ref:
        del _texts[key]


def _remember(code, text, checked):
    """Maps `code` to `text`, held weakly (the entry goes with the code object)."""
    key = id(code)
    _texts[key] = [weakref.ref(code, lambda ref, key=key: _forget(key, ref)), text, checked]


def _keep(top, text):
    """Maps the functions' code objects inside `top` (not `top`: exec runs it once) to `text`."""
    for c in _nested(top):
        if c is not top:
            _remember(c, text, False)


def _hook(event, args):
    """The audit hook: cheap for every other event, and it never raises (an exception here
    would abort the audited operation)."""
    global _pending
    if _pending is None and event != "compile":
        return
    try:
        if event == "compile":
            text, filename = args
            _pending = None
            if (isinstance(filename, str) and filename.startswith("<") and filename.endswith(">")
                    and isinstance(text, (str, bytes))):
                _pending = (filename, text)
            return
        filename, text = _pending
        _pending = None
        if event == "exec" and isinstance(args[0], types.CodeType) and args[0].co_filename == filename:
            _keep(args[0], text)
    except Exception:  # noqa: BLE001 (see the docstring)
        _pending = None


def _compiles_to(text, code):
    """Whether compiling `text` again gives a code object equal to `code`."""
    flags = code.co_flags & _FUTURE_FLAGS
    for mode in ("exec", "eval"):
        try:
            top = compile(text, code.co_filename, mode, flags=flags, dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        if any(c == code for c in _nested(top)):
            return True
    return False


# Options of the interpreter that take a value (`-W ignore`), so that it is not read as -c's.
_OPTIONS_WITH_VALUE = "WX"


def _command_line_program():
    """The program of `python3 -c PROGRAM` (sys.orig_argv, Python 3.10 and later), or None: the
    interpreter compiles it before pyk2cuda can be imported, so no audit event carries it."""
    argv = getattr(sys, "orig_argv", None) or []
    i = 1
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-") or arg == "-" or arg.startswith("--"):
            return None                  # a script, stdin, or a long option: no -c before it
        for j, flag in enumerate(arg[1:], 1):
            if flag == "m":
                return None
            if flag == "c" or flag in _OPTIONS_WITH_VALUE:
                value = arg[j + 1:] or (argv[i + 1] if i + 1 < len(argv) else None)
                if flag == "c":
                    return value
                i += 0 if arg[j + 1:] else 1
                break
        i += 1
    return None


def _keep_command_line_program(code):
    """Keeps the -c program for `code` when it compiles to it (a function defined there)."""
    text = _command_line_program()
    if text is not None and _compiles_to(text, code):
        _remember(code, text, True)


def source_lines(code):
    """(the lines of the function whose code object is `code`, its first line number) from the
    text it was compiled from, as inspect.getsourcelines gives them; None when there is none."""
    if id(code) not in _texts and code.co_filename == "<string>":
        _keep_command_line_program(code)
    entry = _texts.get(id(code))
    if entry is None or entry[0]() is not code:
        return None
    text = entry[1]
    if not entry[2]:
        if not _compiles_to(text, code):
            return None
        entry[2] = True
    if isinstance(text, bytes):
        text = importlib.util.decode_source(text)
    lines = text.splitlines(True)
    first = code.co_firstlineno
    if not 1 <= first <= len(lines):
        return None
    return inspect.getblock(lines[first - 1:]), first


sys.addaudithook(_hook)
