from numba import guvectorize, float32, void


@guvectorize([void(float32[:], float32[:])], '(n)->(n', target='cuda')
def unclosed(a, b):
    b[0] = a[0]


@guvectorize([void(float32[:], float32[:])], '(n)->(m)', target='cuda')
def undefined_output(a, b):
    b[0] = a[0]


@guvectorize([void(float32[:], float32[:], float32[:])], '(n)->(n),(m)', target='cuda')
def second_output(a, b, c):
    b[0] = a[0]


@guvectorize([void(float32[:], float32[:])], '(1)->(n)', target='cuda')
def number(a, b):
    b[0] = a[0]
