"""NumPy's reductions in kernels (np.sum(a), a.min(), np.nanmean(a), ... issue 28's
test_array_reductions) through the package: arrays captured from the enclosing scope, frozen as
constants (every dtype, inf, NaN, -0.0, views and Fortran order, empty arrays), walked with
literal_unroll over a tuple of arrays of different types. Compiled Numba on the CPU
(numba.njit, whose reductions the CUDA target shares) gives the expected values; the diff
suite's reductions cases check kernel arguments the same way through `pyk2cuda run`."""
import numba
import numpy as np
import pytest
from numba import literal_unroll as numba_unroll

from pyk2cuda import cuda
from pyk2cuda.cuda.misc.special import literal_unroll

NAN, INF = float("nan"), float("inf")
ARRAYS = (
    np.array([1.0, -0.0, INF, NAN]),
    np.array([[1.0, 1.5], [INF, NAN]])[::-1],            # a view, frozen as its values
    np.asfortranarray(np.array([[0.0, -0.0], [2.5, 0.0]], dtype=np.float32)),
    np.array([True, False, True]),
    np.array([-3, 0, 7, 2], dtype=np.int8),
    np.array([[5, 0], [65535, 2]], dtype=np.uint16),
    np.array([2**40, -1, 3], dtype=np.int64),
    np.array([2**63, 1], dtype=np.uint64),
    np.array([], dtype=np.float64),
)


def _totals(a, out, k):
    out[k, 0] = np.sum(a)
    out[k, 1] = np.prod(a)
    out[k, 2] = np.nansum(a)
    out[k, 3] = np.nanprod(a)
    out[k, 4] = np.nanmean(a)
    out[k, 5] = np.count_nonzero(a)
    out[k, 6] = np.all(a)
    out[k, 7] = np.any(a)


@numba.njit
def _expected(out):
    k = 0
    for a in numba_unroll(ARRAYS):
        _totals_cpu(a, out, k)
        k += 1


_totals_cpu = numba.njit(_totals)


def test_captured_tuple_of_arrays_of_every_dtype_matches_njit():
    totals = cuda.jit(device=True)(_totals)

    @cuda.jit
    def kernel(out):
        k = 0
        for a in literal_unroll(ARRAYS):
            totals(a, out, k)
            k += 1

    got = np.zeros((len(ARRAYS), 8))
    kernel[1, 1](got)
    want = np.zeros((len(ARRAYS), 8))
    _expected(want)
    np.testing.assert_array_equal(got, want)
    assert got[7, 0] == float(2**63 + 1)   # a uint64 sum, not wrapped through int64


def test_results_have_numba_types():
    # The result types Numba gives: a sum of int8 is int64 (no wrap at 127), of uint16 uint64,
    # nansum of uint16 int64; mean of ints float64; min keeps the dtype; all/any are bool.
    i8 = np.array([100, 100, 100], dtype=np.int8)
    u16 = np.array([65535, 65535], dtype=np.uint16)

    @cuda.jit
    def kernel(ints, bools, floats):
        ints[0] = np.sum(i8)
        ints[1] = u16.sum()
        ints[2] = np.nansum(u16)
        ints[3] = np.min(i8) + np.int8(100)   # int8 + int8 is int64 in Numba: 200
        floats[0] = i8.mean()
        bools[0] = np.all(i8)
        bools[1] = u16.any()

    ints, bools, floats = np.zeros(4, np.int64), np.zeros(2, np.bool_), np.zeros(1)
    kernel[1, 1](ints, bools, floats)
    assert ints.tolist() == [300, 131070, 131070, 200]
    assert floats[0] == 100.0 and bools.tolist() == [True, True]


def test_min_of_an_empty_array_raises_with_debug():
    # Numba's min and nanmin of an empty array raise ValueError, reported after a debug=True
    # launch as every exception in a kernel (without it the thread ends: docs/semantics.md).
    empty = np.array([], dtype=np.float32)

    @cuda.jit(debug=True, opt=False)
    def first_min(out):
        out[0] = np.min(empty)

    @cuda.jit(debug=True, opt=False)
    def first_nanmax(out):
        out[0] = np.nanmax(empty)

    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum which has no identity"):
        first_min[1, 1](np.zeros(1, np.float32))
    with pytest.raises(ValueError, match="zero-size array to reduction operation not possible"):
        first_nanmax[1, 1](np.zeros(1, np.float32))


def test_mean_var_std_of_an_empty_array_are_nan():
    # 0 / 0 in the CUDA target's NumPy error model (njit's Python model raises instead)
    empty = np.array([], dtype=np.float64)

    @cuda.jit
    def kernel(out):
        out[0] = np.mean(empty)
        out[1] = np.var(empty)
        out[2] = np.std(empty)
        out[3] = np.sum(empty)

    out = np.zeros(4)
    kernel[1, 1](out)
    assert np.isnan(out[:3]).all() and out[3] == 0.0


def test_reductions_of_arguments_and_views_in_a_device_function():
    @cuda.jit(device=True)
    def spread(a):
        return a.max() - a.min()

    @cuda.jit
    def kernel(m, out):
        r = cuda.grid(1)
        if r < m.shape[0]:
            out[r, 0] = spread(m[r])
            out[r, 1] = np.std(m[r, ::2])
            out[r, 2] = np.nanmin(m[:, r])

    m = np.random.default_rng(3).normal(size=(4, 4))
    m[1, 2] = np.nan
    out = np.zeros((4, 3))
    kernel[1, 4](m, out)
    spread_cpu = numba.njit(lambda a: a.max() - a.min())
    std_cpu, nanmin_cpu = numba.njit(lambda a: np.std(a)), numba.njit(lambda a: np.nanmin(a))
    want = [[spread_cpu(m[r]), std_cpu(m[r, ::2]), nanmin_cpu(m[:, r])] for r in range(4)]
    np.testing.assert_allclose(out, want, rtol=1e-12)
    assert np.isnan(out[1, 0])   # max - min of a row holding NaN


def test_reduction_of_a_complex_array_is_refused():
    c = np.array([1 + 2j, 3 - 1j])

    @cuda.jit
    def kernel(out):
        out[0] = np.sum(c).real

    with pytest.raises(cuda.CompileError, match=r"numpy.sum\(\) of array\(complex128.*is not supported"):
        kernel[1, 1](np.zeros(1))
