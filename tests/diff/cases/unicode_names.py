# Identifiers are NFKC-normalized, as Python does it (PEP 3131): "ﬁx" (with the U+FB01 ligature)
# and "fix" are one variable, fullwidth "ｘ" is "x", and non-ASCII names such as "été" become
# ASCII C names ("u00e9tu00e9").
from numba import cuda, float64


@cuda.jit
def unicode_names(a, out):
    i = cuda.grid(1)
    if i < a.size:
        été = a[i]
        ﬁx = 2.0 * été
        fix = fix + 1.0
        ｘ = 3.0
        out[i] = ﬁx + x


@cuda.jit
def first(x, out):
    # A kernel named as the simulator's entry names its own parameters (first, count, args,
    # params): the entry's names are p2c_ ones, so they cannot clash.
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + 1.0


@cuda.jit
def count(x, out):
    s = cuda.shared.array(32, float64)
    s[cuda.threadIdx.x] = x[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = s[31 - cuda.threadIdx.x]
