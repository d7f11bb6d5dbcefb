/* The text of the generated code's prelude (see prelude.h). The integer helpers reproduce
 * Python's floor division and modulo (the result takes the divisor's sign) and, like Numba's
 * CUDA target (NumPy error model), give 0 for a division by zero instead of raising. The
 * float helpers follow CPython's float_divmod. INT64_MIN // -1 is 0 and INT64_MIN % -1 is 0, as
 * in Numba, instead of trapping. */
#include "codegen/prelude.h"

#include <string.h>

static const char fixed_prelude[] =
    "#ifndef PYK2CUDA_SIM\n"
    "typedef signed char int8_t;\n"
    "typedef short int16_t;\n"
    "typedef int int32_t;\n"
    "typedef long long int64_t;\n"
    "typedef unsigned char uint8_t;\n"
    "typedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "#define P2C_SIM_POLL() /* in loops: where the CPU simulator can stop a launch */\n"
    "#endif\n"
    "\n"
    "/* How an array reaches a kernel: data, extents, strides in bytes (docs/generated-code.md). */\n"
    "template <typename T, int N>\n"
    "struct p2c_array {\n"
    "  T *data;\n"
    "  int64_t shape[N];\n"
    "  int64_t strides[N];\n"
    "};\n";

/* ---- Texts the C++ prelude and the C form (prelude_emit_c) share ----
 * NumPy's array creation and prange in @jit host functions: the C++ helpers above wrap these C
 * functions in their templates, and the first tier's C form wraps them in macros of its own. */
#define NP_HEAP_BLOCK                                                                                  \
  "typedef struct p2c_heap_block p2c_heap_block;\n"                                                    \
  "struct p2c_heap_block {\n"                                                                          \
  "  p2c_heap_block *next;\n"                                                                          \
  "  int64_t bytes;\n"                                                                                 \
  "};\n"
#define NP_HEAP_FUNCS                                                                                  \
  "/* A new block of `bytes` (zeroed on request), listed in the call's heap; out of memory raises\n"    \
  " * MemoryError, as in Numba. */\n"                                                                  \
  "static __device__ __noinline__ void *p2c_heap_alloc(int64_t bytes, bool zeroed, unsigned int line,\n" \
  "                                                    unsigned int column) {\n"                      \
  "  size_t total = sizeof(p2c_heap_block) + (size_t)bytes;\n"                                         \
  "  p2c_heap_block *b = (p2c_heap_block *)malloc(total);\n"                                           \
  "  if (!b) p2c_raise(line, column, \"MemoryError: Allocation failed (probably too large).\");\n"      \
  "  if (zeroed) memset(b, 0, total);\n"                                                               \
  "  b->next = p2c_heap_now;\n"                                                                        \
  "  b->bytes = bytes;\n"                                                                              \
  "  p2c_heap_now = b;\n"                                                                              \
  "  return b + 1;\n"                                                                                  \
  "}\n"                                                                                                \
  "/* The host entry's start: the call's heap is empty (blocks a call that raised left are freed). */\n" \
  "static __device__ void p2c_heap_begin(void) {\n"                                                    \
  "  while (p2c_heap_now) {\n"                                                                         \
  "    p2c_heap_block *b = p2c_heap_now;\n"                                                            \
  "    p2c_heap_now = b->next;\n"                                                                      \
  "    free(b);\n"                                                                                     \
  "  }\n"                                                                                              \
  "}\n"                                                                                                \
  "/* The host entry's end: owners[i] is the block holding held[i] (the elements of the i-th array in\n" \
  " * the result), which passes to the caller, or NULL (an argument's memory); every other block of\n"  \
  " * the call is freed. */\n"                                                                         \
  "static __device__ void p2c_heap_end(void *const *held, int n, void **owners) {\n"                   \
  "  for (int i = 0; i < n; i++) owners[i] = 0;\n"                                                     \
  "  while (p2c_heap_now) {\n"                                                                         \
  "    p2c_heap_block *b = p2c_heap_now;\n"                                                            \
  "    p2c_heap_now = b->next;\n"                                                                      \
  "    bool kept = false;\n"                                                                           \
  "    for (int i = 0; i < n; i++) {\n"                                                                \
  "      char *lo = (char *)(b + 1);\n"                                                                \
  "      if ((char *)held[i] >= lo && (char *)held[i] <= lo + b->bytes) owners[i] = b, kept = true;\n" \
  "    }\n"                                                                                            \
  "    if (!kept) free(b);\n"                                                                          \
  "  }\n"                                                                                              \
  "}\n"
#define NP_SHAPES                                                                                      \
  "/* A new array's extents and strides (in bytes, layout L 'C' or 'F', elements of `size` bytes)\n"   \
  " * from dims; returns its element count. A negative extent, or a size past 2**63 bytes, raises\n"    \
  " * ValueError as NumPy does. */\n"                                                                  \
  "static __device__ int64_t p2c_np_layout(int64_t *shape, int64_t *strides, int ndim, char layout,\n"  \
  "                                        const int64_t *dims, int64_t size, unsigned int line,\n"    \
  "                                        unsigned int column) {\n"                                   \
  "  int64_t n = 1;\n"                                                                                 \
  "  for (int k = 0; k < ndim; k++) {\n"                                                               \
  "    if (dims[k] < 0) p2c_raise(line, column, \"ValueError: negative dimensions are not allowed\");\n" \
  "    if (dims[k] && n > 0x7fffffffffffffffLL / size / dims[k])\n"                                    \
  "      p2c_raise(line, column, \"ValueError: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.\");\n" \
  "    n *= dims[k];\n"                                                                                \
  "    shape[k] = dims[k];\n"                                                                          \
  "  }\n"                                                                                              \
  "  int64_t stride = size;\n"                                                                         \
  "  for (int k = 0; k < ndim; k++) {\n"                                                               \
  "    int j = layout == 'F' ? k : ndim - 1 - k;\n"                                                    \
  "    strides[j] = stride;\n"                                                                         \
  "    stride *= dims[j];\n"                                                                           \
  "  }\n"                                                                                              \
  "  return n;\n"                                                                                      \
  "}\n"                                                                                                \
  "/* np.arange's element count, as Numba computes it: ceil((stop - start) / step), none when\n"       \
  " * negative; a zero step raises ValueError. */\n"                                                   \
  "static __device__ int64_t p2c_np_arange_count(double start, double stop, double step, unsigned int line,\n" \
  "                                              unsigned int column) {\n"                             \
  "  if (step == 0) p2c_raise(line, column, \"ValueError: Maximum allowed size exceeded\");\n"          \
  "  double count = ceil((stop - start) / step);\n"                                                    \
  "  return count > 0 ? (int64_t)count : 0;\n"                                                         \
  "}\n"
