"""Runs a script written for pyk2cuda under Numba (the oracle): `pyk2cuda` is answered by numba.
Usage: NUMBA_ENABLE_CUDASIM=1 /usr/bin/python3 numba_shim.py SCRIPT.py"""
import runpy
import sys

import numba
from numba import cuda

sys.modules["pyk2cuda"] = numba
sys.modules["pyk2cuda.cuda"] = cuda
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
