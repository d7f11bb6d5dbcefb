"""cache=True for kernels: Numba's on-disk cache of a function's specializations, as Numba's tests
and users observe it (docs/python.md, "cache=True").

Numba writes, next to the source file, in __pycache__ (else in a user-wide folder when that cannot
be written), one index file per cached function, MODULE.QUALNAME-LINE.pyXY.nbi, and one data file
per specialization, MODULE.QUALNAME-LINE.pyXY.N.nbc. The index is valid while the source file
keeps its modification time and size; it maps a key (the signature, the target, hashes of the
function's bytecode and closure values) to a data file. A process that finds its key reuses what
was compiled, with the globals frozen then, even if the module's globals changed since (Numba's
tests count on that); `recompile()` replaces the entry.

pyk2cuda keeps that layout and meaning. A data file holds what pyk2cuda compiled for the
specialization: the translated module (source.Unit: the function's source with its globals and
closure values frozen, and the map back to the user's lines). A process that finds it compiles
that module, whose compiled code (the PTX/CUBIN, the simulator's library) pyk2cuda's own compile
cache then gives without running NVRTC or the host compiler (design.md, "The compile cache").
The index is written as Numba writes its own (Numba's version first, then the pickled stamp and
entries), so that a function cached both by numba.njit(cache=True) and by cuda.jit(cache=True)
shares one index as Numba's two targets do; pyk2cuda's keys have their own shape (they start
with "pyk2cuda"), so neither target ever takes the other's entries.

Cache hits and misses are counted per signature in `stats`, as Numba's dispatcher counts them:
a hit when the specialization compiled the module the cache gave, a miss otherwise."""
import collections
import functools
import hashlib
import os
import pickle
import sys
import tempfile
import uuid

from . import _core

# The first item of every key pyk2cuda writes: keys Numba writes are (signature, codegen magic,
# hashes), never a string first.
_KEY_TAG = "pyk2cuda"


class CompileStats(collections.namedtuple("CompileStats", "cache_path cache_hits cache_misses")):
    """Numba's Dispatcher.stats: the cache folder (None without cache=True) and Counters of cache
    hits and misses by signature."""


@functools.lru_cache(maxsize=None)
def _index_version():
    """The version written at the head of the index: the installed Numba's when there is one (so
    that Numba's own caches of the same function read and keep pyk2cuda's entries, and the
    other way round), else pyk2cuda's. Asked of the installed package's metadata, since under
    python3 -m pyk2cuda `numba` is pyk2cuda's module; remembered (it cannot change)."""
    try:
        import importlib.metadata as md
        return md.version("numba")
    except Exception:   # no Numba installed
        return "pyk2cuda " + _core.version


@functools.lru_cache(maxsize=None)
def _stamp_is_digest():
    """Whether the index's stamp is the source's digest: Numba 0.68 and later (numba PR #10659)
    stamp so; older ones, and pyk2cuda without Numba, with the modification time and size."""
    version = _index_version()
    try:
        return tuple(int(p) for p in version.split(".")[:2]) >= (0, 68)
    except ValueError:   # "pyk2cuda X.Y.Z": no Numba installed
        return False


@functools.lru_cache(maxsize=None)
def _source_digest(path, mtime, size):
    """The SHA-256 digest of the file's bytes, remembered while its time and size stay (as
    Numba's own _hash_source_file)."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def _writable(path):
    """Whether `path` exists (made if missing) and a file can be created in it, as Numba's
    locators check it."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _subfolder(py_file):
    """Numba's name for a source folder's cache inside a shared folder: the folder's name and a
    hash of its path."""
    folder = os.path.dirname(os.path.abspath(py_file))
    return "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])


def _locate(py_file):
    """The folder the function's files go in, in Numba's order: $NUMBA_CACHE_DIR when set, else
    __pycache__ beside the source, else a user-wide folder under pyk2cuda's compile cache folder;
    None when none can be written."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    root = _core.cache_folder()
    if given:
        candidates = [os.path.join(given, _subfolder(py_file))]
    else:
        candidates = [os.path.join(os.path.dirname(py_file), "__pycache__"),
                      root and os.path.join(root, "cache-true", _subfolder(py_file))]
    for path in candidates:
        if path and _writable(path):
            return path
    return None


def _code_hashes(func):
    """The hashes Numba's key holds: of the function's bytecode and of its closure's values."""
    cells = b""
    if func.__closure__ is not None:
        values = tuple(c.cell_contents for c in func.__closure__)
        try:
            cells = pickle.dumps(values, protocol=4)
        except Exception:   # a value pickle cannot take (a kernel, a module): its text decides
            cells = repr(values).encode()
    return (hashlib.sha256(func.__code__.co_code).hexdigest(), hashlib.sha256(cells).hexdigest())


