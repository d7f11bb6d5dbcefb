# tests/aot/refused.py: kernels a bundle refuses for now, each with its reason and what to do
# instead (run_aot.py check_refusals; docs/aot.md, "Limits").
from numba import cuda


@cuda.jit(debug=True, opt=False)
def debug_kernel(x):
    x[0] = 1


@cuda.jit
def pair_sum(x, p):
    x[0] = p[0][0] + p[1]


@cuda.jit
def first_x(x, r):
    x[0] = r.x
