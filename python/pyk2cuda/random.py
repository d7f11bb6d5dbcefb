"""numba.cuda.random for pyk2cuda (`pyk2cuda.cuda.random`, and `numba.cuda.random` through the
shim): xoroshiro128+ generators, one state per thread, giving the same streams as Numba's.

The facts are Numba's (numba/cuda/random.py, after Blackman and Vigna's xoroshiro128plus.c and
splitmix64.c): a state is a record of two uint64 (s0, s1); the first state of an array is seeded
by SplitMix64 from the seed (s0 = s1 = splitmix64(seed)) and advanced by `subsequence_start`
jumps of 2**64 steps; each next state is the previous one jumped once more. A draw returns
s0 + s1 and advances the state; a uniform float64 is the draw's top 53 bits times 2**-53, a
float32 that value rounded; a normal value is Box-Muller's first output from two float32
uniforms (the float64 version too, as Numba's does).

The device functions below are compiled by pyk2cuda like any @cuda.jit(device=True) function a
kernel calls (the package puts them in the kernel's module); the states are initialized on the
host, in Python integers (exact uint64 arithmetic), and copied to the device."""
import math

import numpy as np

from . import cuda
from .types import float32, float64, from_dtype, int64, uint32, uint64

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
xoroshiro128p_type = from_dtype(xoroshiro128p_dtype)

_MASK = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)

TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


# ---- device functions (the kernel side) ----

@cuda.jit(device=True)
def rotl(x, k):
    """x rotated left by k bits."""
    x = uint64(x)
    k = uint32(k)
    return (x << k) | (x >> uint32(64 - k))


@cuda.jit(device=True)
def xoroshiro128p_next(states, index):
    """The next uint64 of states[index], which advances."""
    index = int64(index)
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = uint64(rotl(s0, uint32(55))) ^ s1 ^ (s1 << uint32(14))
    states[index]["s1"] = uint64(rotl(s1, uint32(36)))
    return result


@cuda.jit(device=True)
def uint64_to_unit_float64(x):
    """x's top 53 bits as a float64 in [0, 1)."""
    x = uint64(x)
    return (x >> uint32(11)) * (float64(1) / (uint64(1) << uint32(53)))


@cuda.jit(device=True)
def uint64_to_unit_float32(x):
    return float32(uint64_to_unit_float64(x))


@cuda.jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 in [0, 1) from states[index], which advances."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, int64(index)))


@cuda.jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 in [0, 1) from states[index], which advances."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, int64(index)))


@cuda.jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 of the standard normal distribution (Box-Muller); advances two steps."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float32(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT32 * u2)


@cuda.jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 of the standard normal distribution, from two float32 uniforms as Numba's."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float64(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)


# ---- the host side: states ----

def _splitmix64(seed):
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _next(s0, s1):
    s1 ^= s0
    rot55 = ((s0 << 55) | (s0 >> 9)) & _MASK
    return rot55 ^ s1 ^ ((s1 << 14) & _MASK), ((s1 << 36) | (s1 >> 28)) & _MASK


def _jump(s0, s1):
    """The state 2**64 draws later (xoroshiro128plus.c's jump)."""
    j0 = j1 = 0
    for word in _JUMP:
        for b in range(64):
            if word >> b & 1:
                j0 ^= s0
                j1 ^= s1
            s0, s1 = _next(s0, s1)
    return j0, j1


def _states_on_host(n, seed, subsequence_start):
    states = np.empty(n, dtype=xoroshiro128p_dtype)
    if n < 1:
        return states
    s0 = s1 = _splitmix64(int(seed) & _MASK)
    for _ in range(int(subsequence_start) & _MASK):
        s0, s1 = _jump(s0, s1)
    for i in range(n):
        if i:
            s0, s1 = _jump(s0, s1)
        states[i] = (s0, s1)
    return states


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Initializes the device array `states` (of xoroshiro128p_dtype) for len(states)
    generators 2**64 draws apart, the first `subsequence_start` jumps from the seed's."""
    host = _states_on_host(states.shape[0], seed, subsequence_start)
    states.copy_to_device(host, stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A new device array of n generator states (see init_xoroshiro128p_states)."""
    states = cuda.device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states
