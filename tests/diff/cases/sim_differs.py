# Kernels whose result in compiled Numba differs from the simulator's, because compiled
# Numba widens integer arithmetic to 64 bits (int32 * int32 is int64; uint8 - uint8 is
# uint64) and adds bools as integers, while the simulator uses NumPy scalar types (int32
# wraps, uint8 wraps at 256, np.bool_ + np.bool_ is a logical or), and treats
# uint64 + int64 as int64 where NumPy gives float64.
# The expected values follow compiled Numba and come from the *_expected functions
# (same parameters as the kernel, NumPy code filling the output arrays); cases.txt
# names them with expect=FUNC, and the runner uses them instead of the simulator.
from numba import cuda
import numpy as np


@cuda.jit
def widen_int32_mul(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] * b[i]          # int64 product in compiled Numba


def widen_int32_mul_expected(a, b, out):
    out[:] = a.astype(np.int64) * b.astype(np.int64)


@cuda.jit
def widen_uint8(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] + b[i]       # uint64 in compiled Numba: no wrap at 256
        out[i, 1] = a[i] - b[i]       # uint64: wraps at 2**64, stored as int64: negative


def widen_uint8_expected(a, b, out):
    out[:, 0] = a.astype(np.int64) + b.astype(np.int64)
    out[:, 1] = a.astype(np.int64) - b.astype(np.int64)


@cuda.jit
def bool_add(p, q, out):
    i = cuda.grid(1)
    if i < p.size:
        out[i] = p[i] + q[i]          # int64 in compiled Numba: 0, 1 or 2


def bool_add_expected(p, q, out):
    out[:] = p.astype(np.int64) + q.astype(np.int64)


@cuda.jit
def uint64_plus_int64(u, s, out):
    i = cuda.grid(1)
    if i < u.size:
        out[i] = u[i] + s[i]          # int64 in compiled Numba (NumPy: float64)


def uint64_plus_int64_expected(u, s, out):
    out[:] = u.view(np.int64) + s     # two's complement wraparound, like the GPU


@cuda.jit
def range_zero_step(steps, out):
    # A range whose step is zero at run time: Python raises ValueError (so does the simulator);
    # pyk2cuda runs no iteration and goes on (docs/semantics.md), where it used to loop forever.
    i = cuda.grid(1)
    if i < steps.size:
        n = 0
        for k in range(5, 0, steps[i]):
            n += 1
        for k in range(0, 5, steps[i]):
            n += 10
        out[i] = n


def range_zero_step_expected(steps, out):
    for i, s in enumerate(steps):
        out[i] = 0 if s == 0 else len(range(5, 0, s)) + 10 * len(range(0, 5, s))


@cuda.jit
def floordiv_int_min(a, b, q, r):
    # INT64_MIN // -1 overflows: Numba's int_divmod_signed gives 0 for both // and %; NumPy
    # (the simulator) wraps to INT64_MIN.
    i = cuda.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def floordiv_int_min_expected(a, b, q, r):
    for i in range(a.size):
        x, y = int(a[i]), int(b[i])
        if y == 0 or (x == -2**63 and y == -1):
            q[i], r[i] = 0, 0
        else:
            q[i], r[i] = x // y, x % y


@cuda.jit
def int_pow_negative(a, n, out):
    # int ** int with a negative exponent: 0 unless |a| == 1, and 0 ** -n is INT64_MIN on
    # Numba's CUDA target (the NumPy error model's _get_power_zerodiv_return; numba.njit raises
    # ZeroDivisionError, the simulator's NumPy ints ValueError).
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] ** n[i]


def int_pow_negative_expected(a, n, out):
    for i in range(a.size):
        x, k = int(a[i]), int(n[i])
        if k >= 0:
            out[i] = x ** k
        elif x == 0:
            out[i] = -2**63
        else:
            out[i] = 1 if x == 1 else (-1) ** k if x == -1 else 0


@cuda.jit
def int_pow_large(a, n, out):
    # Numba's int ** int (int_power_impl) multiplies in the integer type, wrapping, but the
    # function it compiles also returns 1.0 / r, so its result goes through a float64: 3 ** 35
    # is 50031545098999704, not ...707 (numba.njit agrees; the simulator's NumPy ints do not).
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] ** n[i]


def int_pow_large_expected(a, n, out):
    for i in range(a.size):
        r = (int(a[i]) ** int(n[i])) & (2**64 - 1)
        r = r - 2**64 if r >= 2**63 else r
        d = float(r)
        out[i] = 2**63 - 1 if d >= 2.0**63 else int(d)


