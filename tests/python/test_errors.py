"""Bad input gets a Python exception that says what is wrong, never a crash."""
import numpy as np
import pytest

import pyk2cuda
from pyk2cuda import cuda
import kernels as K


def test_compile_error_carries_the_diagnostics():
    import broken_kernel
    with pytest.raises(pyk2cuda.CompileError) as e:
        broken_kernel.broken[1, 1](np.zeros(4))
    msg = str(e.value)
    assert "broken_kernel.py:8:" in msg and ": error: " in msg and "undefined_name" in msg
    d = e.value.diagnostics
    assert d and d[0][0].endswith("broken_kernel.py") and d[0][1] == 8 and d[0][3] == "error"
    assert d[0][4].startswith("E-") and e.value.status_name == "source"
    assert isinstance(e.value, pyk2cuda.Error)


def test_wrong_argument_count():
    with pytest.raises(TypeError, match=r"kernel 'add' takes 3 arguments, 2 given"):
        K.add[1, 1](np.zeros(2), np.zeros(2))
    with pytest.raises(TypeError, match="positional"):
        K.add[1, 1](np.zeros(2), np.zeros(2), out=np.zeros(2))


def test_wrong_argument_type_names_the_parameter():
    with pytest.raises(TypeError, match=r"argument 'y'.*got str"):
        K.add[1, 1](np.zeros(2), "two", np.zeros(2))
    with pytest.raises(TypeError, match=r"argument 'x'.*unsupported element type"):
        K.add[1, 1](np.array(["a", "b"], dtype=">U1"), np.zeros(2), np.zeros(2))
    # A complex scalar is an argument (complex128), which this kernel cannot store in floats.
    with pytest.raises(pyk2cuda.CompileError, match=r"cannot store a value of type complex128"):
        K.scale_inplace[1, 1](np.zeros(2), np.complex128(1j))
    with pytest.raises(OverflowError, match="argument 'a'"):
        K.scale_inplace[1, 1](np.zeros(2), 2**70)


def test_no_signature_names_the_parameter_expected_and_given():
    with pytest.raises(TypeError, match=r"void\(float32\[::1\], float32\): argument 'x' is "
                       r"float64\[::1\], where it takes float32\[::1\]"):
        K.scale_f32[1, 1](np.zeros(2), 1.0)
    with pytest.raises(TypeError, match=r"argument 'x' is float32\[:, ::1\], where"):
        K.scale_f32[1, 1](np.zeros((2, 2), np.float32), 1.0)
    # an array of records, named as Numba names its type
    rec = np.zeros(4, dtype=np.dtype([('a', np.int32), ('b', np.float64)], align=True))
    with pytest.raises(TypeError, match=r"argument 'x' is Record\(a\[type=int32;offset=0\],b\[type=float64;"
                       r"offset=8\];16;True\)\[::1\], where it takes float32\[::1\]"):
        K.scale_f32[1, 1](rec, 1.0)
    # a non-contiguous view where the signature asks for a contiguous array
    with pytest.raises(TypeError, match=r"argument 'x' is float32\[:\], where it takes float32\[::1\]"):
        K.scale_f32[1, 1](np.zeros(8, np.float32)[::2], 1.0)


def test_read_only_array_is_refused_where_the_kernel_writes():
    x = np.zeros(4)
    x.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 'out' of kernel 'add': the array is read-only"):
        K.add[1, 4](np.zeros(4), np.zeros(4), x)
    out = np.zeros(4)
    K.add[1, 4](x, x + 1, out)   # read-only inputs are taken
    np.testing.assert_array_equal(out, np.ones(4))


def test_no_launch_configuration():
    with pytest.raises(ValueError, match=r"without a launch configuration.*add\[grid, block\]"):
        K.add(np.zeros(2), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="launch configuration is"):
        K.add[1]
    with pytest.raises(TypeError, match=r"griddim must be a sequence of integers, got \[.x.\]"):
        K.add["x", 1]


@pytest.mark.parametrize("grid,block,what", [
    (1, 2048, "1024 threads"), (1, (32, 32, 2), "1024 threads"), (1, (1, 1, 65), "z dimension"),
    ((1, 70000), 1, "grid y or z"), (0, 32, "must be 1 to"), (1, -1, "must be 1 to"),
    (1, (1, 1, 1, 1), "dimensions"),
])
def test_over_limit_configurations(grid, block, what):
    with pytest.raises(ValueError, match=what):
        K.add[grid, block](np.zeros(2), np.zeros(2), np.zeros(2))


