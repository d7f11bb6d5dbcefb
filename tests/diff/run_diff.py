#!/usr/bin/python3
"""Differential tests: every case of cases.txt through the oracle and through pyk2cuda.

    /usr/bin/python3 tests/diff/run_diff.py --pyk2cuda PATH [--filter NAME]... [--work DIR]
                     [--jobs N] [--timeout S] [--cases FILE] [--device sim|gpu|auto]
                     [--check-bounds] [--sanitize]

For each case the runner generates the `in:` inputs (fixed seed per case) as .npy files,
runs
    /usr/bin/python3 tests/diff/oracle.py FILE KERNEL --grid G --block B --out-dir W/oracle ARGS
    PYK2CUDA run FILE KERNEL --device sim --grid G --block B --out-dir W/pyk2cuda ARGS
(--device gpu for the gpu suite's cases, tests/gpu/cases.txt)
and compares every .npy the oracle wrote with pyk2cuda's: exactly for integers and bools,
within the case's tolerance for floats. Cases with expect=FUNC take their expected arrays
from FUNC in the case file instead of the oracle (see README.md). With --check-bounds every
case also runs a second time in pyk2cuda with --check-bounds, against the same expectation;
with --sanitize once more with --sanitize (the simulator's checker must find nothing).
Cases with bounds=IndexError expect both sides to fail on the same out-of-bounds access.

Prints one line per case, `ok NAME`, `FAIL NAME: ...` or `SKIP NAME: reason`, then
`N passed, N failed`. Exit status 0 only if no case failed; 2 on usage errors.
"""

import argparse
import concurrent.futures
import fnmatch
import hashlib
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"   # for expect= functions imported in-process

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import oracle  # noqa: E402

ORACLE = os.path.join(HERE, "oracle.py")
CASE_OPTIONS = ("tol", "atol", "seed", "expect", "skip", "shared", "bounds", "sanitize")
# The oracle's IndexError (NumPy's words) and pyk2cuda's --check-bounds diagnostic.
_ORACLE_OOB_RE = re.compile(r"IndexError: .*?index (-?\d+) is out of bounds for axis (\d+) with "
                            r"size (\d+)")
_PYK_OOB_RE = re.compile(r"^(.+?):(\d+):(\d+): error: index (-?\d+|\([-0-9, ]+\)) is out of "
                         r"bounds for axis (\d+) with size (\d+)", re.M)
_IN_RE = re.compile(r"in:([A-Za-z0-9_]+(?:\[[A-Za-z]+\])?)\[([0-9,]*)\](?:=([-+0-9.eE]+)\.\.([-+0-9.eE]+))?\Z")

# Record dtypes for `in:rec_NAME[n]` inputs (cases/records.py): random values in each field.
RECORDS = {
    "rec_pair": np.dtype([("a", np.int32), ("b", np.float64)], align=True),
    "rec_packed": np.dtype([("x", np.uint8), ("y", np.uint8), ("z", np.int16), ("w", np.float32)]),
    "rec_all": np.dtype([("fb", np.bool_), ("fi1", np.int8), ("fu1", np.uint8), ("fi2", np.int16),
                         ("fu2", np.uint16), ("fi4", np.int32), ("fu4", np.uint32), ("fi8", np.int64),
                         ("fu8", np.uint64), ("ff2", np.float16), ("ff4", np.float32), ("ff8", np.float64),
                         ("fc8", np.complex64), ("fc16", np.complex128), ("v", np.float32, (3,)),
                         ("m", np.int16, (2, 3))], align=True),
    "rec_chars": np.dtype([("n", np.int32), ("u", "U3"), ("s", "S5"), ("w", "U6"), ("b", "S1")], align=True),
}


def random_record_array(dtype, shape, rng):
    """Each field (each element of a nested array field) from oracle.random_array."""
    a = np.zeros(shape, dtype)
    for name in dtype.names:
        sub = dtype.fields[name][0]
        a[name] = oracle.random_array(sub.base, shape + sub.shape, rng)
    return a


class CaseError(Exception):
    pass


