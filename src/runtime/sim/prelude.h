/* pyk2cuda CPU simulator: the host prelude.
 *
 * The simulator compiles generated CUDA C with the host C++ compiler (`c++ -std=c++17 -include
 * prelude.h`). This file gives that compiler what the CUDA environment gives NVRTC: the
 * qualifiers, the built-in index variables, barriers, atomics, and the math library's C names.
 * It is embedded into libpyk2cuda as text at build time (see meson.build) and written next to
 * the source before each compile.
 *
 * The first part is plain C and is also included by sim.c: it is the one definition of the state
 * that the runtime and a compiled module share. The rest is C++ only.
 *
 * How a simulated thread finds its indices: every OS worker thread owns one P2cSimThread; the
 * module's thread_local pointer `p2c_sim_self` points at it (set through p2c_sim_bind). Before
 * each simulated thread runs (or resumes after a barrier), the runtime writes that thread's
 * indices into the struct, so `threadIdx.x` is a load through one pointer. */
#ifndef P2C_SIM_PRELUDE_H
#define P2C_SIM_PRELUDE_H

/* Bumped whenever P2cSimThread or the exported functions change. */
#define P2C_SIM_ABI_VERSION 1

typedef struct uint3 {
  unsigned int x, y, z;
} uint3;

typedef struct P2cSimThread P2cSimThread;
struct P2cSimThread {
  uint3 thread_idx, block_idx, block_dim, grid_dim;
  void *dynamic_shared; /* the block's dynamic shared memory (launch's shared bytes) */
  /* Waits for the whole block; returns how many of its threads passed a nonzero predicate. */
  int (*barrier)(P2cSimThread *self, int predicate);
};

#ifdef __cplusplus

#define PYK2CUDA_SIM 1

#include <math.h>  /* in C++ also brings the float overloads and isnan/isinf/isfinite */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

/* ---- Qualifiers ---------------------------------------------------------------------------- */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
/* A block's threads all run on one OS thread, one block at a time, so storage per OS thread is
 * storage per block. At block scope `thread_local` implies `static`. */
#define __shared__ thread_local

/* Dynamic shared memory (a launch's shared bytes): `P2C_DYNAMIC_SHARED(float, buf);` declares
 * `float *buf` pointing at it. Generated code defines this macro for NVRTC itself. */
#define P2C_DYNAMIC_SHARED(T, name) T *name = (T *)p2c_sim_self->dynamic_shared

/* ---- Built-in variables -------------------------------------------------------------------- */

struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
  dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

static thread_local P2cSimThread *p2c_sim_self;

#define threadIdx (p2c_sim_self->thread_idx)
#define blockIdx (p2c_sim_self->block_idx)
#define blockDim (p2c_sim_self->block_dim)
#define gridDim (p2c_sim_self->grid_dim)
static constexpr int warpSize = 32;

/* What the runtime looks up with dlsym, besides the kernels' entries. */
extern "C" __attribute__((visibility("default"))) unsigned p2c_sim_abi(void) {
  return P2C_SIM_ABI_VERSION;
}
extern "C" __attribute__((visibility("default"))) void p2c_sim_bind(P2cSimThread *self) {
  p2c_sim_self = self;
}

/* ---- Barriers and fences ------------------------------------------------------------------- */

static inline void __syncthreads(void) { p2c_sim_self->barrier(p2c_sim_self, 1); }
static inline int __syncthreads_count(int predicate) {
  return p2c_sim_self->barrier(p2c_sim_self, predicate);
}
static inline int __syncthreads_or(int predicate) {
  return p2c_sim_self->barrier(p2c_sim_self, predicate) != 0;
}
static inline int __syncthreads_and(int predicate) {
  P2cSimThread *t = p2c_sim_self;
  unsigned n = t->block_dim.x * t->block_dim.y * t->block_dim.z;
  return (unsigned)t->barrier(t, predicate) == n;
}
static inline void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ---- Bit casts ----------------------------------------------------------------------------- */

template <typename To, typename From>
static inline To p2c_sim_bits(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit cast between different sizes");
  To r;
  memcpy(&r, &v, sizeof r);
  return r;
}
static inline int __float_as_int(float v) { return p2c_sim_bits<int>(v); }
static inline unsigned int __float_as_uint(float v) { return p2c_sim_bits<unsigned int>(v); }
static inline float __int_as_float(int v) { return p2c_sim_bits<float>(v); }
static inline float __uint_as_float(unsigned int v) { return p2c_sim_bits<float>(v); }
static inline long long __double_as_longlong(double v) { return p2c_sim_bits<long long>(v); }
static inline double __longlong_as_double(long long v) { return p2c_sim_bits<double>(v); }

/* ---- Atomics ------------------------------------------------------------------------------- */
/* Relaxed, as CUDA's. Integer operations accept every 32- and 64-bit integer type, because
 * int64_t is `long` here but `long long` under NVRTC; NVRTC decides which overloads exist. The
 * value parameter is not deduced, so atomicAdd(float_ptr, 1.0) converts as CUDA's overload does. */

template <typename T>
struct p2c_sim_same {
  typedef T type;
};
#define P2C_SIM_VAL(T) typename p2c_sim_same<T>::type

template <typename T>
static inline void p2c_sim_check_int(void) {
  static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "CUDA integer atomics take 32- or 64-bit integers");
}

/* Replaces *p by f(*p) atomically; returns the old value. */
template <typename T, typename F>
static inline T p2c_sim_atomic_update(T *p, F f) {
  T old, next;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do {
    next = f(old);
  } while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

template <typename T>
static inline T atomicAdd(T *p, P2C_SIM_VAL(T) v) {
  if constexpr (std::is_floating_point<T>::value) {
    return p2c_sim_atomic_update(p, [v](T old) { return old + v; });
  } else {
    p2c_sim_check_int<T>();
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
  }
}
template <typename T>
static inline T atomicSub(T *p, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicExch(T *p, P2C_SIM_VAL(T) v) {
  T old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
template <typename T>
static inline T atomicMax(T *p, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  return p2c_sim_atomic_update(p, [v](T old) { return old > v ? old : v; });
}
template <typename T>
static inline T atomicMin(T *p, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  return p2c_sim_atomic_update(p, [v](T old) { return old < v ? old : v; });
}
template <typename T>
static inline T atomicAnd(T *p, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  return __atomic_fetch_and(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicOr(T *p, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicXor(T *p, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicCAS(T *p, P2C_SIM_VAL(T) compare, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  __atomic_compare_exchange(p, &compare, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare; /* the old value, whether or not the exchange happened */
}
/* ((old >= v) ? 0 : old + 1) and (((old == 0) | (old > v)) ? v : old - 1), as CUDA's. */
static inline unsigned int atomicInc(unsigned int *p, unsigned int v) {
  return p2c_sim_atomic_update(p, [v](unsigned int old) { return old >= v ? 0u : old + 1; });
}
static inline unsigned int atomicDec(unsigned int *p, unsigned int v) {
  return p2c_sim_atomic_update(p, [v](unsigned int old) {
    return old == 0 || old > v ? v : old - 1;
  });
}

#undef P2C_SIM_VAL

#endif /* __cplusplus */
#endif /* P2C_SIM_PRELUDE_H */
