# The expected values of reductions.py's kernels: the same device functions and module-level
# tuples compiled by numba.njit for the CPU, with NumPy's error model as the CUDA target has it
# (the mean of an empty array is NaN there, not Python's ZeroDivisionError).
import importlib.util
import os

import numba
from numba import literal_unroll

_spec = importlib.util.spec_from_file_location(
    "reductions_cases", os.path.join(os.path.dirname(os.path.abspath(__file__)), "reductions.py"))
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
FLOATS, MIXED = _cases.FLOATS, _cases.MIXED
# The device functions' Python (the simulator's device function keeps it as .fn), for the CPU.
_totals, _moments, _extrema = (numba.njit(error_model="numpy")(f.fn)
                               for f in (_cases.totals, _cases.moments, _cases.extrema))


@numba.njit(error_model="numpy")
def _each(a, out, k):
    _totals(a, out, k)
    _moments(a, out, k)
    _extrema(a, out, k)


def reduce_args_expected(f, i, u, b, m, g, out):
    for k, a in enumerate((f, i, u, b, m, m[1:, ::2], g)):
        _each(a, out, k)


def methods_expected(m, out):
    for r in range(m.shape[0]):
        _methods(m[r], out[r])


@numba.njit(error_model="numpy")
def _methods(a, row):
    row[0], row[1], row[2] = a.sum(), a.prod(), a.mean()
    row[3], row[4], row[5], row[6] = a.var(), a.std(), a.min(), a.max()
    row[7], row[8] = a.all(), a.any()


@numba.njit(error_model="numpy")
def _constant_tuples(out, counts):
    k = 0
    for a in literal_unroll(FLOATS):
        _each(a, out, k)
        k += 1
    for a in literal_unroll(MIXED):
        _totals(a, out, k)
        counts[k] = a.size
        k += 1


def constant_tuples_expected(out, counts):
    _constant_tuples(out, counts)