class Case:
    def __init__(self, lineno, name):
        self.lineno = lineno
        self.name = name
        self.file = self.kernel = self.grid = self.block = None
        self.args = []
        self.rtol = 0.0
        self.atol = None
        self.seed = zlib.crc32(name.encode())
        self.expect = None
        self.skip = None
        self.shared = 0
        self.bounds = None     # "IndexError": both sides must fail on the same access
        self.sanitize_refused = False   # sanitize=refused: the --sanitize pass must be refused
        self.error = None


def parse_cases(path):
    cases = []
    seen = set()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            try:
                tokens = shlex.split(stripped, comments=True)
            except ValueError as exc:
                tokens = stripped.split()
                case = Case(lineno, tokens[0])
                case.error = f"{path}:{lineno}: {exc}"
                cases.append(case)
                continue
            case = Case(lineno, tokens[0])
            cases.append(case)
            if case.name in seen:
                case.error = f"{path}:{lineno}: duplicate case name {case.name}"
                continue
            seen.add(case.name)
            if len(tokens) < 5:
                case.error = f"{path}:{lineno}: want NAME FILE KERNEL GRID BLOCK [opts] ARG..."
                continue
            case.file, case.kernel, case.grid, case.block = tokens[1:5]
            rest = tokens[5:]
            try:
                oracle.parse_dims(case.grid, "grid")
                oracle.parse_dims(case.block, "block")
                while rest and rest[0].split("=", 1)[0] in CASE_OPTIONS and "=" in rest[0]:
                    key, value = rest.pop(0).split("=", 1)
                    if key == "tol":
                        case.rtol = float(value)
                    elif key == "atol":
                        case.atol = float(value)
                    elif key == "seed":
                        case.seed = int(value)
                    elif key == "expect":
                        case.expect = value
                    elif key == "skip":
                        case.skip = value
                    elif key == "shared":
                        case.shared = int(value)
                    elif key == "bounds":
                        if value != "IndexError":
                            raise CaseError("bounds= takes IndexError")
                        case.bounds = value
                    elif key == "sanitize":
                        if value != "refused":
                            raise CaseError("sanitize= takes refused")
                        case.sanitize_refused = True
                for a in rest:
                    if a.startswith("rand:"):
                        raise CaseError("rand: is oracle-only; use in:DTYPE[dims] in cases.txt")
                    if a.startswith("in:") and not _IN_RE.match(a):
                        raise CaseError(f"malformed input ARG {a!r}")
                case.args = rest
            except (ValueError, CaseError, oracle.ArgError) as exc:
                case.error = f"{path}:{lineno}: {exc}"
    return cases


def make_input(spec, rng):
    """`in:DTYPE[d0,...]` or `in:DTYPE[d0,...]=LO..HI` -> a random array."""
    m = _IN_RE.match(spec)
    type_name, dims, lo, hi = m.groups()
    if type_name in RECORDS and lo is None:
        return random_record_array(RECORDS[type_name], tuple(int(d) for d in dims.split(",")), rng)
    dtype = oracle.DTYPES.get(type_name)
    if re.fullmatch(r"[SU][1-9][0-9]*", type_name) and lo is None:   # NumPy's S<n>, U<n>
        dtype = np.dtype(type_name)
    if dtype is None:
        raise CaseError(f"unknown dtype {type_name!r} in {spec!r}")
    shape = tuple(int(d) for d in dims.split(",")) if dims else ()   # in:DTYPE[]: 0-d
    if lo is None:
        return oracle.random_array(dtype, shape, rng)
    dt = np.dtype(dtype)
    if oracle.is_time(dt):
        return oracle.random_time_array(dt, shape, rng, int(lo), int(hi))
    if dt == np.bool_:
        raise CaseError(f"no range for bool inputs: {spec!r}")
    if np.issubdtype(dt, np.integer):
        lo_i, hi_i = int(lo), int(hi)
        info = np.iinfo(dt)
        if not info.min <= lo_i <= hi_i <= info.max:
            raise CaseError(f"bad range for {dt.name}: {spec!r}")
        return rng.integers(lo_i, hi_i, size=shape, dtype=dt, endpoint=True)
    if np.issubdtype(dt, np.complexfloating):   # both parts in [LO, HI)
        parts = rng.uniform(float(lo), float(hi), size=shape + (2,))
        return (parts[..., 0] + 1j * parts[..., 1]).astype(dt)
    return rng.uniform(float(lo), float(hi), size=shape).astype(dt)


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, text=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"
    except OSError as exc:
        return None, "", str(exc)


