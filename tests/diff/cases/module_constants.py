# Module-level constants that Numba freezes when a kernel reads them, computed from math and
# NumPy (issue 27): the command line folds them as CPython computes them (libm's functions where
# CPython's math module returns libm's result), typed as Numba types the value (a np.float32
# global is float32, so x * SQRT_2PI is float32 arithmetic). tests/diff/const_check.py checks
# random ones against CPython and numba.typeof; this runs a few through the simulator.
import math
from math import sqrt

import numpy as np
from numba import cuda

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)
INV_SQRT_2PI = 1.0 / math.sqrt(2 * np.pi)
SESSION_MS = np.int64(30 * 60 * 1000)
HALF_LOG2 = math.log(2.0) / 2
DEG = math.degrees(1.0) + math.radians(90.0)
TRIG = math.sin(0.5) * math.cos(0.25) + math.atan2(1.0, 3.0) - math.tanh(0.75)
EXPS = math.exp(-1.5) + math.expm1(1e-10) + math.log1p(1e-8) + math.erf(0.3) + math.erfc(1.1)
ROOT = sqrt(np.e) + math.pow(10.0, -2.5) + math.fmod(7.5, 2.0) + math.copysign(2.0, -0.0)
BIG_STEP = 2 ** 100 // 2 ** 90 % 1000          # an int of 101 bits in between: 1024
FLOORED = math.floor(-2.5) + math.ceil(2.1) * 10 + int(7.9) * 100
NEG_INF = -np.inf
IS_NAN = math.isnan(np.nan) and not math.isinf(1e308)
F32_SUM = np.float32(0.1) + np.float32(0.2)    # float32 arithmetic, rounded once
MIXED = np.float32(1.5) * 2.0                  # NumPy 1.x: float32 * Python float is float64
TAU_F32 = np.float32(math.tau)


@cuda.jit
def gaussian(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = -x[i] * x[i] / np.float32(2) / SQRT_2PI   # float32 throughout
        out[i, 1] = x[i] * INV_SQRT_2PI + HALF_LOG2
        out[i, 2] = x[i] * DEG + TRIG
        out[i, 3] = x[i] + EXPS + ROOT
        out[i, 4] = x[i] * F32_SUM + MIXED
        out[i, 5] = max(x[i], NEG_INF) * TAU_F32


@cuda.jit
def counts(n, out):
    i = cuda.grid(1)
    if i < n.size:
        out[i, 0] = n[i] * SESSION_MS
        out[i, 1] = n[i] + BIG_STEP
        out[i, 2] = n[i] - FLOORED
        out[i, 3] = n[i] if IS_NAN else -n[i]


# Complex constants (issue 26), complex128 as Numba freezes them: folded as CPython computes
# them (complex(), c_powi, _Py_c_pow, a negative float to a fractional power); the Python
# package writes the values it froze as complex(re, im), which the command line reads exactly.
ZW = complex(1.5, -0.5) * (1 + 2j) ** 2
ZR = (-8.0) ** 0.5 + 2 ** -1j


@cuda.jit
def complex_consts(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] * ZW
        out[i, 1] = x[i] + ZR
