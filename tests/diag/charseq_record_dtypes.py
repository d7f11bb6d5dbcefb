# Module-level record dtypes with character fields: local and shared arrays of them are
# supported; a field that is an array of strings, a U field off its alignment of 4 in a packed
# record, and a constant array of such records, are not.
from numba import cuda
import numpy as np

NESTED = np.dtype([('a', 'U2', (3,))])
PACKED = np.dtype([('a', 'i1'), ('u', 'U2')])
REC = np.dtype([('n', np.int32), ('u', 'U2')], align=True)
TABLE = np.array([(1, "a")], dtype=REC)


@cuda.jit("void(int32[::1])")
def k(out):
    loc = cuda.local.array(2, NESTED)
    ok = cuda.local.array(2, REC)
    packed = cuda.shared.array(2, PACKED)
    out[0] = TABLE[0].n