# ---- The oracle: warm servers, and results kept per build -----------------------------------

class OracleServer:
    """One `oracle.py --serve` process (see there): NumPy and Numba imported once, each run in a
    child forked from it. Used by one worker thread at a time."""

    def __init__(self, work):
        self.io = tempfile.mkdtemp(dir=work, prefix="oracle-io-")
        self.proc = subprocess.Popen([sys.executable, ORACLE, "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def run(self, argv, timeout):
        """(rc, stdout, stderr) of `oracle.py ARGV`, as run() gives them."""
        out, err = os.path.join(self.io, "stdout"), os.path.join(self.io, "stderr")
        request = {"argv": argv, "stdout": out, "stderr": err, "timeout": timeout}
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except OSError as exc:
            line, failure = "", str(exc)
        else:
            failure = "the oracle server ended"
        if not line:
            self.close()
            return None, "", failure
        reply = json.loads(line)
        texts = []
        for path in (out, err):
            with open(path, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
        if reply["rc"] is None:
            return None, texts[0], (texts[1] + "\n" + reply.get("error", "")).strip()
        return reply["rc"], texts[0], texts[1]

    def alive(self):
        return self.proc.poll() is None

    def close(self):
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.proc.wait()


class Oracle:
    """Runs oracle.py for the cases: through one warm server per worker thread (unless
    --fresh-oracle), and, with --oracle-cache DIR, keeping each successful run's arrays under a
    key of everything they depend on, so that a case already run in this build (by the diff
    suite, say, before standin-diff runs it again with --device gpu) is not simulated twice."""

    def __init__(self, opts):
        self.opts = opts
        self.local = threading.local()
        self.lock = threading.Lock()
        self.servers = []
        self.folder_digests = {}
        self.versions = " ".join([sys.executable, sys.version] + [
            f"{name} {importlib.metadata.version(name)}" for name in ("numpy", "numba")])

    def run(self, argv):
        if self.opts.fresh_oracle:
            return run([sys.executable, ORACLE] + argv, self.opts.timeout)
        server = getattr(self.local, "server", None)
        if server is None or not server.alive():
            server = self.local.server = OracleServer(self.opts.work)
            with self.lock:
                self.servers.append(server)
        return server.run(argv, self.opts.timeout)

    def close(self):
        for server in self.servers:
            server.close()

    def folder_digest(self, folder):
        """The case file's folder: its .py files are what the kernel may import."""
        with self.lock:
            if folder not in self.folder_digests:
                h = hashlib.sha256()
                for name in sorted(os.listdir(folder)):
                    if name.endswith(".py"):
                        h.update(name.encode() + b"\0")
                        with open(os.path.join(folder, name), "rb") as f:
                            h.update(f.read())
                self.folder_digests[folder] = h.hexdigest()
            return self.folder_digests[folder]

    def key(self, file_path, argv_without_out_dir):
        """What a run's arrays depend on: the oracle's code, Python, NumPy and Numba, the case
        file's folder, and the arguments, each input file by its bytes (not its path, which
        is in this run's work folder)."""
        h = hashlib.sha256(self.versions.encode())
        with open(ORACLE, "rb") as f:
            h.update(f.read())
        h.update(self.folder_digest(os.path.dirname(file_path)).encode())
        for a in argv_without_out_dir:
            if a.endswith(".npy") and os.path.isfile(a):   # its bytes; its folder is this run's
                with open(a, "rb") as f:
                    h.update(b"\0npy:" + hashlib.sha256(f.read()).digest())
            else:
                h.update(b"\0" + a.encode())
        return h.hexdigest()

    def arrays(self, file_path, argv, out_dir):
        """(rc, stderr, {parameter: array}) of the oracle's run of `argv` writing to out_dir,
        from the cache when it holds the run."""
        cache = self.opts.oracle_cache
        key = self.key(file_path, argv) if cache else None
        kept = os.path.join(cache, key) if cache else None
        if kept and os.path.isdir(kept):
            return 0, "", load_arrays(kept)
        rc, _, err = self.run(argv + ["--out-dir", out_dir])
        if rc != 0:
            return rc, err, {}
        if kept:
            keep_folder(out_dir, kept)
        return rc, err, load_arrays(out_dir)


def load_arrays(folder):
    return {fn[:-4]: np.load(os.path.join(folder, fn), allow_pickle=False)
            for fn in sorted(os.listdir(folder)) if fn.endswith(".npy")}


def keep_folder(src, dst):
    """Copies src to dst whole or not at all (a rename of a finished copy); a copy that
    another process finished first is kept, and a cache that cannot be written only means
    running the oracle again next time."""
    try:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(dst), prefix=".new-")
    except OSError:
        return
    try:
        for fn in os.listdir(src):
            shutil.copy2(os.path.join(src, fn), os.path.join(tmp, fn))
        os.rename(tmp, dst)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def tail(text, n=6):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-n:])


