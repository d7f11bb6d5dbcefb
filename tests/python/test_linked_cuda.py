"""CUDA C linked into kernels (docs/python.md, "CUDA C linked into kernels"; issue 28):
cuda.declare_device's functions called from kernels and device functions, with the CUDA C given
by cuda.jit(link=[...]), by declare_device(link=[...]) (numba-cuda's) or as cuda.CUSource, in
Numba's ABI and the C ABI, on the simulator here and on the GPU path in the standin suite (the
tests marked gpu).

The oracle: Numba's simulator cannot run foreign functions (cuda.jit(link=...) raises
NotImplementedError there), so the expected values are NumPy's, as the results Numba documents
for its FFI example (r == x * y exactly: one float32 multiplication each)."""
import os

import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda

HERE = os.path.dirname(os.path.abspath(__file__))
PRODUCTS = os.path.join(HERE, "linked", "products.cu")
BROKEN = os.path.join(HERE, "linked", "broken.cu")

times = cuda.declare_device("times_f32", "float32(float32, float32)")
scaled_index = cuda.declare_device("scaled_index", "int32(int64, int64)")
hypot_c = cuda.declare_device("hypot_c", "float64(float64, float64)", abi="c")
rotate = cuda.declare_device("rotate_in_block", "float32(float32)", link=[PRODUCTS])


@cuda.jit(link=[PRODUCTS])
def multiply_vectors(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = times(x[i], y[i])


def test_numbas_documented_example():
    """Numba's FFI example (its docs' multiply_vectors): r == x * y for 32 random floats."""
    rng = np.random.default_rng(1)
    x = rng.random(32).astype(np.float32)
    y = rng.random(32).astype(np.float32)
    r = np.zeros_like(x)
    multiply_vectors[1, 32](r, x, y)
    np.testing.assert_array_equal(r, x * y)


@cuda.jit(device=True)
def gather_scaled(a, i):
    return a[scaled_index(i, len(a))]


@cuda.jit(link=[PRODUCTS])
def several(out, a, xs, ys):
    i = cuda.grid(1)
    if i < len(out):
        out[i] = gather_scaled(a, i) + hypot_c(xs[i], ys[i]) + times(np.float32(i), 0.5)


def test_several_functions_both_abis_and_a_device_function():
    """Three external functions in one kernel, one of them called from a device function, an int
    argument converted to int64 and a float32 one from a literal, as the declared signatures say."""
    n = 50
    a = np.arange(n, dtype=np.float64) * 10
    xs = np.linspace(0, 3, n)
    ys = np.linspace(1, 4, n)
    out = np.zeros(n)
    several[2, 32](out, a, xs, ys)
    idx = np.clip(np.arange(n) * 3, 0, n - 1)
    want = a[idx] + np.sqrt(xs * xs + ys * ys) + (np.arange(n, dtype=np.float32) * np.float32(0.5)).astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-15, atol=0)


@cuda.jit
def rotate_kernel(out, v):
    i = cuda.grid(1)
    out[i] = rotate(v[i])


def test_declare_device_link_and_a_barrier_in_the_linked_code():
    """numba-cuda's declare_device(link=...): the kernel names no file. The linked function holds
    __syncthreads, which the simulator honours (its callers run on fibers)."""
    v = np.arange(64, dtype=np.float32)
    out = np.zeros_like(v)
    rotate_kernel[2, 32](out, v)
    want = np.concatenate([np.roll(v[:32], -1), np.roll(v[32:], -1)])
    np.testing.assert_array_equal(out, want)


def test_cusource():
    """numba-cuda's cuda.CUSource: CUDA C given as text."""
    code = cuda.CUSource('extern "C" __device__ int add_one(int *r, int x) { *r = x + 1; return 0; }')
    add_one = cuda.declare_device("add_one", "int32(int32)", link=code)

    @cuda.jit
    def k(a):
        a[0] = add_one(a[0])

    a = np.array([41], np.int32)
    k[1, 1](a)
    assert a[0] == 42



TIMES2 = cuda.CUSource('extern "C" __device__ int times2(int *r, int x) { *r = 2 * x; return 0; }')
TIMES3 = cuda.CUSource('extern "C" __device__ int times3(int *r, int x) { *r = 3 * x; return 0; }')
TIMES4 = cuda.CUSource('extern "C" __device__ int times2(int *r, int x);\n'
                       'extern "C" __device__ int times4(int *r, int x) { int t; times2(&t, x); *r = 2 * t; return 0; }')


@pytest.mark.parametrize("container", [list, tuple, set])
def test_several_unnamed_cusources_are_all_linked(container):
    """Texts that share numba-cuda's default name (<unnamed-cu>) are each linked, whatever the
    container (a set's order is not the written one): times4's text calls times2 from another,
    and times2 is linked once though two declarations name its text."""
    times4 = cuda.declare_device("times4", "int32(int32)", link=container([TIMES2, TIMES4]))
    times2 = cuda.declare_device("times2", "int32(int32)", link=TIMES2)
    times3 = cuda.declare_device("times3", "int32(int32)", link=[TIMES3])

    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = times4(x[i]) + times2(x[i]) + times3(x[i])

    x = np.arange(20, dtype=np.int32)
    r = np.zeros_like(x)
    k[1, 32](r, x)
    np.testing.assert_array_equal(r, 9 * x)

