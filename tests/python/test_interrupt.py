"""Ctrl-C in a Python program stops pyk2cuda's long calls: the simulator's host compile (its
whole process group ended, nothing cached) and a launch of many blocks (stopped between blocks),
raising KeyboardInterrupt as Python does (p2c_compiler_set_interrupt, docs/python.md)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""\
    import sys
    import numpy as np
    from pyk2cuda import cuda

    @cuda.jit
    def busy(a):
        acc = 0
        for k in range(2000):
            acc += a[(k + cuda.blockIdx.x) % 16] ^ k
        if acc == -1:
            a[0] = acc

    a = np.zeros(16, np.int64)
    if sys.argv[1] == "launch":
        busy[1, 1](a)                    # compiled (and cached) before the long launch
    print("ready", flush=True)
    try:
        busy[2**31 - 1, 1](a)            # hours of blocks on the simulator
        print("finished")
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
    """)


def interrupt_and_wait(p, what):
    """Sends SIGINT to `p` half a second after it got going, and waits for it (30 s at most):
    (returncode, stdout, stderr, seconds from the signal to the end)."""
    time.sleep(0.5)
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"{what}: still running 30 s after SIGINT")
    return p.returncode, out.decode(), err.decode(), time.time() - t0


def interrupted(tmp_path, phase, env):
    path = tmp_path / "long.py"
    path.write_text(SCRIPT)
    e = dict(os.environ, PYK2CUDA_DEVICE="sim", PYK2CUDA_CACHE_DIR=str(tmp_path / "cache"), **env)
    p = subprocess.Popen([sys.executable, str(path), phase], env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    assert p.stdout.readline() == b"ready\n"
    ready = env.get("SLOW_CXX_PIDS")
    for _ in range(600):   # the slow compiler has started, or the launch is under way
        if (os.path.exists(ready) and open(ready).read().strip()) if ready else True:
            break
        time.sleep(0.05)
    return interrupt_and_wait(p, "the script")


def test_interrupt_stops_a_launch_between_blocks(tmp_path):
    rc, out, err, secs = interrupted(tmp_path, "launch", {})
    assert rc == 0 and out == "KeyboardInterrupt\n", (rc, out, err)
    assert secs < 10, secs


def test_interrupt_ends_the_host_compile(tmp_path):
    pids = tmp_path / "pids"
    env = {"PYK2CUDA_CXX": os.path.join(ROOT, "tests", "sim", "slow_cxx.sh"), "SLOW_CXX_PIDS": str(pids)}
    rc, out, err, secs = interrupted(tmp_path, "compile", env)
    assert rc == 0 and out == "KeyboardInterrupt\n", (rc, out, err)
    assert secs < 10, secs
    worker = int(pids.read_text())
    time.sleep(0.2)
    try:
        with open(f"/proc/{worker}/stat") as f:
            alive = f.read().split()[2] != "Z"
    except OSError:
        alive = False
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive, "the host compiler's worker still runs"
    assert not os.listdir(tmp_path / "cache" / "sim"), "the interrupted compile left files in the cache"


SPIN = textwrap.dedent("""\
    import sys
    import numpy as np
    from pyk2cuda import cuda

    @cuda.jit
    def spin(a):
        while a[0] == 0:         # never ends: no barrier, no call, no next block
            pass
        a[1] = 7

    @cuda.jit
    def spin_fibers(a):
        cuda.syncthreads()       # the simulator runs each thread as a fiber
        while a[0] == 0:
            pass
        a[1] = 7

    kern = spin if sys.argv[1] == "plain" else spin_fibers
    a = np.zeros(2, np.int64)
    a[0] = 1
    kern[1, 32](a)               # compiled (and cached) before the launch that spins
    a[:] = 0
    print("ready", flush=True)
    try:
        kern[2, 32](a)
        print("finished")
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
    a[:] = [1, 0]
    kern[2, 32](a)               # the module stays usable
    print("again", a[1])
    """)


def test_interrupt_stops_a_kernel_that_never_ends(tmp_path):
    """Ctrl-C during a launch whose threads spin for ever, with and without fibers: the
    kernel's loops poll the launch (P2C_SIM_POLL), so KeyboardInterrupt comes promptly (before,
    nothing stopped it but ending the process), and the module launches again."""
    path = tmp_path / "spin.py"
    path.write_text(SPIN)
    e = dict(os.environ, PYK2CUDA_DEVICE="sim", PYK2CUDA_CACHE_DIR=str(tmp_path / "cache"))
    for kind in ("plain", "fibers"):
        p = subprocess.Popen([sys.executable, str(path), kind], env=e, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        assert p.stdout.readline() == b"ready\n"
        rc, out, err, secs = interrupt_and_wait(p, kind)
        assert rc == 0 and out == "KeyboardInterrupt\nagain 7\n", (kind, rc, out, err)
        assert secs < 5, (kind, secs)
