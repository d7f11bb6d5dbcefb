/* The names a kernel can use without defining them: CUDA built-ins, math functions, NumPy and
 * Numba types, Python built-ins. Each has a dotted path ("numba.cuda.grid", "math.sqrt",
 * "builtins.abs"); the frontend maps import aliases onto these paths.
 *
 * One row per builtin (table.c) holds everything the compiler knows about it: its arity, the
 * typeinfer hook that types a call and the codegen hook that writes it, its facts (effects,
 * barrier or warp rendezvous, non-negativity, a bit bound on its result) and the prelude
 * helpers every use needs. Code that needs a fact reads the row, never a list of ids; the ids
 * name a builtin (or a family of rows sharing hooks) for the few places that treat one alone.
 * docs/architecture.md walks through adding a builtin. */
#ifndef P2C_BUILTINS_BUILTINS_H
#define P2C_BUILTINS_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builtins/helpers.h"
#include "builtins/ops.h"
#include "types/types.h"
#include "util/strmap.h"

struct Expr;
struct Infer;
struct Gen;

typedef enum BuiltinKind {
  BK_MODULE,     /* a module or namespace: only as a prefix ("numba.cuda", "math") */
  BK_FUNC,       /* callable */
  BK_VALUE,      /* a value: threadIdx.x, math.pi */
  BK_TYPE,       /* a scalar type: np.float32, numba.int64 (callable as a cast, usable as dtype) */
  BK_DECORATOR,  /* cuda.jit, vectorize: only in decorators */
  BK_OPERATOR,   /* a function that is an operator (pow, operator.add): the frontend lowers a
                    call of it into the operator's expression (`op`), so it has no hooks */
} BuiltinKind;

/* Which builtin a row is, for code that treats one builtin alone (cuda.grid's tuple, range's
 * loop). Families of rows that share their hooks (BI_MATH_UNARY, BI_ATOMIC) share an id. The
 * order means nothing. */
typedef enum BuiltinId {
  BI_NONE,
  BI_INDEX,          /* threadIdx.x ... gridDim.z, warpsize: spelled in CUDA C as c64 */
  BI_GRID, BI_GRIDSIZE, BI_SYNCTHREADS, BI_SHARED_ARRAY, BI_LOCAL_ARRAY,
  BI_CUDA_JIT, BI_VECTORIZE, BI_GUVECTORIZE, BI_JIT, BI_STENCIL,
  BI_CAPTURED_ARRAY,  /* cuda._captured_array, at module level (frontend/lower_captured.c) */
  BI_DECLARE_DEVICE,  /* cuda.declare_device, at module level (frontend/lower_link.c) */
  BI_CUSOURCE,        /* cuda.CUSource(text), CUDA C given as text in a link list */
  BI_ATOMIC, BI_ATOMIC_COMPARE_AND_SWAP,
  BI_CUDA_INTRINSIC, /* the other cuda.* functions, each with hooks of its own */
  BI_POPC, BI_CLZ, BI_FFS, BI_LANEID,
  BI_CONST_ARRAY_LIKE,
  BI_ARRAY_VIEW,      /* a.view(dtype) (numpy.ndarray.view) */
  BI_ARRAY_RESHAPE,   /* a.reshape(shape) (numpy.ndarray.reshape) */
  BI_ARRAY_COPY,      /* a.copy() (numpy.ndarray.copy) */
  BI_MATH_UNARY,     /* one float argument, same float type out (sqrt, sin, ...) */
  BI_MATH_BINARY,    /* two float arguments (atan2, pow, hypot, copysign, fmod) */
  BI_MATH_TO_INT,    /* floor, ceil, trunc: float -> int64 */
  BI_MATH_PRED,      /* isnan, isinf, isfinite -> bool */
  BI_MATH_CONST,     /* pi, e, inf, nan, tau */
  BI_MATH_LDEXP,     /* ldexp(x, i): a float and an int */
  BI_MATH_SPLIT,     /* modf, frexp: a float in, a pair out (C's out-parameter second) */
  BI_OPERATOR,       /* BK_OPERATOR rows */
  BI_ABS, BI_MIN, BI_MAX, BI_CAST, BI_ROUND, BI_LEN, BI_RANGE, BI_PRINT, BI_ISINSTANCE,
  BI_ENUMERATE, BI_ZIP,   /* only as the iterable of a for loop, like range */
  BI_LITERAL_UNROLL,       /* numba's literal_unroll(t): only as a for loop's iterable, lowered to t */
  BI_COMPLEX,              /* complex(re, im) */
  BI_TUPLE,                /* tuple(t) of a tuple: t itself */
  BI_CMATH,                /* cmath functions: c64 is the prelude function for both complex types */
  BI_FP16,                 /* cuda.fp16 intrinsics: c64 is the prelude function */
  BI_BF16,                 /* numba.cuda.bf16 intrinsics: c64 is the prelude function, `result`
                              the result type, proto the parameters' types (builtin_libdevice_type's
                              letters, 'b' for bfloat16) */
  BI_FP8_CVT,              /* numba-cuda's fp8 cvt_* intrinsics: c64 is the prelude function,
                              `result` the result type, proto the parameters (infer_fp8_cvt_call's
                              letters) */
  BI_TYPE,                 /* a scalar type (np.float32, numba.int32 ...) */
  BI_VECTOR,               /* a CUDA vector type's constructor (cuda.float32x4, cuda.float4) */
  BI_NP_ELEMENTWISE,       /* NumPy's comparison, logical, bitwise and extremum ufuncs: c64 is
                              the prelude function of their loop type (TH_NP_ELEMENTWISE) */
  BI_ISNAT,                /* np.isnat(x) of a datetime64 or timedelta64 */
  BI_TIME_VALUE,           /* np.datetime64(n, unit), np.timedelta64(n, unit): folded into a
                              module-level constant, refused inside a kernel (as Numba's CUDA
                              target refuses them) */
  BI_LIBDEVICE,            /* numba.cuda.libdevice's functions: c64 is libdevice's C name (__nv_sin),
                              proto its prototype (builtins/libdevice.def) */
  BI_NP_ALLOC,             /* NumPy's array creation (np.empty, zeros, ..., arange): `alloc` says
                              which; only in @jit functions the host calls (BF_HEAP_ALLOC) */
  BI_NP_REDUCE,            /* NumPy's reductions of a whole array (np.sum, a.sum(), np.nanmin ...):
                              `reduce` says which, c64 is the prelude function (TH_NP_REDUCE) */
} BuiltinId;