#define PRANGE_CHUNKS                                                                                  \
  "enum { P2C_PRANGE_MAX = 64 };\n"                                                                    \
  "/* The iterations of range(start, stop, step) (none for a zero step). */\n"                         \
  "static __device__ __forceinline__ int64_t p2c_range_count(int64_t start, int64_t stop, int64_t step) {\n" \
  "  if (step > 0 && start < stop) return (int64_t)((uint64_t)(stop - start - 1) / (uint64_t)step) + 1;\n" \
  "  if (step < 0 && start > stop) return (int64_t)((uint64_t)(start - stop - 1) / (0 - (uint64_t)step)) + 1;\n" \
  "  return 0;\n"                                                                                      \
  "}\n"                                                                                                \
  "/* The first iteration of chunk c of w over n iterations: the first n % w chunks are one longer\n"  \
  " * (chunk c is [p2c_prange_lo(c), p2c_prange_lo(c + 1))). */\n"                                     \
  "static __device__ __forceinline__ int64_t p2c_prange_lo(int64_t n, int w, int c) {\n"              \
  "  int64_t q = n / w, r = n % w;\n"                                                                  \
  "  return q * c + (c < r ? c : r);\n"                                                                \
  "}\n"

static const char *const helper_text[H_COUNT] = {
    [H_FLOORDIV_I64] =
        "/* Python's a // b on int64: rounds toward negative infinity; b == 0 gives 0, and so does\n"
        "   INT64_MIN // -1 (Numba's int_divmod_signed sets both results to 0 on that overflow). */\n"
        "static __device__ __forceinline__ int64_t p2c_floordiv(int64_t a, int64_t b) {\n"
        "  if (b == 0) return 0;\n"
        "  if (b == -1) return a == (-0x7fffffffffffffffLL - 1) ? 0 : -a;\n"
        "  int64_t q = a / b;\n"
        "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
        "}\n",
    [H_FLOORDIV_U64] =
        "static __device__ __forceinline__ uint64_t p2c_floordiv(uint64_t a, uint64_t b) {\n"
        "  return b == 0 ? 0 : a / b;\n"
        "}\n",
    [H_FLOORDIV_F64] =
        "/* Python's a // b on floats (CPython's float_divmod); by zero a / b, as Numba. */\n"
        "static __device__ __forceinline__ double p2c_floordiv(double a, double b) {\n"
        "  if (b == 0) return a / b;\n"
        "  double mod = fmod(a, b), div = (a - mod) / b;\n"
        "  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;\n"
        "  if (div == 0) return copysign(0.0, a / b);\n"
        "  double f = floor(div);\n"
        "  return div - f > 0.5 ? f + 1.0 : f;\n"
        "}\n",
    [H_FLOORDIV_F32] =
        "static __device__ __forceinline__ float p2c_floordiv(float a, float b) {\n"
        "  if (b == 0) return a / b;\n"
        "  float mod = fmodf(a, b), div = (a - mod) / b;\n"
        "  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0f;\n"
        "  if (div == 0) return copysignf(0.0f, a / b);\n"
        "  float f = floorf(div);\n"
        "  return div - f > 0.5f ? f + 1.0f : f;\n"
        "}\n",
    [H_MOD_I64] =
        "/* Python's a % b on int64: the result has the sign of b; b == 0 gives 0. */\n"
        "static __device__ __forceinline__ int64_t p2c_mod(int64_t a, int64_t b) {\n"
        "  if (b == 0 || b == -1) return 0;\n"
        "  int64_t r = a % b;\n"
        "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
        "}\n",
    [H_MOD_U64] =
        "static __device__ __forceinline__ uint64_t p2c_mod(uint64_t a, uint64_t b) {\n"
        "  return b == 0 ? 0 : a % b;\n"
        "}\n",
    [H_MOD_F64] =
        "/* Python's a % b on floats: the result has the sign of b. */\n"
        "static __device__ __forceinline__ double p2c_mod(double a, double b) {\n"
        "  double mod = fmod(a, b);\n"
        "  if (mod != 0) return ((b < 0) != (mod < 0)) ? mod + b : mod;\n"
        "  return copysign(0.0, b);\n"
        "}\n",
    [H_MOD_F32] =
        "static __device__ __forceinline__ float p2c_mod(float a, float b) {\n"
        "  float mod = fmodf(a, b);\n"
        "  if (mod != 0) return ((b < 0) != (mod < 0)) ? mod + b : mod;\n"
        "  return copysignf(0.0f, b);\n"
        "}\n",
    [H_DIV_I64_ZERO] = "",
    [H_POW_I64] =
        "/* Python's a ** b on int64 as Numba computes it (int_power_impl): by repeated squaring,\n"
        "   wrapping, and then through a double, since the function it compiles also returns\n"
        "   1.0 / r and so returns a float64 (3 ** 35 is 50031545098999704, not ...707); a double\n"
        "   of 2**63 converts as CUDA's cvt.rzi does, to INT64_MAX. A negative exponent gives 0\n"
        "   unless |a| == 1; 0 to a negative power is INT64_MIN, the CUDA target's NumPy error\n"
        "   model (_get_power_zerodiv_return). */\n"
        "static __device__ __forceinline__ int64_t p2c_pow(int64_t a, int64_t b) {\n"
        "  if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : a == 0 ? (-0x7fffffffffffffffLL - 1) : 0;\n"
        "  uint64_t r = 1, x = (uint64_t)a;\n"
        "  for (; b; b >>= 1, x *= x)\n"
        "    if (b & 1) r *= x;\n"
        "  double d = (double)(int64_t)r;\n"
        "  return d >= 0x1p63 ? 0x7fffffffffffffffLL : (int64_t)d;\n"
        "}\n",
    [H_POW_U64] =
        "static __device__ __forceinline__ uint64_t p2c_pow(uint64_t a, uint64_t b) {\n"
        "  uint64_t r = 1;\n"
        "  for (; b; b >>= 1, a *= a)\n"
        "    if (b & 1) r *= a;\n"
        "  double d = (double)r;\n"
        "  return d >= 0x1p64 ? 0xffffffffffffffffULL : (uint64_t)d;\n"
        "}\n",
    [H_POWI_F64] =
        "/* x ** n for a float x and an integer n, by repeated squaring as Numba computes it. */\n"
        "static __device__ __forceinline__ double p2c_powi(double x, int64_t n) {\n"
        "  uint64_t k = n < 0 ? 0ULL - (uint64_t)n : (uint64_t)n;\n"
        "  double r = 1.0;\n"
        "  for (; k; k >>= 1, x *= x)\n"
        "    if (k & 1) r *= x;\n"
        "  return n < 0 ? 1.0 / r : r;\n"
        "}\n",
    [H_POWI_F32] =
        "static __device__ __forceinline__ float p2c_powi(float x, int64_t n) {\n"
        "  uint64_t k = n < 0 ? 0ULL - (uint64_t)n : (uint64_t)n;\n"
        "  float r = 1.0f;\n"
        "  for (; k; k >>= 1, x *= x)\n"
        "    if (k & 1) r *= x;\n"
        "  return n < 0 ? 1.0f / r : r;\n"
        "}\n",
    [H_WRAP] =
        "/* A negative index counts from the end, as in Python. */\n"
        "static __device__ __forceinline__ int64_t p2c_wrap(int64_t i, int64_t n) {\n"
        "  return i < 0 ? i + n : i;\n"
        "}\n",
    [H_MINMAX] =
        "/* Python's min and max: the first of equal values wins; NaN as Python compares it. */\n"
        "template <typename T> static __device__ __forceinline__ T p2c_min(T a, T b) {\n"
        "  return b < a ? b : a;\n"
        "}\n"
        "template <typename T> static __device__ __forceinline__ T p2c_max(T a, T b) {\n"
        "  return b > a ? b : a;\n"
        "}\n",
    [H_ABS_INT] =
        "template <typename T> static __device__ __forceinline__ T p2c_abs(T a) {\n"
        "  return a < 0 ? (T)(0 - a) : a;\n"
        "}\n",
    [H_ROUND_ND] =
        "/* round(x, ndigits): Numba's round_ndigits (CPython's fallback double_round): half to\n"
        " * even at the given decimal digit; over 22 digits 10**nd is two factors, so that the\n"
        " * scaled value overflows only when x * 10**nd does (x is returned then). */\n"
        "static __device__ __forceinline__ double p2c_round(double x, int64_t nd) {\n"
        "  double pow1, pow2 = 1.0, y;\n"
        "  if (!isfinite(x)) return x;\n"
        "  if (nd >= 0) {\n"
        "    pow1 = pow(10.0, (double)(nd > 22 ? nd - 22 : nd));\n"
        "    if (nd > 22) pow2 = 1e22;\n"
        "    y = (x * pow1) * pow2;\n"
        "    if (!isfinite(y)) return x;\n"
        "    return (rint(y) / pow2) / pow1;\n"
        "  }\n"
        "  pow1 = pow(10.0, (double)-nd);\n"
        "  y = x / pow1;\n"
        "  return rint(y) * pow1;\n"
        "}\n",
    [H_DEGREES] =
        "static __device__ __forceinline__ double p2c_degrees(double x) {\n"
        "  return x * (180.0 / 3.141592653589793);\n"
        "}\n"
        "static __device__ __forceinline__ float p2c_degreesf(float x) {\n"
        "  return (float)((double)x * (180.0 / 3.141592653589793));\n"
        "}\n"
        "static __device__ __forceinline__ double p2c_radians(double x) {\n"
        "  return x * (3.141592653589793 / 180.0);\n"
        "}\n"
        "static __device__ __forceinline__ float p2c_radiansf(float x) {\n"
        "  return (float)((double)x * (3.141592653589793 / 180.0));\n"
        "}\n",
    [H_INF_NAN] =
        "/* IEEE infinity and a quiet NaN, built from their bits (no math headers needed). */\n"
        "static __device__ __forceinline__ double p2c_bits_to_double(uint64_t b) {\n"
        "  union { uint64_t u; double d; } v;\n"
        "  v.u = b;\n"
        "  return v.d;\n"
        "}\n"
        "#define p2c_inf p2c_bits_to_double(0x7ff0000000000000ULL)\n"
        "#define p2c_nan p2c_bits_to_double(0x7ff8000000000000ULL)\n",
    [H_BOUNDS] =
        "/* --check-bounds (docs/generated-code.md): the first out-of-bounds access of a launch.\n"
        " * The runtime zeroes it before each launch and reads it after. 176 bytes, no padding. */\n"
        "struct p2c_bounds_record {\n"
        "  unsigned int claimed;           /* 1 once a thread has recorded a failure */\n"
        "  unsigned int line, column;      /* of the subscript in the Python source, from 1 */\n"
        "  unsigned int ndim, axis;        /* the array's dimensions; the first bad axis */\n"
        "  unsigned int block[3], thread[3];  /* blockIdx, threadIdx of the failing thread */\n"
        "  unsigned int view;              /* 1: a[i] made a view; only index[axis] is set */\n"
        "  int64_t index[8];               /* the indices as written (negative ones unwrapped) */\n"
        "  int64_t shape[8];               /* the array's extents */\n"
        "};\n"
        "extern \"C\" {\n"
        "__device__ p2c_bounds_record p2c_bounds_report;\n"
        "}\n"
        "\n"
        "template <int N>\n"
        "struct p2c_index {\n"
        "  int64_t v[N];\n"
        "};\n"
        "\n"
        "/* Ends the calling thread, as if its kernel had returned. */\n"
        "#ifdef PYK2CUDA_SIM\n"
        "#define P2C_EXIT_THREAD() p2c_sim_exit_thread()\n"
        "#else\n"
        "#define P2C_EXIT_THREAD() asm volatile(\"exit;\")\n"
        "#endif\n"
        "\n"
        "/* Records a failure (the first one of the launch wins) and ends the thread. */\n"
        "template <int N>\n"
        "static __device__ __noinline__ void p2c_bounds_fail(p2c_index<N> ix, p2c_index<N> shape, int axis,\n"
        "                                                   unsigned int line, unsigned int column) {\n"
        "  if (atomicCAS(&p2c_bounds_report.claimed, 0u, 1u) == 0u) {\n"
        "    p2c_bounds_record *r = &p2c_bounds_report;\n"
        "    r->line = line;\n"
        "    r->column = column;\n"
        "    r->ndim = N;\n"
        "    r->axis = axis;\n"
        "    r->block[0] = blockIdx.x, r->block[1] = blockIdx.y, r->block[2] = blockIdx.z;\n"
        "    r->thread[0] = threadIdx.x, r->thread[1] = threadIdx.y, r->thread[2] = threadIdx.z;\n"
        "    for (int k = 0; k < N; k++) r->index[k] = ix.v[k], r->shape[k] = shape.v[k];\n"
        "  }\n"
        "  P2C_EXIT_THREAD();\n"
        "}\n"
        "\n"
        "/* The indices `ix` of an array of extents `shape`, negative ones wrapped once as in Python,\n"
        " * each checked; the element's offset: in elements for C ('C') and Fortran ('F') order, in\n"
        " * bytes along `strides` ('A'). */\n"
        "template <char L, int N>\n"
        "static __device__ __forceinline__ int64_t p2c_bounds_offset(p2c_index<N> ix, const int64_t *shape,\n"
        "                                                            const int64_t *strides,\n"
        "                                                            unsigned int line, unsigned int column) {\n"
        "  int64_t w[N];\n"
        "  for (int k = 0; k < N; k++) {\n"
        "    w[k] = ix.v[k] < 0 ? ix.v[k] + shape[k] : ix.v[k];\n"
        "    if ((uint64_t)w[k] >= (uint64_t)shape[k]) {\n"
        "      p2c_index<N> s;\n"
        "      for (int d = 0; d < N; d++) s.v[d] = shape[d];\n"
        "      p2c_bounds_fail<N>(ix, s, k, line, column);\n"
        "    }\n"
        "  }\n"
        "  int64_t off = 0;\n"
        "  if (L == 'A') {\n"
        "    for (int k = 0; k < N; k++) off += w[k] * strides[k];\n"
        "  } else if (L == 'F') {\n"
        "    for (int k = N - 1; k >= 0; k--) off = off * shape[k] + w[k];\n"
        "  } else {\n"
        "    for (int k = 0; k < N; k++) off = off * shape[k] + w[k];\n"
        "  }\n"
        "  return off;\n"
        "}\n",
    [H_BOUNDS_VIEW] =
        "/* An integer index that makes a view (a[i] of an N-D array), at subscript position\n"
        " * `axis`, checked against the extent it indexes; returned as written. */\n"
        "static __device__ __noinline__ void p2c_bounds_fail_view(int64_t i, int64_t extent, int axis,\n"
        "                                                        unsigned int line, unsigned int column) {\n"
        "  if (atomicCAS(&p2c_bounds_report.claimed, 0u, 1u) == 0u) {\n"
        "    p2c_bounds_record *r = &p2c_bounds_report;\n"
        "    r->line = line;\n"
        "    r->column = column;\n"
        "    r->ndim = axis + 1;\n"
        "    r->axis = axis;\n"
        "    r->view = 1;\n"
        "    r->block[0] = blockIdx.x, r->block[1] = blockIdx.y, r->block[2] = blockIdx.z;\n"
        "    r->thread[0] = threadIdx.x, r->thread[1] = threadIdx.y, r->thread[2] = threadIdx.z;\n"
        "    r->index[axis] = i;\n"
        "    r->shape[axis] = extent;\n"
        "  }\n"
        "  P2C_EXIT_THREAD();\n"
        "}\n"
        "static __device__ __forceinline__ int64_t p2c_bounds_axis(int64_t i, int64_t extent, int axis,\n"
        "                                                          unsigned int line, unsigned int column) {\n"
        "  int64_t w = i < 0 ? i + extent : i;\n"
        "  if ((uint64_t)w >= (uint64_t)extent) p2c_bounds_fail_view(i, extent, axis, line, column);\n"
        "  return i;\n"
        "}\n"
        "\n"
        "/* A uint64 index past INT64_MAX is out of bounds for every array: it saturates. */\n"
        "static __device__ __forceinline__ int64_t p2c_bounds_u64(uint64_t i) {\n"
        "  return i > 9223372036854775807ULL ? 9223372036854775807LL : (int64_t)i;\n"
        "}\n",
    [H_RAISE] =
        "/* A raise or assert that failed in a function compiled with debug=True: the exception\n"
        " * (\"ValueError: msg\") goes into the bounds record (ndim 0 says which kind of record it\n"
        " * is; the text takes the bytes of index and shape), then the thread ends. */\n"
        "static __device__ __noinline__ void p2c_raise(unsigned int line, unsigned int column, const char *exc) {\n"
        "  if (atomicCAS(&p2c_bounds_report.claimed, 0u, 1u) == 0u) {\n"
        "    p2c_bounds_record *r = &p2c_bounds_report;\n"
        "    r->line = line;\n"
        "    r->column = column;\n"
        "    r->ndim = 0;\n"
        "    r->block[0] = blockIdx.x, r->block[1] = blockIdx.y, r->block[2] = blockIdx.z;\n"
        "    r->thread[0] = threadIdx.x, r->thread[1] = threadIdx.y, r->thread[2] = threadIdx.z;\n"
        "    char *text = (char *)r->index;\n"
        "    unsigned int n = 0;\n"
        "    for (; exc[n] && n + 1 < sizeof r->index + sizeof r->shape; n++) text[n] = exc[n];\n"
        "    text[n] = 0;\n"
        "  }\n"
        "  P2C_EXIT_THREAD();\n"
        "}\n",
    [H_TUPLE_INDEX] =
        "/* A runtime index into a tuple of n elements (negative ones wrapped once), checked as\n"
        " * Numba's tuple getitem checks it: out of range raises IndexError. */\n"
        "static __device__ __forceinline__ int64_t p2c_tuple_index(int64_t i, int64_t n, unsigned int line,\n"
        "                                                          unsigned int column) {\n"
        "  int64_t w = i < 0 ? i + n : i;\n"
        "  if ((uint64_t)w >= (uint64_t)n) p2c_raise(line, column, \"IndexError: tuple index out of range\");\n"
        "  return w;\n"
        "}\n",
    [H_DIVISOR] =
        "/* debug=True, and @jit functions the host calls: the divisor of / // %, checked as Python\n"
        " * checks it (Numba's Python error model): zero raises ZeroDivisionError. */\n"
        "template <typename T>\n"
        "static __device__ __forceinline__ T p2c_divisor(T d, unsigned int line, unsigned int column, const char *exc) {\n"
        "  if (d == 0) p2c_raise(line, column, exc);\n"
        "  return d;\n"
        "}\n",
    [H_EXIT] =
        "/* An exception that is not reported (no debug=True) where an expression raises it: the\n"
        " * thread ends, as a raise in a device function ends it. */\n"
        "static __device__ __noinline__ void p2c_exit_thread(void) {\n"
        "  P2C_EXIT_THREAD();\n"
        "}\n",
    [H_NP_ALLOC] =
        "/* NumPy's array creation in @jit functions the host calls (np.empty, zeros, ..., arange): each\n"
        " * array's elements are a block of the C heap, listed in the running call's heap (p2c_heap_now);\n"
        " * when the host's call returns, its kernel hands the blocks that hold a returned array to the\n"
        " * caller and frees the others (p2c_heap_end). Host entries run only on the simulator (the host's\n"
        " * CPU): NVRTC compiles this text, but no GPU runs it. */\n"
        NP_HEAP_BLOCK
        "#ifdef PYK2CUDA_SIM\n"
        "static thread_local p2c_heap_block *p2c_heap_now;\n"
        "#else\n"
        "static __device__ p2c_heap_block *p2c_heap_now;\n"
        "#endif\n"
        "template <int N> struct p2c_dims {\n"
        "  int64_t d[N];\n"
        "};\n"
        NP_HEAP_FUNCS,
    [H_NP_ARRAYS] =
        NP_SHAPES
        "/* np.empty/zeros/ones/full and their _like forms: an array of shape `dims` in layout L ('C' or\n"
        " * 'F'); fill 0 leaves the elements as they are, 1 zeroes them, 2 sets each to `value`. */\n"
        "template <typename T, int N, char L>\n"
        "static __device__ p2c_array<T, N> p2c_np_new(p2c_dims<N> dims, int fill, T value, unsigned int line,\n"
        "                                             unsigned int column) {\n"
        "  p2c_array<T, N> a;\n"
        "  int64_t n = p2c_np_layout(a.shape, a.strides, N, L, dims.d, (int64_t)sizeof(T), line, column);\n"
        "  a.data = (T *)p2c_heap_alloc(n * (int64_t)sizeof(T), fill == 1, line, column);\n"
        "  if (fill == 2)\n"
        "    for (int64_t i = 0; i < n; i++) a.data[i] = value;\n"
        "  return a;\n"
        "}\n"
        "/* np.arange(start, stop, step) computed in C (int64_t or double), as Numba computes it: element\n"
        " * i is start + i * step. */\n"
        "template <typename T, typename C>\n"
        "static __device__ p2c_array<T, 1> p2c_np_arange(C start, C stop, C step, unsigned int line, unsigned int column) {\n"
        "  p2c_dims<1> dims = {{p2c_np_arange_count((double)start, (double)stop, (double)step, line, column)}};\n"
        "  p2c_array<T, 1> a = p2c_np_new<T, 1, 'C'>(dims, 0, T(), line, column);\n"
        "  for (int64_t i = 0; i < a.shape[0]; i++) a.data[i] = (T)(start + (C)i * step);\n"
        "  return a;\n"
        "}\n",
    [H_PRANGE] =
        "/* numba.prange in a host entry of an @njit(parallel=True) function (analysis/parallel.c): the\n"
        " * iterations [0, n) in w chunks, chunk c running body(c, lo, hi). The simulator's host build runs\n"
        " * the chunks on threads of the host (p2c_sim_run_chunks), the arrays they create joining the\n"
        " * call's heap; NVRTC compiles this text, but no GPU runs it. */\n"
        PRANGE_CHUNKS
        "#ifdef PYK2CUDA_SIM\n"
        "template <typename F> struct p2c_prange_ctx {\n"
        "  F *body;\n"
        "  int w;\n"
        "  int64_t n;\n"
        "  p2c_heap_block *heap;   /* the arrays the other threads' chunks created */\n"
        "};\n"
        "template <typename F> static void p2c_prange_chunk(void *ctx, int c) {\n"
        "  p2c_prange_ctx<F> *x = (p2c_prange_ctx<F> *)ctx;\n"
        "  (*x->body)(c, p2c_prange_lo(x->n, x->w, c), p2c_prange_lo(x->n, x->w, c + 1));\n"
        "}\n"
        "/* After chunk c on its thread: the blocks it created move to the loop's list. */\n"
        "template <typename F> static void p2c_prange_done(void *ctx, int c) {\n"
        "  p2c_prange_ctx<F> *x = (p2c_prange_ctx<F> *)ctx;\n"
        "  p2c_heap_block *first = p2c_heap_now, *last = first;\n"
        "  if (c == 0 || !first) return;\n"
        "  while (last->next) last = last->next;\n"
        "  p2c_heap_now = 0;\n"
        "  last->next = __atomic_load_n(&x->heap, __ATOMIC_RELAXED);\n"
        "  while (!__atomic_compare_exchange_n(&x->heap, &last->next, first, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {\n"
        "  }\n"
        "}\n"
        "template <typename F> static void p2c_prange(int w, int64_t n, F body) {\n"
        "  if (w <= 1) {\n"
        "    body(0, (int64_t)0, n);\n"
        "    return;\n"
        "  }\n"
        "  p2c_prange_ctx<F> x = {&body, w, n, 0};\n"
        "  int raised = p2c_sim_run_chunks(w, p2c_prange_chunk<F>, p2c_prange_done<F>, &x);\n"
        "  while (x.heap) {\n"
        "    p2c_heap_block *b = x.heap;\n"
        "    x.heap = b->next;\n"
        "    b->next = p2c_heap_now;\n"
        "    p2c_heap_now = b;\n"
        "  }\n"
        "  if (raised) P2C_EXIT_THREAD();   /* a chunk raised: its record is written */\n"
        "}\n"
        "#define p2c_prange_workers p2c_sim_prange_workers\n"
        "#else\n"
        "static __device__ int p2c_prange_workers(int64_t n) { (void)n; return 1; }\n"
        "template <typename F> static __device__ void p2c_prange(int w, int64_t n, F body) { (void)w; body(0, (int64_t)0, n); }\n"
        "#endif\n",
    [H_SANITIZE] =
        "/* --sanitize (the simulator only, docs/simulator.md): the checked offset of an element,\n"
        " * reported to the simulator's checker with its address, access kind K, memory space S,\n"
        " * indices (negative ones wrapped), position and array name. Always inlined: the checker's\n"
        " * fast path (p2c_san_fast) pays off only where the thread's variables are at hand. */\n"
        "template <char L, int N, int K, int S, typename T>\n"
        "static __forceinline__ __attribute__((always_inline)) int64_t p2c_san_offset(\n"
        "    p2c_index<N> ix, const int64_t *shape, const int64_t *strides, unsigned int line,\n"
        "    unsigned int column, T *base, const char *name) {\n"
        "  int64_t off = p2c_bounds_offset<L, N>(ix, shape, strides, line, column);\n"
        "  if (K == P2C_SAN_READ_INPUT && p2c_sim_self->san_shadow->inputs_apart) return off;\n"
        "  long long w[N];\n"
        "  for (int k = 0; k < N; k++) w[k] = ix.v[k] < 0 ? ix.v[k] + shape[k] : ix.v[k];\n"
        "  const char *at = (const char *)base + (L == 'A' ? off : off * (int64_t)sizeof(T));\n"
        "  p2c_sim_san_access(at, sizeof(T), K, S, line, column, name, N, w);\n"
        "  return off;\n"
        "}\n",
};

