#!/usr/bin/python3
"""Command-line tests of `pyk2cuda run`'s arguments and outputs on the simulator.

    /usr/bin/python3 tests/sim/cli_run.py --pyk2cuda BIN

No data is lost: the default output folder is pyk2cuda-out/, an output that would replace an
input file is refused before the launch (the input's bytes are checked afterwards), outputs
are written without leftovers. A launch needs --grid and --block. A wrong number of arguments
is a usage error (exit 2) naming the parameters; an argument that a declared signature does not
take names the parameter, both types and the spelling that works; scalars out of their type's
range are refused; `check` notes host code, a file without kernels and kernels whose types it
did not check; a wild write without --check-bounds is a message naming the kernel, exit 3;
a loop the GPU keeps spins in the simulator too; an interrupt ends the host compiler's process
group, removes its work folder and writes nothing, and SIGKILL of run ends it too; --timeout ends a kernel that never ends and
the largest grid, and CUDA's largest x grid runs to its end; runs share a cache folder, and a
damaged or unwritable one costs a rebuild, never the run; a source past the 16 MiB limit is refused unread;
--time names the simulator's path (loops, regions, fibers). Prints one line per case and ends with 'N passed, N failed'."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILE = os.path.join(ROOT, "tests", "sim", "run_args.py")
LAUNCH = ["--device", "sim", "--grid", "1", "--block", "4"]


def run(bin_, cwd, args):
    p = subprocess.run([bin_, "run", FILE] + args, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stderr.decode()


def expect(rc, err, want_rc, *needles):
    if rc != want_rc:
        return f"exit {rc}, expected {want_rc}: {err.strip()}"
    for n in needles:
        if n not in err:
            return f"stderr lacks {n!r}: {err.strip()}"
    return None


def case_no_launch_config(bin_, d):
    rc, err = run(bin_, d, ["double", "--device", "sim", "arange:float32[4]", "zeros:float32[4]"])
    return expect(rc, err, 2, "run needs a launch configuration", "--grid", "--block") or \
        (os.path.exists(os.path.join(d, "pyk2cuda-out")) and "wrote outputs after a usage error")


def case_block_only(bin_, d):
    rc, err = run(bin_, d, ["double", "--device", "sim", "--block", "4", "arange:float32[4]",
                            "zeros:float32[4]"])
    return expect(rc, err, 2, "run needs a launch configuration")


def case_default_out_dir(bin_, d):
    np.save(os.path.join(d, "a.npy"), np.arange(4, dtype=np.float32))
    before = open(os.path.join(d, "a.npy"), "rb").read()
    for _ in range(2):  # twice: the second run must not find its input replaced
        rc, err = run(bin_, d, ["double"] + LAUNCH + ["a.npy", "zeros:float32[4]"])
        if rc != 0:
            return f"exit {rc}: {err.strip()}"
    if open(os.path.join(d, "a.npy"), "rb").read() != before:
        return "the input a.npy was changed"
    out = sorted(os.listdir(os.path.join(d, "pyk2cuda-out")))
    if out != ["a.npy", "b.npy"]:
        return f"pyk2cuda-out holds {out}, expected a.npy and b.npy only (no temporaries)"
    b = np.load(os.path.join(d, "pyk2cuda-out", "b.npy"))
    return None if np.array_equal(b, np.arange(4) * 2) else f"b = {b!r}"


def refused_over_input(bin_, d, input_path, extra):
    full = os.path.join(d, input_path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    np.save(full, np.arange(4, dtype=np.float32))
    before = open(full, "rb").read()
    rc, err = run(bin_, d, ["double"] + LAUNCH + extra + [input_path, "zeros:float32[4]"])
    problem = expect(rc, err, 2, "would replace the input", "--out-dir")
    if not problem and open(full, "rb").read() != before:
        problem = "the input was changed"
    if not problem and os.path.exists(os.path.join(os.path.dirname(full), "b.npy")):
        problem = "an output was written after the refusal"
    return problem


def case_out_dir_dot(bin_, d):
    return refused_over_input(bin_, d, "a.npy", ["--out-dir", "."])


def case_input_in_default_dir(bin_, d):
    return refused_over_input(bin_, d, "pyk2cuda-out/a.npy", [])


def case_input_through_other_spelling(bin_, d):
    os.makedirs(os.path.join(d, "x"))
    return refused_over_input(bin_, d, "x/a.npy", ["--out-dir", "x/../x/."])


def case_too_few_args(bin_, d):
    rc, err = run(bin_, d, ["double"] + LAUNCH + ["arange:float32[4]"])
    return expect(rc, err, 2, "kernel 'double' takes 2 arguments (a, b); 1 given")


def case_too_many_args(bin_, d):
    rc, err = run(bin_, d, ["double"] + LAUNCH + ["arange:float32[4]", "zeros:float32[4]", "3"])
    return expect(rc, err, 2, "kernel 'double' takes 2 arguments (a, b); 3 given")


def case_declared_scalar(bin_, d):
    """A scalar for a parameter of another type converts as a launch from Python (and Numba's
    dispatcher) converts it: 2.5, a float64, is 2.5 for void(float32[:], float32)."""
    rc, err = run(bin_, d, ["scale"] + LAUNCH + ["arange:float32[4]", "2.5"])
    if rc != 0:
        return f"exit {rc}: {err.strip()}"
    a = np.load(os.path.join(d, "pyk2cuda-out", "a.npy"))
    return None if np.array_equal(a, np.arange(4, dtype=np.float32) * 2.5) else f"a = {a!r}"


def case_declared_int_scalar(bin_, d):
    """An int converts to an int32 parameter; a float is refused for it, as from Python."""
    rc, err = run(bin_, d, ["fill"] + LAUNCH + ["zeros:int32[4]", "7"])
    if rc != 0:
        return f"exit {rc}: {err.strip()}"
    a = np.load(os.path.join(d, "pyk2cuda-out", "a.npy"))
    if a.tolist() != [7, 7, 7, 7]:
        return f"a = {a!r}"
    rc, err = run(bin_, d, ["fill"] + LAUNCH + ["zeros:int32[4]", "2.5", "--out-dir", "refused"])
    return expect(rc, err, 2, "argument 'v': a float64 (2.5) cannot be passed to "
                  "the int32 parameter")


def case_declared_ndim(bin_, d):
    rc, err = run(bin_, d, ["scale"] + LAUNCH + ["arange:float32[2,2]", "float32:2"])
    return expect(rc, err, 2, "No matching definition of kernel 'scale' for argument type(s) (float32[:, ::1], float32): "
                  "void(float32[:], float32): argument 'a' is float32[:, ::1], where it takes "
                  "float32[:]")


def case_declared_ok(bin_, d):
    rc, err = run(bin_, d, ["scale"] + LAUNCH + ["arange:float32[4]", "float32:2.5"])
    if rc != 0:
        return f"exit {rc}: {err.strip()}"
    a = np.load(os.path.join(d, "pyk2cuda-out", "a.npy"))
    return None if np.array_equal(a, np.arange(4, dtype=np.float32) * 2.5) else f"a = {a!r}"


def case_spin_loop_kept(bin_, d):
    """`while a[0] == 0: pass` must spin in the simulator as on the GPU. The module is compiled
    and cached by a run that ends (a[0] = 1), so the timed run measures the launch only."""
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(d, "cache"))
    args = [bin_, "run", FILE, "spin"] + LAUNCH
    p = subprocess.run(args + ["ones:int32[1]"], cwd=d, capture_output=True, env=env, timeout=300)
    if p.returncode != 0:
        return f"exit {p.returncode}: {p.stderr.decode().strip()}"
    try:
        p = subprocess.run(args + ["zeros:int32[1]"], cwd=d, capture_output=True, env=env, timeout=3)
    except subprocess.TimeoutExpired:
        return None
    return f"the loop ended at once (exit {p.returncode}): the host compiler removed it"


def case_memory_fault(bin_, d):
    """An out-of-bounds write far past an array faults in the simulator: the library catches
    it (P2C_ERR_ILLEGAL_ADDRESS), exit 3 with a message that names the kernel, the Python line
    of the access (the module's line table) and --check-bounds, no bare SIGSEGV, no outputs
    written."""
    with open(FILE) as f:
        line = next(i for i, text in enumerate(f.read().splitlines(), 1) if "a[far] = 1" in text)
    many = ["--device", "sim", "--grid", "64", "--block", "128"]   # helper threads fault too
    rc, err = run(bin_, d, ["wild"] + many + ["zeros:int32[4]", str(1 << 40)])
    problem = expect(rc, err, 3, "simulator: kernel 'wild': an illegal memory access (SIGSEGV)",
                     f" in {FILE}:{line}, by a thread of block", "CUDA_ERROR_ILLEGAL_ADDRESS",
                     "--check-bounds")
    if not problem and os.path.exists(os.path.join(d, "pyk2cuda-out")):
        problem = "outputs were written after the fault"
    if problem:
        return problem
    rc, err = run(bin_, d, ["wild"] + LAUNCH + ["--check-bounds", "zeros:int32[4]", str(1 << 40)])
    return expect(rc, err, 3, "is out of bounds")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def interrupt(bin_, d, sig, cxx_env, args, wait_for):
    """Starts run, waits until wait_for() is true, sends sig; returns (rc, stderr, seconds)."""
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(d, "cache"), **cxx_env)
    p = subprocess.Popen([bin_, "run", FILE] + args, cwd=d, env=env, stderr=subprocess.PIPE)
    for _ in range(600):
        if wait_for():
            break
        time.sleep(0.05)
    t0 = time.time()
    p.send_signal(sig)
    try:
        err = p.communicate(timeout=20)[1].decode()
    except subprocess.TimeoutExpired:
        p.kill()
        return None, "did not end within 20 s of the signal", 0
    return p.returncode, err, time.time() - t0


def case_interrupt_compile(bin_, d):
    """SIGINT or SIGTERM while the host compiler runs: the compiler's whole process group ends
    (its worker too), the work folder is removed, exit 128 + signal, nothing written."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        pids = os.path.join(d, f"pids{int(sig)}")
        cxx = {"PYK2CUDA_CXX": os.path.join(ROOT, "tests", "sim", "slow_cxx.sh"), "SLOW_CXX_PIDS": pids}
        ready = lambda: os.path.exists(pids) and open(pids).read().strip() != ""
        rc, err, _ = interrupt(bin_, d, sig, cxx, ["put"] + LAUNCH + ["zeros:float64[1]", "3"], ready)
        problem = expect(rc, err, 128 + int(sig), "interrupted; nothing was written")
        if problem:
            return f"{sig.name}: {problem}"
        worker = int(open(pids).read())
        time.sleep(0.2)
        if alive(worker):
            os.kill(worker, signal.SIGKILL)
            return f"{sig.name}: the compiler's worker {worker} is still running"
        left = os.listdir(os.path.join(d, "cache", "sim"))
        if left:
            return f"{sig.name}: the cache folder holds {left}"
        if os.path.exists(os.path.join(d, "pyk2cuda-out")):
            return f"{sig.name}: outputs were written"
    return None


def processes_naming(text):
    """The pids of live processes whose command line holds text."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read() and alive(pid):
                    found.append(int(pid))
        except (OSError, ValueError):
            pass
    return found


def gone_within(pids, seconds):
    """The pids still alive after waiting up to seconds for them to end (and reaped by init)."""
    deadline = time.time() + seconds
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def case_kill9_compile(bin_, d):
    """SIGKILL of run while the host compiler runs: the compiler and what it started end with
    it (a watcher leads their process group and ends it at its parent's death), instead of
    running on as orphans; the work folder is removed by a later build (damaged_cache)."""
    pids = os.path.join(d, "pids")
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(d, "cache"),
               PYK2CUDA_CXX=os.path.join(ROOT, "tests", "sim", "slow_cxx.sh"), SLOW_CXX_PIDS=pids)
    p = subprocess.Popen([bin_, "run", FILE, "put"] + LAUNCH + ["zeros:float64[1]", "3"], cwd=d, env=env,
                         stderr=subprocess.DEVNULL)
    for _ in range(600):
        if os.path.exists(pids) and open(pids).read().strip():
            break
        time.sleep(0.05)
    worker = int(open(pids).read())
    p.kill()
    p.wait()
    left = gone_within([worker], 5)
    if left:
        os.kill(worker, signal.SIGKILL)
        return f"the compiler's worker {worker} still runs 5 s after run was killed"
    return None


def case_kill9_real_compile(bin_, d):
    """The same with the real compiler on a large kernel: no cc1plus survives run's SIGKILL."""
    src = os.path.join(d, "big.py")
    lines = ["from numba import cuda", "", "", "@cuda.jit", "def big(a):", "    x = a[0]"]
    for k in range(3000):
        lines += [f"    x = x * {k % 7 + 1}.5 + a[{k % 5}]", f"    if x > {k}.0:", f"        a[{k % 3}] = x"]
    with open(src, "w") as f:
        f.write("\n".join(lines + ["    a[1] = x", ""]))
    cache = os.path.join(d, "cache")
    p = subprocess.Popen([bin_, "run", src, "big", "--device", "sim", "--grid", "1", "--block", "1",
                          "zeros:float64[5]"], cwd=d, env=dict(os.environ, PYK2CUDA_CACHE_DIR=cache),
                         stderr=subprocess.DEVNULL)
    compilers = []
    for _ in range(1200):
        compilers = [c for c in processes_naming(cache) if c != p.pid]
        if any(open(f"/proc/{c}/comm").read().strip() == "cc1plus" for c in compilers if alive(c)):
            break
        if p.poll() is not None:
            return f"run ended ({p.returncode}) before cc1plus was seen"
        time.sleep(0.05)
    else:
        p.kill()
        return "cc1plus never started"
    p.kill()
    p.wait()
    left = gone_within(processes_naming(cache), 5)
    for c in left:
        os.kill(c, signal.SIGKILL)
    return f"still running 5 s after run's SIGKILL: {left}" if left else None


def case_interrupt_spinning_kernel(bin_, d):
    """SIGINT while a kernel spins forever: the launch stops at its loop's poll and run ends
    with 130 and its message (before the poll only the 2 s grace ended the process, silently)."""
    first = subprocess.run([bin_, "run", FILE, "spin"] + LAUNCH + ["ones:int32[1]"], cwd=d,
                           capture_output=True, timeout=300,
                           env=dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(d, "cache")))
    if first.returncode != 0:
        return f"exit {first.returncode}: {first.stderr.decode().strip()}"
    start = time.time()
    rc, err, secs = interrupt(bin_, d, signal.SIGINT, {}, ["spin"] + LAUNCH + ["zeros:int32[1]"],
                              lambda: time.time() - start > 1.0)
    if rc is None:
        return err
    if rc != 130 or secs >= 10 or "interrupted; nothing was written" not in err:
        return f"exit {rc} after {secs:.1f} s: {err.strip()}"
    return None


def case_timeout_spinning_kernel(bin_, d):
    """--timeout ends a kernel thread that never ends: exit 3 with a message naming the kernel
    and the limit, nothing written, within the limit and the 2 s grace."""
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(d, "cache"))
    args = [bin_, "run", FILE, "spin"] + LAUNCH
    p = subprocess.run(args + ["ones:int32[1]"], cwd=d, capture_output=True, env=env, timeout=300)
    if p.returncode != 0:
        return f"exit {p.returncode}: {p.stderr.decode().strip()}"
    t0 = time.time()
    p = subprocess.run(args + ["--timeout", "1", "--out-dir", "timed", "zeros:int32[1]"], cwd=d,
                       capture_output=True, env=env, timeout=60)
    secs = time.time() - t0
    problem = expect(p.returncode, p.stderr.decode(), 3,
                     "'spin' did not finish within 1 s (--timeout); nothing was written")
    if problem:
        return problem
    if os.path.exists(os.path.join(d, "timed")):
        return "outputs were written after the timeout"
    return None if secs < 20 else f"took {secs:.1f} s"


