from numba import vectorize

@vectorize(target="cuda")
def f(x):
    return x + 1
