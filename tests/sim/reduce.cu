/* Block reduction in shared memory: a tree of additions with a barrier after each level,
 * then thread 0 writes the block's sum. Also a kernel using __syncthreads_count and one with
 * dynamic shared memory. */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
typedef int int32_t;
extern __shared__ unsigned char p2c_dynamic_shared[];
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

extern "C" __global__ void block_sum(p2c_array<float, 1> a, p2c_array<float, 1> sums) {
  // s = cuda.shared.array(256, float32)
  __shared__ float s[256];
  int64_t t = (int64_t)threadIdx.x;
  int64_t i = (int64_t)blockIdx.x * (int64_t)blockDim.x + t;
  // s[t] = a[i] if i < a.size else 0
  s[t] = i < a.shape[0] ? a.data[i] : 0.0f;
  __syncthreads();
  // stride = cuda.blockDim.x // 2; while stride > 0: ...
  for (int64_t stride = (int64_t)blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) sums.data[blockIdx.x] = s[0];
}

/* out[block] = how many threads of the block have threadIdx.x % 3 == 0, as every thread saw it;
 * each thread checks that it got the same count as thread 0. */
extern "C" __global__ void count_threes(p2c_array<int32_t, 1> out, p2c_array<int32_t, 1> bad) {
  int32_t n = __syncthreads_count(threadIdx.x % 3 == 0);
  int32_t all = __syncthreads_and(n > 0);
  int32_t any = __syncthreads_or(threadIdx.x == 5);
  if (threadIdx.x == 0) out.data[blockIdx.x] = n;
  if (!all || !any) atomicAdd(&bad.data[0], 1);
}

/* Reverses each block's slice through dynamic shared memory. */
extern "C" __global__ void reverse_blocks(p2c_array<int32_t, 1> a) {
  int32_t *tmp = (int32_t *)p2c_dynamic_shared;
  int64_t t = (int64_t)threadIdx.x, n = (int64_t)blockDim.x;
  int64_t base = (int64_t)blockIdx.x * n;
  tmp[t] = a.data[base + t];
  __syncthreads();
  a.data[base + t] = tmp[n - 1 - t];
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(block_sum)
P2C_SIM_KERNEL(count_threes)
P2C_SIM_KERNEL(reverse_blocks)
#endif
