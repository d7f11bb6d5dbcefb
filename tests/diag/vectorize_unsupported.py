from numba import vectorize

@vectorize(["float32(float32)"], target="cuda")
def f(x):
    return x + 1
