// Hand-written CUDA C versions of the sample kernels and of bench/kernels.py, for bench/gpu.c:
// the same algorithms as the Python in samples/, written as a CUDA programmer would (raw
// pointers, int sizes where they fit, the obvious indexing), compiled by the same NVRTC with the
// same options as the generated code. They compute the same values as the generated kernels
// (Python's floor division included), so the benchmark also compares their outputs.

extern "C" __global__ void empty_hw() {}

extern "C" __global__ void copy_hw(float *dst, const float *src, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

extern "C" __global__ void vecadd_hw(const int *a, const int *b, double *c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = (double)((long long)a[i] + (long long)b[i]);
}

// Python's // on a non-negative divisor.
static __device__ __forceinline__ long long floordiv9(long long t) {
  long long q = t / 9;
  return (t % 9 != 0 && t < 0) ? q - 1 : q;
}

extern "C" __global__ void smooth_hw(const int *x, int *out, long long n, long long m) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long j = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < m - 1) {
    long long total = 0;
    for (int di = -1; di <= 1; di++)
      for (int dj = -1; dj <= 1; dj++) total += x[(i + di) * m + (j + dj)];
    out[i * m + j] = (int)floordiv9(total);
  }
}

static __device__ double haversine_hw(double lat1, double lon1, double lat2, double lon2) {
  const double deg = 0.017453292519943295, radius = 6371.0;
  double phi1 = lat1 * deg, phi2 = lat2 * deg;
  double dphi = (lat2 - lat1) * deg, dlam = (lon2 - lon1) * deg;
  double s1 = sin(dphi / 2), s2 = sin(dlam / 2);
  double a = s1 * s1 + cos(phi1) * cos(phi2) * s2 * s2;
  return 2.0 * radius * asin(sqrt(a));
}

extern "C" __global__ void great_circle_hw(double *dist, long long n, long long m, double lat0,
                                           double lon0) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long j = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < m) {
    double lat = -90.0 + 180.0 * (double)i / (double)(n - 1);
    double lon = -180.0 + 360.0 * (double)j / (double)(m - 1);
    dist[i * m + j] = haversine_hw(lat0, lon0, lat, lon);
  }
}

#define TPB 16
extern "C" __global__ void matmul_hw(const float *A, const float *B, float *C, int M, int K, int N) {
  __shared__ float sA[TPB][TPB], sB[TPB][TPB];
  int col = blockIdx.x * TPB + threadIdx.x, row = blockIdx.y * TPB + threadIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  float acc = 0.0f;
  for (int t = 0; t < (K + TPB - 1) / TPB; t++) {
    int k = t * TPB + tx;
    sA[ty][tx] = (row < M && k < K) ? A[row * K + k] : 0.0f;
    k = t * TPB + ty;
    sB[ty][tx] = (k < K && col < N) ? B[k * N + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < TPB; kk++) acc += sA[ty][kk] * sB[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

#define NTPB 256
extern "C" __global__ void partial_sums_hw(const float *x, float *partials, long long n) {
  __shared__ float buf[NTPB];
  int tid = threadIdx.x;
  float acc = 0.0f;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + tid; k < n; k += stride) acc += x[k];
  buf[tid] = acc;
  __syncthreads();
  for (int s = NTPB / 2; s > 0; s /= 2) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = buf[0];
}

extern "C" __global__ void divide_hw(float *x, const float *total, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
    x[k] /= total[0];
}
