/* Only the lower half of each block reaches the barrier: CUDA leaves this undefined, the
 * simulator reports it. Also a kernel with a barrier, for a launch that claims it has none. */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
#endif

extern "C" __global__ void half_barrier(int64_t n) {
  if ((int64_t)threadIdx.x < n / 2) __syncthreads();
}

extern "C" __global__ void has_barrier(void) { __syncthreads(); }

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(half_barrier)
P2C_SIM_KERNEL(has_barrier)
#endif
