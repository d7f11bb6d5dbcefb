#!/usr/bin/python3
"""The oracle of the differential tests: run one kernel in Numba's CUDA simulator.

    /usr/bin/python3 tests/diff/oracle.py FILE.py KERNEL --grid X[,Y[,Z]] --block X[,Y[,Z]]
                     --out-dir DIR [--seed N] [--shared BYTES] ARG...

FILE.py is imported as a module (its `if __name__ == "__main__":` block does not run),
KERNEL is looked up in it, the ARGs are built with the same syntax as `pyk2cuda run`
(see /work/shared/design.md and tests/diff/README.md), the kernel is launched as
`kernel[grid, block, 0, shared](*args)` (shared: the dynamic shared memory per block, 0 by
default), and every array argument is written afterwards to
DIR/<parameter name>.npy.

ARG forms:
    PATH.npy                 an input array (np.load, no pickles)
    zeros:DTYPE[d0,d1,...]   new array of zeros
    ones:DTYPE[d0,...]       new array of ones
    empty:DTYPE[d0,...]      new array; zeros here, for determinism
    arange:DTYPE[n]          0, 1, ..., n-1
    rand:DTYPE[d0,...]       oracle only, not part of `pyk2cuda run`: uniform floats in
                             [-1, 1), ints in [-100, 100) ([0, 100) unsigned), bools
                             from np.random.default_rng(--seed), drawn in ARG order
    42  -7                   int64 scalar
    -1.5  2e3  inf  nan      float64 scalar
    true  false              bool scalar
    TYPE:VALUE               typed scalar: float32:1.5, int32:7, uint8:255, bool:true
DTYPE / TYPE: bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32,
float64.

Exit status: 0 success; 1 the user's file failed to import; 2 bad arguments (flags, ARG
syntax, unreadable .npy, unknown kernel, wrong number of arguments); 3 the kernel raised
in the simulator (the traceback goes to stderr).
"""

import os

# Must happen before anything imports numba.
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import importlib.util  # noqa: E402
import inspect  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

EXIT_OK = 0
EXIT_USER_PYTHON = 1
EXIT_USAGE = 2
EXIT_RUNTIME = 3

DTYPES = {
    "bool": np.bool_,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "float32": np.float32,
    "float16": np.float16,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
}

# datetime64 and timedelta64 of each unit, by Numba's names ("datetime64[D]", "timedelta64[ns]").
for _unit in ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"):
    DTYPES[f"datetime64[{_unit}]"] = np.dtype(f"M8[{_unit}]")
    DTYPES[f"timedelta64[{_unit}]"] = np.dtype(f"m8[{_unit}]")

NAT = np.iinfo(np.int64).min


def is_time(dtype):
    return np.dtype(dtype).kind in "mM"


def random_time_array(dtype, shape, rng, lo=-100, hi=100):
    """Counts of the unit in [lo, hi], every seventh element NaT (NumPy's "not a time")."""
    counts = rng.integers(lo, hi, size=shape, dtype=np.int64, endpoint=True)
    counts.reshape(-1)[::7] = NAT
    return counts.view(np.dtype(dtype))

_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT_RE = re.compile(
    r"[+-]?(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+"
    r"|inf|infinity|nan)\Z",
    re.IGNORECASE,
)
_ARRAY_RE = re.compile(r"(zeros|ones|empty|arange|rand):([A-Za-z0-9]+(?:\[[A-Za-z]+\])?)\[([0-9, ]*)\]\Z")


class ArgError(Exception):
    """A malformed ARG or flag: exit status 2."""


def parse_dims(text, what):
    """'3' -> (3,), '4,5' -> (4, 5); 1 to 3 positive components (grid/block)."""
    parts = text.split(",")
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"[0-9]+", p) for p in parts):
        raise ArgError(f"--{what} must be X[,Y[,Z]] with positive integers, got {text!r}")
    dims = tuple(int(p) for p in parts)
    if any(d < 1 for d in dims):
        raise ArgError(f"--{what} components must be positive, got {text!r}")
    return dims


def _parse_int(text, dtype):
    if not _INT_RE.match(text):
        raise ArgError(f"not an integer: {text!r}")
    value = int(text)
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise ArgError(f"{value} is out of range for {np.dtype(dtype).name}")
    return dtype(value)


