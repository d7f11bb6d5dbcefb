"""A kernel's wild memory access on the simulator is an error, not the end of the interpreter
(docs/python.md, "Errors"; docs/simulator.md, "Faults"): the launch raises pyk2cuda.Error with
status 'illegal_address', later launches of that specialization are refused as a CUDA context
refuses them after CUDA_ERROR_ILLEGAL_ADDRESS, and a kernel made again runs. A fault that is
not a kernel's still ends the process, through the handler that was there before (Python's
faulthandler here). Each case runs in a child interpreter: before the simulator caught faults,
the first launch killed it with SIGSEGV."""
import os
import textwrap

from conftest import run_script

SCRIPT = textwrap.dedent("""\
    import faulthandler
    import sys
    faulthandler.enable()            # installed before pyk2cuda's handler, as pytest does
    import numpy as np
    import pyk2cuda
    from pyk2cuda import cuda

    @cuda.jit
    def wild(a, far):
        i = cuda.grid(1)
        if i == 5:
            a[far] = 1.0
        elif i < a.size:
            a[i] = 2.0

    @cuda.jit
    def wild_shared(a, far):
        s = cuda.shared.array(32, np.float64)
        s[cuda.threadIdx.x] = 1.0
        cuda.syncthreads()
        if cuda.grid(1) == 37:
            a[far] = s[0]

    a = np.zeros(16)
    for k in (wild, wild_shared):
        try:
            k[4, 32](a, 1 << 40)
            print("no error")
        except pyk2cuda.Error as e:
            print("caught", e.status_name, e, "|", repr(e.failure))
        try:
            k[1, 1](a, 0)
            print("ran again")
        except pyk2cuda.Error as e:
            print("refused", e.status_name, e)
    b = np.zeros(16)
    cuda.jit(wild.py_func)[1, 16](b, 0)
    print("made again", b.tolist())
    if sys.argv[1:] == ["then-crash"]:
        import ctypes
        ctypes.string_at(0)          # a fault outside any kernel
    """)


def run(tmp_path, *args):
    path = tmp_path / "wild.py"
    path.write_text(SCRIPT)
    # fibers for wild_shared (it has a barrier), whose fault names the thread; run as regions (the
    # default, docs/simulator.md) a fault names the block, as for wild
    return run_script([str(path), *args], env={"PYK2CUDA_DEVICE": "sim", "PYK2CUDA_SIM_FIBERS": "1"})


def script_line(text):
    return next(i for i, line in enumerate(SCRIPT.splitlines(), 1) if text in line)


def test_wild_access_raises_and_refuses_later_launches(tmp_path):
    rc, out, err = run(tmp_path)
    assert rc == 0, err
    lines = out.splitlines()
    assert len(lines) == 5, out
    path = str(tmp_path / "wild.py")
    for kernel, caught, refused, access in (("wild", lines[0], lines[1], "a[far] = 1.0"),
                                            ("wild_shared", lines[2], lines[3], "a[far] = s[0]")):
        assert caught.startswith(f"caught illegal_address simulator: kernel '{kernel}': "
                                 "an illegal memory access (SIGSEGV) at address "), caught
        assert "CUDA_ERROR_ILLEGAL_ADDRESS" in caught and "--check-bounds" in caught, caught
        # the Python line of the access, in the message and as data (the module's line table)
        line = script_line(access)
        assert f" in {path}:{line}, by " in caught, caught
        failure = {"raised": False, "file": path, "kernel": kernel, "line": line}
        assert caught.endswith("| " + repr(failure)), caught
        assert refused.startswith(f"refused illegal_address simulator: kernel '{kernel}' cannot "
                                  "launch: an earlier launch of this module faulted"), refused
    assert "by thread (5,0,0) of block (1,0,0)" in lines[2], lines[2]   # a fiber: its thread
    want = [1.0, 2.0, 2.0, 2.0, 2.0, 0.0] + [2.0] * 10   # thread 5 stored to a[0] instead
    assert lines[4] == f"made again {want}", lines[4]


def test_fault_outside_a_kernel_still_ends_the_process(tmp_path):
    rc, out, err = run(tmp_path, "then-crash")
    # SIGSEGV; under AddressSanitizer (the suites' ASan runs preload it) its report and exit 1
    assert rc == -11 or (rc == 1 and "AddressSanitizer: SEGV" in err), (rc, err)
    assert "Fatal Python error: Segmentation fault" in err, err
    assert out.splitlines()[-1].startswith("made again"), out
