"""Draws from numba.cuda.random's generators, for test_random.py: run by pyk2cuda
(`python3 -m pyk2cuda random_kernels.py OUT.npz`) and by Numba's simulator
(`NUMBA_ENABLE_CUDASIM=1 python3 random_kernels.py OUT.npz`), which must agree: the states and the
uint64 and uniform draws to the bit, the normal draws to float rounding."""
import sys

import numpy as np
from numba import cuda
from numba.cuda.random import (create_xoroshiro128p_states, init_xoroshiro128p_states,
                               xoroshiro128p_next, xoroshiro128p_normal_float32,
                               xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
                               xoroshiro128p_uniform_float64)

COUNT = 4


@cuda.jit
def draws(states, raw, u32, u64, n32, n64):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(COUNT):
            raw[i, k] = xoroshiro128p_next(states, i)
            u32[i, k] = xoroshiro128p_uniform_float32(states, i)
            u64[i, k] = xoroshiro128p_uniform_float64(states, i)
            n32[i, k] = xoroshiro128p_normal_float32(states, i)
            n64[i, k] = xoroshiro128p_normal_float64(states, i)


def main(out):
    n = 40
    states = create_xoroshiro128p_states(n, seed=1234567, subsequence_start=2)
    first = states.copy_to_host()
    other = cuda.device_array(n, dtype=first.dtype)
    init_xoroshiro128p_states(other, seed=-5)
    arrays = [np.zeros((n, COUNT), t) for t in (np.uint64, np.float32, np.float64, np.float32, np.float64)]
    draws[2, 32](states, *arrays)
    np.savez(out, first=first, other=other.copy_to_host(), after=states.copy_to_host(),
             raw=arrays[0], u32=arrays[1], u64=arrays[2], n32=arrays[3], n64=arrays[4])
    print("random draws: ok")


if __name__ == "__main__":
    main(sys.argv[1])