def _parse_float(text, dtype):
    if not (_INT_RE.match(text) or _FLOAT_RE.match(text)):
        raise ArgError(f"not a number: {text!r}")
    value = float(text)
    with np.errstate(over="ignore"):
        result = dtype(value)
    if np.isinf(result) and "inf" not in text.lower():
        raise ArgError(f"{text} is out of range for {np.dtype(dtype).name}")
    return result


def _parse_bool(text):
    low = text.lower()
    if low in ("true", "1"):
        return True
    if low in ("false", "0"):
        return False
    raise ArgError(f"not a bool: {text!r} (use true or false)")


def parse_typed_scalar(type_name, text):
    dtype = DTYPES.get(type_name)
    if dtype is None:
        raise ArgError(f"unknown scalar type {type_name!r}")
    if dtype is np.bool_:
        return _parse_bool(text)
    if is_time(dtype):   # a count of the unit, or NaT, as `pyk2cuda run` reads it
        return np.int64(NAT if text == "NaT" else _parse_int(text, np.int64)).view(dtype)
    if np.issubdtype(dtype, np.integer):
        return _parse_int(text, dtype)
    return _parse_float(text, dtype)


def is_charseq(dt):
    """NumPy's S<n> and U<n> (pyk2cuda's character sequences)."""
    return dt.kind in "SU"


# Characters of random U<n> inputs: ASCII, Latin-1, the BMP and beyond it (UCS-4 code points).
_UNICODE_CHARS = "abcXYZ09 _\u00e9\u00ff\u20ac\u4e2d\U0001f600"


def random_charseq_array(dt, shape, rng):
    """Strings of 0 to n characters (the rest zero-filled, as NumPy stores them); bytes are any
    byte but NUL, characters drawn from _UNICODE_CHARS."""
    chars = dt.itemsize // 4 if dt.kind == "U" else dt.itemsize
    out = np.zeros(shape, dt)
    for idx in np.ndindex(*shape):
        n = int(rng.integers(0, chars + 1))
        if dt.kind == "U":
            out[idx] = "".join(_UNICODE_CHARS[int(k)] for k in rng.integers(0, len(_UNICODE_CHARS), n))
        else:
            out[idx] = bytes(int(b) for b in rng.integers(1, 256, n))
    return out


def random_array(dtype, shape, rng):
    """The `rand:` generator (oracle and test runner only)."""
    dt = np.dtype(dtype)
    if is_charseq(dt):
        return random_charseq_array(dt, shape, rng)
    if is_time(dt):
        return random_time_array(dt, shape, rng)
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dt, np.unsignedinteger):
        return rng.integers(0, 100, size=shape).astype(dt)
    if np.issubdtype(dt, np.integer):
        return rng.integers(-100, 100, size=shape).astype(dt)
    if np.issubdtype(dt, np.complexfloating):   # real and imaginary parts in [-1, 1)
        return (rng.uniform(-1.0, 1.0, size=shape) + 1j * rng.uniform(-1.0, 1.0, size=shape)).astype(dt)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dt)


