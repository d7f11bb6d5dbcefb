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


# ---- Numba's ufunc API (issue 28: test_vectorize, test_vectorize_decor) ----

SIGS = ["int32(int32, int32)", "float32(float32, float32)", "float64(float64, float64)"]


def _vadd():
    from pyk2cuda import vectorize

    @vectorize(SIGS, target="cuda")
    def vadd(a, b):
        return a + b
    return vadd


def test_tuples_and_namedtuples_are_arrays_as_numba_takes_them():
    """Numba's ufunc call makes any argument that is no array np.asarray's: a tuple of floats,
    a namedtuple of them, a tuple of arrays, a namedtuple of arrays."""
    from collections import namedtuple
    vadd = _vadd()
    Point = namedtuple("Point", ("x", "y", "z"))
    Points = namedtuple("Points", ("xs", "ys"))
    arr = np.arange(10, dtype=np.int32)
    for a, b in [((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)),
                 (Point(1.0, 2.0, 3.0), Point(4.0, 5.0, 6.0)),
                 ((arr, arr + 1), (arr + 2, arr + 2)),
                 ((Point(1.0, 2.0, 3.0), Point(1.5, 2.5, 3.5)), (Point(4.0, 5.0, 6.0), Point(4.5, 5.5, 6.5))),
                 (Points(arr, arr + 2), Points(arr * 2, arr * 2 + 1)),
                 ([1.5, 2.0], [3.0, 4.0])]:
        got = vadd(a, b)
        want = np.asarray(a) + np.asarray(b)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def _numba_pairwise(x, add):
    """Numba's CUDAUFuncDispatcher.reduce order (numba/cuda/vectorizers.py), on the host."""
    n = x.shape[0]
    if n == 1:
        return x
    if n % 2:
        return add(_numba_pairwise(x[:n - 1], add), x[n - 1:])
    return _numba_pairwise(add(x[:n // 2], x[n // 2:]), add)


@pytest.mark.parametrize("n", [1, 2, 8, 100, 2 ** 10 + 1])
def test_reduce_folds_pairwise_as_numba(n):
    vadd = _vadd()
    x = np.arange(n, dtype=np.int32)
    got = vadd.reduce(x)
    assert got == np.add.reduce(x) and got.dtype == np.int32
    assert vadd.reduce(cuda.to_device(x), stream=cuda.stream()) == np.add.reduce(x)
    f = (np.arange(n, dtype=np.float32) * np.float32(0.1)).astype(np.float32)
    want = _numba_pairwise(f, lambda a, b: (a + b).astype(np.float32))[0]
    assert vadd.reduce(f) == want   # the same pairs, so the same float32 rounding


def test_reduce_refuses_empty_and_2d_arrays():
    vadd = _vadd()
    with pytest.raises(TypeError, match="Reduction on an empty array"):
        vadd.reduce(np.zeros(0, np.int32))
    with pytest.raises(ValueError, match="1-d array"):
        vadd.reduce(np.zeros((2, 2), np.int32))


def test_vectorize_options_as_numbas_cuda_target():
    from pyk2cuda import vectorize
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vectorize(SIGS, target="cuda", nopython=True)
    assert [(w.category, str(w.message)) for w in caught] == [
        (RuntimeWarning, "nopython kwarg for cuda target is redundant")]
    with pytest.raises(KeyError, match="Unrecognized options. cuda vectorize target does not "
                                       "support option: 'nonexistent'"):
        vectorize(SIGS, target="cuda", nonexistent=2)


def test_signatures_of_arguments_alone_take_the_result_type_typing_gives():
    """Numba's @vectorize([(datetime_t, datetime_t)], target='cuda') (test_datetime.test_ufunc):
    a signature without a result type compiles the function for those arguments and its result
    type is the one typing gives, as Numba's: datetime64[D] - datetime64[D] is timedelta64[D];
    float32 * int64 is float64 (compiled Numba's typing, NumPy's promotion). A function that
    returns nothing is refused."""
    from pyk2cuda import vectorize

    @vectorize(["(datetime64[D], datetime64[D])"], target="cuda")
    def timediff(start, end):
        return end - start

    arr1 = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    arr2 = arr1 + np.random.default_rng(4).integers(0, 10000, arr1.size)
    delta = timediff(arr1, arr2)
    assert delta.dtype == np.dtype("timedelta64[D]") and (delta == arr2 - arr1).all()

    @vectorize(["(float32, int64)"], target="cuda")
    def mixed(a, b):
        return a * b

    got = mixed(np.float32([1.5, 2.25]), np.int64([2, 3]))
    assert got.dtype == np.float64 and got.tolist() == [3.0, 6.75]

    with pytest.raises(cuda.CompileError, match="gives no result type, and 'nothing' returns none"):
        @vectorize(["(float32,)"], target="cuda")
        def nothing(a):
            pass
