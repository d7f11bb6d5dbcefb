"""@vectorize(target='cuda') ufuncs against NumPy."""
import numpy as np
import pytest

from pyk2cuda import cuda
import kernels as K


def test_arrays_and_broadcasting():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(4, dtype=np.float32)
    got = K.vmul_add(a, b)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == (3, 4)
    np.testing.assert_array_equal(got, a * b + 1)
    got64 = K.vmul_add(np.arange(5.0), 2.0)
    assert got64.dtype == np.float64
    np.testing.assert_array_equal(got64, np.arange(5.0) * 2 + 1)


def test_scalars_give_a_scalar():
    got = K.vsquare(7)
    assert got == 49 and np.ndim(got) == 0


def test_device_arrays_give_a_device_array():
    x = np.arange(10, dtype=np.int64)
    d = K.vsquare(cuda.to_device(x))
    assert isinstance(d, cuda._core.DeviceArray)
    np.testing.assert_array_equal(d.copy_to_host(), x * x)


def test_shapes_that_do_not_broadcast():
    with pytest.raises(Exception, match="broadcast"):
        K.vmul_add(np.zeros(3, np.float32), np.zeros(4, np.float32))


def test_a_ufunc_is_translated_when_decorated():
    # Numba compiles a vectorize with signatures at decoration; so does pyk2cuda, once: an
    # error is raised there, at the user's line, and calls reuse the translation.
    import pyk2cuda
    with pytest.raises(pyk2cuda.CompileError, match=r"test_vectorize.py:\d+:\d+: error: .*nowhere"):
        @pyk2cuda.vectorize(['float64(float64)'], target='cuda')
        def broken(x):
            return x + nowhere  # noqa: F821

    @pyk2cuda.vectorize(['float64(float64)', 'int64(int64)'], target='cuda')
    def twice(x):
        return 2 * x
    for _ in range(3):  # both signatures, alternately, on the one translated module
        np.testing.assert_array_equal(twice(np.arange(4.0)), np.arange(4.0) * 2)
        got = twice(np.arange(4))
        assert got.dtype == np.int64 and list(got) == [0, 2, 4, 6]


SIGS = ['float32(float32, float32)', 'float64(float64, float64)', 'int64(int64, int64)',
        'int32(int32, int32)', 'complex128(complex128, complex128)', 'float16(float16, float16)']


def _inputs():
    """Arrays of several dtypes, NumPy scalars and Python scalars: what a call may pass."""
    arrays = [np.arange(1, 4, dtype=t) for t in (np.float32, np.float64, np.int64, np.int32,
                                                   np.int16, np.uint8, np.complex128, np.float16)]
    scalars = [2, 2.5, True, 1 + 2j, np.float32(1.5), np.int32(3), np.float64(0.5), np.int8(4)]
    return arrays + scalars


def _numba_choice(sigs, args):
    """The result dtype Numba's CUDA ufunc dispatcher chooses for args, or None when it raises
    TypeError (numba.np.ufunc.deviceufunc.UFuncMechanism, which needs no GPU)."""
    from numba.np.ufunc.deviceufunc import UFuncMechanism
    typemap = {}
    for sig in sigs:
        res, params = sig.split("(", 1)
        typemap[tuple(np.dtype(p.strip()) for p in params.rstrip(")").split(","))] = (np.dtype(res), None)
    cr = UFuncMechanism(typemap, args)
    cr._fill_arrays()
    cr._fill_argtypes()
    try:
        cr._resolve_signature()
    except TypeError:
        return None
    return typemap[tuple(cr.argtypes)][0]


@pytest.mark.skipif(not __import__("test_samples").has_numba(), reason="Numba (Debian's python3-numba) is not installed")
def test_signature_choice_is_numbas():
    """Every pair of 16 kinds of inputs (256 calls) against a ufunc of 6 signatures: the same
    signature as Numba's CUDA ufunc dispatcher chooses (the result's dtype), or, where Numba
    raises TypeError (an array of no signature's exact type, or scalars that leave several),
    a TypeError too; the values are a + b computed in the chosen type. A complex scalar for a
    real signature is refused, where NumPy drops its imaginary part with a warning."""
    import pyk2cuda

    @pyk2cuda.vectorize(SIGS, target='cuda')
    def add(a, b):
        return a + b
    checked = refused = 0
    for a in _inputs():
        for b in _inputs():
            want = _numba_choice(SIGS, (a, b))
            if want is None:
                with pytest.raises(TypeError, match="signature of ufunc 'add' takes"):
                    add(a, b)
                refused += 1
                continue
            if any(isinstance(x, complex) for x in (a, b)) and want.kind != "c":
                # NumPy drops the imaginary part (np.array([1+2j], dtype=float32), with a
                # ComplexWarning): pyk2cuda refuses it instead (docs/semantics.md)
                with pytest.raises(pyk2cuda.Error, match="cannot convert complex128 to"):
                    add(a, b)
                refused += 1
                continue
            got = np.asarray(add(a, b))
            assert got.dtype == want, (a, b)
            ref = np.add(np.asarray(a, dtype=want), np.asarray(b, dtype=want), dtype=want)
            np.testing.assert_array_equal(got, ref)
            checked += 1
    assert checked > 50 and refused > 50, (checked, refused)
