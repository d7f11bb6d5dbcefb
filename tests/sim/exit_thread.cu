/* A simulated thread ends itself, as --check-bounds makes it do after recording a failure: the
 * launch stops, with or without barriers, and the other threads of its block never hang at a
 * barrier. Each thread that runs to the end marks its slot in `ran`. */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
typedef int int32_t;
#define p2c_sim_exit_thread() asm volatile("exit;")
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

extern "C" __global__ void stop_one(p2c_array<int32_t, 1> ran, int64_t victim) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == victim) p2c_sim_exit_thread();
  ran.data[i] = 1;
}

extern "C" __global__ void stop_before_barrier(p2c_array<int32_t, 1> ran, int64_t victim) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == victim) p2c_sim_exit_thread();
  __syncthreads();
  ran.data[i] = 1;
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(stop_one)
P2C_SIM_KERNEL(stop_before_barrier)
#endif