def expected_from_function(case, file_path, values, cases_dir):
    """Run expect=FUNC(*args) from the case file, or expect=PATH:FUNC from another file
    (PATH relative to the case list's folder, loaded first: it may give the case file names
    Numba 0.56 lacks, as bfloat16_expected.py does); returns {param: array}."""
    func_file, func_name = case.file, case.expect
    module = None
    if ":" in case.expect:
        func_file, func_name = case.expect.rsplit(":", 1)
        module = oracle.load_module(os.path.join(cases_dir, func_file))
    kernel_module = oracle.load_module(file_path)
    module = module or kernel_module
    func = getattr(module, func_name, None)
    if func is None:
        raise CaseError(f"{func_file} has no function {func_name}")
    kernel, py_func = oracle.find_kernel(kernel_module, case.kernel)
    names = oracle.param_names(py_func)
    if len(names) != len(values):
        raise CaseError(f"{case.kernel} takes {len(names)} arguments, {len(values)} given")
    func(*values)
    return {n: v for n, v in zip(names, values) if isinstance(v, np.ndarray)}


def fmt_index(idx):
    return "(" + ", ".join(str(int(k)) for k in idx) + ")" if len(idx) != 1 else f"[{int(idx[0])}]"


def compare(case, param, want, got):
    """None if equal (within tolerance), else a message."""
    source = f"{case.expect}()" if case.expect else "the oracle"
    if want.shape != got.shape:
        return (f"kernel {case.kernel}, parameter {param}: shape {got.shape} from pyk2cuda, "
                f"{want.shape} from {source}")
    if want.dtype.newbyteorder("=") != got.dtype.newbyteorder("="):
        return (f"kernel {case.kernel}, parameter {param}: dtype {got.dtype} from pyk2cuda, "
                f"{want.dtype} from {source}")
    if want.size == 0:
        return None
    if want.dtype.names:   # records: field by field
        for name in want.dtype.names:
            msg = compare(case, f"{param}.{name}", want[name], got[name])
            if msg:
                return msg
        return None
    if oracle.is_charseq(want.dtype):   # every byte (NumPy's == ignores trailing NULs)
        unit = np.uint32 if want.dtype.kind == "U" else np.uint8
        want = np.ascontiguousarray(want).view(unit).reshape(want.shape + (-1,))
        got = np.ascontiguousarray(got).view(unit).reshape(got.shape + (-1,))
    if oracle.is_time(want.dtype):   # datetimes and timedeltas: their counts (NaT equals NaT)
        want, got = want.view(np.int64), got.view(np.int64)
    if np.issubdtype(want.dtype, np.complexfloating):   # the parts compare as floats
        want = np.stack([want.real, want.imag], axis=-1)
        got = np.stack([got.real, got.imag], axis=-1)
    if np.issubdtype(want.dtype, np.floating):
        atol = case.rtol if case.atol is None else case.atol
        with np.errstate(invalid="ignore", over="ignore"):
            same = (got == want) | (np.isnan(got) & np.isnan(want))
            close = np.isclose(got, want, rtol=case.rtol, atol=atol, equal_nan=True)
        bad = ~(same | (close & np.isfinite(want) & np.isfinite(got)))
        tolerance = f" (rtol={case.rtol:g}, atol={atol:g})"
    else:
        bad = got != want
        tolerance = ""
    if not bad.any():
        return None
    idx = tuple(np.argwhere(bad)[0])
    g, w = got[idx], want[idx]
    return (f"kernel {case.kernel}, parameter {param}, index {fmt_index(idx)}: "
            f"pyk2cuda {g!r}, {'oracle' if not case.expect else 'expected'} {w!r}; {int(bad.sum())} of {bad.size} elements "
            f"differ{tolerance}")