def case_largest_grids(bin_, d):
    """--grid 2147483647 (CUDA's largest x) runs to its end in bounded time (2^31 - 1 blocks of
    one thread: seconds); the largest grid of all, 2^31-1 x 65535 x 65535 blocks of 1024
    threads, would run for ages: --timeout ends it between blocks, exit 3, nothing written."""
    rc, err = run(bin_, d, ["put", "--device", "sim", "--grid", "2147483647", "--block", "1",
                            "zeros:float64[1]", "3"])
    if rc != 0:
        return f"grid 2147483647: exit {rc}: {err.strip()}"
    a = np.load(os.path.join(d, "pyk2cuda-out", "a.npy"))
    if a[0] != 3:
        return f"grid 2147483647: a = {a!r}"
    t0 = time.time()
    rc, err = run(bin_, d, ["put", "--device", "sim", "--grid", "2147483647,65535,65535",
                            "--block", "1024", "--timeout", "1", "--out-dir", "timed",
                            "zeros:float64[1]", "3"])
    secs = time.time() - t0
    problem = expect(rc, err, 3, "'put' did not finish within 1 s (--timeout)")
    if problem:
        return f"largest grid: {problem}"
    if os.path.exists(os.path.join(d, "timed")):
        return "largest grid: outputs were written after the timeout"
    return None if secs < 20 else f"largest grid: took {secs:.1f} s"