void prelude_emit(StrBuf *sb, HelperSet used) {
  sb_puts(sb, fixed_prelude);
  for (int h = 0; h < H_COUNT; h++)
    if ((used.bits >> h & 1) && helper_text[h][0]) {
      sb_putc(sb, '\n');
      sb_puts(sb, helper_text[h]);
    }
  prelude_types_emit(sb, used);
  prelude_cuda_emit(sb, used.cuda_bits);
}

/* ---- The C form (codegen/emit_c.c) ----
 * Helpers whose text is C as it stands (with the C header's empty __device__) are written as
 * they are. C has no overloading: each overloaded helper is written under its family's name
 * with a suffix for its type, and the family's name becomes a macro that picks the one for its
 * operands' common type with _Generic (a type no variant takes does not compile, and the first
 * tier is then not used). */
typedef struct CVariant {
  Helper h;
  const char *family;   /* the name the helper's text defines */
  const char *suffix;   /* its C form's name: family_suffix */
  const char *ctype;    /* the operands' type that picks it */
} CVariant;

static const CVariant c_variants[] = {
    {H_FLOORDIV_I64, "p2c_floordiv", "i64", "int64_t"}, {H_FLOORDIV_U64, "p2c_floordiv", "u64", "uint64_t"},
    {H_FLOORDIV_F64, "p2c_floordiv", "f64", "double"},  {H_FLOORDIV_F32, "p2c_floordiv", "f32", "float"},
    {H_MOD_I64, "p2c_mod", "i64", "int64_t"},           {H_MOD_U64, "p2c_mod", "u64", "uint64_t"},
    {H_MOD_F64, "p2c_mod", "f64", "double"},            {H_MOD_F32, "p2c_mod", "f32", "float"},
    {H_POW_I64, "p2c_pow", "i64", "int64_t"},           {H_POW_U64, "p2c_pow", "u64", "uint64_t"},
    {H_POWI_F64, "p2c_powi", "f64", "double"},          {H_POWI_F32, "p2c_powi", "f32", "float"},
};
enum { C_VARIANT_COUNT = sizeof c_variants / sizeof c_variants[0] };

