# A kernel with an error in its Python: the compiler rejects the launch with CompileError.
from pyk2cuda import cuda


@cuda.jit
def broken(x):
    i = cuda.grid(1)
    x[i] = undefined_name + 1
