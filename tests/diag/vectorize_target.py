from numba import vectorize

@vectorize(["float32(float32)"], target="parallel")
def f(x):
    return x + 1

@vectorize(["float32(float32)"])
def g(x):
    return x + 1
