from numba import vectorize

@vectorize(["float32(float32, float32)"], target="cuda")
def arity(x):
    return x + 1

@vectorize(["(float32,)"], target="cuda")
def no_result(x):
    return x

@vectorize(["float32(float32[:])"], target="cuda")
def array_arg(x):
    return x
