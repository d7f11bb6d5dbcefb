# Bytes literals: Python's rule against concatenating bytes and str, and a bytes literal where
# only a str is taken (a module-level constant, an exception's message).
from numba import cuda

RAW = b"ab"


@cuda.jit("void([char x 4][::1])")
def k(s):
    s[0] = b"ab" "cd"
    s[1] = RAW
    raise ValueError(b"bytes message")