/* Which NumPy array creation a BI_NP_ALLOC row is: its shape comes from a shape argument, from
 * an array (the _like forms) or from arange's bounds; its elements are left as they are, zeros,
 * ones or a value argument. */
typedef enum NpAlloc {
  NPA_EMPTY, NPA_ZEROS, NPA_ONES, NPA_FULL,
  NPA_EMPTY_LIKE, NPA_ZEROS_LIKE, NPA_ONES_LIKE, NPA_FULL_LIKE,
  NPA_ARANGE,
} NpAlloc;

/* Which reduction a BI_NP_REDUCE row is; its result type follows Numba's implementation
 * (typeinfer/infer_reduce.c). */
typedef enum NpReduce {
  NPR_SUM, NPR_PROD, NPR_MEAN, NPR_VAR, NPR_STD, NPR_MIN, NPR_MAX,
  NPR_NANMIN, NPR_NANMAX, NPR_NANMEAN, NPR_NANSUM, NPR_NANPROD,
  NPR_COUNT_NONZERO, NPR_ALL, NPR_ANY,
} NpReduce;

/* What a BI_NP_ELEMENTWISE ufunc takes and gives (NumPy's loops for it). */
typedef enum NpElementwise {
  NPE_COMPARE,   /* numbers of every kind; bool; an int64 with a uint64 compares exactly */
  NPE_LOGICAL,   /* numbers of every kind; bool */
  NPE_BITWISE,   /* bools and integers; their loop type */
  NPE_EXTREMUM,  /* numbers of every kind; their loop type */
} NpElementwise;