def parse_arg(text, rng=None):
    """One ARG -> a NumPy array, a NumPy scalar or a Python bool. Raises ArgError."""
    if text.endswith(".npy"):
        try:
            arr = np.load(text, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise ArgError(f"cannot read {text}: {exc}") from None
        if not isinstance(arr, np.ndarray):
            raise ArgError(f"{text} does not hold a single array")
        if arr.dtype.names:   # records: fields of supported types, read as attributes
            if any(arr.dtype.fields[n][0].base.name not in DTYPES and not is_charseq(arr.dtype.fields[n][0].base)
                   for n in arr.dtype.names):
                raise ArgError(f"{text}: unsupported record dtype {arr.dtype}")
            return arr.view(np.recarray)
        if arr.dtype.name not in DTYPES and not is_charseq(arr.dtype):
            raise ArgError(f"{text}: unsupported dtype {arr.dtype}")
        return arr

    m = _ARRAY_RE.match(text)
    if m:
        kind, type_name, dims_text = m.groups()
        dtype = DTYPES.get(type_name)
        if re.fullmatch(r"[SU][1-9][0-9]*", type_name) and kind in ("zeros", "empty"):
            dtype = np.dtype(type_name)   # NumPy's S<n>, U<n> (pyk2cuda run's zeros:U12[n])
        if dtype is None:
            raise ArgError(f"unknown dtype {type_name!r} in {text!r}")
        dims_parts = [d.strip() for d in dims_text.split(",")] if dims_text.strip() else []   # []: 0-d
        if not all(re.fullmatch(r"[0-9]+", d) for d in dims_parts):
            raise ArgError(f"bad dimensions in {text!r}")
        shape = tuple(int(d) for d in dims_parts)
        if kind == "arange":
            if len(shape) != 1:
                raise ArgError(f"arange takes one dimension: {text!r}")
            if dtype is np.bool_:
                raise ArgError(f"arange of bool is not allowed: {text!r}")
            return np.arange(shape[0], dtype=dtype)
        if kind in ("zeros", "empty"):
            return np.zeros(shape, dtype=dtype)
        if kind == "ones":
            return np.ones(shape, dtype=dtype)
        if kind == "rand":
            if rng is None:
                rng = np.random.default_rng(0)
            return random_array(dtype, shape, rng)

    if ":" in text:
        type_name, value = text.split(":", 1)
        if type_name in ("zeros", "ones", "empty", "arange", "rand"):
            raise ArgError(f"malformed array ARG {text!r} (want {type_name}:DTYPE[d0,...])")
        return parse_typed_scalar(type_name, value)

    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if _INT_RE.match(text):
        return _parse_int(text, np.int64)
    if _FLOAT_RE.match(text):
        return _parse_float(text, np.float64)
    raise ArgError(f"cannot understand ARG {text!r}")


def load_module(path):
    """Import FILE.py under a private name so that its __main__ block does not run."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise ArgError(f"no such file: {path}")
    name = "_pyk2cuda_oracle_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def find_kernel(module, name):
    kernel = getattr(module, name, None)
    if kernel is None:
        raise ArgError(f"{module.__file__} has no kernel named {name!r}")
    py_func = getattr(kernel, "py_func", None)
    if py_func is None or not hasattr(kernel, "__getitem__"):
        raise ArgError(f"{name!r} is not a @cuda.jit kernel")
    if getattr(kernel, "_device", False):
        raise ArgError(f"{name!r} is a device function, not a kernel")
    return kernel, py_func


def param_names(py_func):
    names = []
    for p in inspect.signature(py_func).parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise ArgError(f"parameter {p.name!r}: only plain positional parameters are supported")
        names.append(p.name)
    return names


def launch(kernel, grid, block, args, shared=0):
    """Run the kernel; returns a dict of NumPy warning messages -> counts."""
    counts = {}

    def count_warning(message, category, filename, lineno, file=None, line=None):
        key = f"{category.__name__}: {message}"
        counts[key] = counts.get(key, 0) + 1

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = count_warning
        kernel[grid, block, 0, shared](*args)
    return counts


USAGE = ("usage: oracle.py FILE.py KERNEL --grid X[,Y[,Z]] --block X[,Y[,Z]] "
         "--out-dir DIR [--seed N] [--shared BYTES] ARG...")

OPTIONS = ("--grid", "--block", "--out-dir", "--seed", "--shared")


class Options:
    pass


def parse_command_line(argv):
    """Options may come anywhere; everything else (negative numbers included) is
    positional: FILE, KERNEL, then the ARGs. `--` ends the options."""
    values = {}
    positional = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            positional.extend(argv[i + 1:])
            break
        if tok in ("-h", "--help"):
            print(USAGE)
            print(__doc__)
            raise SystemExit(EXIT_OK)
        name, eq, val = tok.partition("=")
        if name in OPTIONS:
            if not eq:
                if i + 1 >= len(argv):
                    raise ArgError(f"{name} needs a value")
                i += 1
                val = argv[i]
            values[name] = val
        elif tok.startswith("--"):
            raise ArgError(f"unknown option {tok}")
        else:
            positional.append(tok)
        i += 1
    if len(positional) < 2:
        raise ArgError("FILE.py and KERNEL are required")
    for name in ("--grid", "--block", "--out-dir"):
        if name not in values:
            raise ArgError(f"{name} is required")
    opts = Options()
    opts.file, opts.kernel, opts.args = positional[0], positional[1], positional[2:]
    opts.grid, opts.block, opts.out_dir = values["--grid"], values["--block"], values["--out-dir"]
    seed = values.get("--seed", "0")
    if not re.fullmatch(r"[0-9]+", seed):
        raise ArgError(f"--seed must be a non-negative integer, got {seed!r}")
    opts.seed = int(seed)
    shared = values.get("--shared", "0")
    if not re.fullmatch(r"[0-9]+", shared):
        raise ArgError(f"--shared must be a non-negative integer, got {shared!r}")
    opts.shared = int(shared)
    return opts


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    try:
        opts = parse_command_line(argv)
    except ArgError as exc:
        print(f"oracle: error: {exc}\n{USAGE}", file=sys.stderr)
        return EXIT_USAGE

    try:
        grid = parse_dims(opts.grid, "grid")
        block = parse_dims(opts.block, "block")
        rng = np.random.default_rng(opts.seed)
        values = [parse_arg(a, rng) for a in opts.args]
        try:
            module = load_module(opts.file)
        except ArgError:
            raise
        except BaseException:  # the user's file itself is broken
            print(f"oracle: error importing {opts.file}:", file=sys.stderr)
            traceback.print_exc()
            return EXIT_USER_PYTHON
        kernel, py_func = find_kernel(module, opts.kernel)
        names = param_names(py_func)
        if len(names) != len(values):
            raise ArgError(
                f"kernel {opts.kernel}({', '.join(names)}) takes {len(names)} arguments, "
                f"{len(values)} given"
            )
        os.makedirs(opts.out_dir, exist_ok=True)
    except ArgError as exc:
        print(f"oracle: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"oracle: error: {exc}", file=sys.stderr)
        return EXIT_USAGE

    try:
        counts = launch(kernel, grid, block, values, opts.shared)
    except BaseException:
        print(f"oracle: kernel {opts.kernel} raised in the simulator:", file=sys.stderr)
        traceback.print_exc()
        return EXIT_RUNTIME

    for key, n in sorted(counts.items()):
        print(f"oracle: note: {key} (x{n}) -- the simulator computes with NumPy scalar "
              f"types; compiled Numba may give a different result here", file=sys.stderr)

    for name, value in zip(names, values):
        if isinstance(value, np.ndarray):
            np.save(os.path.join(opts.out_dir, name + ".npy"), value, allow_pickle=False)
    return EXIT_OK


# ---- Serving many runs from one warm process -----------------------------------------------
# Importing NumPy and Numba's simulator costs about half a second of CPU, more than most cases'
# kernels; the diff suite runs hundreds. `oracle.py --serve` imports them once and then runs each
# request in a child forked from that warm process, so that every run still starts from the same
# clean state as a fresh `oracle.py` (nothing of one case's module, sys.path or simulator state
# reaches the next), at a fork's cost. tests/diff/run_diff.py is the client.
#
# Protocol, one JSON object per line: request {"argv": [...], "stdout": PATH, "stderr": PATH,
# "timeout": SECONDS}; reply {"rc": N} (the child's exit status), or {"rc": null, "error": TEXT}
# when it was killed at its timeout or could not be run. The server ends at end of input.


def serve_one(request):
    """Runs main(argv) in a forked child, its output in the request's files; the reply."""
    import select
    import signal
    out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:   # the child: a fresh oracle run, as `oracle.py ARGV` would be
        rc = 70
        try:
            os.dup2(out, 1)
            os.dup2(err, 2)
            rc = main(request["argv"])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 -- anything, as an uncaught exception would
            traceback.print_exc()
            rc = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
    os.close(out)
    os.close(err)
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], float(request["timeout"]))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"rc": None, "error": f"timed out after {request['timeout']} s"}
        _, status = os.waitpid(pid, 0)
        return {"rc": os.waitstatus_to_exitcode(status)}
    finally:
        os.close(pidfd)


def serve():
    """The --serve loop (above): warm imports, then one forked run per request line."""
    import json
    import numba.cuda  # noqa: F401 -- the import that every run would otherwise pay for
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = serve_one(json.loads(line))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            reply = {"rc": None, "error": f"oracle server: {exc}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else main())
