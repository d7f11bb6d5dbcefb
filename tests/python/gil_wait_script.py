"""A launch with host arrays waits for the device with the GIL released, so another Python
thread makes progress while the kernel runs (test_gpu.py). On the driver stand-in
PYK2CUDA_STANDIN_KERNEL_MS makes each kernel take that long; on a GPU the kernel spins."""
import threading
import time

import numpy as np

from pyk2cuda import cuda


@cuda.jit
def spin(out, n):
    acc = 0.0
    for i in range(n):
        acc = acc * 0.999999 + 1.0
    out[0] = acc


name = cuda.get_current_device().name
standin = "stand-in" in (name.decode() if isinstance(name, bytes) else name)
n = 1000 if standin else 400_000_000
out = np.zeros(1)
spin[1, 1](out, 10)  # compiled and loaded before the measurement

ticks = []
done = threading.Event()


def tick():
    while not done.is_set():
        ticks.append(time.monotonic())
        time.sleep(0.002)


t = threading.Thread(target=tick)
t.start()
time.sleep(0.05)
t0 = time.monotonic()
spin[1, 1](out, n)
t1 = time.monotonic()
done.set()
t.join()
inside = [x for x in ticks if t0 + 0.1 < x < t1 - 0.1]
print(f"the launch took {t1 - t0:.2f} s; the other thread ticked {len(inside)} times meanwhile")
assert out[0] > 0
assert t1 - t0 > 0.5, "the kernel was too fast to judge"
assert len(inside) >= 20, "the other thread did not run during the launch's wait"
print("gil released during the wait: ok")
