# raise and assert that hold (Numba's simulator raises a failed one whatever debug= says, so a
# differential case can only compare kernels whose checks pass; tests/sim/cli_raise.py tests
# the failures): the conditions are evaluated, nothing else changes.
from numba import cuda


@cuda.jit(device=True)
def clamp_checked(x, hi):
    if hi < 0:
        raise ValueError("hi must not be negative")
    assert x == x, "NaN input"
    return min(max(x, 0), hi)


@cuda.jit(debug=True, opt=False)
def checks_hold(a, out, hi):
    i = cuda.grid(1)
    if i < a.size:
        assert i >= 0
        total = 0.0
        for k in range(3):
            assert k < 3, "k in range"
            total += clamp_checked(a[i] * k, hi)
        if total < -1:
            raise IndexError("unreachable")
        out[i] = total


@cuda.jit
def checks_quiet(a, out, hi):
    i = cuda.grid(1)
    if i < a.size:
        assert a[i] < 1000
        out[i] = clamp_checked(a[i], hi)