@cuda.jit
def shift_left_signedness(u, b, out, bout):
    # Found by fuzz.py --kind ops. A shift takes the left operand's signedness (Numba's
    # BitwiseShiftOperation): uint64 >> 7 is a logical shift giving a uint64 (pyk2cuda made it an
    # int64 and shifted arithmetically). A bool compared with an integer converts to the integer's
    # type (OrderedCmpOp): uint64(2**64-3) <= False is False (pyk2cuda compared in int64). The
    # simulator's NumPy refuses uint64 >> int and compares the bool as NumPy does.
    i = cuda.grid(1)
    if i < u.size:
        out[i, 0] = u[i] >> 7
        out[i, 1] = (u[i] << 3) >> 60
        bout[i, 0] = u[i] <= b[i]
        bout[i, 1] = b[i] > ~u[i]


def shift_left_signedness_expected(u, b, out, bout):
    for i in range(u.size):
        x = int(u[i])
        out[i, 0] = x >> 7
        out[i, 1] = ((x << 3) & (2**64 - 1)) >> 60
        bout[i, 0] = x <= int(b[i])
        bout[i, 1] = int(b[i]) > (~x & (2**64 - 1))


@cuda.jit
def uint64_as_int64_divide(u, b, out):
    # Found by fuzz.py --kind ops (seeds 54 and 57). A uint64 mixed with an int64 is an int64 in
    # Numba, so u >= 2**63 becomes negative, and // and % follow Python's signs: pyk2cuda took the
    # cast of a uint64 for non-negative and divided with C's / and % (uint64(2**64-2) // 2**31 was
    # 0, not -1; uint64(2**64-1) % 2**40 was -1, not 2**40 - 1). Seed 34: 1 // (b ^ -2**63)
    # called the overloaded p2c_floordiv with an int and a `long long`, which the simulator's C++
    # refused as ambiguous (its int64_t is `long`). The simulator's NumPy divides uint64 by
    # int64 in float64.
    i = cuda.grid(1)
    if i < u.size:
        out[i, 0] = u[i] // 2**31
        out[i, 1] = u[i] % (1 << 40)
        out[i, 2] = (u[i] % (1 << 40)) & (-(2**63 - 1))
        out[i, 3] = (~u[i]) // ((u[i] == 7) ^ (u[i] // 2**31))
        out[i, 4] = (True ** 4) // (b[i] ^ (-2**63))
        out[i, 5] = 7 % ((u[i] ^ 2**63) | 1)
        out[i, 6] = (u[i] & 1) * 0.5 // 1.5   # so that p2c_floordiv(double, double) exists too


def uint64_as_int64_divide_expected(u, b, out):
    def s64(x):
        x &= 2**64 - 1
        return x - 2**64 if x >= 2**63 else x

    for i in range(u.size):
        x = s64(int(u[i]))
        q = s64(x // 2**31)
        out[i, 0] = q
        out[i, 1] = x % 2**40
        out[i, 2] = (x % 2**40) & -(2**63 - 1)
        d = s64(int(int(u[i]) == 7) ^ q)
        out[i, 3] = 0 if d == 0 else s64(s64(~int(u[i])) // d)
        out[i, 4] = 1 // (int(b[i]) ^ -2**63)
        out[i, 5] = 7 % s64(s64(x ^ 2**63) | 1)
        out[i, 6] = 0


@cuda.jit
def float32_with_uint16(f, u, s, out):
    # Found by fuzz.py --kind ops (seeds 89, 94, 100). Numba computes a float32 with a uint16 in
    # float64 (typeconv converts uint16 to float32 only unsafely, through int32), where NumPy,
    # and so the simulator, promotes to float32; with an int16 or a uint8 it stays float32.
    # float32(1e8) - uint16(3) is 99999997.0 in float64, 1e8 in float32.
    i = cuda.grid(1)
    if i < f.size:
        out[i, 0] = f[i] - u[i]
        out[i, 1] = u[i] * f[i] + f[i]
        out[i, 2] = f[i] / u[i]
        out[i, 3] = f[i] - s[i]          # int16: float32
        out[i, 4] = (f[i] // u[i]) * 3.0


def float32_with_uint16_expected(f, u, s, out):
    f64, u64 = f.astype(np.float64), u.astype(np.float64)
    out[:, 0] = f64 - u64
    out[:, 1] = u64 * f64 + f64
    out[:, 2] = f64 / u64
    out[:, 3] = (f - s.astype(np.float32)).astype(np.float32)
    out[:, 4] = np.floor_divide(f64, u64) * 3.0
