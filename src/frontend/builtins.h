/* The names a kernel can use without defining them: CUDA built-ins, math functions, NumPy and
 * Numba types, Python built-ins. Each has a dotted path ("numba.cuda.grid", "math.sqrt",
 * "builtins.abs"); the frontend maps import aliases onto these paths. */
#ifndef P2C_FRONTEND_BUILTINS_H
#define P2C_FRONTEND_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>

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
  /* math */
  BI_MATH_UNARY,     /* one float argument, same float type out (sqrt, sin, ...) */
  BI_MATH_BINARY,    /* two float arguments (atan2, pow, hypot, copysign, fmod) */
  BI_MATH_TO_INT,    /* floor, ceil, trunc: float -> int64 */
  BI_MATH_PRED,      /* isnan, isinf, isfinite -> bool */
  BI_MATH_CONST,     /* pi, e, inf, nan, tau */
  /* Python builtins */
  BI_ABS, BI_MIN, BI_MAX, BI_INT, BI_FLOAT, BI_BOOL, BI_ROUND, BI_LEN, BI_RANGE, BI_PRINT,
  BI_ENUMERATE, BI_ZIP,   /* only as the iterable of a for loop, like range */
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
/* Whether `path` names a module or namespace that has builtins under it ("numba", "numpy"). */
bool builtin_is_namespace(const char *path);
/* The Python-visible name of a builtin for messages ("cuda.grid", "math.sqrt"). */
const char *builtin_display_name(const Builtin *b);

#endif
