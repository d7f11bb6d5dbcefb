/* The names a kernel can use without defining them: CUDA built-ins, math functions, NumPy and
 * Numba types, Python built-ins. Each has a dotted path ("numba.cuda.grid", "math.sqrt",
 * "builtins.abs"); the frontend maps import aliases onto these paths. */
#ifndef P2C_FRONTEND_BUILTINS_H
#define P2C_FRONTEND_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strmap.h"

typedef enum BuiltinKind {
  BK_MODULE,     /* a module or namespace: only as a prefix ("numba.cuda", "math") */
  BK_FUNC,       /* callable */
  BK_VALUE,      /* a value: threadIdx.x, math.pi */
  BK_TYPE,       /* a scalar type: np.float32, numba.int64 (callable as a cast, usable as dtype) */
  BK_DECORATOR,  /* cuda.jit, vectorize: only in decorators */
} BuiltinKind;

typedef enum BuiltinId {
  BI_NONE,
  /* CUDA indices */
  BI_TID_X, BI_TID_Y, BI_TID_Z, BI_BID_X, BI_BID_Y, BI_BID_Z,
  BI_BDIM_X, BI_BDIM_Y, BI_BDIM_Z, BI_GDIM_X, BI_GDIM_Y, BI_GDIM_Z,
  BI_WARPSIZE,
  BI_GRID, BI_GRIDSIZE, BI_SYNCTHREADS, BI_SHARED_ARRAY, BI_LOCAL_ARRAY,
  BI_CUDA_JIT, BI_VECTORIZE,
  /* CUDA intrinsics typed in typeinfer/infer_cuda.c, emitted by codegen/emit_cuda.c; keep the
   * block contiguous (builtin_is_cuda_intrinsic tests the range) */
  BI_ATOMIC_ADD, BI_ATOMIC_SUB, BI_ATOMIC_AND, BI_ATOMIC_OR, BI_ATOMIC_XOR, BI_ATOMIC_MAX,
  BI_ATOMIC_MIN, BI_ATOMIC_NANMAX, BI_ATOMIC_NANMIN, BI_ATOMIC_EXCH, BI_ATOMIC_INC,
  BI_ATOMIC_DEC, BI_ATOMIC_CAS, BI_ATOMIC_COMPARE_AND_SWAP,
  BI_SYNCTHREADS_COUNT, BI_SYNCTHREADS_AND, BI_SYNCTHREADS_OR, BI_THREADFENCE,
  BI_THREADFENCE_BLOCK, BI_THREADFENCE_SYSTEM, BI_SYNCWARP,
  BI_SHFL_SYNC, BI_SHFL_UP_SYNC, BI_SHFL_DOWN_SYNC, BI_SHFL_XOR_SYNC, BI_ALL_SYNC, BI_ANY_SYNC,
  BI_EQ_SYNC, BI_BALLOT_SYNC, BI_MATCH_ANY_SYNC, BI_MATCH_ALL_SYNC, BI_ACTIVEMASK,
  BI_LANEMASK_LT, BI_LANEID,
  BI_POPC, BI_BREV, BI_CLZ, BI_FFS, BI_FMA, BI_CBRT, BI_SELP,
  BI_CONST_ARRAY_LIKE,
  /* math */
  BI_MATH_UNARY,     /* one float argument, same float type out (sqrt, sin, ...) */
  BI_MATH_BINARY,    /* two float arguments (atan2, pow, hypot, copysign, fmod) */
  BI_MATH_TO_INT,    /* floor, ceil, trunc: float -> int64 */
  BI_MATH_PRED,      /* isnan, isinf, isfinite -> bool */
  BI_MATH_CONST,     /* pi, e, inf, nan, tau */
  /* Python builtins */
  BI_ABS, BI_MIN, BI_MAX, BI_INT, BI_FLOAT, BI_BOOL, BI_ROUND, BI_LEN, BI_RANGE, BI_PRINT,
  BI_ENUMERATE, BI_ZIP,   /* only as the iterable of a for loop, like range */
  BI_COMPLEX,              /* complex(re, im) */
  /* cmath: c64 is the prelude function for both complex types */
  BI_CMATH_UNARY,          /* complex -> complex (sqrt, exp, log, sin, ...) */
  BI_CMATH_LOG,            /* log(z) or log(z, base) */
  BI_CMATH_TO_REAL,        /* phase: complex -> float */
  BI_CMATH_POLAR,          /* polar: complex -> (float, float) */
  BI_CMATH_RECT,           /* rect(r, phi): floats -> complex */
  BI_CMATH_PRED,           /* isnan, isinf, isfinite: complex -> bool */
  /* cuda.fp16: c64 is the prelude function */
  BI_FP16_UNARY,           /* hneg, habs */
  BI_FP16_BINARY,          /* hadd, hsub, hmul, hdiv, hmax, hmin */
  BI_FP16_FMA,             /* hfma */
  BI_FP16_CMP,             /* heq, hne, hgt, hge, hlt, hle -> bool */
  /* a scalar type (np.float32, numba.int32 ...) */
  BI_TYPE,
} BuiltinId;

typedef struct Builtin {
  const char *path;
  BuiltinKind kind;
  BuiltinId id;
  const char *scalar;     /* BI_TYPE: type name; BI_MATH_CONST: value spelling */
  const char *c64;        /* math: the double function in CUDA's math library ("sqrt") */
  const char *c32;        /* math: the float function ("sqrtf") */
} Builtin;

/* The builtin at exactly `path`, or NULL. */
const Builtin *builtin_lookup(const char *path);
/* Adds every builtin to m under its path (what builtin_lookup finds), for lookups in O(1). */
void builtins_index(StrMap *m);
/* Whether `path` names a module or namespace that has builtins under it ("numba", "numpy"). */
bool builtin_is_namespace(const char *path);
/* The Python-visible name of a builtin for messages ("cuda.grid", "math.sqrt"). */
const char *builtin_display_name(const Builtin *b);
/* Whether id is one of the CUDA intrinsics of the BI_ATOMIC_ADD .. BI_CONST_ARRAY_LIKE block. */
static inline bool builtin_is_cuda_intrinsic(BuiltinId id) {
  return id >= BI_ATOMIC_ADD && id <= BI_CONST_ARRAY_LIKE;
}

#endif
