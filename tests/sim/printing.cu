/* printf from many threads: the simulator's own formatting of the generated code's conversions
 * (%lld, %llu, %%) and the vsnprintf fallback for any other, through the per-worker buffer
 * (more than 64 KiB in all, so that it is written out several times). */
#ifndef PYK2CUDA_SIM
typedef long long int64_t;
#endif

extern "C" __global__ void print_lines(int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) printf("line %lld of %llu: 100%% %lld %llu\n", (long long)i, (unsigned long long)n,
                    (long long)(i % 3 == 0 ? -9223372036854775807LL - 1 : -i),
                    (unsigned long long)(i % 2 ? 18446744073709551615ULL : 0ULL));
}

extern "C" __global__ void print_other(void) {
  printf("%s=%5.2f|%x|%c\n", "pi", 3.14159, 255u, 'z');
}

#ifdef PYK2CUDA_SIM
P2C_SIM_KERNEL(print_lines)
P2C_SIM_KERNEL(print_other)
#endif
