/* Kernels that fault (tests/unit/test_sim.c, test_fault_*): a store through a wild pointer, with
 * and without barriers, and a local array larger than a fiber's stack. Each thread that runs to
 * the end marks its slot in `ran`; thread `victim` stores to `wild` instead. */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
typedef int int32_t;
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

extern "C" __global__ void wild_store(p2c_array<int32_t, 1> ran, int64_t victim, p2c_array<int32_t, 1> wild) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == victim) wild.data[0] = 1;
  ran.data[i] = 1;
}

extern "C" __global__ void wild_store_barrier(p2c_array<int32_t, 1> ran, int64_t victim,
                                              p2c_array<int32_t, 1> wild) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  __syncthreads();
  if (i == victim) wild.data[0] = 1;
  __syncthreads();
  ran.data[i] = 1;
}

/* 256 KiB of locals in a thread that is a fiber (64 KiB of stack by default). */
extern "C" __global__ void big_local(p2c_array<int32_t, 1> ran, int64_t victim, p2c_array<int32_t, 1> wild) {
  volatile int32_t local[65536];
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 65536; k++) local[k] = (int32_t)k;
  __syncthreads();
  ran.data[i] = local[(i + victim) & 65535] >= 0;
  (void)wild;
}

/* The same, declaring its locals as generated code does (P2C_SIM_STACK): the launch sizes its
 * fibers' stacks from that. */
extern "C" __global__ void big_local_declared(p2c_array<int32_t, 1> ran, int64_t victim, p2c_array<int32_t, 1> wild) {
  volatile int32_t local[65536];
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 65536; k++) local[k] = (int32_t)k;
  __syncthreads();
  ran.data[i] = local[(i + victim) & 65535] >= 0;
  (void)wild;
}

/* Each thread spins `victim` turns before it marks its slot: a launch long enough for the
 * interrupt check (test_launch_waits_for_a_check). */
extern "C" __global__ void slow(p2c_array<int32_t, 1> ran, int64_t victim, p2c_array<int32_t, 1> wild) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  volatile int64_t turns = 0;
  while (turns < victim) turns = turns + 1;
  ran.data[i] = 1;
  (void)wild;
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(slow)
P2C_SIM_KERNEL(wild_store)
P2C_SIM_KERNEL(wild_store_barrier)
P2C_SIM_KERNEL(big_local)
P2C_SIM_KERNEL(big_local_declared)
P2C_SIM_STACK(big_local_declared, 262144)
#endif