/* Helpers that are C as written. */
static const Helper c_as_written[] = {H_WRAP, H_DEGREES, H_INF_NAN, H_DIV_I64_ZERO};

/* The failure record and what writes it, in C: the C++ texts' templates, atomics and thread exit
 * have no C spelling, and the first tier runs one thread, which leaves the call through the
 * runtime's p2c_tier_leave (sim_call_leave). The record's layout is runtime/bounds.h's
 * P2cBoundsRecord, as the C++ text's is: the size check below fails libtcc's compile if it drifts
 * (the tier tests raise through it, tests/python/test_cpu_tiers.py). */
static const char c_bounds[] =
    "typedef struct p2c_bounds_record {\n"
    "  unsigned int claimed, line, column, ndim, axis, block[3], thread[3], view;\n"
    "  int64_t index[8], shape[8];\n"
    "} p2c_bounds_record;\n"
    "typedef char p2c_bounds_record_is_176_bytes[sizeof(p2c_bounds_record) == 176 ? 1 : -1];\n"
    "p2c_bounds_record p2c_bounds_report;   /* zeroed before each call, read after it */\n"
    "void p2c_tier_leave(void);              /* the runtime's: ends the call */\n";
static const char c_raise[] =
    "static void p2c_raise(unsigned int line, unsigned int column, const char *exc) {\n"
    "  p2c_bounds_record *r = &p2c_bounds_report;\n"
    "  if (!r->claimed) {\n"
    "    r->claimed = 1, r->line = line, r->column = column, r->ndim = 0;\n"
    "    char *text = (char *)r->index;\n"
    "    unsigned int n = 0;\n"
    "    for (; exc[n] && n + 1 < sizeof r->index + sizeof r->shape; n++) text[n] = exc[n];\n"
    "    text[n] = 0;\n"
    "  }\n"
    "  p2c_tier_leave();\n"
    "}\n";
