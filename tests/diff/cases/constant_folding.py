# Constant expressions that CPython folds before Numba sees the bytecode (Python/ast_opt.c),
# with the types Python gives them: `10**-2` is the float 0.01, `2**63` an int Numba types as
# uint64, `-(1)` the int -1, `~True` the int -2 (issue 26). pyk2cuda folds them in the frontend
# (src/frontend/lower_fold.c); before, they were computed at run time in int64 (0.0 for
# x * 10**-2, False for u < 2**63). The simulator runs the same folded bytecode, so it agrees
# where NumPy's scalar rules do not get in the way; the kernels whose results depend on
# compiled Numba's typing of the folded constants use expect= (checked with njit_standin.py).
import numpy as np
from numba import cuda


@cuda.jit
def fold_floats(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] * 10**-2              # float_pow(10.0, -2.0)
        out[i, 1] = x[i] * 2**-1
        out[i, 2] = x[i] * 2.0**-1074 * 2.0**1000 * 2.0**74   # the smallest subnormal, then back
        out[i, 3] = x[i] + 7 // 2 * 1.5 + (-7) % 3 + 7.5 // -2 + -7.5 % 2
        out[i, 4] = x[i] * (2**63 + 1) / 3 + (2**64 - 1) / 2**64   # ints rounded once
        out[i, 5] = x[i] + 1 / 3 + 2**0.5 + (-8) ** 2 + 10 ** -300 * 1e300
        out[i, 6] = x[i] * -(2.5) + +1.5 - -0.0 + 1e308 * 10 * 0   # inf * 0: nan, folded
        out[i, 7] = x[i] + (1 << 62) * 1.0 + (12345678901234567891 >> 3) / 7


@cuda.jit
def fold_big_ints(u, s, out):
    i = cuda.grid(1)
    if i < u.size:
        out[i, 0] = u[i] < 2**63                 # uint64 compare, not an int64 constant
        out[i, 1] = u[i] >= 10**19
        out[i, 2] = u[i] == 2**64 - 1
        out[i, 3] = u[i] > (1 << 63) + 5
        out[i, 4] = s[i] > -2**63                # -(2**63): INT64_MIN, an int64
        out[i, 5] = s[i] < 0xFFFF_FFFF_FFFF_FFFF & ~(1 << 63)
        out[i, 6] = u[i] != 0b1 << 63 | 1
        out[i, 7] = u[i] <= 18446744073709551616 - 1


@cuda.jit
def fold_int_values(s, out):
    i = cuda.grid(1)
    if i < s.size:
        out[i, 0] = s[i] + -(1) + ~5 + (-7) // 2 + (-7) % 3 + 7 % -3
        out[i, 1] = s[i] + ~True + -True + +True + (True + True) * 10
        out[i, 2] = s[i] + (True & False) + (True | False) * 10 + (True ^ True) * 100
        out[i, 3] = s[i] + (not 0) + (not 2.5) * 10 + (-1 >> 70) + (5 >> 1000) * 7
        out[i, 4] = s[i] + (2**62 + 2**62 - 2**63 + 1)   # folds to 1: never wraps
        out[i, 5] = s[i] + (1 + 2 + 3) * (4 - 10) ** 3 + 3 ** 40 // 3 ** 38
        out[i, 6] = s[i] + (-(2**63)) // 2**62 + (6 & -4) + (-6 | 5) + (-6 ^ 5)
        out[i, 7] = s[i] + ((1 << 100) >> 98) + (2**64 + 2**64) // 2**63 + 10**38 // 10**37


@cuda.jit
def not_folded(s, out, fout):
    # What CPython leaves to run time (ast_opt.c's limits, operations that raise): Numba
    # computes these in int64 or float64 at run time, where Python's exact ints would not wrap.
    i = cuda.grid(1)
    if i < s.size:
        out[i, 0] = 2 ** 65 + s[i]             # 2 ** 65: past safe_power's 128 bits; int64: 0
        out[i, 1] = 3 ** 81 + s[i]             # wraps in int64
        out[i, 2] = 2 ** 64 // 2 ** 60 + s[i]  # 2**64 folds, // 2**60 too: 16
        out[i, 3] = (2 ** 62 * 4) // 4 + s[i]  # 2**62 * 4 folds (exact): 2**64 // 4 = 2**62
        out[i, 4] = (2**100 + 2**100) // 2**99 + 2**127 // 2**125 + s[i]   # 2**100: 0 at run time
        fout[i, 0] = 10.0 ** 400 + s[i]        # OverflowError when folding: inf at run time
        fout[i, 1] = 1 / 0 + s[i]              # ZeroDivisionError when folding: inf at run time


def not_folded_expected(s, out, fout):
    def wrap(v):
        v &= 2**64 - 1
        return v - 2**64 if v >= 2**63 else v
    for i in range(s.size):
        out[i, 0] = wrap(0 + int(s[i]))
        out[i, 1] = wrap(int(float(wrap(3 ** 81))) + int(s[i]))   # Numba's int ** int ends in a double
        out[i, 2] = 16 + int(s[i])
        out[i, 3] = 2**62 + int(s[i])
        out[i, 4] = int(s[i])
        fout[i, 0] = np.inf
        fout[i, 1] = np.inf


@cuda.jit
def scale(x, s, out):
    # A subnormal scalar argument (float64:5e-324 on the command line): `pyk2cuda run` took
    # strtod's underflow ERANGE for "out of range" (found by fuzz.py --kind ops).
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * s * 2.0**1000


# Complex constants CPython folds (issue 26): CPython's own value (complexobject.c: c_powi's
# repeated squaring for (1+2j)**2, _Py_c_pow for 2**-1j, complex_pow for a negative float to a
# fractional power, Smith's division), typed complex128 as Numba types a complex constant, and
# a complex module constant frozen the same way. Before, pyk2cuda computed these at run time
# (p2c_cpow: (1+2j)**2 was -3.0000000000000004+3.9999999999999996j) and refused ZC.
ZC = (1 + 2j) ** 3 - 0.5j


@cuda.jit
def fold_complex(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] * (1 + 2j) ** 2
        out[i, 1] = x[i] * 2 ** -1j
        out[i, 2] = x[i] * (-8.0) ** 0.5
        out[i, 3] = x[i] + 1j * 2 - 0j
        out[i, 4] = x[i] * (3 - 4j) / (1 + 1j) ** 5
        out[i, 5] = x[i] * ZC