def run_case(case, opts):
    if case.error:
        return "FAIL", case.error
    if case.skip:
        return "SKIP", case.skip
    work = os.path.join(opts.work, case.name)
    shutil.rmtree(work, ignore_errors=True)
    in_dir = os.path.join(work, "inputs")
    oracle_dir = os.path.join(work, "oracle")
    pyk_dir = os.path.join(work, "pyk2cuda")
    for d in (in_dir, oracle_dir, pyk_dir):
        os.makedirs(d)
    file_path = os.path.normpath(os.path.join(os.path.dirname(opts.cases), case.file))

    rng = np.random.default_rng(case.seed)
    args = []
    try:
        for k, a in enumerate(case.args):
            if a.startswith("in:") or a.startswith("inF:"):
                path = os.path.join(in_dir, f"arg{k}.npy")
                fortran = a.startswith("inF:")
                value = make_input("in:" + a[4:] if fortran else a, rng)
                np.save(path, np.asfortranarray(value) if fortran else value, allow_pickle=False)
                args.append(path)
            else:
                args.append(a)
    except (CaseError, ValueError) as exc:
        return "FAIL", str(exc)

    if case.bounds:
        return run_oob_case(case, opts, file_path, oracle_dir, pyk_dir, args, work)

    # The expected arrays: the oracle, or the case's own expect= function.
    if case.expect:
        try:
            values = [oracle.parse_arg(a) for a in args]
            expected = expected_from_function(case, file_path, values,
                                              os.path.dirname(opts.cases))
        except Exception as exc:  # noqa: BLE001 -- report anything as a failure
            return "FAIL", f"expect={case.expect}: {type(exc).__name__}: {exc}"
    else:
        argv = [file_path, case.kernel, "--grid", case.grid, "--block", case.block,
                "--seed", str(case.seed), "--shared", str(case.shared)] + args
        rc, err, expected = opts.oracle.arrays(file_path, argv, oracle_dir)
        if rc != 0:
            return "FAIL", f"oracle exited with {rc}: {tail(err)}"
    if not expected:
        return "FAIL", "the case has no array parameter to compare"

    passes = [[]] + ([["--check-bounds"]] if opts.check_bounds else []) + ([["--sanitize"]] if opts.sanitize else [])
    for flags in passes:
        shutil.rmtree(pyk_dir, ignore_errors=True)
        os.makedirs(pyk_dir)
        if flags == ["--sanitize"] and case.sanitize_refused:
            status, msg = run_sanitize_refused(case, opts, file_path, pyk_dir, args)
        else:
            status, msg = run_pyk2cuda(case, opts, file_path, pyk_dir, args, flags, expected)
        if status != "ok":
            return status, (f"with {' '.join(flags)}: {msg}" if flags else msg)
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return "ok", None


