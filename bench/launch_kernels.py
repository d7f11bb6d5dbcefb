# The kernel of the launch-overhead benchmarks (bench/launch_c.c, bench/python_launch.py):
# three array arguments, one block of 32 threads, almost no work.
from pyk2cuda import cuda, vectorize


@cuda.jit
def add3(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


# bench/python_ufunc.py's ufunc: the cost of a call of a @vectorize(target='cuda') function.
@vectorize(['float32(float32, float32)', 'float64(float64, float64)'], target='cuda')
def vadd(x, y):
    return x + y
