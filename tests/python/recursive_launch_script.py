# An extension whose prepare_args launches the kernel again, for ever: RecursionError, in the
# main thread or ("thread") in a thread with a 4 MiB stack (tests/python/test_reentrant_launch.py).
import sys, threading
import numpy as np
import pyk2cuda
from pyk2cuda import cuda

class Again:
    """An extension whose prepare_args launches the kernel again, for ever."""
    def prepare_args(self, ty, val, stream=None, retr=None):
        k[1, 1](val)
        return ty, val

@cuda.jit(extensions=[Again()])
def k(a):
    a[0] += 1

def main():
    a = np.zeros(1)
    try:
        k[1, 1](a)
        print("no error")
    except RecursionError as e:
        print("RecursionError", e)

if sys.argv[1:] == ["thread"]:
    threading.stack_size(4 << 20)
    t = threading.Thread(target=main)
    t.start(); t.join()
else:
    main()
