# cuda._captured_array(...) is what the Python package writes for a device array a kernel reads
# from a global (docs/python.md); a malformed one (here a dtype that is not a number's) is an
# error at the call, and the kernel that uses it compiles no further.
from numba import cuda

good = cuda._captured_array(0x1000, (4,), (8,), '<f8')
bad = cuda._captured_array(0x1000, (4,), (8,), '|S8')


@cuda.jit('void(float64[:])')
def k(a):
    a[0] = good[0] + bad[0]