def _write_atomically(path, data):
    """Writes `path` through a temporary file renamed into place, so that no reader, in this
    process or another, sees half a file (Numba's _open_for_write)."""
    tmp = "%s.tmp.%s" % (path, uuid.uuid4().hex[:16])
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class FunctionCache:
    """The cache of one cache=True kernel: where its files are, the key of each signature, and
    the counts of `stats`."""

    def __init__(self, func):
        self._func = func
        self._file = os.path.abspath(func.__code__.co_filename)
        self.path = _locate(self._file) if os.path.exists(self._file) else None
        if self.path is None:
            raise RuntimeError("cannot cache function %r: no locator available for file %r"
                               % (func.__qualname__, self._file))
        fullname = "%s.%s" % (func.__module__, func.__qualname__)
        base = "%s-%s.py%d%d%s" % (fullname.replace("<", "").replace(">", ""),
                                   func.__code__.co_firstlineno, sys.version_info[0],
                                   sys.version_info[1], getattr(sys, "abiflags", ""))
        self._base = base
        self._index = os.path.join(self.path, base + ".nbi")
        self._hashes = _code_hashes(func)
        self.hits = collections.Counter()
        self.misses = collections.Counter()

    def _stamp(self):
        """What makes the index valid, as the installed Numba stamps it (the index is shared): the
        source file's modification time and size, or from Numba 0.68 on the SHA-256 digest of its
        bytes (numba/core/caching.py _hash_source_file)."""
        st = os.stat(self._file)
        if not _stamp_is_digest():
            return st.st_mtime, st.st_size
        return _source_digest(self._file, st.st_mtime, st.st_size)

    def _entries(self):
        """The index's entries {key: data file name}, {} when there is none, it is stale (the
        source changed) or it was written by another version."""
        try:
            with open(self._index, "rb") as f:
                version = pickle.load(f)
                data = f.read()
            if version != _index_version():
                return {}
            stamp, entries = pickle.loads(data)
        except Exception:   # missing, unreadable, or holding types this process cannot load
            return {}
        return entries if stamp == self._stamp() else {}

    def _key(self, signature):
        return (_KEY_TAG, signature, "pyk2cuda " + _core.version, self._hashes)

    def _load(self, name):
        """The Unit a data file holds, or None when it is missing or unreadable."""
        try:
            with open(os.path.join(self.path, name), "rb") as f:
                return pickle.load(f)
        except Exception:
            return None

    def unit(self):
        """The translated module the cache holds for this function (the latest one written, when
        recompile() left several), or None: the kernel then translates its function."""
        entries = self._entries()
        mine = [name for key, name in entries.items()
                if isinstance(key, tuple) and key[:1] == (_KEY_TAG,) and key[2:] == self._key("")[2:]]
        mine.sort(key=lambda n: os.path.getmtime(os.path.join(self.path, n))
                  if os.path.exists(os.path.join(self.path, n)) else 0)
        for name in reversed(mine):
            unit = self._load(name)
            if unit is not None:
                return unit
        return None

    def note(self, signature, unit):
        """A specialization for `signature` was made from `unit`: a hit when the cache holds that
        module for that signature, else a miss, and the entry is written (replacing one made
        from another module)."""
        entries = self._entries()
        key = self._key(signature)
        stored = self._load(entries[key]) if key in entries else None
        if stored is not None and stored.source == unit.source:
            self.hits[signature] += 1
            return
        self.misses[signature] += 1
        name = entries.get(key)
        if name is None:
            used = set(entries.values())
            number = 1
            while "%s.%d.nbc" % (self._base, number) in used:
                number += 1
            name = "%s.%d.nbc" % (self._base, number)
            entries[key] = name
            _write_atomically(os.path.join(self.path, name), pickle.dumps(unit, protocol=4))
            index = pickle.dumps(_index_version(), protocol=4) + pickle.dumps(
                (self._stamp(), entries), protocol=4)
            _write_atomically(self._index, index)
        else:
            _write_atomically(os.path.join(self.path, name), pickle.dumps(unit, protocol=4))

    def stats(self):
        return CompileStats(self.path, self.hits, self.misses)