/* What a builtin's call (or value) is known to do or give. */
enum BuiltinFact {
  BF_EFFECTS = 1 << 0,         /* changes memory, prints, allocates or meets other threads: never
                                  evaluated twice, dropped or moved (expr_is_pure) */
  BF_BARRIER = 1 << 1,         /* a block-wide barrier: the simulator runs threads as fibers */
  BF_COLLECTIVE = 1 << 2,      /* a warp rendezvous: the simulator runs threads as fibers */
  BF_NONNEG = 1 << 3,          /* the result is >= 0 (every element of a tuple result) */
  BF_POSITIVE = 1 << 4,        /* the result is > 0 (every element of a tuple result) */
  BF_NONNEG_IF_ALL = 1 << 5,   /* >= 0 when every argument is (min) */
  BF_NONNEG_IF_ANY = 1 << 6,   /* >= 0 when one argument is (max) */
  BF_LAUNCH_DIM = 1 << 7,      /* the same in every thread of a launch: blockDim, gridDim */
  BF_KEYWORDS = 1 << 8,        /* takes keyword arguments (its typing hook reads them) */
  BF_CHECKS_ARITY = 1 << 9,    /* the typing hook checks the argument count itself */
  BF_ARRAY_ALLOC = 1 << 10,    /* allocates a shared or local array: `a = cuda.shared.array(..)` */
  BF_ITERABLE = 1 << 11,       /* only as the iterable of a for loop: range, enumerate, zip */
  BF_PER_ELEMENT = 1 << 12,    /* a tuple result whose elements are written one at a time (grid) */
  BF_NOT_REPEATED = 1 << 13,   /* the lockstep rule does not evaluate it again (const.array_like) */
  BF_FENCE = 1 << 14,          /* a device-wide fence: with the thread's next atomic it publishes its
                                  earlier accesses to other blocks (the simulator's checker) */
  BF_GRID = 1 << 15,           /* cuda.cg: the kernel is launched cooperatively (all its blocks
                                  resident at once), as Numba launches a kernel that uses it */
  BF_UFUNC = 1 << 16,          /* a NumPy ufunc: also takes arrays, with an output array as its
                                  last argument (np.sin(x, out)); then it writes that array */
  BF_VIEW = 1 << 17,           /* the result is a view of its first argument, an array: a store
                                  through it stores into that array (a.view(dtype)) */
  BF_NEW_ARRAY = 1 << 18,      /* the result is a new local array (a.copy()): like an allocation it
                                  is assigned to a variable, whose declaration is its storage, and
                                  the assignment fills it */
  BF_BLOCK_UNIFORM = 1 << 19,  /* the same in every thread of a block: blockIdx (the simulator's
                                  regions, analysis/regions.c; BF_LAUNCH_DIM implies it) */
  BF_PARALLEL = 1 << 21,       /* numba.prange: its iterations may run on several cores (in a host
                                  entry of a parallel=True function: analysis/parallel.c) */
  BF_HEAP_ALLOC = 1 << 20,     /* allocates a new array on the host's heap (np.zeros): only a @jit
                                  function the host calls may, never a kernel (analysis.c) */
  BF_STORES_ELEMENT = 1 << 22, /* stores to its first argument, the element a[i] its array and index
                                  arguments were rewritten into (atomics, cache-hinted stores): the
                                  array is written (analysis/writes.c) */
};

/* The element types an atomic takes, and where CUDA C lacks a function for one (emit_cuda.c). */
typedef enum AtomicClass {
  AC_ARITH,      /* add: every int32/64 and float type; int64 through a helper */
  AC_SUB,        /* sub: likewise; 64-bit and float through a helper */
  AC_MINMAX,     /* max, min, nanmax, nanmin: floats through a helper (Numba's NaN rules) */
  AC_BITWISE,    /* and, or, xor, exch, cas: integers only; int64 through a helper */
  AC_INCDEC,     /* inc, dec: uint32 and uint64; uint64 through a helper */
} AtomicClass;

/* Types a call e of the row's builtin; t[1..] are the argument types. NULL after an error. */
typedef const Type *BuiltinInferFn(struct Infer *I, struct Expr *e, const Type **t);
/* Writes a call (BK_FUNC, BK_TYPE) or a value (BK_VALUE) e at context precedence prec. */
typedef void BuiltinEmitFn(struct Gen *G, const struct Expr *e, StrBuf *sb, int prec);

