# vim: set fileencoding=shift_jis :
# Refused with the encoding named: pyk2cuda reads UTF-8, Latin-1 and ASCII sources (PEP 263).
from numba import cuda
