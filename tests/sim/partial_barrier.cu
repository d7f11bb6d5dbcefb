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
extern "C" void p2c_sim_entry_half_barrier(void **args) { half_barrier(*(int64_t *)args[0]); }
extern "C" void p2c_sim_entry_has_barrier(void **args) { (void)args; has_barrier(); }
#endif
