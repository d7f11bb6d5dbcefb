# Device functions given compile-time values, as Numba's own test_atomics passes them: a
# function (cuda.atomic.add, cuda.atomic.max, a @cuda.jit(device=True) function, operator.add,
# math.sqrt), a dtype (uint32, float64) and literals the callee needs as constants (a shared
# array's shape, a tuple shape, an `if` on a flag). pyk2cuda makes one instance of the callee
# per tuple of such values (docs/semantics.md, "Functions, dtypes and literals as arguments").
import math
import operator

import numpy as np
from numba import cuda, float64, int64, uint32, uint64

SIDE = 16


@cuda.jit(device=True)
def cast_none(num):
    return num


@cuda.jit(device=True)
def cast_to_uint64(num):
    return uint64(num)


@cuda.jit(device=True)
def cast_to_int(num):
    return int(num)


# test_atomics' atomic_binary_1dim_shared: every argument but ary, idx, op2 and initializer is
# a compile-time value; neg_idx picks a branch that is pruned when it is False.
@cuda.jit(device=True)
def shared_1d(ary, idx, op2, ary_dtype, nelem, binop_func, cast_func, initializer, neg_idx):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(nelem, ary_dtype)
    sm[tid] = initializer
    cuda.syncthreads()
    bin = cast_func(idx[tid] % nelem)
    if neg_idx:
        bin = bin - nelem
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


# test_atomics' atomic_binary_2dim_shared: a tuple shape, indexed too; with cast_to_uint64 the
# index tuple is (int32, uint64), and the branch neg_idx=False prunes would make it
# (int64, float64), which an atomic does not take as an index.
@cuda.jit(device=True)
def shared_2d(ary, op2, ary_dtype, ary_shape, binop_func, y_cast_func, neg_idx):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(ary_shape, ary_dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    bin = (tx, y_cast_func(ty))
    if neg_idx:
        bin = (bin[0] - ary_shape[0], bin[1] - ary_shape[1])
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


# test_atomics' atomic_binary_1dim_global
@cuda.jit(device=True)
def global_1d(ary, idx, nelem, op2, binop_func, neg_idx):
    tid = cuda.threadIdx.x
    bin = int(idx[tid] % nelem)
    if neg_idx:
        bin = bin - nelem
    binop_func(ary, bin, op2)


@cuda.jit
def shared_add(ary):
    shared_1d(ary, ary, 1, uint32, 32, cuda.atomic.add, cast_none, 0, False)


@cuda.jit
def shared_add_wrap(ary):
    shared_1d(ary, ary, 1, uint32, 32, cuda.atomic.add, cast_none, 0, True)


@cuda.jit
def shared_add_float(ary):
    shared_1d(ary, ary, 1.0, float64, 32, cuda.atomic.add, cast_to_int, 0.0, False)


@cuda.jit
def shared_max_2d(ary):
    shared_2d(ary, 7, uint32, (4, 8), cuda.atomic.max, cast_to_uint64, False)


@cuda.jit
def shared_sub_2d_wrap(ary):
    shared_2d(ary, 1, uint32, (4, 8), cuda.atomic.sub, cast_none, True)


@cuda.jit
def global_add_wrap(idx, ary):
    global_1d(ary, idx, 32, 1.0, cuda.atomic.add, True)


@cuda.jit
def global_two_ops(idx, ary):
    # two instances of one function in one kernel, and one with a runtime flag: where neg_idx
    # is not a literal, both branches stay
    global_1d(ary, idx, 32, 2, cuda.atomic.max, False)
    global_1d(ary, idx, 32, 1, cuda.atomic.add, idx[0] > 100)


# ---- device functions and operator functions as arguments ----

@cuda.jit(device=True)
def twice(x):
    return 2 * x


@cuda.jit(device=True)
def apply(f, x):
    return f(x)


@cuda.jit(device=True)
def apply_twice(f, x):
    # the function passed on to another device function
    return apply(f, apply(f, x))


@cuda.jit(device=True)
def combine(a, b, op):
    return op(a, b)


@cuda.jit(device=True)
def fold(xs, op, start):
    acc = start
    for x in xs:
        acc = op(acc, x)
    return acc


@cuda.jit
def passed_functions(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = apply(twice, x[i])
        out[i, 1] = apply_twice(twice, x[i])
        out[i, 2] = apply(math.sqrt, abs(x[i]))
        out[i, 3] = combine(x[i], 3.0, operator.add)
        out[i, 4] = combine(x[i], 3.0, operator.mul)
        out[i, 5] = combine(x[i], 0.25, operator.lt)
        out[i, 6] = combine(x[i], 0.5, max)
        out[i, 7] = apply(cast_to_int, x[i] * 10)


@cuda.jit
def folds(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        row = a[i]
        out[i, 0] = fold(row, operator.add, 0)
        out[i, 1] = fold(row, operator.mul, 1)
        out[i, 2] = fold(row, max, row[0])
        out[i, 3] = fold(row, operator.xor, 0)


# ---- dtypes and literal shapes ----

@cuda.jit(device=True)
def block_sum(x, dt, n, scale):
    # a dtype used for a shared array and as a cast; n is its length (a literal); scale is
    # a literal the function does not need as a constant: it stays a parameter
    buf = cuda.shared.array(n, dt)
    t = cuda.threadIdx.x
    if t < n:
        buf[t] = dt(x[cuda.grid(1)] * scale)
    cuda.syncthreads()
    s = dt(0)
    for k in range(n):
        s += buf[k]
    cuda.syncthreads()
    return s


@cuda.jit(device=True)
def tile(x, shape, dt):
    # a tuple shape given as a literal, and one from a module constant
    t = cuda.local.array(shape, dt)
    for r in range(shape[0]):
        for c in range(shape[1]):
            t[r, c] = x * (r + 1) + c
    return t[shape[0] - 1, shape[1] - 1]


@cuda.jit
def dtypes_and_shapes(x, out):
    i = cuda.grid(1)
    out[i, 0] = block_sum(x, float64, 32, 1.0)
    out[i, 1] = block_sum(x, int64, 32, 2.0)
    out[i, 2] = block_sum(x, uint32, 32, 3.0)
    out[i, 3] = block_sum(x, float64, SIDE, 1.0)
    out[i, 4] = tile(x[i], (2, 3), float64)
    out[i, 5] = tile(x[i], (SIDE, 2), int64)