def test_no_signature_matches():
    with pytest.raises(TypeError, match=r"No matching definition of kernel 'scale_f32' for argument type\(s\) \(float64\[::1\], float64\)"):
        K.scale_f32[1, 1](np.zeros(2), 1.0)
    with pytest.raises(TypeError):
        K.scale_f32[1, 1](1.0, np.zeros(2, np.float32))


def test_unknown_jit_option():
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        cuda.jit(bogus=True)


def test_every_option_numba_cuda_jit_takes_is_accepted():
    # numba-cuda's cuda.jit keywords; docs/python.md says which are honoured (debug,
    # boundscheck, device) and that the others change nothing here.
    options = dict(inline="always", forceinline=True, link=[], debug=False, opt=True,
                   lineinfo=True, cache=True, launch_bounds=(256,), lto=False, fastmath=True,
                   max_registers=40, boundscheck=False, extensions=[])
    k = cuda.jit(**options)(K.add.py_func)
    out = np.zeros(4)
    k[1, 4](np.arange(4.0), np.ones(4), out)
    np.testing.assert_array_equal(out, np.arange(4.0) + 1)
    # extensions= is Numba's kernel.extensions (test_args.py): each one prepares the arguments
    seen = []

    class Seen:
        def prepare_args(self, ty, val, stream=0, retr=None):
            seen.append(type(val).__name__)
            return ty, val
    k = cuda.jit(extensions=[Seen()])(K.add.py_func)
    assert len(k.extensions) == 1
    k[1, 4](np.arange(4.0), np.ones(4), out)
    assert seen == ["ndarray"] * 3
    ptx, _ = cuda.compile_ptx(K.add.py_func, "void(float64[:], float64[:], float64[:])",
                              abi="numba", launch_bounds=128)
    assert ".entry" in ptx
    # forceinline= designates LTO-IR only: numba-cuda's compile_ptx refuses it, in its words.
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile_ptx(K.add.py_func, "void(float64[:], float64[:], float64[:])", forceinline=True)


def test_bounds_error_with_debug():
    bad = cuda.jit(debug=True)(K.bad_index.py_func)
    with pytest.raises(pyk2cuda.BoundsError, match=r"kernels.py:\d+:\d+: error: index .* out of bounds"):
        bad[1, 1](np.zeros(4))
    with pytest.raises(IndexError):
        bad[1, 1](np.zeros(4))


def test_boundscheck_is_read_from_the_decorator():
    # boundscheck=True is written into the decorator of the source translated and read by the
    # translator, as from a file given to pyk2cuda run (the package computed its own switch
    # before); a lazily specialized kernel, an explicit signature and specialize() alike.
    x = np.zeros(4)
    for k in (cuda.jit(boundscheck=True)(K.bad_index.py_func),
              cuda.jit("void(float64[:])", boundscheck=True)(K.bad_index.py_func),
              cuda.jit(boundscheck=True)(K.bad_index.py_func).specialize(x)):
        with pytest.raises(pyk2cuda.BoundsError, match=r"index .* out of bounds"):
            k[1, 1](x)


def test_boundscheck_does_not_report_raises():
    # Numba reports a kernel's exception only after a debug=True launch (its kernel wrapper reads
    # the exception record only then); boundscheck=True checks indices and nothing more here, so
    # the thread whose assert fails leaves quietly, where debug=True raises the AssertionError.
    def roots(a, out, bad):
        i = cuda.grid(1)
        if i < out.size:
            assert a[i] != bad, "bad value"
            out[i] = a[i] * 2.0

    a = np.arange(8.0)
    out = np.zeros(8)
    cuda.jit(boundscheck=True)(roots)[1, 8](a, out, 3.0)
    assert out.tolist() == [0.0, 2.0, 4.0, 0.0, 8.0, 10.0, 12.0, 14.0]
    with pytest.raises(AssertionError, match="bad value"):
        cuda.jit(debug=True)(roots)[1, 8](a, np.zeros(8), 3.0)
    with pytest.raises(pyk2cuda.BoundsError, match=r"index 4 is out of bounds"):
        cuda.jit(boundscheck=True)(roots)[1, 8](a[:4], np.zeros(8), -1.0)


def test_bad_device_arrays_and_shapes():
    with pytest.raises(ValueError, match="negative"):
        cuda.device_array((2, -1))
    with pytest.raises(TypeError, match="unsupported dtype"):
        cuda.device_array(3, dtype=object)
    d = cuda.to_device(np.float64(1.0))            # a 0-d device array, as Numba makes one
    assert d.shape == () and d.copy_to_host() == 1.0
    assert cuda.device_array(()).shape == ()
    assert cuda.to_device(range(3)).copy_to_host().tolist() == [0, 1, 2]   # np.asarray first


