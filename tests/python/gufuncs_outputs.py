"""Generalized ufuncs with several outputs (docs/python.md, "Generalized ufuncs"): outputs of
different dtypes, a scalar output beside an array one, outputs allocated (returned as a tuple)
or given after the inputs, an input the same for every loop index. Run with pyk2cuda's CUDA
gufuncs (test_gufunc.py) and with compiled Numba's CPU gufuncs (GUFUNC_TARGET=cpu under
numba_shim.py): the same lines. Numba's CUDA gufuncs take several outputs since numba-cuda; Debian's
Numba 0.56 (its simulator too) takes one, while its CPU gufuncs, which schedule a call the same
way, take several: they are the oracle."""
import os

import numpy as np

from pyk2cuda import guvectorize, float64, int32, void

TARGET = os.environ.get("GUFUNC_TARGET", "cuda")


def show(name, r):
    print("%s: %s %s %s" % (name, r.dtype, r.shape, np.round(r, 4).tolist()))


@guvectorize([void(int32[:], int32[:], float64[:])], '(x)->(x),(x)', target=TARGET)
def copy_and_scale(A, B, C):
    for i in range(B.size):
        B[i] = A[i]
        C[i] = A[i] * 1.5


@guvectorize([void(float64[:], float64[:], float64[:], float64[:])], '(n),(n)->(),(n)', target=TARGET)
def dot_and_sum(a, b, d, s):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
        s[i] = a[i] + b[i]
    d[0] = acc


A = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
B, C = copy_and_scale(A)
show("copy_and_scale B", B)
show("copy_and_scale C", C)
B2, C2 = np.zeros_like(A), np.zeros(A.shape)
r = copy_and_scale(A, B2, C2)
show("positional B", B2)
show("positional C", C2)
print("returned the outputs given:", r[0] is B2 and r[1] is C2)
B1, C1 = copy_and_scale(A[0])
show("no loop dimensions B", B1)
show("no loop dimensions C", C1)

a = np.arange(15, dtype=np.float64).reshape(5, 3) / 4
b = np.arange(3, dtype=np.float64) - 1.5
d, s = dot_and_sum(a, b)   # b is the same for every loop index
show("dot_and_sum d", d)
show("dot_and_sum s", s)
