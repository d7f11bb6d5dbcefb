/* Warp operations the simulator must refuse (CUDA leaves each undefined): a mask that does not
 * name the calling lane, lanes of one mask waiting at a barrier or with another mask, and a warp
 * operation in a launch that runs threads without fibers. Also one that is fine: every lane of
 * a warp shuffles, then reports its activemask from two different call sites. */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

extern "C" __global__ void not_my_mask(void) {
  (void)__shfl_sync(1u << ((threadIdx.x + 1) % 32), 1, 0);
}

extern "C" __global__ void warp_vs_barrier(int64_t n) {
  if ((int64_t)threadIdx.x < n) (void)__shfl_sync(0xffffffffu, 1, 0);
  else __syncthreads();
}

extern "C" __global__ void other_masks(void) {
  __syncwarp(threadIdx.x == 0 ? 0x3u : 0xffffffffu);
}

extern "C" __global__ void sites(p2c_array<unsigned, 1> out) {
  unsigned t = threadIdx.x;
  unsigned v = __shfl_sync(0xffffffffu, t, 31 - t % 32);
  if (t % 4 == 0) out.data[t] = __activemask() + (v - v);
  else out.data[t] = __activemask();
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(not_my_mask)
P2C_SIM_KERNEL(warp_vs_barrier)
P2C_SIM_KERNEL(other_masks)
P2C_SIM_KERNEL(sites)
#endif
