/* Atomics from every thread of many blocks, for exact counts, and a tour of the prelude:
 * math functions, bit casts, fences, warpSize, printf. */
#ifndef PYK2CUDA_SIM
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

/* i32: [count, max, min, and-mask, or-mask, cas-winners]; u64: [count]; f32: [count];
 * f64: [count]; u32: [count, inc-wrap] */
extern "C" __global__ void count_all(p2c_array<int32_t, 1> i32, p2c_array<uint64_t, 1> u64,
                                     p2c_array<float, 1> f32, p2c_array<double, 1> f64,
                                     p2c_array<uint32_t, 1> u32) {
  int32_t g = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
  atomicAdd(&i32.data[0], 1);
  atomicMax(&i32.data[1], g);
  atomicMin(&i32.data[2], g);
  atomicAnd(&i32.data[3], ~(1 << (g % 31)));
  atomicOr(&i32.data[4], 1 << (g % 31));
  if (atomicCAS(&i32.data[5], 0, g + 1) == 0) atomicExch(&i32.data[6], g);
  atomicSub(&i32.data[7], 2);
  atomicAdd((unsigned long long *)&u64.data[0], 3ull);
  atomicAdd(&f32.data[0], 1.0);
  atomicAdd(&f64.data[0], 0.5);
  atomicAdd(&u32.data[0], 1u);
  atomicInc(&u32.data[1], 9u);
  __threadfence();
}

/* out[k] = a value computed with the prelude's math names; flags: [warpSize, isnan, isinf,
 * isfinite, float bits of 1.0f, high half of double bits of 1.0] */
extern "C" __global__ void prelude_tour(p2c_array<double, 1> out, p2c_array<int64_t, 1> flags) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  double x = 2.0;
  float y = 2.0f;
  out.data[0] = sqrt(x);
  out.data[1] = sqrtf(y);
  out.data[2] = sin(x) + sinf(y);
  out.data[3] = rint(2.5) + floor(-1.5) + fmod(7.5, 2.0) + copysign(3.0, -0.0);
  out.data[4] = exp(1.0) + log(x) + pow(x, 10.0) + fabs(-x) + atan2(1.0, 1.0);
  double nan = 0.0 / 0.0, inf = 1.0 / 0.0;
  flags.data[0] = warpSize;
  flags.data[1] = isnan(nan) && !isnan(x);
  flags.data[2] = isinf(inf) && !isinf(y);
  flags.data[3] = isfinite(x) && !isfinite(inf);
  flags.data[4] = __float_as_int(1.0f);
  flags.data[5] = __double_as_longlong(1.0) >> 32;
  dim3 d = blockDim;
  printf("tour: block %u threads, %.1f %d\n", d.x, out.data[0] * out.data[0], (int)flags.data[0]);
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(count_all)
P2C_SIM_KERNEL(prelude_tour)
#endif
