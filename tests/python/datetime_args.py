"""datetime64 and timedelta64 through the Python package: arrays of several units and with NaT
as kernel arguments, np.datetime64 and np.timedelta64 scalars, an explicit signature naming the
types, device arrays (to_device, device_array, copy_to_host) and arrays written in place. Run
with pyk2cuda (test_datetime.py) and under Numba's simulator (numba_shim.py), which must print
the same lines."""
import numpy as np

from pyk2cuda import cuda

EPOCH = np.datetime64("2005-02-01")          # frozen as constants: values of their types
LAG = np.timedelta64(90, "m")
NEVER = np.datetime64("NaT", "s")

np.set_printoptions(linewidth=1000)


def report(name, *arrays):
    print("%s: %s" % (name, " | ".join(np.array2string(np.asarray(a)) for a in arrays)))


@cuda.jit
def diff(start, end, delta):
    for i in range(cuda.grid(1), delta.size, cuda.gridsize(1)):
        delta[i] = end[i] - start[i]


@cuda.jit
def shift(dates, by, target, out, hits):
    i = cuda.grid(1)
    if i < dates.size:
        out[i] = dates[i] + by
        hits[i] = dates[i] >= target


@cuda.jit("void(datetime64[D][::1], timedelta64[h], datetime64[h][::1])")
def shift_signed(dates, by, out):
    i = cuda.grid(1)
    if i < dates.size:
        out[i] = dates[i] - by


@cuda.jit
def scale(td, n, out):
    i = cuda.grid(1)
    if i < td.size:
        out[i] = td[i] * n - td[i] // 2


days = np.arange("2005-02-20", "2005-03-05", dtype="datetime64[D]")
days[3] = np.datetime64("NaT")
later = days + np.arange(days.size) * np.timedelta64(5, "D")
delta = np.zeros(days.size, "timedelta64[D]")
diff[1, 32](days, later, delta)
report("diff", delta)

months = np.arange("2004-11", "2005-05", dtype="datetime64[M]")
hours = np.zeros(months.size, "timedelta64[h]")
diff[1, 32](months, np.full(months.size, np.datetime64("2005-02-28T06", "h")), hours)
report("diff M to h", hours)

out = np.zeros(days.size, "datetime64[h]")
hits = np.zeros(days.size, np.bool_)
shift[1, 32](days, np.timedelta64(30, "h"), np.datetime64("2005-02-25"), out, hits)
report("shift", out, hits)
shift[1, 32](days, np.timedelta64("NaT", "h"), np.datetime64("NaT"), out, hits)
report("shift NaT", out, hits)

out = np.zeros(days.size, "datetime64[h]")
shift_signed[1, 32](days, np.timedelta64(-7, "h"), out)
report("shift signed", out)

d_days = cuda.to_device(days)
d_out = cuda.device_array(days.size, dtype="datetime64[h]")
shift[1, 32](d_days, np.timedelta64(1, "h"), days[0], d_out, cuda.to_device(hits))
report("device arrays", d_out.copy_to_host(), d_days.copy_to_host())
print("device dtypes:", d_days.dtype, d_out.dtype, d_out.shape)

td = np.array([3, -7, 0, np.iinfo(np.int64).min, 11], "timedelta64[ms]")
scaled = np.zeros_like(td)
d_scaled = cuda.to_device(scaled)
scale[1, 8](cuda.to_device(td), np.int32(-3), d_scaled)
d_scaled.copy_to_host(scaled)
report("scale", scaled)
scale[1, 8](td, 2.5, scaled)
report("scale float", scaled)


@cuda.jit
def with_constants(dates, out, flags):
    i = cuda.grid(1)
    if i < dates.size:
        out[i] = dates[i] - EPOCH + LAG
        flags[i] = dates[i] != NEVER


lagged = np.zeros(days.size, "timedelta64[m]")
flags = np.zeros(days.size, np.bool_)
with_constants[1, 32](days, lagged, flags)
report("constants", lagged, flags)
