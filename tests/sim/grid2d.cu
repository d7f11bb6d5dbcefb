/* A 2-D grid of 2-D blocks: every element records which block and thread wrote it, and the
 * grid and block sizes the thread saw. out has shape (rows, cols, 4), C order, int32. */
#ifndef PYK2CUDA_SIM
typedef int int32_t;
typedef long long int64_t;
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

extern "C" __global__ void grid2d(p2c_array<int32_t, 3> out) {
  // x, y = cuda.grid(2)
  int64_t x = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x;
  int64_t y = (int64_t)blockIdx.y * (int64_t)blockDim.y + (int64_t)threadIdx.y;
  // if y < out.shape[0] and x < out.shape[1]:
  if (y < out.shape[0] && x < out.shape[1]) {
    int32_t *cell = out.data + (y * out.shape[1] + x) * out.shape[2];
    cell[0] = (int32_t)(blockIdx.x * 1000 + blockIdx.y);
    cell[1] = (int32_t)(threadIdx.x * 1000 + threadIdx.y);
    cell[2] = (int32_t)(gridDim.x * 1000 + gridDim.y);
    cell[3] = (int32_t)(blockDim.x * 1000 + blockDim.y + 1000000 * (blockIdx.z + threadIdx.z));
  }
}

/* A 3-D grid of 3-D blocks: each thread counts itself at its linear index and records its
 * indices there as the decimal digits tz ty tx bz by bx. */
extern "C" __global__ void ids3d(p2c_array<int32_t, 1> seen, p2c_array<int32_t, 1> where) {
  int64_t block = ((int64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  int64_t thread = ((int64_t)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int64_t id = block * (int64_t)(blockDim.x * blockDim.y * blockDim.z) + thread;
  atomicAdd(&seen.data[id], 1);
  where.data[id] = (int32_t)(blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z + 1000 * threadIdx.x +
                             10000 * threadIdx.y + 100000 * threadIdx.z);
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(grid2d)
P2C_SIM_KERNEL(ids3d)
#endif