def test_vectorize_other_targets():
    with pytest.raises(NotImplementedError, match="target='cuda'"):
        pyk2cuda.vectorize(["float32(float32)"], target="cpu")


def test_an_exception_raised_in_a_debug_kernel_is_raised_as_its_class():
    @cuda.jit(debug=True)
    def checks(a, flag):
        if flag == 1:
            raise ValueError("flag one")
        assert flag != 2, "flag two"
        a[0] = 1
    a = np.zeros(1)
    checks[1, 1](a, 0)
    assert a[0] == 1
    with pytest.raises(ValueError, match=r"^In function 'checks', file .*test_errors.py, line \d+, "
                       r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: flag one$") as e:
        checks[1, 1](a, 1)
    assert isinstance(e.value, pyk2cuda.Error) and e.value.status_name == "bounds"
    # The same facts as data (p2c_compiler_last_failure), at the user's line, not parsed back
    # from the message's words.
    with open(__file__) as f:
        raise_line = next(i for i, t in enumerate(f, 1) if 'raise ValueError("flag one")' in t)
    f = e.value.failure
    assert (f["raised"], f["exception"], f["kernel"], f["file"], f["line"], f["thread"], f["block"]) == \
        (True, "ValueError: flag one", "checks", __file__, raise_line, (0, 0, 0), (0, 0, 0))
    with pytest.raises(AssertionError, match="flag two"):
        checks[1, 1](a, 2)
    with pytest.raises(pyk2cuda.BoundsError, match="out of bounds") as e:
        checks[1, 1](np.zeros(0), 0)
    assert not e.value.failure["raised"] and e.value.failure["line"] == raise_line + 2


class MyError(Exception):
    pass


MESSAGE = "from a str constant"


def test_a_module_exception_class_is_raised_as_itself_with_numbas_message():
    # test_userexc's form: the class itself (here a subclass that is also a pyk2cuda.Error),
    # with Numba's "tid=[...] ctaid=[...]: message"; a str global is a message as a literal is
    @cuda.jit("void(int32)", debug=True)
    def raises(x):
        if x == 1:
            raise MyError
        elif x == 2:
            raise MyError("foo")
        elif x == 3:
            raise RuntimeError(MESSAGE)

    raises[1, 1](0)
    with pytest.raises(MyError, match=r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]$") as e:
        raises[1, 1](1)
    assert isinstance(e.value, pyk2cuda.Error)
    with pytest.raises(MyError, match=r"tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: foo$"):
        raises[1, 1](2)
    with pytest.raises(RuntimeError, match="ctaid=\\[0, 0, 0\\]: from a str constant$"):
        raises[1, 1](3)


def test_a_tuple_index_out_of_range_is_an_index_error_in_debug():
    # test_exception's form: Numba's tuple getitem raises IndexError('tuple index out of range')
    @cuda.jit(debug=True)
    def pick(a):
        x = cuda.threadIdx.x
        if x == 2:
            a[0] = a.shape[-x]

    with pytest.raises(IndexError, match=r"tid=\[2, 0, 0\] ctaid=\[0, 0, 0\]: tuple index out of range"):
        pick[1, 3](np.zeros(1))


def test_a_division_by_zero_in_a_debug_kernel_raises_and_stops_the_thread():
    # test_exception's test_zero_division_error_in_debug: Numba's debug kernels use Python's
    # error model (ZeroDivisionError on a GPU; its simulator raises FloatingPointError): the
    # exception is both, and the thread stops before its later stores.
    @cuda.jit(debug=True, opt=False)
    def f(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    with pytest.raises(ZeroDivisionError, match=r"line \d+, tid=\[0, 0, 0\] ctaid=\[0, 0, 0\]: float division by zero") as e:
        f[1, 1](r, np.zeros(1), np.ones(1))
    assert isinstance(e.value, FloatingPointError) and isinstance(e.value, pyk2cuda.Error)
    assert r.tolist() == [0.0, 0.0]

    @cuda.jit(debug=True)
    def g(q, a, b):
        q[0] = a // b

    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        g[1, 1](np.zeros(1, np.int64), 7, 0)

    @cuda.jit   # without debug=True: NumPy's result, no exception
    def h(r, x, y):
        r[0] = y[0] / x[0]

    h[1, 1](r, np.zeros(1), np.ones(1))
    assert r[0] == np.inf