/* p2c_divisor<T>(d, ...) in C: d once, through a statement expression (GNU C, which libtcc has) */
static const char c_divisor[] =
    "#define p2c_divisor_c(T, d, line, column, exc) \\\n"
    "  ({ T p2c_d_ = (d); if (p2c_d_ == 0) p2c_raise(line, column, exc); p2c_d_; })\n";
/* NumPy's array creation in C: the call's heap is the runtime's, one per thread (libtcc has no
 * thread-local storage); p2c_np_new<T, N, L> and p2c_np_arange<T, C> are macros (GNU C statement
 * expressions) taking the array's struct A and its element type T, dims an int64_t array. */
static const char c_np_alloc[] =
    "typedef unsigned long size_t;\n"
    "void *malloc(size_t);\n"
    "void free(void *);\n"
    "void *memset(void *, int, size_t);\n" NP_HEAP_BLOCK
    "p2c_heap_block **p2c_tier_heap(void);   /* the runtime's: this thread's call heap */\n"
    "#define p2c_heap_now (*p2c_tier_heap())\n" NP_HEAP_FUNCS;
static const char c_np_arrays[] =
    NP_SHAPES
    "#define p2c_np_new_c(A, T, N, L, dims, fill, value, line, column) ({ \\\n"
    "  const int64_t *p2c_d_ = (dims); T p2c_v_ = (value); A p2c_a_; \\\n"
    "  int64_t p2c_n_ = p2c_np_layout(p2c_a_.shape, p2c_a_.strides, N, L, p2c_d_, (int64_t)sizeof(T), line, column); \\\n"
    "  p2c_a_.data = (T *)p2c_heap_alloc(p2c_n_ * (int64_t)sizeof(T), (fill) == 1, line, column); \\\n"
    "  if ((fill) == 2) for (int64_t p2c_i_ = 0; p2c_i_ < p2c_n_; p2c_i_++) p2c_a_.data[p2c_i_] = p2c_v_; \\\n"
    "  p2c_a_; })\n"
    "#define p2c_np_arange_c(A, T, C, start, stop, step, line, column) ({ \\\n"
    "  C p2c_s0_ = (start), p2c_s1_ = (stop), p2c_s2_ = (step); \\\n"
    "  int64_t p2c_dn_ = p2c_np_arange_count((double)p2c_s0_, (double)p2c_s1_, (double)p2c_s2_, line, column); \\\n"
    "  A p2c_r_ = p2c_np_new_c(A, T, 1, 'C', &p2c_dn_, 0, (T)0, line, column); \\\n"
    "  for (int64_t p2c_j_ = 0; p2c_j_ < p2c_dn_; p2c_j_++) p2c_r_.data[p2c_j_] = (T)(p2c_s0_ + (C)p2c_j_ * p2c_s2_); \\\n"
    "  p2c_r_; })\n";
