/* The prelude's per-call-site memory of math results (prelude.h, "Math"): the same arguments
 * in thread after thread, signed zeros and NaNs (equal by ==, different in their bits), float
 * and double, arguments that fall in one set of a table and evict each other, one call site
 * used with a float and with a double whose bits are the same, and more call sites than tables
 * (sites share tables, never results). */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
#endif

template <typename T, int N>
struct p2c_array {
  T *data;
  int64_t shape[N];
  int64_t strides[N];
};

/* out[i, 0..3]: sin, cos of x[i] (double), sinf, expf of (float)x[i]. */
extern "C" __global__ void unary(p2c_array<double, 1> x, p2c_array<double, 2> out) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= x.shape[0]) return;
  double v = x.data[i];
  double *o = out.data + i * 4;
  o[0] = sin(v);
  o[1] = cos(v);
  o[2] = sinf((float)v);
  o[3] = expf((float)v);
}

/* out[i] = sin(x[i]) and outf[i] = sinf(xf[i]), thread after thread: the host chooses
 * arguments that share a set of the table, in cycles longer than the set. */
extern "C" __global__ void cycle(p2c_array<double, 1> x, p2c_array<float, 1> xf,
                                 p2c_array<double, 1> out, p2c_array<float, 1> outf) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= x.shape[0]) return;
  out.data[i] = sin(x.data[i]);
  outf.data[i] = sinf(xf.data[i]);
}

/* One call site, two argument types: with C++'s overloads, sin of a float is sinf. */
template <typename T>
static __device__ T site_of_both_types(T v) {
  return sin(v);
}

/* out[i] = (double)sin((float)xf[i]) or sin(x[i]), by the parity of i, at one call site. The
 * host gives the double the bits of the float, zero-extended: the same key in the same set. */
extern "C" __global__ void both_types(p2c_array<double, 1> x, p2c_array<float, 1> xf,
                                      p2c_array<double, 1> out) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= x.shape[0]) return;
  out.data[i] = i % 2 ? (double)site_of_both_types(xf.data[i]) : site_of_both_types(x.data[i]);
}

#define P2C_TEST_SITE(k) acc += log1p(v + (k) + 1) * ((k) + 1);
#define P2C_TEST_SITES8(k)                                                                     \
  P2C_TEST_SITE(k) P2C_TEST_SITE(k + 1) P2C_TEST_SITE(k + 2) P2C_TEST_SITE(k + 3)              \
  P2C_TEST_SITE(k + 4) P2C_TEST_SITE(k + 5) P2C_TEST_SITE(k + 6) P2C_TEST_SITE(k + 7)

/* 65 consecutive call sites: expm1(v), 63 of log1p on other arguments, then atan(v), whose
 * site is 64 after expm1's and so shares its table (and, with the same argument, its set):
 * out[i] = expm1(x) + sum over k < 63 of (k + 1) * log1p(x + k + 1) + 1000 * atan(x). */
extern "C" __global__ void many_sites(p2c_array<double, 1> x, p2c_array<double, 1> out) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= x.shape[0]) return;
  double v = x.data[i];
  double acc = expm1(v);
  P2C_TEST_SITES8(0) P2C_TEST_SITES8(8) P2C_TEST_SITES8(16) P2C_TEST_SITES8(24)
  P2C_TEST_SITES8(32) P2C_TEST_SITES8(40) P2C_TEST_SITES8(48)
  P2C_TEST_SITE(56) P2C_TEST_SITE(57) P2C_TEST_SITE(58) P2C_TEST_SITE(59) P2C_TEST_SITE(60)
  P2C_TEST_SITE(61) P2C_TEST_SITE(62)
  acc += atan(v) * 1000;
  out.data[i] = acc;
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(unary)
P2C_SIM_KERNEL(cycle)
P2C_SIM_KERNEL(both_types)
P2C_SIM_KERNEL(many_sites)
#endif
