"""cuda.jit(cache=True) as Numba's test_caching observes it (python/pyk2cuda/caching.py,
docs/python.md "cache=True"): the index and data files in __pycache__ beside the source, hits and
misses in `stats`, reuse from another process with no file rewritten, invalidation when the
source changes, recompile(), closures and functions of one name, the user-wide fallback, and the
index shared with Numba's own njit(cache=True) of the same function (Numba's implementation is
the reference for the file names and the index: its CPU target writes and reads the same file).

Kernels here use 1-element arrays where Numba's tests use 0-d arrays (a[()]); 0-d arrays have
tests of their own (tests/python/test_zero_d.py)."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

FODDER = '''
import numpy as np
from pyk2cuda import cuda


@cuda.jit(cache=True)
def add(r, x, y):
    r[0] = x[0] + y[0] + Z


@cuda.jit(cache=False)
def add_nocache(r, x, y):
    r[0] = x[0] + y[0] + Z


Z = 1


def make_closure(x):
    @cuda.jit(cache=True)
    def closure(r, y):
        r[0] = x + y[0]
    return closure


closures = [make_closure(v) for v in (3, 5, 7, 9)]


@cuda.jit(cache=True)
def same(r, x):
    r[0] = x[0] + 2


first_same = same


@cuda.jit(cache=True)
def same(r, x):
    r[0] = x[0] + 6


def call(kernel, *args):
    """kernel(r, *args) on 1-element arrays; returns r[0]."""
    arrays = [np.array([a]) for a in args]
    r = np.zeros_like(arrays[0])
    kernel[1, 1](r, *arrays)
    return r[0]
'''


@pytest.fixture
def fodder(tmp_path, monkeypatch):
    """A fresh module file in tmp_path, and a function that imports it anew each time."""
    name = "p2c_cache_fodder_%d" % os.getpid()
    path = tmp_path / (name + ".py")
    path.write_text(FODDER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)

    def load():
        sys.modules.pop(name, None)
        importlib.invalidate_caches()
        return importlib.import_module(name)
    yield load, path
    sys.modules.pop(name, None)


def cache_files(path):
    folder = path.parent / "__pycache__"
    return sorted(f for f in os.listdir(folder) if not f.endswith(".pyc")) if folder.exists() else []


def mtimes(path):
    return {f: os.path.getmtime(path.parent / "__pycache__" / f) for f in cache_files(path)}


def hits(kernel):
    return sum(kernel.stats.cache_hits.values()), sum(kernel.stats.cache_misses.values())


def test_files_hits_and_reuse_from_another_process(fodder):
    load, path = fodder
    mod = load()
    assert cache_files(path) == []
    assert mod.call(mod.add, 2, 3) == 6
    # the line is co_firstlineno, the decorator's, as Numba names it
    base = "%s.add-6.py%d%d" % (path.stem, sys.version_info[0], sys.version_info[1])
    assert cache_files(path) == [base + ".1.nbc", base + ".nbi"]   # 1 index, 1 data
    assert mod.call(mod.add, 2.5, 3.0) == 6.5
    assert cache_files(path) == [base + ".1.nbc", base + ".2.nbc", base + ".nbi"]
    assert hits(mod.add) == (0, 2)
    assert mod.add.stats.cache_path == str(path.parent / "__pycache__")
    before = mtimes(path)

    mod2 = load()
    assert mod2 is not mod
    assert mod2.call(mod2.add, 2, 3) == 6 and hits(mod2.add) == (1, 0)
    assert mod2.call(mod2.add, 2.5, 3.0) == 6.5 and hits(mod2.add) == (2, 0)
    code = ("import sys; sys.path.insert(0, %r); import %s as m; "
            "print(m.call(m.add, 2, 3), m.call(m.add, 2.5, 3.0), m.add.stats.cache_hits[m.add.signatures[0]], "
            "sum(m.add.stats.cache_misses.values()))" % (str(path.parent), path.stem))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["6", "6.5", "1", "0"]
    assert mtimes(path) == before   # hits write nothing


def test_no_caching(fodder):
    load, path = fodder
    mod = load()
    assert mod.call(mod.add_nocache, 2, 3) == 6
    assert cache_files(path) == []
    assert mod.add_nocache.stats.cache_path is None and hits(mod.add_nocache) == (0, 0)


def test_source_change_invalidates(fodder):
    load, path = fodder
    mod = load()
    assert mod.call(mod.add, 2, 3) == 6
    with open(path, "a") as f:
        f.write("\nZ = 10\n")
    mod = load()
    assert mod.call(mod.add, 2, 3) == 15
    assert hits(mod.add) == (0, 1)


def test_recompile_replaces_the_entry(fodder):
    load, path = fodder
    mod = load()
    assert mod.call(mod.add, 2, 3) == 6
    mod = load()
    mod.Z = 10
    assert mod.call(mod.add, 2, 3) == 6   # the cache's module, its Z frozen at 1
    mod.add.recompile()
    assert mod.call(mod.add, 2, 3) == 15
    mod = load()   # Numba's meaning: the entry recompile() wrote, whatever the file says
    assert mod.call(mod.add, 2, 3) == 15 and hits(mod.add) == (1, 0)


def test_closures_and_functions_of_one_name(fodder):
    load, path = fodder
    mod = load()
    assert [mod.call(c, 3) for c in mod.closures] == [6, 8, 10, 12]
    assert len(cache_files(path)) == 5   # 1 index, 4 data: one key per closure value
    assert mod.call(mod.first_same, 2) == 4 and mod.call(mod.same, 2) == 8
    assert len(cache_files(path)) == 9   # two more indexes, two more data files
    mod = load()
    assert [mod.call(c, 3) for c in mod.closures] == [6, 8, 10, 12]
    assert [hits(c) for c in mod.closures] == [(1, 0)] * 4


def test_unwritable_pycache_falls_back_to_the_user_wide_folder(fodder, tmp_path, monkeypatch):
    load, path = fodder
    (path.parent / "__pycache__").write_text("not a folder")   # refuses a folder even to root
    monkeypatch.setenv("PYK2CUDA_CACHE_DIR", str(tmp_path / "user"))
    mod = load()
    assert mod.call(mod.add, 2, 3) == 6
    where = mod.add.stats.cache_path
    assert where.startswith(str(tmp_path / "user" / "cache-true"))
    assert len([f for f in os.listdir(where) if f.endswith((".nbi", ".nbc"))]) == 2
    mod = load()
    assert mod.call(mod.add, 2, 3) == 6 and hits(mod.add) == (1, 0)


def test_linked_code_cannot_be_cached():
    from pyk2cuda import cuda
    with pytest.raises(RuntimeError, match="Cannot pickle CUDACodeLibrary with linking files"):
        @cuda.jit("void()", cache=True, link=["kernel.ptx"])
        def f():
            pass


SHARED = '''
import numpy as np
from numba import njit
from pyk2cuda import cuda


def assign(r, x):
    r[0] = x[0]


assign_cuda = cuda.jit(cache=True)(assign)
assign_cpu = njit(cache=True)(assign)


def both(v):
    x = np.array([v])
    r, s = np.zeros_like(x), np.zeros_like(x)
    assign_cpu(r, x)
    assign_cuda[1, 1](s, x)
    return r[0], s[0]
'''


def test_one_index_with_numbas_own_cache(tmp_path, monkeypatch):
    """Numba's CUDAAndCPUCachingTest with Numba's njit as the other target: both targets' entries
    in one index, each reused by a fresh import (Numba's own hit counts say it found its entry
    in the index pyk2cuda also wrote)."""
    pytest.importorskip("numba")
    name = "p2c_cache_shared_%d" % os.getpid()
    (tmp_path / (name + ".py")).write_text(SHARED)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    files = lambda: sorted(f for f in os.listdir(tmp_path / "__pycache__") if not f.endswith(".pyc"))
    try:
        mod = importlib.import_module(name)
        assert mod.both(5) == (5, 5)
        assert len(files()) == 3   # 1 index, 2 data
        assert mod.both(5.5) == (5.5, 5.5)
        assert len(files()) == 5   # 1 index, 4 data
        sys.modules.pop(name)
        mod = importlib.import_module(name)
        assert mod.both(5) == (5, 5) and mod.both(5.5) == (5.5, 5.5)
        assert sum(mod.assign_cpu.stats.cache_hits.values()) == 2
        assert hits(mod.assign_cuda) == (2, 0)
        assert len(files()) == 5
    finally:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("numba_version, digest", [("0.56.4", False), ("0.68.1", True), ("1.0.0", True)])
def test_index_stamp_follows_the_installed_numba(fodder, monkeypatch, numba_version, digest):
    """The index is stamped as the installed Numba stamps its own (it is shared with njit's): the
    source's modification time and size before Numba 0.68, its SHA-256 digest from 0.68 on (numba
    PR #10659). An index stamped the other way is stale: the entry is written anew."""
    import hashlib
    import pickle
    from pyk2cuda import caching
    monkeypatch.setattr(caching, "_index_version", lambda: numba_version)
    caching._stamp_is_digest.cache_clear()
    try:
        load, path = fodder
        mod = load()
        assert mod.call(mod.add, 2, 3) == 6
        index = [f for f in cache_files(path) if f.endswith(".nbi")]
        with open(path.parent / "__pycache__" / index[0], "rb") as f:
            assert pickle.load(f) == numba_version
            stamp, entries = pickle.loads(f.read())
        st = os.stat(path)
        assert stamp == (hashlib.sha256(path.read_bytes()).digest() if digest else (st.st_mtime, st.st_size))
        assert len(entries) == 1
        mod2 = load()
        assert mod2.call(mod2.add, 2, 3) == 6 and hits(mod2.add) == (1, 0)
    finally:
        caching._stamp_is_digest.cache_clear()