/* prange in C: the chunks run in turn on the calling thread (codegen writes the loop over them,
 * emit_stmt.c), as many and as cut as the optimized tier's, so both tiers add a reduction's
 * values in the same order. */
static const char c_prange[] =
    PRANGE_CHUNKS
    "int p2c_tier_prange_workers(int64_t n, int max);   /* the runtime's: the optimized tier's count */\n"
    "#define p2c_prange_workers(n) p2c_tier_prange_workers(n, P2C_PRANGE_MAX)\n";
static const struct {
  Helper h;
  const char *text;
} c_own[] = {{H_BOUNDS, c_bounds},       {H_RAISE, c_raise},         {H_DIVISOR, c_divisor},
             {H_NP_ALLOC, c_np_alloc},   {H_NP_ARRAYS, c_np_arrays}, {H_PRANGE, c_prange}};

/* min/max and abs are templates; their C form, one function per number type, is below. The tier
 * tests run every type through both forms (tests/python/test_cpu_tiers.py). */
static const char c_minmax[] =
    "#define P2C_C_MINMAX(T, S) \\\n"
    "  static inline T p2c_min_##S(T a, T b) { return b < a ? b : a; } \\\n"
    "  static inline T p2c_max_##S(T a, T b) { return b > a ? b : a; }\n"
    "P2C_C_MINMAX(bool, b) P2C_C_MINMAX(int8_t, i8) P2C_C_MINMAX(int16_t, i16) P2C_C_MINMAX(int32_t, i32)\n"
    "P2C_C_MINMAX(int64_t, i64) P2C_C_MINMAX(uint8_t, u8) P2C_C_MINMAX(uint16_t, u16)\n"
    "P2C_C_MINMAX(uint32_t, u32) P2C_C_MINMAX(uint64_t, u64) P2C_C_MINMAX(float, f32) P2C_C_MINMAX(double, f64)\n"
    "#define P2C_C_PICK(f, a) _Generic((a), bool: f##_b, int8_t: f##_i8, int16_t: f##_i16, int32_t: f##_i32, \\\n"
    "  int64_t: f##_i64, uint8_t: f##_u8, uint16_t: f##_u16, uint32_t: f##_u32, uint64_t: f##_u64, \\\n"
    "  float: f##_f32, double: f##_f64)\n"
    "#define p2c_min_of(T) P2C_C_PICK(p2c_min, (T)0)   /* C++: p2c_min<T> */\n"
    "#define p2c_max_of(T) P2C_C_PICK(p2c_max, (T)0)\n";
