# datetime64 and timedelta64 (docs/semantics.md, "Datetimes and timedeltas"): the operators
# Numba types on them, with units combined as Numba combines them (the finer of two units;
# years and months brought to days or weeks through the calendar), NaT passed on by every
# operation and unequal to everything, scalar arguments, locals, tuples and conditional
# expressions, np.isnat. The inputs (in:datetime64[U][n]) hold NaT at every seventh element. The
# simulator computes with NumPy's scalars, whose results Numba's compiled code gives too for
# these operations (checked against @njit on NumPy 1.24 with Numba 0.56).
import numpy as np
from numba import cuda

# module-level constants: folded into values of their types (np.datetime64(COUNT, 'UNIT'), 'NaT')
START = np.datetime64(12820, 'D')
STEP = np.timedelta64(36, 'h')
NO_TIME = np.timedelta64('NaT', 'h')


@cuda.jit
def dt_diff(start, end, delta):
    for i in range(cuda.grid(1), delta.size, cuda.gridsize(1)):
        delta[i] = end[i] - start[i]


@cuda.jit
def dt_units(months, years, hours, days, weeks, m_h, y_d, d_w, w_m):
    # datetime - datetime of two units: a timedelta of the finer one, the calendar converting
    i = cuda.grid(1)
    if i < months.size:
        m_h[i] = hours[i] - months[i]
        y_d[i] = years[i] - days[i]
        d_w[i] = days[i] - weeks[i]
        w_m[i] = weeks[i] - months[i]


@cuda.jit
def dt_shift(days, months, hours, secs, mdelta, d_h, h_d, d_s, m_m, m_d):
    # datetime +- timedelta: a datetime of the finer unit
    i = cuda.grid(1)
    if i < days.size:
        d_h[i] = days[i] + hours[i]
        h_d[i] = hours[i] + days[i]
        d_s[i] = days[i] - secs[i]
        m_m[i] = months[i] + mdelta[i]
        m_d[i] = months[i] - hours[i]


@cuda.jit
def td_arith(a, b, ints, floats, f32, out_ms, out_s, ratio):
    # timedelta arithmetic: a is timedelta64[s], b timedelta64[ms]
    i = cuda.grid(1)
    if i < a.size:
        n = ints[i]
        out_ms[i, 0] = a[i] + b[i]
        out_ms[i, 1] = b[i] - a[i]
        out_s[i, 0] = a[i] * n
        out_s[i, 1] = n * a[i]
        out_s[i, 2] = a[i] * floats[i]
        out_s[i, 3] = a[i] // n
        out_s[i, 4] = a[i] / n
        out_s[i, 5] = a[i] / floats[i]
        out_s[i, 6] = -a[i]
        out_s[i, 7] = abs(a[i])
        out_s[i, 8] = +a[i]
        out_s[i, 9] = a[i] * f32[i]
        out_s[i, 10] = a[i] * 3 - a[i] // 2
        ratio[i, 0] = a[i] / b[i]
        ratio[i, 1] = b[i] / a[i]


@cuda.jit
def comparisons(d, w, h, ts, tm, tmonths, out):
    # datetimes of any units; timedeltas: == and != of any units, ordered of convertible ones
    i = cuda.grid(1)
    if i < d.size:
        out[i, 0] = d[i] == w[i]
        out[i, 1] = d[i] != w[i]
        out[i, 2] = d[i] < h[i]
        out[i, 3] = d[i] <= h[i]
        out[i, 4] = d[i] > w[i]
        out[i, 5] = d[i] >= w[i]
        out[i, 6] = ts[i] == tm[i]
        out[i, 7] = ts[i] != tm[i]
        out[i, 8] = ts[i] < tm[i]
        out[i, 9] = tm[i] >= ts[i]
        out[i, 10] = tmonths[i] == ts[i]
        out[i, 11] = tmonths[i] != ts[i]
        out[i, 12] = d[i] < h[i] <= w[i]
        out[i, 13] = d[i] == d[i]


@cuda.jit
def scalar_args(dates, target, delta, matches, outdates):
    # Numba's test_scalar_datetime_kernel, with NaT in the dates
    for i in range(cuda.grid(1), matches.size, cuda.gridsize(1)):
        matches[i] = dates[i] == target
        outdates[i] = dates[i] - delta


@cuda.jit
def locals_and_tuples(a, b, out, flags):
    # locals, tuples of datetimes and timedeltas, a conditional expression, augmented assignment
    i = cuda.grid(1)
    if i < a.size:
        pair = (a[i], b[i] - a[i])
        first, gap = pair
        longest = gap if gap > b[0] - a[0] else b[0] - a[0]
        gap += longest
        gap -= b[0] - a[0]
        out[i, 0] = first + gap
        out[i, 1] = pair[0]
        flags[i] = first < b[i]


@cuda.jit
def isnat(d, t, out):
    i = cuda.grid(1)
    if i < d.size:
        out[i, 0] = np.isnat(d[i])
        out[i, 1] = np.isnat(t[i] - t[0])


@cuda.jit
def extremes(a, b, out):
    # min and max of one type: a NaT first is kept, a NaT later passed over (Python's order)
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = max(a[i], b[i])
        out[i, 1] = min(a[i], b[i])
        out[i, 2] = max(b[i], a[i], a[(i + 1) % a.size])
        out[i, 3] = min(b[i], a[i], a[(i + 1) % a.size])


@cuda.jit
def tuple_compare(a, b, out):
    # tuples holding timedeltas compare element by element, NaT by NaT's rules
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = (a[i], b[i]) == (b[i], a[i])
        out[i, 1] = (a[i], b[i]) != (b[i], a[i])
        out[i, 2] = (a[i], b[i]) < (b[i], a[i])
        out[i, 3] = (a[i], 1) >= (b[i], 2)


@cuda.jit
def constants(d, since, shifted, flags):
    i = cuda.grid(1)
    if i < d.size:
        since[i] = d[i] - START
        shifted[i] = d[i] + STEP
        flags[i, 0] = STEP + NO_TIME == STEP
        flags[i, 1] = d[i] >= START