def test_an_error_in_the_linked_file_names_its_line():
    broken = cuda.declare_device("broken", "float32(float32)", link=[BROKEN])

    @cuda.jit
    def k(a):
        a[0] = broken(a[0])

    with pytest.raises(pyk2cuda.Error) as e:
        k[1, 1](np.zeros(1, np.float32))
    assert "broken.cu:4" in str(e.value) or "broken.cu(4)" in str(e.value), str(e.value)
    assert "not_declared_anywhere" in str(e.value)


def test_a_missing_file_is_a_compile_error_naming_it(tmp_path):
    missing = str(tmp_path / "nowhere.cu")
    f = cuda.declare_device("f", "int32(int32)", link=[missing])

    @cuda.jit
    def k(a):
        a[0] = f(a[0])

    with pytest.raises(cuda.CompileError, match="cannot read '%s'" % missing):
        k[1, 1](np.zeros(1, np.int32))


@pytest.mark.parametrize("name,what", [("code.ptx", "PTX"), ("code.cubin", "a cubin"),
                                       ("code.ltoir", "LTO-IR"), ("code.a", "an archive")])
def test_other_kinds_of_code_are_refused_naming_the_file(name, what):
    @cuda.jit(link=[name])
    def k(a):
        a[0] = 1

    with pytest.raises(cuda.CompileError, match="cannot link '.*%s': it is %s" % (name, what)):
        k[1, 1](np.zeros(1, np.int32))


def test_other_linkable_code_in_memory_is_refused():
    @cuda.jit(link=[cuda.PTXSource(".version 8.0")])
    def k(a):
        a[0] = 1

    with pytest.raises(pyk2cuda.Error, match="links only CUDA C"):
        k[1, 1](np.zeros(1, np.int32))


def test_numbas_refusals():
    """As Numba: link= on a device function is a ValueError, cache=True with link= its
    RuntimeError; use_cooperative=True is not supported here."""
    with pytest.raises(ValueError, match="link keyword invalid for device function"):
        cuda.jit(device=True, link=[PRODUCTS])(lambda x: x)
    with pytest.raises(RuntimeError, match="cache=True cannot be used with link="):
        cuda.jit(cache=True, link=[PRODUCTS])(lambda x: x)
    with pytest.raises(NotImplementedError, match="use_cooperative"):
        cuda.declare_device("f", "int32(int32)", use_cooperative=True)


def test_a_declaration_of_arrays_is_refused_at_the_call():
    f = cuda.declare_device("f", "float32(float32[:])", link=[PRODUCTS])

    @cuda.jit
    def k(a):
        a[0] = f(a)

    with pytest.raises(cuda.CompileError, match="passes numbers .* to and from CUDA C"):
        k[1, 1](np.zeros(1, np.float32))


@pytest.mark.gpu
def test_on_the_gpu():
    """The GPU path (the standin suite: NVRTC compiles the linked CUDA C with the kernel; the
    stand-in runs the same CUDA C through the simulator)."""
    assert pyk2cuda.device_kind() == "gpu"
    test_numbas_documented_example()
    test_several_functions_both_abis_and_a_device_function()
    test_declare_device_link_and_a_barrier_in_the_linked_code()
    test_cusource()


CLI_PROGRAM = """
from numba import cuda

mul = cuda.declare_device('times_f32', 'float32(float32, float32)')

@cuda.jit(link=['linked/products.cu'])
def multiply_vectors(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = mul(x[i], y[i])
"""


def test_the_command_line_reads_link_paths_from_the_current_directory(tmp_path):
    """`pyk2cuda run` on a file whose link= path is relative: read from the current directory, as
    Numba reads it (here the folder of the .cu, not the .py's)."""
    import subprocess
    from test_dispatch_fronts import cli_path as cli
    script = tmp_path / "ffi.py"
    script.write_text(CLI_PROGRAM)
    rng = np.random.default_rng(3)
    x = rng.random(40).astype(np.float32)
    y = rng.random(40).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    p = subprocess.run([cli(), "run", str(script), "multiply_vectors", "--grid", "2", "--block", "32",
                        "--device", "sim", "--out-dir", str(tmp_path / "out"), "zeros:float32[40]",
                        str(tmp_path / "x.npy"), str(tmp_path / "y.npy")],
                       cwd=HERE, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "r.npy"), x * y)
    p = subprocess.run([cli(), "check", str(script)], cwd=str(tmp_path), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 1 and "cannot read 'linked/products.cu'" in p.stderr, p.stderr