static const char c_abs[] =
    "#define P2C_C_ABS(T, S) static inline T p2c_abs_##S(T a) { return a < 0 ? (T)(0 - a) : a; }\n"
    "P2C_C_ABS(int8_t, i8) P2C_C_ABS(int16_t, i16) P2C_C_ABS(int32_t, i32) P2C_C_ABS(int64_t, i64)\n"
    "P2C_C_ABS(uint8_t, u8) P2C_C_ABS(uint16_t, u16) P2C_C_ABS(uint32_t, u32) P2C_C_ABS(uint64_t, u64)\n"
    "#define p2c_abs(a) _Generic((a), int8_t: p2c_abs_i8, int16_t: p2c_abs_i16, int32_t: p2c_abs_i32, \\\n"
    "  int64_t: p2c_abs_i64, uint8_t: p2c_abs_u8, uint16_t: p2c_abs_u16, uint32_t: p2c_abs_u32, \\\n"
    "  uint64_t: p2c_abs_u64)(a)\n";

bool prelude_c_form_has(Helper h) {
  for (size_t i = 0; i < C_VARIANT_COUNT; i++)
    if (c_variants[i].h == h) return true;
  for (size_t i = 0; i < sizeof c_as_written / sizeof c_as_written[0]; i++)
    if (c_as_written[i] == h) return true;
  for (size_t i = 0; i < sizeof c_own / sizeof c_own[0]; i++)
    if (c_own[i].h == h) return true;
  return h == H_MINMAX || h == H_ABS_INT;
}