def case_bad_timeout(bin_, d):
    for bad in ("0", "-1", "x", "1e9"):
        rc, err = run(bin_, d, ["put"] + LAUNCH + ["--timeout", bad, "zeros:float64[1]", "3"])
        problem = expect(rc, err, 2, f"bad --timeout '{bad}'")
        if problem:
            return problem
    return None


def cache_files(cache):
    sim = os.path.join(cache, "sim")
    return sorted(os.listdir(sim)) if os.path.isdir(sim) else []


def case_concurrent_runs_one_cache(bin_, d):
    """Four runs at once on one empty cache folder: each compiles the module, each gets its own
    right result, and the cache ends with one entry (object, key, sum) and no work folder."""
    cache = os.path.join(d, "cache")
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=cache)
    procs = []
    for k in range(4):
        procs.append(subprocess.Popen([bin_, "run", FILE, "put"] + LAUNCH +
                                      ["--out-dir", f"out{k}", "zeros:float64[1]", str(k + 10)],
                                      cwd=d, env=env, stderr=subprocess.PIPE))
    for k, p in enumerate(procs):
        err = p.communicate(timeout=300)[1].decode()
        if p.returncode != 0:
            return f"run {k}: exit {p.returncode}: {err.strip()}"
        a = np.load(os.path.join(d, f"out{k}", "a.npy"))
        if a[0] != k + 10:
            return f"run {k}: a = {a!r}"
    # One module entry and the one precompiled prelude every run shares (docs/simulator.md);
    # no work folder, no temporary file.
    files = cache_files(cache)
    kinds = sorted(f[f.index("."):] for f in files)
    if kinds != [".h", ".h.gch", ".key", ".so", ".sum"] or \
            sorted(f for f in files if f.startswith("prelude-"))[0] + ".gch" not in files:
        return f"the cache holds {files}"
    return None


