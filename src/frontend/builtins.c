/* The table of built-in names (see builtins.h). Paths are the canonical module paths; import
 * aliases are resolved onto them by the frontend. Math functions carry the CUDA math library's
 * double and float names, so codegen picks the float32 variant for float32 arguments as Numba
 * does. */
#include "frontend/builtins.h"

#include <string.h>

#define MOD(p) {p, BK_MODULE, BI_NONE, NULL, NULL, NULL}
#define VAL(p, id) {p, BK_VALUE, id, NULL, NULL, NULL}
#define FN(p, id) {p, BK_FUNC, id, NULL, NULL, NULL}
#define MATH(p, id, c64, c32) {p, BK_FUNC, id, NULL, c64, c32}
#define MCONST(p, v) {p, BK_VALUE, BI_MATH_CONST, v, NULL, NULL}
#define TY(p, name) {p, BK_TYPE, BI_TYPE, name, NULL, NULL}

static const Builtin table[] = {
    MOD("numba"), MOD("numba.cuda"), MOD("numba.cuda.shared"), MOD("numba.cuda.local"),
    MOD("numba.types"), MOD("math"), MOD("numpy"), MOD("builtins"),
    MOD("numba.cuda.threadIdx"), MOD("numba.cuda.blockIdx"), MOD("numba.cuda.blockDim"),
    MOD("numba.cuda.gridDim"),
    VAL("numba.cuda.threadIdx.x", BI_TID_X), VAL("numba.cuda.threadIdx.y", BI_TID_Y),
    VAL("numba.cuda.threadIdx.z", BI_TID_Z), VAL("numba.cuda.blockIdx.x", BI_BID_X),
    VAL("numba.cuda.blockIdx.y", BI_BID_Y), VAL("numba.cuda.blockIdx.z", BI_BID_Z),
    VAL("numba.cuda.blockDim.x", BI_BDIM_X), VAL("numba.cuda.blockDim.y", BI_BDIM_Y),
    VAL("numba.cuda.blockDim.z", BI_BDIM_Z), VAL("numba.cuda.gridDim.x", BI_GDIM_X),
    VAL("numba.cuda.gridDim.y", BI_GDIM_Y), VAL("numba.cuda.gridDim.z", BI_GDIM_Z),
    VAL("numba.cuda.warpsize", BI_WARPSIZE),
    FN("numba.cuda.grid", BI_GRID), FN("numba.cuda.gridsize", BI_GRIDSIZE),
    FN("numba.cuda.syncthreads", BI_SYNCTHREADS), FN("numba.cuda.shared.array", BI_SHARED_ARRAY),
    FN("numba.cuda.local.array", BI_LOCAL_ARRAY),
    {"numba.cuda.jit", BK_DECORATOR, BI_CUDA_JIT, NULL, NULL, NULL},
    {"numba.vectorize", BK_DECORATOR, BI_VECTORIZE, NULL, NULL, NULL},
    {"numba.cuda.vectorize", BK_DECORATOR, BI_VECTORIZE, NULL, NULL, NULL},

    /* CUDA intrinsics: atomics, barriers and fences, warp operations, bit functions, memories */
    MOD("numba.cuda.atomic"), MOD("numba.cuda.const"),
    FN("numba.cuda.atomic.add", BI_ATOMIC_ADD), FN("numba.cuda.atomic.sub", BI_ATOMIC_SUB),
    FN("numba.cuda.atomic.and_", BI_ATOMIC_AND), FN("numba.cuda.atomic.or_", BI_ATOMIC_OR),
    FN("numba.cuda.atomic.xor", BI_ATOMIC_XOR), FN("numba.cuda.atomic.max", BI_ATOMIC_MAX),
    FN("numba.cuda.atomic.min", BI_ATOMIC_MIN), FN("numba.cuda.atomic.nanmax", BI_ATOMIC_NANMAX),
    FN("numba.cuda.atomic.nanmin", BI_ATOMIC_NANMIN), FN("numba.cuda.atomic.exch", BI_ATOMIC_EXCH),
    FN("numba.cuda.atomic.inc", BI_ATOMIC_INC), FN("numba.cuda.atomic.dec", BI_ATOMIC_DEC),
    FN("numba.cuda.atomic.cas", BI_ATOMIC_CAS),
    FN("numba.cuda.atomic.compare_and_swap", BI_ATOMIC_COMPARE_AND_SWAP),
    FN("numba.cuda.syncthreads_count", BI_SYNCTHREADS_COUNT),
    FN("numba.cuda.syncthreads_and", BI_SYNCTHREADS_AND),
    FN("numba.cuda.syncthreads_or", BI_SYNCTHREADS_OR),
    FN("numba.cuda.threadfence", BI_THREADFENCE),
    FN("numba.cuda.threadfence_block", BI_THREADFENCE_BLOCK),
    FN("numba.cuda.threadfence_system", BI_THREADFENCE_SYSTEM),
    FN("numba.cuda.syncwarp", BI_SYNCWARP),
    FN("numba.cuda.shfl_sync", BI_SHFL_SYNC), FN("numba.cuda.shfl_up_sync", BI_SHFL_UP_SYNC),
    FN("numba.cuda.shfl_down_sync", BI_SHFL_DOWN_SYNC),
    FN("numba.cuda.shfl_xor_sync", BI_SHFL_XOR_SYNC),
    FN("numba.cuda.all_sync", BI_ALL_SYNC), FN("numba.cuda.any_sync", BI_ANY_SYNC),
    FN("numba.cuda.eq_sync", BI_EQ_SYNC), FN("numba.cuda.ballot_sync", BI_BALLOT_SYNC),
    FN("numba.cuda.match_any_sync", BI_MATCH_ANY_SYNC),
    FN("numba.cuda.match_all_sync", BI_MATCH_ALL_SYNC),
    FN("numba.cuda.activemask", BI_ACTIVEMASK), FN("numba.cuda.lanemask_lt", BI_LANEMASK_LT),
    VAL("numba.cuda.laneid", BI_LANEID),
    FN("numba.cuda.popc", BI_POPC), FN("numba.cuda.brev", BI_BREV), FN("numba.cuda.clz", BI_CLZ),
    FN("numba.cuda.ffs", BI_FFS), FN("numba.cuda.fma", BI_FMA), FN("numba.cuda.cbrt", BI_CBRT),
    FN("numba.cuda.selp", BI_SELP),
    FN("numba.cuda.const.array_like", BI_CONST_ARRAY_LIKE),

    MATH("math.sqrt", BI_MATH_UNARY, "sqrt", "sqrtf"), MATH("math.exp", BI_MATH_UNARY, "exp", "expf"),
    MATH("math.expm1", BI_MATH_UNARY, "expm1", "expm1f"), MATH("math.log", BI_MATH_UNARY, "log", "logf"),
    MATH("math.log2", BI_MATH_UNARY, "log2", "log2f"), MATH("math.log10", BI_MATH_UNARY, "log10", "log10f"),
    MATH("math.log1p", BI_MATH_UNARY, "log1p", "log1pf"), MATH("math.sin", BI_MATH_UNARY, "sin", "sinf"),
    MATH("math.cos", BI_MATH_UNARY, "cos", "cosf"), MATH("math.tan", BI_MATH_UNARY, "tan", "tanf"),
    MATH("math.asin", BI_MATH_UNARY, "asin", "asinf"), MATH("math.acos", BI_MATH_UNARY, "acos", "acosf"),
    MATH("math.atan", BI_MATH_UNARY, "atan", "atanf"), MATH("math.sinh", BI_MATH_UNARY, "sinh", "sinhf"),
    MATH("math.cosh", BI_MATH_UNARY, "cosh", "coshf"), MATH("math.tanh", BI_MATH_UNARY, "tanh", "tanhf"),
    MATH("math.asinh", BI_MATH_UNARY, "asinh", "asinhf"), MATH("math.acosh", BI_MATH_UNARY, "acosh", "acoshf"),
    MATH("math.atanh", BI_MATH_UNARY, "atanh", "atanhf"), MATH("math.fabs", BI_MATH_UNARY, "fabs", "fabsf"),
    MATH("math.erf", BI_MATH_UNARY, "erf", "erff"), MATH("math.erfc", BI_MATH_UNARY, "erfc", "erfcf"),
    MATH("math.gamma", BI_MATH_UNARY, "tgamma", "tgammaf"),
    MATH("math.lgamma", BI_MATH_UNARY, "lgamma", "lgammaf"),
    MATH("math.degrees", BI_MATH_UNARY, "p2c_degrees", "p2c_degreesf"),
    MATH("math.radians", BI_MATH_UNARY, "p2c_radians", "p2c_radiansf"),
    MATH("math.atan2", BI_MATH_BINARY, "atan2", "atan2f"), MATH("math.pow", BI_MATH_BINARY, "pow", "powf"),
    MATH("math.hypot", BI_MATH_BINARY, "hypot", "hypotf"),
    MATH("math.copysign", BI_MATH_BINARY, "copysign", "copysignf"),
    MATH("math.fmod", BI_MATH_BINARY, "fmod", "fmodf"),
    MATH("math.floor", BI_MATH_TO_INT, "floor", "floorf"), MATH("math.ceil", BI_MATH_TO_INT, "ceil", "ceilf"),
    MATH("math.trunc", BI_MATH_TO_INT, "trunc", "truncf"),
    MATH("math.isnan", BI_MATH_PRED, "isnan", "isnan"), MATH("math.isinf", BI_MATH_PRED, "isinf", "isinf"),
    MATH("math.isfinite", BI_MATH_PRED, "isfinite", "isfinite"),
    MCONST("math.pi", "pi"), MCONST("math.e", "e"), MCONST("math.tau", "tau"),
    MCONST("math.inf", "inf"), MCONST("math.nan", "nan"),

    MATH("numpy.sqrt", BI_MATH_UNARY, "sqrt", "sqrtf"), MATH("numpy.exp", BI_MATH_UNARY, "exp", "expf"),
    MATH("numpy.log", BI_MATH_UNARY, "log", "logf"), MATH("numpy.sin", BI_MATH_UNARY, "sin", "sinf"),
    MATH("numpy.cos", BI_MATH_UNARY, "cos", "cosf"), MATH("numpy.tan", BI_MATH_UNARY, "tan", "tanf"),
    MATH("numpy.tanh", BI_MATH_UNARY, "tanh", "tanhf"),
    MATH("numpy.arctan2", BI_MATH_BINARY, "atan2", "atan2f"),
    MCONST("numpy.pi", "pi"), MCONST("numpy.e", "e"), MCONST("numpy.inf", "inf"),
    MCONST("numpy.nan", "nan"),

    TY("numpy.bool_", "bool"), TY("numpy.int8", "int8"), TY("numpy.int16", "int16"),
    TY("numpy.int32", "int32"), TY("numpy.int64", "int64"), TY("numpy.intp", "int64"),
    TY("numpy.uint8", "uint8"), TY("numpy.uint16", "uint16"), TY("numpy.uint32", "uint32"),
    TY("numpy.uint64", "uint64"), TY("numpy.uintp", "uint64"), TY("numpy.float32", "float32"),
    TY("numpy.float64", "float64"), TY("numpy.single", "float32"), TY("numpy.double", "float64"),
    TY("numba.boolean", "bool"), TY("numba.bool_", "bool"), TY("numba.int8", "int8"),
    TY("numba.int16", "int16"), TY("numba.int32", "int32"), TY("numba.int64", "int64"),
    TY("numba.intp", "int64"), TY("numba.uint8", "uint8"), TY("numba.uint16", "uint16"),
    TY("numba.uint32", "uint32"), TY("numba.uint64", "uint64"), TY("numba.uintp", "uint64"),
    TY("numba.float32", "float32"), TY("numba.float64", "float64"), TY("numba.double", "float64"),
    TY("numba.types.boolean", "bool"), TY("numba.types.int8", "int8"),
    TY("numba.types.int16", "int16"), TY("numba.types.int32", "int32"),
    TY("numba.types.int64", "int64"), TY("numba.types.uint8", "uint8"),
    TY("numba.types.uint16", "uint16"), TY("numba.types.uint32", "uint32"),
    TY("numba.types.uint64", "uint64"), TY("numba.types.float32", "float32"),
    TY("numba.types.float64", "float64"),
    {"numba.void", BK_TYPE, BI_TYPE, "void", NULL, NULL},
    {"numba.types.void", BK_TYPE, BI_TYPE, "void", NULL, NULL},

    FN("builtins.abs", BI_ABS), FN("builtins.min", BI_MIN), FN("builtins.max", BI_MAX),
    FN("builtins.int", BI_INT), FN("builtins.float", BI_FLOAT), FN("builtins.bool", BI_BOOL),
    FN("builtins.round", BI_ROUND), FN("builtins.len", BI_LEN), FN("builtins.range", BI_RANGE),
    FN("builtins.print", BI_PRINT),
    FN("builtins.enumerate", BI_ENUMERATE), FN("builtins.zip", BI_ZIP),
    FN("builtins.complex", BI_COMPLEX),

    /* cmath: complex functions, written in the prelude (TH_CMATH) as Numba writes them */
    MOD("cmath"),
    MATH("cmath.sqrt", BI_CMATH_UNARY, "p2c_csqrt", NULL), MATH("cmath.exp", BI_CMATH_UNARY, "p2c_cexp", NULL),
    MATH("cmath.log", BI_CMATH_LOG, "p2c_clog", NULL), MATH("cmath.log10", BI_CMATH_UNARY, "p2c_clog10", NULL),
    MATH("cmath.sin", BI_CMATH_UNARY, "p2c_csin", NULL), MATH("cmath.cos", BI_CMATH_UNARY, "p2c_ccos", NULL),
    MATH("cmath.tan", BI_CMATH_UNARY, "p2c_ctan", NULL), MATH("cmath.sinh", BI_CMATH_UNARY, "p2c_csinh", NULL),
    MATH("cmath.cosh", BI_CMATH_UNARY, "p2c_ccosh", NULL), MATH("cmath.tanh", BI_CMATH_UNARY, "p2c_ctanh", NULL),
    MATH("cmath.asin", BI_CMATH_UNARY, "p2c_casin", NULL), MATH("cmath.acos", BI_CMATH_UNARY, "p2c_cacos", NULL),
    MATH("cmath.atan", BI_CMATH_UNARY, "p2c_catan", NULL), MATH("cmath.asinh", BI_CMATH_UNARY, "p2c_casinh", NULL),
    MATH("cmath.acosh", BI_CMATH_UNARY, "p2c_cacosh", NULL), MATH("cmath.atanh", BI_CMATH_UNARY, "p2c_catanh", NULL),
    MATH("cmath.phase", BI_CMATH_TO_REAL, "p2c_cphase", NULL), MATH("cmath.polar", BI_CMATH_POLAR, "p2c_cpolar", NULL),
    MATH("cmath.rect", BI_CMATH_RECT, "p2c_crect", NULL),
    MATH("cmath.isnan", BI_CMATH_PRED, "p2c_cisnan", NULL), MATH("cmath.isinf", BI_CMATH_PRED, "p2c_cisinf", NULL),
    MATH("cmath.isfinite", BI_CMATH_PRED, "p2c_cisfinite", NULL),
    MCONST("cmath.pi", "pi"), MCONST("cmath.e", "e"), MCONST("cmath.tau", "tau"),
    MCONST("cmath.inf", "inf"), MCONST("cmath.nan", "nan"),
    TY("numpy.complex64", "complex64"), TY("numpy.complex128", "complex128"),
    TY("numpy.csingle", "complex64"), TY("numpy.cdouble", "complex128"),
    TY("numpy.complex_", "complex128"), TY("numba.complex64", "complex64"),
    TY("numba.complex128", "complex128"), TY("numba.types.complex64", "complex64"),
    TY("numba.types.complex128", "complex128"),
    TY("numpy.float16", "float16"), TY("numpy.half", "float16"), TY("numba.float16", "float16"),
    TY("numba.types.float16", "float16"),

    /* cuda.fp16: float16 intrinsics, each rounding once as the GPU's f16 instructions do */
    MOD("numba.cuda.fp16"),
    MATH("numba.cuda.fp16.hadd", BI_FP16_BINARY, "p2c_hadd", NULL),
    MATH("numba.cuda.fp16.hsub", BI_FP16_BINARY, "p2c_hsub", NULL),
    MATH("numba.cuda.fp16.hmul", BI_FP16_BINARY, "p2c_hmul", NULL),
    MATH("numba.cuda.fp16.hdiv", BI_FP16_BINARY, "p2c_hdiv", NULL),
    MATH("numba.cuda.fp16.hmax", BI_FP16_BINARY, "p2c_hmax", NULL),
    MATH("numba.cuda.fp16.hmin", BI_FP16_BINARY, "p2c_hmin", NULL),
    MATH("numba.cuda.fp16.hneg", BI_FP16_UNARY, "p2c_hneg", NULL),
    MATH("numba.cuda.fp16.habs", BI_FP16_UNARY, "p2c_habs", NULL),
    MATH("numba.cuda.fp16.hfma", BI_FP16_FMA, "p2c_hfma", NULL),
    MATH("numba.cuda.fp16.heq", BI_FP16_CMP, "p2c_heq", NULL),
    MATH("numba.cuda.fp16.hne", BI_FP16_CMP, "p2c_hne", NULL),
    MATH("numba.cuda.fp16.hgt", BI_FP16_CMP, "p2c_hgt", NULL),
    MATH("numba.cuda.fp16.hge", BI_FP16_CMP, "p2c_hge", NULL),
    MATH("numba.cuda.fp16.hlt", BI_FP16_CMP, "p2c_hlt", NULL),
    MATH("numba.cuda.fp16.hle", BI_FP16_CMP, "p2c_hle", NULL),
};

const Builtin *builtin_lookup(const char *path) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].path && strcmp(table[i].path, path) == 0 && table[i].id != BI_NONE) return &table[i];
  return NULL;
}

void builtins_index(StrMap *m) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].path && table[i].id != BI_NONE) strmap_add(m, table[i].path, (void *)&table[i]);
}

bool builtin_is_namespace(const char *path) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].kind == BK_MODULE && strcmp(table[i].path, path) == 0) return true;
  return false;
}

const char *builtin_display_name(const Builtin *b) {
  const char *p = b->path;
  if (strncmp(p, "numba.cuda.", 11) == 0) return p + 6;     /* "cuda.grid" */
  if (strncmp(p, "builtins.", 9) == 0) return p + 9;        /* "abs" */
  if (strncmp(p, "numpy.", 6) == 0) return p;               /* "numpy.float32" */
  return p;
}
