# @vectorize(target='cuda') ufuncs, for tests/diff/run_ufunc_diff.py. Numba 0.56's CUDA simulator
# cannot build CUDA ufuncs (vectorize fails in numba/cuda/vectorizers.py with
# "'FakeOverload' object has no attribute 'signature'"), so the expected values are NumPy's,
# computed by the runner from the formula of each case.
import math

from numba import cuda, vectorize
import numba


@cuda.jit(device=True)
def square(x):
    return x * x


@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def hypot2(a, b):
    return math.sqrt(square(a) + square(b))


@numba.vectorize([numba.int64(numba.int64, numba.int64)], target="cuda")
def floormod(a, b):
    return a % b


@vectorize("int32(int32)", target="cuda")
def clamp_neg(x):
    if x < 0:
        return 0
    return x
