from numba import vectorize

@vectorize(["float32(float32, float32)"], target="cuda")
def arity(x):
    return x + 1

@vectorize(["(float32,)"], target="cuda")   # no result type: typing's, and it returns none
def no_result(x):
    x + 1

@vectorize(["float32(float32[:])"], target="cuda")
def array_arg(x):
    return x
