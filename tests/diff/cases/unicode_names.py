# Identifiers are NFKC-normalized, as Python does it (PEP 3131): "ﬁx" (with the U+FB01 ligature)
# and "fix" are one variable, fullwidth "ｘ" is "x", and non-ASCII names such as "été" become
# ASCII C names ("u00e9tu00e9").
from numba import cuda


@cuda.jit
def unicode_names(a, out):
    i = cuda.grid(1)
    if i < a.size:
        été = a[i]
        ﬁx = 2.0 * été
        fix = fix + 1.0
        ｘ = 3.0
        out[i] = ﬁx + x