typedef struct Builtin {
  const char *path;
  BuiltinKind kind;
  BuiltinId id;
  int8_t min_args, max_args;   /* the argument counts a call takes */
  uint8_t bits;                /* every value fits in this many bits (sign apart); 0: unknown */
  uint8_t atomic;              /* BI_ATOMIC: its AtomicClass */
  uint8_t op;                  /* BK_OPERATOR: the Op (builtins/ops.h) a call of it is */
  uint8_t elementwise;         /* BI_NP_ELEMENTWISE: its NpElementwise */
  uint8_t alloc;               /* BI_NP_ALLOC: its NpAlloc */
  uint8_t reduce;              /* BI_NP_REDUCE: its NpReduce */
  uint8_t thread_dim;          /* threadIdx.x, .y, .z: 1, 2, 3 (the dimension it indexes); else 0 */
  uint32_t facts;              /* BuiltinFact bits */
  const Type *result;          /* the result type where the arguments do not decide it; a
                                  BK_TYPE row's (or int(), float(), bool()'s) scalar type */
  const char *c64;             /* the C spelling: the double function ("sqrt"), the 64-bit one
                                  ("__popcll"), the CUDA function or value ("atomicAdd") */
  const char *c32;             /* the float or 32-bit variant ("sqrtf", "__popc") */
  const char *c16;             /* math: the float16 variant ("p2c_hsin"), where numba-cuda has one */
  const char *cb16;            /* math: the bfloat16 variant ("p2c_bf16_sin"), where numba.cuda.bf16
                                  overloads the function (bfloat16 in, bfloat16 out) */
  const char *complex_row;     /* NumPy's math ufuncs: the path of the cmath row that computes
                                  them on complex numbers ("cmath.sin"), where NumPy has a loop */
  const char *helper_fn;       /* atomics: the prelude function for types CUDA C lacks */
  const char *arg_name;        /* what its messages call an argument (shuffles' lane) */
  const char *proto;           /* BI_LIBDEVICE: libdevice's prototype, "R:PARAMS" in the letters of
                                  builtins/libdevice.def ("v:dDD" for sincos) */
  double value;                /* BI_MATH_CONST: its value */
  /* math functions: the host function whose result CPython's math module returns for a float
     argument (libm's, where CPython's wrapper only checks for errors around it), with which the
     frontend folds module-level constants; NULL: not folded (math.gamma, math.lgamma and
     math.hypot are CPython's own code, whose results differ from libm's in the last bit). On a
     NumPy ufunc row (BF_UFUNC), the function whose results NumPy's loops give to the bit in
     float32 and float64 (only numpy.sqrt's, correctly rounded: NumPy computes the others with
     SIMD code of its own).
     tests/diff/const_math_check.py compares them with CPython's. */
  double (*fold1)(double);
  double (*fold2)(double, double);
  HelperSet helpers;           /* prelude helpers that every use of it needs */
  BuiltinInferFn *infer;       /* types a call; NULL: it cannot be called */
  BuiltinEmitFn *emit;         /* writes a call or value */
} Builtin;

/* NumPy's loop type of a call of ufunc b (BF_UFUNC) whose inputs' elements have these types
 * (loops.c): NumPy's promotion of them for BI_NP_ELEMENTWISE rows, the float type of a math
 * function (its complex type for complex numbers, where the row has a complex_row). NULL where
 * NumPy has no loop for them: a complex number to a real-only function, a float to a bitwise
 * one. An int64 and a uint64 compare each as it is (type_compares_mixed_sign), not here. */
const Type *builtin_ufunc_loop(const Builtin *b, const Type **elems);

/* The type a letter of a libdevice prototype stands for (builtins/libdevice.def: i, l, h, f, d,
 * v, and the upper-case out-parameters), or NULL for any other character. */
const Type *builtin_libdevice_type(char letter);

/* The builtin at exactly `path`, or NULL. */
const Builtin *builtin_lookup(const char *path);
/* Adds every builtin to m under its path (what builtin_lookup finds), for lookups in O(1). */
void builtins_index(StrMap *m);
/* Whether `path` names a module or namespace that has builtins under it ("numba", "numpy"). */
bool builtin_is_namespace(const char *path);
/* The Python-visible name of a builtin for messages ("cuda.grid", "math.sqrt"). */
const char *builtin_display_name(const Builtin *b);
/* Every row, for checks of the table as a whole (tests/unit/test_builtins.c); *count rows. */
const Builtin *builtin_table(size_t *count);
/* Whether the builtin has every fact in `facts`. */
static inline bool builtin_has(const Builtin *b, uint32_t facts) { return (b->facts & facts) == facts; }

#endif
