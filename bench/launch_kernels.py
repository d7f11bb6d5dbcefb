# The kernel of the launch-overhead benchmarks (bench/launch_c.c, bench/python_launch.py):
# three array arguments, one block of 32 threads, almost no work.
from pyk2cuda import cuda


@cuda.jit
def add3(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
