/* The prelude helpers of the CUDA intrinsics (see prelude.h, CudaHelper), emitted only when
 * used. Where CUDA C has the operation for the type, generated code calls it directly
 * (atomicAdd, __shfl_sync, ...) and no helper is needed; these cover the rest:
 *   - int64 atomics: CUDA's 64-bit integer atomics take unsigned long long; two's complement
 *     makes add, and, or, xor, exch and cas the same operation on the bits.
 *   - atomic max/min on floats with Numba's NaN rules: max/min leave the element alone when it
 *     or the value is NaN; nanmax/nanmin ignore a NaN value and replace a NaN element
 *     (numba/cuda/cudadrv/nvvm.py, ir_numba_atomic_minmax), by compare-and-swap on the bits.
 *   - PTX special registers that CUDA C has no name for (%laneid, %lanemask_lt,
 *     %dynamic_smem_size), read with inline assembly; the simulator's prelude computes them.
 * Everything here compiles with NVRTC and with the simulator's host prelude. */
#include "codegen/prelude.h"

static const char *const cuda_helper_text[HC_COUNT] = {
    [HC_ATOMIC_I64] =
        "/* int64 atomics: CUDA's 64-bit integer atomics take unsigned long long, and two's\n"
        " * complement makes these the same operations on the bits. */\n"
        "static __device__ __forceinline__ int64_t p2c_atomic_add(int64_t *p, int64_t v) {\n"
        "  return (int64_t)atomicAdd((unsigned long long *)p, (unsigned long long)v);\n"
        "}\n"
        "static __device__ __forceinline__ int64_t p2c_atomic_and(int64_t *p, int64_t v) {\n"
        "  return (int64_t)atomicAnd((unsigned long long *)p, (unsigned long long)v);\n"
        "}\n"
        "static __device__ __forceinline__ int64_t p2c_atomic_or(int64_t *p, int64_t v) {\n"
        "  return (int64_t)atomicOr((unsigned long long *)p, (unsigned long long)v);\n"
        "}\n"
        "static __device__ __forceinline__ int64_t p2c_atomic_xor(int64_t *p, int64_t v) {\n"
        "  return (int64_t)atomicXor((unsigned long long *)p, (unsigned long long)v);\n"
        "}\n"
        "static __device__ __forceinline__ int64_t p2c_atomic_exch(int64_t *p, int64_t v) {\n"
        "  return (int64_t)atomicExch((unsigned long long *)p, (unsigned long long)v);\n"
        "}\n"
        "static __device__ __forceinline__ int64_t p2c_atomic_cas(int64_t *p, int64_t old, int64_t v) {\n"
        "  return (int64_t)atomicCAS((unsigned long long *)p, (unsigned long long)old, (unsigned long long)v);\n"
        "}\n",
    [HC_ATOMIC_SUB] =
        "/* Atomic subtraction where CUDA has no atomicSub (it has one for 32-bit integers): adding\n"
        " * the negation is the same operation, for floats too. */\n"
        "static __device__ __forceinline__ int64_t p2c_atomic_sub(int64_t *p, int64_t v) {\n"
        "  return (int64_t)atomicAdd((unsigned long long *)p, 0ULL - (unsigned long long)v);\n"
        "}\n"
        "static __device__ __forceinline__ uint64_t p2c_atomic_sub(uint64_t *p, uint64_t v) {\n"
        "  return atomicAdd(p, 0ULL - v);\n"
        "}\n"
        "static __device__ __forceinline__ float p2c_atomic_sub(float *p, float v) {\n"
        "  return atomicAdd(p, -v);\n"
        "}\n"
        "static __device__ __forceinline__ double p2c_atomic_sub(double *p, double v) {\n"
        "  return atomicAdd(p, -v);\n"
        "}\n",
    [HC_ATOMIC_FMINMAX] =
        "/* Atomic max/min on floats as Numba defines them: max and min leave the element alone\n"
        " * when it or the value is NaN; nanmax and nanmin ignore a NaN value and replace a NaN\n"
        " * element. A compare-and-swap loop on the bits; returns the element's old value. */\n"
        "static __device__ __forceinline__ float p2c_atomic_fminmax(float *p, float v, bool is_max,\n"
        "                                                          bool nan_aware) {\n"
        "  unsigned int *bits = (unsigned int *)p;\n"
        "  unsigned int old = *(volatile unsigned int *)bits;\n"
        "  float cur = __uint_as_float(old);\n"
        "  if (isnan(v) || (!nan_aware && isnan(cur))) return cur;\n"
        "  while ((nan_aware && isnan(cur)) || (is_max ? cur < v : cur > v)) {\n"
        "    unsigned int seen = atomicCAS(bits, old, __float_as_uint(v));\n"
        "    if (seen == old) break;\n"
        "    old = seen;\n"
        "    cur = __uint_as_float(old);\n"
        "  }\n"
        "  return cur;\n"
        "}\n"
        "static __device__ __forceinline__ double p2c_atomic_fminmax(double *p, double v, bool is_max,\n"
        "                                                           bool nan_aware) {\n"
        "  unsigned long long *bits = (unsigned long long *)p;\n"
        "  unsigned long long old = *(volatile unsigned long long *)bits;\n"
        "  double cur = __longlong_as_double((long long)old);\n"
        "  if (isnan(v) || (!nan_aware && isnan(cur))) return cur;\n"
        "  while ((nan_aware && isnan(cur)) || (is_max ? cur < v : cur > v)) {\n"
        "    unsigned long long seen = atomicCAS(bits, old, (unsigned long long)__double_as_longlong(v));\n"
        "    if (seen == old) break;\n"
        "    old = seen;\n"
        "    cur = __longlong_as_double((long long)old);\n"
        "  }\n"
        "  return cur;\n"
        "}\n"
        "template <typename T> static __device__ __forceinline__ T p2c_atomic_max(T *p, T v) {\n"
        "  return p2c_atomic_fminmax(p, v, true, false);\n"
        "}\n"
        "template <typename T> static __device__ __forceinline__ T p2c_atomic_min(T *p, T v) {\n"
        "  return p2c_atomic_fminmax(p, v, false, false);\n"
        "}\n"
        "template <typename T> static __device__ __forceinline__ T p2c_atomic_nanmax(T *p, T v) {\n"
        "  return p2c_atomic_fminmax(p, v, true, true);\n"
        "}\n"
        "template <typename T> static __device__ __forceinline__ T p2c_atomic_nanmin(T *p, T v) {\n"
        "  return p2c_atomic_fminmax(p, v, false, true);\n"
        "}\n",
    [HC_ATOMIC_INCDEC64] =
        "/* Atomic inc/dec on uint64 (CUDA's atomicInc/atomicDec are 32-bit), with their rules:\n"
        " * inc stores (old >= v) ? 0 : old + 1, dec stores (old == 0 || old > v) ? v : old - 1. */\n"
        "static __device__ __forceinline__ uint64_t p2c_atomic_inc(uint64_t *p, uint64_t v) {\n"
        "  uint64_t old = *(volatile uint64_t *)p, seen;\n"
        "  while ((seen = atomicCAS(p, old, old >= v ? 0 : old + 1)) != old) old = seen;\n"
        "  return old;\n"
        "}\n"
        "static __device__ __forceinline__ uint64_t p2c_atomic_dec(uint64_t *p, uint64_t v) {\n"
        "  uint64_t old = *(volatile uint64_t *)p, seen;\n"
        "  while ((seen = atomicCAS(p, old, old == 0 || old > v ? v : old - 1)) != old) old = seen;\n"
        "  return old;\n"
        "}\n",
    [HC_LANE] =
        "/* The thread's lane in its warp and the mask of the lanes below it (PTX %laneid and\n"
        " * %lanemask_lt); the simulator computes the lane from threadIdx. */\n"
        "static __device__ __forceinline__ int32_t p2c_laneid(void) {\n"
        "#ifdef PYK2CUDA_SIM\n"
        "  return (int32_t)p2c_sim_lane();\n"
        "#else\n"
        "  int32_t lane;\n"
        "  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
        "  return lane;\n"
        "#endif\n"
        "}\n"
        "static __device__ __forceinline__ uint32_t p2c_lanemask_lt(void) {\n"
        "#ifdef PYK2CUDA_SIM\n"
        "  return (1u << p2c_sim_lane()) - 1u;\n"
        "#else\n"
        "  uint32_t mask;\n"
        "  asm(\"mov.u32 %0, %%lanemask_lt;\" : \"=r\"(mask));\n"
        "  return mask;\n"
        "#endif\n"
        "}\n",
    [HC_DYNAMIC_SHARED] =
        "/* Dynamic shared memory: one buffer per block, sized by the launch. Every\n"
        " * cuda.shared.array(0, dtype) starts at its beginning, as in Numba, and holds as many\n"
        " * elements as fit. The simulator's prelude defines the buffer and its size itself. */\n"
        "#ifndef PYK2CUDA_SIM\n"
        "extern __shared__ __align__(16) unsigned char p2c_dynamic_shared[];\n"
        "static __device__ __forceinline__ uint32_t p2c_dynamic_shared_size(void) {\n"
        "  uint32_t n;\n"
        "  asm(\"mov.u32 %0, %%dynamic_smem_size;\" : \"=r\"(n));\n"
        "  return n;\n"
        "}\n"
        "#endif\n"
        "template <typename T> static __device__ __forceinline__ p2c_array<T, 1> p2c_dynamic_shared_array(void) {\n"
        "  p2c_array<T, 1> a = {(T *)p2c_dynamic_shared, {(int64_t)(p2c_dynamic_shared_size() / sizeof(T))},\n"
        "                       {(int64_t)sizeof(T)}};\n"
        "  return a;\n"
        "}\n",
};

void prelude_cuda_emit(StrBuf *sb, uint64_t used) {
  for (int h = 0; h < HC_COUNT; h++)
    if (used >> h & 1) {
      sb_putc(sb, '\n');
      sb_puts(sb, cuda_helper_text[h]);
    }
}