/* Helper v's text with its family's name, where it is defined, renamed family_suffix. */
static void emit_variant(StrBuf *sb, const CVariant *v) {
  const char *text = helper_text[v->h];
  size_t n = strlen(v->family);
  const char *at = text;
  while ((at = strstr(at, v->family)) != NULL && at[n] != '(') at += n;
  if (!at) return;   /* every variant's text defines its family's name (the tier tests compile each) */
  sb_putn(sb, text, (size_t)(at - text));
  sb_printf(sb, "%s_%s", v->family, v->suffix);
  sb_puts(sb, at + n);
}

/* The macro of each family used: _Generic over its variants in `used`. */
static void emit_families(StrBuf *sb, HelperSet used) {
  for (size_t i = 0; i < C_VARIANT_COUNT; i++) {
    const CVariant *v = &c_variants[i];
    bool first = true;
    for (size_t j = 0; j < i; j++) first &= strcmp(c_variants[j].family, v->family) != 0;
    if (!first) continue;
    bool any = false;
    for (size_t j = i; j < C_VARIANT_COUNT; j++) {
      const CVariant *w = &c_variants[j];
      if (strcmp(w->family, v->family) != 0 || !(used.bits >> w->h & 1)) continue;
      if (!any) sb_printf(sb, "#define %s(a, b) _Generic((a) + (b)", v->family);
      sb_printf(sb, ", %s: %s_%s", w->ctype, w->family, w->suffix);
      any = true;
    }
    if (any) sb_puts(sb, ")(a, b)\n");
  }
}

void prelude_emit_c(StrBuf *sb, HelperSet used) {
  for (size_t i = 0; i < sizeof c_own / sizeof c_own[0]; i++)
    if (used.bits >> c_own[i].h & 1) {
      sb_putc(sb, '\n');
      sb_puts(sb, c_own[i].text);
    }
  for (size_t i = 0; i < sizeof c_as_written / sizeof c_as_written[0]; i++)
    if ((used.bits >> c_as_written[i] & 1) && helper_text[c_as_written[i]][0]) {
      sb_putc(sb, '\n');
      sb_puts(sb, helper_text[c_as_written[i]]);
    }
  for (size_t i = 0; i < C_VARIANT_COUNT; i++)
    if (used.bits >> c_variants[i].h & 1) {
      sb_putc(sb, '\n');
      emit_variant(sb, &c_variants[i]);
    }
  emit_families(sb, used);
  if (used.bits >> H_MINMAX & 1) sb_puts(sb, c_minmax);
  if (used.bits >> H_ABS_INT & 1) sb_puts(sb, c_abs);
}
