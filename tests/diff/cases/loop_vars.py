# A name that is only ever a for loop's target gets one variable per loop, so that each loop's
# variable has its own type, as Numba types each binding (Numba's test_vector_type: v takes
# 2-, 3- and 4-lane vectors in three loops); a range loop's counter may reuse the name too. A
# name read after its loop keeps one variable (its types must unify, as before).
from numba import cuda


@cuda.jit
def loop_vars(res, x):
    a2 = cuda.int16x2(1, 2)
    b3 = cuda.int16x3(3, 4, 5)
    c4 = cuda.int16x4(6, 7, 8, 9)
    j = 0
    for v in (a2, a2):
        res[j] = v.x * 10 + v.y
        j += 1
    for v in (b3, b3):
        res[j] = v.x * 100 + v.y * 10 + v.z
        j += 1
    for v in (c4,):
        res[j] = v.x + v.y + v.z + v.w
        j += 1
    for v in range(3):
        res[j] = v * x[0]
        j += 1
    for w in range(2):
        res[j] = w
        j += 1
    for w in range(4):
        j += 1
    res[j] = w