def run_pyk2cuda(case, opts, file_path, pyk_dir, args, flags, expected):
    """pyk2cuda run on the case, its arrays compared with `expected`."""
    cmd = [opts.pyk2cuda, "run", file_path, case.kernel, "--device", opts.device,
           "--grid", case.grid, "--block", case.block, "--out-dir", pyk_dir]
    if case.shared:
        cmd += ["--shared", str(case.shared)]
    cmd += flags + args
    rc, out, err = run(cmd, opts.timeout)
    if rc == 77:   # a stand-in (njit_standin.py) that cannot run this kernel
        return "SKIP", f"{os.path.basename(opts.pyk2cuda)} exited 77: {tail(err or out, 1)}"
    if rc != 0:
        return "FAIL", f"pyk2cuda exited with {rc}: {tail(err or out)}"
    problems = []
    for param, want in expected.items():
        path = os.path.join(pyk_dir, param + ".npy")
        if not os.path.exists(path):
            problems.append(f"kernel {case.kernel}, parameter {param}: pyk2cuda wrote no "
                            f"{param}.npy")
            continue
        try:
            got = np.load(path, allow_pickle=False)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"parameter {param}: cannot read pyk2cuda's {param}.npy: {exc}")
            continue
        msg = compare(case, param, want, got)
        if msg:
            problems.append(msg)
    if problems:
        return "FAIL", "; ".join(problems)
    return "ok", None


def run_sanitize_refused(case, opts, file_path, pyk_dir, args):
    """sanitize=refused: the checker runs one block at a time, so a cooperative grid of several
    blocks is refused before it runs (docs/simulator.md): exit 3, "bad launch", nothing written."""
    cmd = [opts.pyk2cuda, "run", file_path, case.kernel, "--device", opts.device, "--sanitize",
           "--grid", case.grid, "--block", case.block, "--out-dir", pyk_dir,
           "--shared", str(case.shared)] + args
    rc, out, err = run(cmd, opts.timeout)
    if rc == 3 and "bad launch: " in err and "cooperative launch" in err and not os.listdir(pyk_dir):
        return "ok", None
    return "FAIL", f"pyk2cuda exited with {rc}, expected 3 and a cooperative launch refused: {tail(err or out)}"


def run_oob_case(case, opts, file_path, oracle_dir, pyk_dir, args, work):
    """bounds=IndexError: the oracle raises IndexError on an access of the case file, and
    pyk2cuda --check-bounds exits 3 naming the same line, axis, size and index. Cases make
    exactly one thread go out of bounds, so both report the same access."""
    rc, out, err = opts.oracle.run([file_path, case.kernel, "--grid", case.grid, "--block",
                                    case.block, "--out-dir", oracle_dir, "--seed", str(case.seed),
                                    "--shared", str(case.shared)] + args)
    # The last frame of the traceback in the case file is the failing access.
    want = None
    for m in re.finditer(r'File "([^"]+)", line (\d+)', err):
        if os.path.exists(m.group(1)) and os.path.samefile(m.group(1), file_path):
            want = int(m.group(2))
    oob = _ORACLE_OOB_RE.search(err)
    if rc != 3 or not oob or want is None:
        return "FAIL", f"the oracle did not raise IndexError in {case.file} (exit {rc}): {tail(err)}"
    o_index, o_axis, o_size = int(oob.group(1)), int(oob.group(2)), int(oob.group(3))

    cmd = [opts.pyk2cuda, "run", file_path, case.kernel, "--device", opts.device, "--check-bounds",
           "--grid", case.grid, "--block", case.block, "--out-dir", pyk_dir,
           "--shared", str(case.shared)] + args
    rc, out, err = run(cmd, opts.timeout)
    if rc == 77:   # a stand-in
        return "SKIP", f"{os.path.basename(opts.pyk2cuda)} exited 77: {tail(err or out, 1)}"
    m = _PYK_OOB_RE.search(err)
    if rc != 3 or not m:
        return "FAIL", f"pyk2cuda --check-bounds exited with {rc}, expected 3 and an index error: {tail(err or out)}"
    line, axis, size = int(m.group(2)), int(m.group(5)), int(m.group(6))
    index = m.group(4)
    if index.startswith("("):   # an element's indices; else the one index (1-D, or a view's)
        indices = [int(v) for v in index.strip("()").split(",") if v.strip()]
        p_index = indices[axis] if axis < len(indices) else None
    else:
        p_index = int(index)
    if (line, axis, size, p_index) != (want, o_axis, o_size, o_index):
        return "FAIL", (f"pyk2cuda: line {line}, index {p_index} for axis {axis} with size {size}; "
                        f"oracle: line {want}, index {o_index} for axis {o_axis} with size {o_size}")
    if os.listdir(pyk_dir):
        return "FAIL", "pyk2cuda wrote outputs after an out-of-bounds access"
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return "ok", None