def case_damaged_cache(bin_, d):
    """A cache entry made unusable in each way (the object truncated, replaced by a folder, its
    key or sum garbled or missing) is rebuilt; a cache folder that is a file, or lies under a
    file (so nothing can be written there, even by root), is not an error: the module is built
    in a temporary folder."""
    cache = os.path.join(d, "cache")
    env = dict(os.environ, PYK2CUDA_CACHE_DIR=cache)

    def put(value, cache_env=env):
        try:
            p = subprocess.run([bin_, "run", FILE, "put"] + LAUNCH + ["zeros:float64[1]", str(value)],
                               cwd=d, env=cache_env, capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "hung (120 s)"
        if p.returncode != 0:
            return f"exit {p.returncode}: {p.stderr.decode().strip()}"
        got = np.load(os.path.join(d, "pyk2cuda-out", "a.npy"))[0]
        return None if got == value else f"a[0] = {got}, expected {value}"

    problem = put(1)
    if problem:
        return f"first run: {problem}"
    sim = os.path.join(cache, "sim")
    stem = os.path.splitext([f for f in cache_files(cache) if f.endswith(".so")][0])[0]
    def replace(name, make):
        path = os.path.join(sim, name)
        if os.path.lexists(path):
            os.remove(path)
        make(path)

    damage = {
        "truncated object": lambda: open(os.path.join(sim, stem + ".so"), "r+b").truncate(100),
        "object is a folder": lambda: (os.remove(os.path.join(sim, stem + ".so")),
                                       os.mkdir(os.path.join(sim, stem + ".so"))),
        "garbled key": lambda: open(os.path.join(sim, stem + ".key"), "wb").write(b"\0" * 64),
        "missing sum": lambda: os.remove(os.path.join(sim, stem + ".sum")),
        "garbled sum": lambda: open(os.path.join(sim, stem + ".sum"), "w").write("zz"),
        # not regular files: a FIFO hung the run in open(), /dev/zero was read to 1 GiB
        "object is a FIFO": lambda: replace(stem + ".so", os.mkfifo),
        "key is a FIFO": lambda: replace(stem + ".key", os.mkfifo),
        "object links to /dev/zero": lambda: replace(stem + ".so", lambda p: os.symlink("/dev/zero", p)),
    }
    for k, (what, hurt) in enumerate(damage.items()):
        hurt()
        problem = put(k + 2)
        if problem:
            return f"{what}: {problem}"
        if os.path.isdir(os.path.join(sim, stem + ".so")):
            os.rmdir(os.path.join(sim, stem + ".so"))
    # a work folder left by a process killed while its compiler ran goes once it is older than
    # the longest compile (10 min) and a minute; a young one may be a running compile's
    stale, young = os.path.join(sim, "tmp-stale1"), os.path.join(sim, "tmp-young1")
    for w in (stale, young):
        os.mkdir(w)
        open(os.path.join(w, "src.cu"), "w").write("// left behind\n")
    os.utime(stale, (time.time() - 700, time.time() - 700))
    problem = put(9, dict(env, PYK2CUDA_CXX="c++ -DNEW_KEY"))   # a miss: a build runs
    if problem or os.path.exists(stale) or not os.path.exists(young):
        return problem or f"stale work folder kept: {os.path.exists(stale)}, young one removed: " \
                          f"{not os.path.exists(young)}"
    with open(os.path.join(d, "plain"), "w") as f:
        f.write("a file, not a folder\n")
    for where in ("plain", "plain/cache"):
        problem = put(42, dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(d, where)))
        if problem:
            return f"cache folder {where}: {problem}"
    return None


