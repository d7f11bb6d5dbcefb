from numba import cuda

@cuda.jit(device=True)
def runaway(n):
    return runaway(n - 1)

@cuda.jit(device=True)
def ping(n):
    if n <= 0:
        return 0
    return pong(n - 1)

@cuda.jit(device=True)
def pong(n):
    return ping(n - 1) + 1

@cuda.jit("int64(float64[:])", device=True)
def wrong(a):
    return a

@cuda.jit(device=True)
def grow(x):
    return grow((x, x))

@cuda.jit("void(int64[:])")
def k(a):
    a[0] = runaway(5)
    a[1] = ping(3)
    a[2] = grow(1)
