/* The names of the generated code's helpers (codegen/prelude.c writes their text), in sets: what
 * a builtin row lists as the helpers every use of it needs (Builtin.helpers), and what codegen
 * marks as used. Here, with the table, because the rows name them and the table comes before
 * codegen in the phase order (tests/layers.py). */
#ifndef P2C_BUILTINS_HELPERS_H
#define P2C_BUILTINS_HELPERS_H

#include <stdint.h>

typedef enum Helper {
  H_FLOORDIV_I64, H_FLOORDIV_U64, H_FLOORDIV_F64, H_FLOORDIV_F32,
  H_MOD_I64, H_MOD_U64, H_MOD_F64, H_MOD_F32,
  H_DIV_I64_ZERO,   /* true division helpers are plain '/' on floats; ints convert first */
  H_POW_I64, H_POW_U64, H_POWI_F64, H_POWI_F32,
  H_WRAP, H_MINMAX, H_ABS_INT, H_ROUND_ND, H_DEGREES,
  H_INF_NAN,
  H_BOUNDS,         /* --check-bounds: the failure record and the checked index helpers */
  H_BOUNDS_VIEW,    /* --check-bounds, continued (one C string literal each): views, uint64 */
  H_RAISE,          /* a checked raise or assert (debug=True): records it in the bounds record
                       (needs H_BOUNDS) */
  H_TUPLE_INDEX,    /* a checked runtime tuple index: IndexError (needs H_RAISE) */
  H_DIVISOR,        /* debug=True: a divisor of / // % checked for zero (needs H_RAISE) */
  H_EXIT,           /* p2c_exit_thread(): a quiet raise inside an expression (needs H_BOUNDS) */
  H_SANITIZE,       /* --sanitize: p2c_san_offset, a checked offset reported to the simulator */
  H_NP_ALLOC,       /* np.empty, zeros, ..., arange in @jit functions the host calls: the call's
                       heap (needs H_RAISE) */
  H_NP_ARRAYS,      /* ... and the array constructors (needs H_NP_ALLOC) */
  H_PRANGE,         /* prange loops over the host's cores (needs H_NP_ALLOC) */
  H_COUNT
} Helper;

/* Helpers for iteration, array views, complex numbers and float16 (prelude_types.c), kept in a
 * set of their own. Written after the scalar helpers, in this order. */
typedef enum TypeHelper {
  TH_ARRAY0,      /* p2c_array<T, 0>: a 0-d array, written where one is used */
  TH_RANGE_LEN,
  TH_RANGE_NEXT,
  TH_VIEW_INDEX,
  TH_VIEW_SLICE,
  TH_VIEW_WALK,   /* p2c_view_next, p2c_view_empty: a view's elements in row-major order */
  TH_VIEW_FILL,   /* p2c_fill: a[lo:hi] = v, m[i] = v (needs TH_VIEW_WALK) */
  TH_CONTAINS,    /* p2c_contains: x in a (needs TH_VIEW_WALK) */
  TH_REDUCE_WALK, /* p2c_reduce_walk ...: what the reductions share (needs TH_VIEW_WALK) */
  TH_NP_REDUCE,   /* np.sum, np.mean, ...: p2c_np_sum ... (needs TH_REDUCE_WALK) */
  TH_NP_EXTREMUM, /* np.min, max, nanmin, nanmax (needs TH_REDUCE_WALK, H_RAISE and H_EXIT) */
  TH_SAME_ARRAY,  /* p2c_same_array: a is b of arrays */
  TH_VIEW_OVERLAP,   /* p2c_ufunc_order: whether and how an input may be read in place */
  TH_UFUNC,       /* p2c_ufunc: np.sin(x, out) (needs TH_VIEW_WALK, TH_VIEW_OVERLAP, H_RAISE) */
  TH_VIEW_WRITTEN_SAN,   /* --sanitize: p2c_san_view_written (needs TH_VIEW_WALK) */
  TH_VIEW_DTYPE,  /* a.view(dtype) */
  TH_VIEW_RESHAPE,   /* a.reshape(shape) (needs H_RAISE and H_EXIT) */
  TH_COMPLEX,     /* p2c_complex64/128, operators, abs, conj: written whenever complex is used */
  TH_VIEW_PART,   /* a.real, a.imag of a complex array (needs TH_COMPLEX) */
  TH_CPOW,
  TH_CSQRT, TH_CEXPLOG, TH_CHYPERBOLIC, TH_CINVERSE,   /* cmath (TH_CINVERSE needs TH_CSQRT) */
  TH_NP_ELEMENTWISE,     /* np.less, np.logical_and, np.bitwise_and, np.maximum ... */
  TH_NP_ELEMENTWISE_C,   /* ... on complex numbers (needs TH_NP_ELEMENTWISE and TH_COMPLEX) */
  TH_HALF, TH_HALF_SIM, TH_HALF_OPS,   /* float16: written together whenever float16 is used */
  TH_HALF_MATH,   /* float16 math functions (p2c_hsin ...), written where one is called */
  TH_BF16, TH_BF16_INT, TH_BF16_OPS, TH_BF16_EXT,   /* bfloat16: written together whenever it is used */
  TH_BF16_MATH,   /* bfloat16 math functions (p2c_bf16_sin ...), written where one is called */
  TH_FP8, TH_FP8_BITS, TH_FP8_CVT,   /* the fp8 types: written together whenever one is used;
                                       TH_FP8 and TH_FP8_BITS also by the cvt_* intrinsics */
  TH_CHARSEQ,     /* p2c_chars<n>, p2c_unichars<n>: written whenever a character sequence is used */
  TH_TIME, TH_TIME_SCALE,   /* datetime64 and timedelta64: written together where one is used */
  TH_COUNT
} TypeHelper;

/* Helpers of the CUDA intrinsics (emit_cuda.c), in their own set; text in prelude_cuda.c. */
typedef enum CudaHelper {
  HC_ATOMIC_I64,        /* int64 atomics through CUDA's unsigned long long ones */
  HC_ATOMIC_SUB,        /* atomic sub where CUDA has no atomicSub */
  HC_ATOMIC_FMINMAX,    /* atomic max/min/nanmax/nanmin on floats, with Numba's NaN rules */
  HC_ATOMIC_INCDEC64,   /* atomic inc/dec on uint64 */
  HC_ATOMIC_ADD_F64,    /* atomic add on a float64 in global memory, spelled as Numba's PTX */
  HC_LANE,              /* p2c_laneid, p2c_lanemask_lt */
  HC_DYNAMIC_SHARED,    /* dynamic shared memory arrays */
  HC_GRID,              /* cuda.cg.this_grid() and its grid-wide sync() */
  HC_CACHE_HINTS,       /* cuda.ldca ... cuda.stwt: loads and stores with a cache hint */
  HC_COUNT
} CudaHelper;

typedef struct HelperSet {
  uint64_t bits;
  uint64_t type_bits;   /* TypeHelper */
  uint64_t cuda_bits;   /* CudaHelper */
} HelperSet;

static inline void helper_use(HelperSet *s, Helper h) { s->bits |= (uint64_t)1 << h; }
static inline void type_helper_use(HelperSet *s, TypeHelper h) { s->type_bits |= (uint64_t)1 << h; }
static inline void cuda_helper_use(HelperSet *s, CudaHelper h) { s->cuda_bits |= (uint64_t)1 << h; }
/* Adds every helper of `more` to s. */
static inline void helper_add(HelperSet *s, HelperSet more) {
  s->bits |= more.bits;
  s->type_bits |= more.type_bits;
  s->cuda_bits |= more.cuda_bits;
}

#endif