def case_readonly_and_full_cache(bin_, d):
    """A cache folder that cannot be written, or whose file system is full, only costs the cache
    (its contract): the module is built in $TMPDIR and the run succeeds. It failed with "cannot
    make a work folder" or, when full, "collect2: ld returned 1". Read-only: as user nobody when
    run as root (root writes anywhere), else with the folder's mode. Full: a 1 MiB tmpfs, where
    this process may mount one."""
    os.chmod(d, 0o777)
    ro = os.path.join(d, "ro")
    os.makedirs(os.path.join(ro, "sim"))
    os.chmod(os.path.join(ro, "sim"), 0o555)
    os.chmod(ro, 0o555)
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    cmd = as_nobody + [bin_, "run", FILE, "put"] + LAUNCH + ["zeros:float64[1]", "5"]
    p = subprocess.run(cmd, cwd=d, env=dict(os.environ, PYK2CUDA_CACHE_DIR=ro),
                       capture_output=True, timeout=120)
    if p.returncode != 0:
        return f"read-only cache: exit {p.returncode}: {p.stderr.decode().strip()}"
    if os.listdir(os.path.join(ro, "sim")) or np.load(os.path.join(d, "pyk2cuda-out", "a.npy"))[0] != 5:
        return "read-only cache: wrong result, or something written there"
    full = os.path.join(d, "full")
    os.mkdir(full)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full],
                      capture_output=True).returncode != 0:
        print("   (full cache: no tmpfs can be mounted here, not checked)")
        return None
    try:
        p = subprocess.run([bin_, "run", FILE, "put"] + LAUNCH + ["zeros:float64[1]", "6"], cwd=d,
                           env=dict(os.environ, PYK2CUDA_CACHE_DIR=full), capture_output=True, timeout=120)
        left = os.listdir(os.path.join(full, "sim")) if os.path.isdir(os.path.join(full, "sim")) else []
    finally:
        subprocess.run(["umount", full], capture_output=True)
    if p.returncode != 0:
        return f"full cache: exit {p.returncode}: {p.stderr.decode().strip()}"
    return f"full cache: {left} left in it" if left else None


def check_notes(bin_, d, path, *want):
    p = subprocess.run([bin_, "check", path], cwd=d, capture_output=True, timeout=120)
    return expect(p.returncode, p.stderr.decode(), 0, *want)


def case_notes_host_code_and_unsigned(bin_, d):
    """`check` says what it found and what it did not check: host code is not run, and the
    kernel without a signature had its statements and names checked, not its types."""
    path = os.path.join(ROOT, "tests", "sim", "notes.py")
    return check_notes(bin_, d, path,
                       "notes.py:20:1: note: host code is not run: pyk2cuda translates the kernels "
                       "(unsigned, signed) and device functions (twice)",
                       "notes.py:11:5: note: kernel 'unsigned' has no signature: its statements, "
                       "names, returns, builtin calls, array shapes and recursion were checked, its "
                       "types were not; "
                       "give --sig to check them, e.g. --sig 'unsigned(float32[:])' (guessed "
                       "from how the parameters are used)")


