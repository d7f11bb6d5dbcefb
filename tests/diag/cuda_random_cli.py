# numba.cuda.random in a file given to `pyk2cuda emit` or `run` (issue 27): its generators are the
# Python package's device functions and host-made states, so the command line refuses each use
# with a message naming what is needed (launch from Python), in every import form.
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
import numba.cuda.random as curand


@cuda.jit
def draw(states, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = xoroshiro128p_uniform_float32(states, i)
        out[i] += curand.xoroshiro128p_normal_float32(states, i)
        out[i] += cuda.random.xoroshiro128p_uniform_float64(states, i)
