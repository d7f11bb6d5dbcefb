/* Hand-written in the shape of generated code (docs/generated-code.md): vector addition,
 * one thread per element, with a bounds check. Used by tests/unit/test_sim.c. */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

extern "C" __global__ void vecadd(p2c_array<float, 1> a, p2c_array<float, 1> b,
                                  p2c_array<float, 1> out) {
  // i = cuda.grid(1)
  int64_t i = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x;
  // if i < out.size:
  if (i < out.shape[0]) {
    // out[i] = a[i] + b[i]
    out.data[i] = a.data[i] + b.data[i];
  }
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(vecadd)
#endif
