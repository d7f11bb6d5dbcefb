"""Device functions with signatures, external declarations and what a device function is not
(docs/python.md, "Device functions with signatures"; issue 28): a call of a
@cuda.jit(sig, device=True) function converts its arguments to the signature Numba's overload
resolution picks; cuda.declare_device checks a declaration (test_linked_cuda.py calls them); a device function cannot be
launched or have SASS; Numba's @jit(sig) functions cannot be compiled for the device.

The oracle for the conversions is compiled Numba (numba.njit, Debian's python3-numba): Numba's
simulator ignores a device function's signature (its tests say so), and the CPU target resolves
a call of a function with signatures by the same rules as the CUDA target."""
import subprocess

import numpy as np
import pytest

from pyk2cuda import cuda, float32, int32
from pyk2cuda.types import Signature
from test_samples import ORACLE, has_numba

needs_numba = pytest.mark.skipif(not has_numba(), reason="Debian's python3-numba is not installed")

# The same functions under numba.njit: the oracle's program prints what each call gives.
ORACLE_PROGRAM = r"""
import numpy as np, numba

@numba.njit('int32(int32, int32, int32, int32)')
def rgba(r, g, b, a):
    return (((r & 0xFF) << 16) | ((g & 0xFF) << 8) | ((b & 0xFF) << 0) | ((a & 0xFF) << 24))

@numba.njit(['float64(float64)', 'int32(int32)'])
def which(v):
    return v + 1

@numba.njit
def calls(x, ch, out, a, b, c, d, e):
    x[0] = rgba(ch[0], ch[1], ch[2], ch[3])
    out[0] = which(a)
    out[1] = which(b)
    out[2] = which(c)
    out[3] = which(d)
    out[4] = which(e)

x = np.zeros(1, np.int32)
out = np.zeros(5)
calls(x, np.array([1.9, 258.5, -3.2, 4.0], np.float32), out, np.int64(5), np.int32(7),
      np.int16(3), np.float32(2.5), True)
print(int(x[0]), out.tolist())
"""


@cuda.jit('int32(int32, int32, int32, int32)', device=True)
def rgba(r, g, b, a):
    return (((r & 0xFF) << 16) | ((g & 0xFF) << 8) | ((b & 0xFF) << 0) | ((a & 0xFF) << 24))


@cuda.jit(['float64(float64)', 'int32(int32)'], device=True)
def which(v):
    return v + 1


@cuda.jit
def calls(x, ch, out, a, b, c, d, e):
    x[0] = rgba(ch[0], ch[1], ch[2], ch[3])
    out[0] = which(a)
    out[1] = which(b)
    out[2] = which(c)
    out[3] = which(d)
    out[4] = which(e)


def ours():
    x = np.zeros(1, np.int32)
    out = np.zeros(5)
    calls[1, 1](x, np.array([1.9, 258.5, -3.2, 4.0], np.float32), out, np.int64(5), np.int32(7),
                np.int16(3), np.float32(2.5), True)
    return "%d %s\n" % (int(x[0]), out.tolist())


def test_calls_convert_arguments_to_the_signature():
    # (1, 258, -3, 4) as int32, masked and shifted; which() by Numba's choice (see the oracle):
    # int64 and float32 and bool to float64, int32 and int16 to int32 (v + 1 then wraps as int32)
    assert ours() == "%d [6.0, 8.0, 4.0, 3.5, 2.0]\n" % 0x040102FD


@needs_numba
def test_calls_convert_as_compiled_numba_converts():
    p = subprocess.run([ORACLE, "-c", ORACLE_PROGRAM], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ours()


def test_a_call_no_signature_takes_is_an_error_at_the_call():
    @cuda.jit('int32(int32)', device=True)
    def only_ints(v):
        return v

    @cuda.jit
    def k(x, arr):
        x[0] = only_ints(arr)

    with pytest.raises(cuda.CompileError) as e:
        k[1, 1](np.zeros(1, np.int32), np.zeros(2, np.int32))
    text = str(e.value)
    assert "test_declared_device.py:%d:" % (k.py_func.__code__.co_firstlineno + 2) in text
    assert "Invalid use of type(device function 'only_ints') with parameters (array(int32, 1d, C))" in text


def test_declare_device_keeps_the_declaration():
    for sig in (int32(float32[:]), 'int32(float32[:])'):
        f1 = cuda.declare_device('f1', sig)
        assert f1.name == 'f1'
        assert f1.sig.args == (float32[:],)
        assert f1.sig.return_type == int32
    assert isinstance(f1.sig, Signature)


def test_declare_device_takes_numba_cudas_link_and_abi():
    one = cuda.CUSource('extern "C" __device__ int f(int *r, int x) { *r = x; return 0; }')
    assert cuda.declare_device('f', 'int32(int32)', link=one).link == [one]
    assert cuda.declare_device('f', 'int32(int32)', link=(one, "f.cu")).link == [one, "f.cu"]
    assert cuda.declare_device('f', 'int32(int32)').link == []
    assert cuda.declare_device('f', 'int32(int32)', abi="c").abi == "c"
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fortran"):
        cuda.declare_device('f', 'int32(int32)', abi="fortran")


@pytest.mark.parametrize("sig", [(float32[:],), '(float32[:],)'])
def test_declare_device_needs_a_return_type(sig):
    with pytest.raises(TypeError, match="Return type must be provided for device declarations"):
        cuda.declare_device('f1', sig)


def test_a_declared_function_that_nothing_links_is_an_error_naming_it():
    """Calling a declared function whose CUDA C no link= gives (test_linked_cuda.py links it)."""
    mul = cuda.declare_device('mul_f32_f32', 'float32(float32, float32)')

    @cuda.jit
    def k(r, x):
        r[0] = mul(x[0], x[0])

    with pytest.raises(cuda.CompileError, match="external device function 'mul' calls 'mul_f32_f32', which no "
                       "CUDA C linked into the module defines"):
        k[1, 1](np.zeros(1, np.float32), np.ones(1, np.float32))


def test_a_device_function_is_not_a_kernel():
    @cuda.jit(device=True)
    def f():
        pass

    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        f[1, 1]()
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        f.inspect_sass((int32, int32))


@needs_numba
def test_numbas_jit_with_signatures_cannot_compile_for_the_device():
    program = r"""
import sys
sys.path.insert(0, %r)
import numpy as np, numba
from pyk2cuda import cuda

@numba.jit('(i4, i4)')
def add(a, b):
    return a + b

@cuda.jit
def k(ary):
    i = cuda.grid(1)
    ary[i] = add(ary[i], 1)

try:
    k[1, 4](np.arange(4))
except cuda.CompileError as e:
    print(e)
""" % (cuda.__file__.rsplit("/pyk2cuda/", 1)[0],)
    p = subprocess.run([ORACLE, "-c", program], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert ":14:" in p.stdout and "Untyped global name 'add': using cpu function on device" in p.stdout