def case_no_signature_hint(bin_, d):
    """A kernel without a signature is told one built from its parameters' use: indexed with
    two indices is a 2-D array, a range() bound an int64, anything else a float64."""
    path = os.path.join(d, "k.py")
    with open(path, "w") as f:
        f.write("from numba import cuda\n@cuda.jit\ndef smooth(a, b, n, w):\n"
                "    for k in range(n):\n        b[k, 0] = a[k, 1] * w + b.shape[0]\n")
    p = subprocess.run([bin_, "emit", path], cwd=d, capture_output=True, timeout=120)
    return expect(p.returncode, p.stderr.decode(), 1,
                  "--sig 'smooth(float32[:, :], float32[:, :], int64, float64)'")


def case_emit_of_host_functions_and_stencils(bin_, d):
    """emit of a file whose @njit function has no signature and whose stencil only the host calls
    (issue 33): exit 0, no C for the host's calls, a note giving the --sig to emit it (guessed from
    the parameters' use); with that --sig its host entry is emitted. A stencil is a kernel of its
    name: without a signature a note gives the --sig of its inputs; with it its kernel is emitted."""
    path = os.path.join(d, "prog.py")
    with open(path, "w") as f:
        f.write("import numpy as np\nimport numba\n\n@numba.njit\ndef total(a):\n    s = 0.0\n"
                "    for i in range(a.shape[0]):\n        s += a[i]\n    return s\n\n"
                "@numba.stencil\ndef left(a):\n    return a[-1]\n\n"
                "print(total(left(np.arange(10.0))))\n")
    rc, out, err = cli(bin_, d, "emit", path)
    problem = expect(rc, err, 0, "prog.py:5:5: note: @jit function 'total' has no signature, so no C is "
                     "emitted for the host's calls of it: give its argument types with --sig, e.g. "
                     "--sig 'total(float32[:])'")
    problem = problem or expect(rc, err, 0, "prog.py:12:5: note: stencil 'left' has no signature, so no C "
                                "is emitted for its kernel: give its inputs' types with --sig, e.g. --sig "
                                "'left(float32[:])'")
    if problem or "total_host" in out or "void left(" in out or "error" in err:
        return problem or f"unsigned: stdout {out[-300:]!r}, stderr {err!r}"
    rc, out, err = cli(bin_, d, "emit", path, "--sig", "total(float64[::1])", "--sig", "left(float64[::1])")
    if rc != 0 or 'extern "C" __global__ void total_host(p2c_array<double, 1> a' not in out or \
            'extern "C" __global__ void left(p2c_array<double, 1> a, p2c_array<double, 1> out)' not in out:
        return f"--sig: exit {rc}, stderr {err!r}"
    return None


# (file, stencil, inputs) that `pyk2cuda run` computes as numba.stencil does (frontend/stencil.c)
STENCIL_RUNS = [
    ("stencil_c_dims.py", "avg3", [("int32", (300,))]),
    ("stencil_c_dims.py", "blur", [("float64", (37, 45))]),
    ("stencil_c_dims.py", "lap3", [("float32", (9, 10, 11))]),
    ("stencil_c_dims.py", "forward", [("int64", (20, 17))]),
    ("stencil_c_options.py", "window", [("float64", (50,)), ("float64", (5,)), 1.5]),
    ("stencil_c_options.py", "diff2", [("int32", (19, 23)), ("int16", (21, 23))]),
    ("stencil_c_options.py", "shifted", [("float32", (12, 13))]),
    ("stencil_c_options.py", "nan_border", [("float64", (33,))]),
]
STENCIL_BLOCKS = {1: (256,), 2: (16, 16), 3: (8, 8, 4)}
STENCIL_ONES = ("blur", "window")   # run into ones: blur's border stays 1, window's is cval 0.0


def stencil_case_args(d, name, inputs, rng):
    """The run's ARGs (inputs saved as .npy, scalars as text) and the values numba.stencil takes."""
    args, values = [], []
    for k, spec in enumerate(inputs):
        if not isinstance(spec, tuple):
            args.append(repr(spec))
            values.append(spec)
            continue
        dtype, shape = spec
        v = (rng.integers(-1000, 1000, shape) if dtype.startswith("int") else rng.standard_normal(shape)).astype(dtype)
        path = os.path.join(d, "%s_%d.npy" % (name, k))
        np.save(path, v)
        args.append(path)
        values.append(v)
    return args, values


