// CUDA C linked into kernels by tests/python/test_linked_cuda.py and the golden case
// tests/golden/linked_cuda.py: functions of Numba's ABI (a status returned, the result stored
// through the first argument) and of the C ABI.

#define SCALE 3

// The product of two floats, as Numba's documented FFI example computes it.
extern "C" __device__ int times_f32(float *result, float x, float y) {
  *result = x * y;
  return 0;
}

// A helper of the file's own, which no generated name may capture.
static __device__ int clamp_index(long long i, long long n) {
  return i < 0 ? 0 : i >= n ? (int)(n - 1) : (int)i;
}

// i scaled, clamped into [0, n): two integer arguments, an int result (Numba's ABI).
extern "C" __device__ int scaled_index(int *result, long long i, long long n) {
  *result = clamp_index(i * SCALE, n);
  return 0;
}

// The C ABI (abi='c'): the result returned.
extern "C" __device__ double hypot_c(double x, double y) {
  return sqrt(x * x + y * y);
}

// A barrier inside linked code: each thread of the block reads its neighbour's value.
extern "C" __device__ int rotate_in_block(float *result, float v) {
  __shared__ float values[1024];
  values[threadIdx.x] = v;
  __syncthreads();
  *result = values[(threadIdx.x + 1) % blockDim.x];
  __syncthreads();
  return 0;
}
