"""Exceptions of @jit functions called from the host (issue 33), one line per call: under pyk2cuda
(`python3 -m pyk2cuda cpu_jit_raises.py`) and under Numba's njit (Debian's python3-numba) the
lines must be the same (test_cpu_jit.py): Numba's CPU functions raise every exception with its
class and message, without debug=True (a user's class, an assert, a class raised bare, in a
function another calls, in a prange chunk on another thread), and a division by zero raises
ZeroDivisionError (njit's error_model='python') with Numba's CPU messages."""
import numpy as np
from numba import njit, prange, stencil


class Overdrawn(Exception):
    pass


@njit
def too_big(x):
    if x > 3:
        raise ValueError("too big")
    return x


@njit
def mine(x):
    if x < 0:
        raise Overdrawn("balance", )
    return x


@njit
def checked(x):
    assert x < 3, "x must stay below 3"
    assert x > -3
    return x


@njit
def bare(x):
    if x == 0:
        raise KeyError
    return x


@njit
def calls_too_big(a):
    s = 0
    for v in a:
        s += too_big(v)
    return s


@njit(parallel=True)
def chunks(a, bad):
    s = 0.0
    for i in prange(a.shape[0]):
        if a[i] == bad:
            raise IndexError("bad element")
        s += a[i]
    return s


@njit
def int_div(a, b):
    return a // b, a % b


@njit
def true_div(a, b):
    return a / b


@njit
def float_div(a, b):
    return a // b


@njit
def float_mod(a, b):
    return a % b


@stencil
def pair(a, b):
    return a[-1] + b[1]


@njit
def pair_in_jit(a, b):
    return pair(a, b)


def call(name, f, *args):
    try:
        r = f(*args)
        print(name, "ok", repr(r.tolist() if hasattr(r, "tolist") else r))
    except Exception as e:   # noqa: BLE001 (the class and message are what is compared)
        print(name, type(e).__name__, isinstance(e, Overdrawn), repr(e.args))


call("too_big_ok", too_big, 2)
call("too_big", too_big, 5)
call("mine", mine, -1)
call("assert_msg", checked, 4)
call("assert_bare", checked, -4)
call("bare_class", bare, 0)
call("callee", calls_too_big, np.array([1, 2, 7]))
call("chunk_ok", chunks, np.arange(5000.0), -1.0)
for bad in (0.0, 2500.0, 4999.0):
    call("chunk_%d" % bad, chunks, np.arange(5000.0), bad)
call("int_div_ok", int_div, -7, 2)
call("int_div", int_div, 7, 0)
call("true_div_int", true_div, 7, 0)
call("true_div_float", true_div, 7.0, 0.0)
call("true_div_mixed", true_div, 7, 0.0)
call("float_div", float_div, 7.5, 0.0)
call("float_mod", float_mod, 7.5, 0.0)
call("float_mod_ok", float_mod, -7.5, 2.0)
call("stencil_shapes_ok", pair_in_jit, np.arange(4.0), np.ones(5))
call("stencil_shapes", pair_in_jit, np.arange(4.0), np.ones(3))
