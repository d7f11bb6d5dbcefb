# A Python signal handler, run by the simulator's interrupt check in the middle of a launch,
# launches the same specialization itself (argv "same") or through a thread it waits for
# ("thread"), then raises KeyboardInterrupt (tests/python/test_reentrant_launch.py).
import signal, sys, threading
import numpy as np
import pyk2cuda
from pyk2cuda import cuda

@cuda.jit
def busy(a):
    acc = 0
    for j in range(20000):
        acc += j ^ cuda.blockIdx.x
    if acc == -1:
        a[0] = acc

a = np.zeros(4)
busy[1, 1](a)                      # compiled before the long launch
seen = []

def again():
    try:
        busy[1, 1](a)
        seen.append("ran")
    except pyk2cuda.Error as e:
        seen.append(f"{e.status_name}: {e}")

def handler(signum, frame):
    if sys.argv[1] == "thread":
        t = threading.Thread(target=again)
        t.start()
        t.join()
    else:
        again()
    raise KeyboardInterrupt

signal.signal(signal.SIGALRM, handler)
signal.setitimer(signal.ITIMER_REAL, 0.2)
try:
    busy[100000, 32](a)
    print("finished")
except KeyboardInterrupt:
    print("KeyboardInterrupt")
print(seen)
busy[1, 1](a)
print("launches again")