def case_stencils_run_as_numba(bin_, d):
    """Each stencil of the golden files, launched by `pyk2cuda run` as the kernel of its name on the
    simulator with a zeros: result array of Numba's result dtype, gives numba.stencil's result
    (Debian's Numba, compiled): integers exactly, floats within 1e-6 (float32) or 1e-12 relative.
    Into ones:, it gives Numba's result with out= of ones (the border left as it was without cval)."""
    import runpy
    rng = np.random.default_rng(33)
    for file, name, inputs in STENCIL_RUNS:
        path = os.path.join(ROOT, "tests", "golden", file)
        args, values = stencil_case_args(d, name, inputs, rng)
        func = runpy.run_path(path)[name]
        want = func(*values)
        init = "ones" if name in STENCIL_ONES else "zeros"
        if init == "ones":
            want = func(*values, out=np.ones(want.shape, want.dtype))
        shape = want.shape
        grid = [(e + b - 1) // b for e, b in zip(reversed(shape), STENCIL_BLOCKS[len(shape)])]
        out = os.path.join(d, name + "-out")
        rc, _, err = cli(bin_, d, "run", path, name, "--device", "sim", "--grid", ",".join(map(str, grid)),
                         "--block", ",".join(map(str, STENCIL_BLOCKS[len(shape)])), "--out-dir", out, *args,
                         "%s:%s[%s]" % (init, want.dtype.name, ",".join(map(str, shape))))
        if rc != 0:
            return f"{name}: exit {rc}: {err.strip()}"
        got = np.load(os.path.join(out, "out.npy"))
        rtol = 1e-6 if want.dtype == np.float32 else 1e-12
        same = np.array_equal(got, want) if want.dtype.kind in "iub" else np.allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        if got.dtype != want.dtype or not same:
            return f"{name}: got {got.dtype} {got.ravel()[:6]}, numba.stencil {want.dtype} {want.ravel()[:6]}"
    return None


def cli(bin_, d, *args):
    p = subprocess.run([bin_, *args], cwd=d, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def case_help_of_every_command(bin_, d):
    """`pyk2cuda CMD --help` prints that command's synopsis and options on stdout, exit 0."""
    for cmd, option in [("emit", "--line-directives"), ("ptx", "--cubin"), ("check", "--sig"),
                        ("run", "--out-dir"), ("info", "pyk2cuda info")]:
        for flag in ("--help", "-h"):
            rc, out, err = cli(bin_, d, cmd, flag)
            if rc != 0 or f"pyk2cuda {cmd}" not in out or option not in out or err:
                return f"{cmd} {flag}: exit {rc}, stdout {out!r}, stderr {err!r}"
    rc, out, err = cli(bin_, d, "run", "x.py", "k", "--grid", "1", "--help")
    if rc != 0 or "ARG, in the kernel's parameter order" not in out:
        return f"run ... --help: exit {rc}: {out!r} {err!r}"
    rc, out, err = cli(bin_, d, "frob", "--help")
    return expect(rc, err, 2, "unknown command 'frob'")


def case_info_without_a_gpu(bin_, d):
    """Without a driver, `info` is a report, not a failure: exit 0, the reason once, and that
    the simulator will run kernels."""
    env = dict(os.environ, PYK2CUDA_LIBCUDA="/nonexistent/libcuda.so.1")
    p = subprocess.run([bin_, "info"], cwd=d, capture_output=True, timeout=120, env=env)
    out, err = p.stdout.decode(), p.stderr.decode()
    if p.returncode != 0 or err:
        return f"exit {p.returncode}, stderr {err!r}"
    if out.count("no CUDA driver found") != 1 or "no GPU: the simulator will run kernels" not in out:
        return f"report: {out!r}"
    return None


def case_notes_no_kernel(bin_, d):
    path = os.path.join(d, "script.py")
    with open(path, "w") as f:
        f.write("import numpy as np\n\nx = np.zeros(3)\nprint(x)\n")
    return check_notes(bin_, d, path, "script.py:1:1: note: no kernel in this file",
                       "script.py:4:1: note: host code is not run")


def case_hostile_launches(bin_, d):
    """Launch configurations past CUDA's limits end with a message, never a crash."""
    cases = [(["--grid", "1", "--block", "2048"], 3, "exceeds CUDA's limits"),
             (["--grid", "1", "--block", "1", "--shared", "100000000"], 3, "dynamic shared memory exceed"),
             (["--grid", "0", "--block", "1"], 2, "bad --grid"),
             (["--grid", "1", "--block", "1,1,1,1"], 2, "bad --block"),
             (["--grid", "4294967296", "--block", "1"], 2, "bad --grid")]
    for flags, want_rc, msg in cases:
        rc, err = run(bin_, d, ["put", "--device", "sim"] + flags + ["zeros:float64[1]", "3"])
        problem = expect(rc, err, want_rc, msg)
        if problem:
            return f"{' '.join(flags)}: {problem}"
    return None


def case_source_limit(bin_, d):
    """/dev/zero is refused after 16 MiB and one byte, not read to 2 GiB."""
    for cmd in (["check", "/dev/zero"], ["run", "/dev/zero", "k", "--grid", "1", "--block", "1"]):
        p = subprocess.run([bin_] + cmd, cwd=d, capture_output=True, timeout=60)
        problem = expect(p.returncode, p.stderr.decode(), 2,
                         "cannot read /dev/zero: larger than the 16 MiB source limit")
        if problem:
            return f"{cmd[0]}: {problem}"
    return None


RANGE = [("int8:300", "300 is out of range for int8"), ("int8:-129", "out of range for int8"),
         ("uint8:-1", "-1 is out of range for uint8"), ("uint16:65536", "out of range for uint16"),
         ("int32:2147483648", "out of range for int32"), ("float32:1e39", "out of range for float32"),
         ("99999999999999999999", "an integer outside int64"), ("int64:x", "'x' is not"),
         ("float16:65520", "out of range for float16"), ("float16:1.5x", "'1.5x' is not")]


def case_scalar_ranges(bin_, d):
    for arg, msg in RANGE:
        rc, err = run(bin_, d, ["put"] + LAUNCH + ["zeros:float64[1]", arg])
        problem = expect(rc, err, 2, msg)
        if problem:
            return f"{arg}: {problem}"
    for arg, want in [("int8:127", 127), ("int8:-128", -128), ("uint64:18446744073709551615", 2.0**64),
                      ("-9223372036854775808", -2.0**63), ("float16:1.5", 1.5),
                      ("float16:0.1", float(np.float16(0.1))), ("float16:65519", 65504.0),
                      ("float16:-6e-8", -2.0**-24)]:
        rc, err = run(bin_, d, ["put"] + LAUNCH + ["zeros:float64[1]", arg])
        if rc != 0:
            return f"{arg}: exit {rc}: {err.strip()}"
        got = np.load(os.path.join(d, "pyk2cuda-out", "a.npy"))[0]
        if got != want:
            return f"{arg}: stored {got!r}, expected {want!r}"
    return None


def case_malformed_tuples(bin_, d):
    """Tuple arguments are written as Python writes them; anything else is a usage error (exit 2)
    that shows the spelling, and an array inside a tuple is refused (only arguments of their own
    are written back). Well-formed tuples are tests/python/test_dispatch_fronts.py's."""
    for arg, msg in [("(1, 2", "expected (VALUE, VALUE, ...)"), ("(7)", "(VALUE,) for one"),
                     ("(1,,2)", "expected (VALUE"), ("(1, 2))", "expected (VALUE"),
                     ("(" * 20 + ")" * 20, "at most 16 deep"), ("(1, bogus)", "bad argument 'bogus'"),
                     ("(zeros:float32[2], 1)", "'zeros:float32[2]' is an array, which run does not take inside a tuple")]:
        rc, err = run(bin_, d, ["put"] + LAUNCH + ["zeros:float64[1]", arg])
        problem = expect(rc, err, 2, msg)
        if problem:
            return f"{arg}: {problem}"
    return None


def case_time_names_simulator_path(bin_, d):
    """run --time names how the simulator ran the kernel: samples/matmul.py's barriers as regions,
    as fibers with PYK2CUDA_SIM_FIBERS=1 (the same C(=A@B) either way), a kernel without barriers
    as loops (docs/simulator.md, "Regions")."""
    matmul = [bin_, "run", os.path.join(ROOT, "samples", "matmul.py"), "matmul", "--device", "sim", "--grid",
              "2,2", "--block", "16,16", "--time", "ones:float32[20,24]", "ones:float32[24,30]", "zeros:float32[20,30]"]
    for fibers, want in (("0", "regions"), ("1", "fibers")):
        env = dict(os.environ, PYK2CUDA_CACHE_DIR=os.path.join(d, "cache"), PYK2CUDA_SIM_FIBERS=fibers)
        out = os.path.join(d, want)
        p = subprocess.run(matmul + ["--out-dir", out], cwd=d, capture_output=True, env=env, timeout=300)
        problem = expect(p.returncode, p.stderr.decode(), 0, f"{'simulator path':<22} {want:>10}")
        if problem:
            return problem
        c = np.load(os.path.join(out, "C.npy"))
        if not np.array_equal(c, np.full((20, 30), 24, np.float32)):
            return f"{want}: C is not 24 everywhere"
    rc, err = run(bin_, d, ["double"] + LAUNCH + ["--time", "arange:float32[4]", "zeros:float32[4]"])
    return expect(rc, err, 0, f"{'simulator path':<22} {'loops':>10}")


def case_device_function_exported_not_launched(bin_, d):
    """A device function named with -k is exported (`ptx`: a `.visible .func`, no kernel, as
    compile_ptx(device=True) makes it); `run` refuses to launch one, naming it."""
    path = os.path.join(d, "dev.py")
    with open(path, "w") as f:
        f.write("from numba import cuda\n@cuda.jit(device=True)\ndef twice(x):\n    return 2 * x\n")
    rc, out, err = cli(bin_, d, "ptx", path, "-k", "twice", "--sig", "twice(float32)", "--no-cache")
    if rc != 0 or ".visible .func" not in out or ".entry" in out:
        return f"ptx -k twice: exit {rc}, {err.strip() or out[:300]}"
    rc, out, err = cli(bin_, d, "run", path, "twice", "--device", "sim", "--grid", "1", "--block", "1", "1.5")
    return expect(rc, err, 2, "'twice' is a device function, not a kernel")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyk2cuda", required=True)
    opts = ap.parse_args()
    bin_ = os.path.abspath(opts.pyk2cuda)
    passed = failed = 0
    for name, fn in sorted(globals().items()):
        if not name.startswith("case_"):
            continue
        d = tempfile.mkdtemp()
        try:
            problem = fn(bin_, d)
        finally:
            shutil.rmtree(d)
        if problem:
            failed += 1
            print(f"FAIL {name[5:]}: {problem}")
        else:
            passed += 1
            print(f"ok {name[5:]}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
