from numba import guvectorize, float32, int32, void


@guvectorize([void(float32[:, :], float32[:])], '(n)->(n)', target='cuda')
def too_many_dims(a, b):
    b[0] = a[0, 0]


@guvectorize([void(float32, float32[:])], '(n)->()', target='cuda')
def scalar_with_dims(a, b):
    b[0] = a


@guvectorize(['void(float32[:], float32[:], float32[:])'], '(n)->(n)', target='cuda')
def counts(a, b):
    b[0] = a[0]


@guvectorize(['void(float32, float32[:])', 'void(float64[:], float64[:])'], '()->()', target='cuda')
def disagree(a, b):
    b[0] = 1


@guvectorize([void(float32[:], float32[:])], '(n)->(n)')
def cpu_target(a, b):
    b[0] = a[0]



@guvectorize([int32(int32[:], int32[:])], '(m)->(m)', target='cuda')
def returns(x, y):
    pass