def selected(case, filters):
    if not filters:
        return True
    for f in filters:
        if any(c in f for c in "*?["):
            if fnmatch.fnmatchcase(case.name, f):
                return True
        elif f in case.name:
            return True
    return False


def main(argv=None):
    ap = argparse.ArgumentParser(prog="run_diff.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pyk2cuda", required=True, help="the pyk2cuda binary (or a stand-in)")
    ap.add_argument("--filter", action="append", default=[],
                    help="run the cases whose name contains NAME (or matches a glob); "
                         "may be repeated")
    ap.add_argument("--work", help="work directory (default: a temporary one, removed "
                                   "unless a case fails)")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.txt"),
                    help="the case file; each case's FILE is relative to its folder")
    ap.add_argument("--device", default="sim", choices=("sim", "gpu", "auto"),
                    help="where pyk2cuda runs the kernels (the gpu suite passes gpu)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per process")
    ap.add_argument("--keep", action="store_true", help="keep the files of passing cases")
    ap.add_argument("--sanitize", action="store_true",
                    help="also run every case in pyk2cuda with --sanitize: it must find nothing "
                         "and give the same results")
    ap.add_argument("--check-bounds", action="store_true",
                    help="also run every case in pyk2cuda with --check-bounds")
    ap.add_argument("--oracle-cache", metavar="DIR",
                    help="keep the oracle's results in DIR (meson: the build's tests/cache/"
                         "oracle), so that another run in the same build does not simulate a "
                         "case again")
    ap.add_argument("--fresh-oracle", action="store_true",
                    help="start a new oracle.py process for every case (slower) instead of "
                         "forking each run from a warm one")
    opts = ap.parse_args(argv)

    if not (os.path.isfile(opts.pyk2cuda) and os.access(opts.pyk2cuda, os.X_OK)):
        found = shutil.which(opts.pyk2cuda)
        if not found:
            print(f"run_diff: error: {opts.pyk2cuda} is not an executable file", file=sys.stderr)
            return 2
        opts.pyk2cuda = found
    opts.pyk2cuda = os.path.abspath(opts.pyk2cuda)
    opts.cases = os.path.abspath(opts.cases)
    try:
        cases = parse_cases(opts.cases)
    except OSError as exc:
        print(f"run_diff: error: {exc}", file=sys.stderr)
        return 2
    cases = [c for c in cases if selected(c, opts.filter)]
    if not cases:
        print("run_diff: error: no case matches the filter", file=sys.stderr)
        print("0 passed, 0 failed")
        return 2

    temp_work = opts.work is None
    if temp_work:
        opts.work = tempfile.mkdtemp(prefix="pyk2cuda-diff-")
    opts.work = os.path.abspath(opts.work)
    os.makedirs(opts.work, exist_ok=True)

    passed = failed = 0
    opts.oracle = Oracle(opts)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
            for case, (status, msg) in zip(cases, pool.map(lambda c: run_case(c, opts), cases)):
                if status == "ok":
                    passed += 1
                    print(f"ok {case.name}", flush=True)
                elif status == "SKIP":
                    print(f"SKIP {case.name}: {msg}", flush=True)
                else:
                    failed += 1
                    print(f"FAIL {case.name}: {msg}", flush=True)
    finally:
        opts.oracle.close()

    if failed:
        print(f"run_diff: the files of the failing cases are in {opts.work}", file=sys.stderr)
    elif temp_work:
        shutil.rmtree(opts.work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
