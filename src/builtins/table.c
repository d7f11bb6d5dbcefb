/* The table of built-in names (see builtins.h): one row per builtin, read by every phase.
 * Paths are the canonical module paths; import aliases are resolved onto them by the frontend.
 * Math functions carry the CUDA math library's double and float names, so codegen picks the
 * float32 variant for float32 arguments as Numba does. The hooks are typeinfer's (infer_*) and
 * codegen's (emit_*): this table is where the phases meet, so it includes both headers. */
#include <math.h>
#include <string.h>

#include "builtins/builtins.h"
#include "builtins/hooks.h"

#define FX(f) .facts = (f)
#define HOOKS(i, e) .infer = (i), .emit = (e)
#define ARGS(lo, hi) .min_args = (lo), .max_args = (hi)
#define H(h) .helpers = {.bits = 1ull << (h)}
#define TH(h) .helpers = {.type_bits = 1ull << (h)}
#define TH2(h, g) .helpers = {.type_bits = (1ull << (h)) | (1ull << (g))}
#define HC(h) .helpers = {.cuda_bits = 1ull << (h)}

#define NP_ALLOC(p, which, lo, hi) \
  {.path = p, .kind = BK_FUNC, .id = BI_NP_ALLOC, ARGS(lo, hi), .alloc = (which), \
   FX(BF_EFFECTS | BF_KEYWORDS | BF_CHECKS_ARITY | BF_HEAP_ALLOC), H(H_NP_ALLOC), \
   HOOKS(infer_np_alloc_call, emit_np_alloc_call)}
/* NumPy's reductions of a whole array (a.sum() is numpy.sum's row too: infer_array_method) */
#define NP_REDUCE(p, which, c) \
  {.path = p, .kind = BK_FUNC, .id = BI_NP_REDUCE, ARGS(1, 1), .reduce = (which), .c64 = c, \
   TH(TH_NP_REDUCE), HOOKS(infer_np_reduce_call, emit_np_reduce_call)}
#define MOD(p) {.path = p, .kind = BK_MODULE, .id = BI_NONE}
#define OPER(p, o) {.path = p, .kind = BK_OPERATOR, .id = BI_OPERATOR, ARGS(2, 2), .op = (o)}
/* modf, frexp: result is the second element's type where it is not the argument's float */
#define SPLIT(p, c64_, c32_, second) \
  {.path = p, .kind = BK_FUNC, .id = BI_MATH_SPLIT, ARGS(1, 1), .result = second, .c64 = c64_, \
   .c32 = c32_, HOOKS(infer_math_split_call, emit_math_split_call)}
/* threadIdx.x and friends: CUDA's limits bound them (threadIdx < blockDim <= 1024 in x and y,
 * 64 in z; gridDim.x < 2^31, y and z < 2^16) */
#define INDEX(p, spelling, nbits, f) \
  {.path = p, .kind = BK_VALUE, .id = BI_INDEX, .result = &type_int32, .c64 = spelling, \
   .bits = nbits, FX(BF_NONNEG | (f)), .emit = emit_spelled_value}
/* threadIdx.x, .y, .z: an INDEX row that says which dimension (analysis/thread_order.c) */
#define THREAD_INDEX(p, spelling, nbits, dim) \
  {.path = p, .kind = BK_VALUE, .id = BI_INDEX, .result = &type_int32, .c64 = spelling, \
   .bits = nbits, FX(BF_NONNEG), .thread_dim = dim, .emit = emit_spelled_value}
#define FN(p, i, lo, hi, f, inf, em) \
  {.path = p, .kind = BK_FUNC, .id = i, ARGS(lo, hi), FX(f), HOOKS(inf, em)}
#define MATH_FIELDS(p, i, n, r, c64_, c32_) \
  .path = p, .kind = BK_FUNC, .id = i, ARGS(n, n), .result = r, .c64 = c64_, .c32 = c32_, \
  HOOKS(infer_math_call, emit_math_call)
#define MATH(p, i, n, r, c64_, c32_) {MATH_FIELDS(p, i, n, r, c64_, c32_)}
#define UNARY(p, c64_, c32_) MATH(p, BI_MATH_UNARY, 1, NULL, c64_, c32_)
/* A math function that also takes float16 and returns float16 (numba-cuda's
 * Math_unary_with_fp16); c16 is the prelude's float16 function (TH_HALF_MATH). */
#define MATH16_FIELDS(p, i, r, c64_, c32_, c16_) \
  .path = p, .kind = BK_FUNC, .id = i, ARGS(1, 1), .result = r, .c64 = c64_, .c32 = c32_, \
  .c16 = c16_, HOOKS(infer_math_call, emit_math_call)
#define MATH16(p, i, r, c64_, c32_, c16_) {MATH16_FIELDS(p, i, r, c64_, c32_, c16_)}
#define UNARY16(p, c64_, c32_, c16_) MATH16(p, BI_MATH_UNARY, NULL, c64_, c32_, c16_)
/* NumPy's ufuncs: math functions that also take arrays and an output array (BF_UFUNC) */
#define NP_UFUNC(p, n, c64_, c32_, c16_, ...) \
  {.path = p, .kind = BK_FUNC, .id = (n) == 1 ? BI_MATH_UNARY : BI_MATH_BINARY, ARGS(n, (n) + 1), \
   FX(BF_UFUNC), .c64 = c64_, .c32 = c32_, .c16 = c16_, __VA_ARGS__, HOOKS(infer_math_call, emit_math_call)}
#define NP1(p, c64_, c32_) NP_UFUNC(p, 1, c64_, c32_, NULL, .helpers = {0})
#define NP1_16(p, c64_, c32_, c16_) NP_UFUNC(p, 1, c64_, c32_, c16_, .helpers = {0})
/* ... and on complex numbers the cmath row cz computes them (NumPy's complex loops) */
#define NP1C(p, c64_, c32_, cz) NP_UFUNC(p, 1, c64_, c32_, NULL, .complex_row = cz)
#define NP1C_16(p, c64_, c32_, c16_, cz) NP_UFUNC(p, 1, c64_, c32_, c16_, .complex_row = cz)
/* NumPy's comparison, logical, bitwise and extremum ufuncs: c is the prelude function, r the
 * result type where it is not the loop type (bool) */
#define NP_ELEM(p, n, what, r, c) \
  {.path = p, .kind = BK_FUNC, .id = BI_NP_ELEMENTWISE, ARGS(n, (n) + 1), FX(BF_UFUNC), \
   .elementwise = what, .result = r, .c64 = c, TH(TH_NP_ELEMENTWISE), \
   HOOKS(infer_np_elementwise_call, emit_np_elementwise_call)}
#define NP2(p, c64_, c32_) NP_UFUNC(p, 2, c64_, c32_, NULL, .helpers = {0})
#define BINARY(p, c64_, c32_) MATH(p, BI_MATH_BINARY, 2, NULL, c64_, c32_)
/* math functions whose value CPython's math module takes from libm's function f (named once: the
 * CUDA C name is libm's, and the frontend folds module-level constants with f itself) */
#define LIBM(p, f, c32_) \
  {.path = p, .kind = BK_FUNC, .id = BI_MATH_UNARY, ARGS(1, 1), .c64 = #f, .c32 = c32_, .fold1 = f, \
   HOOKS(infer_math_call, emit_math_call)}
#define LIBM16(p, f, c32_, c16_) \
  {.path = p, .kind = BK_FUNC, .id = BI_MATH_UNARY, ARGS(1, 1), .c64 = #f, .c32 = c32_, .c16 = c16_, \
   .fold1 = f, HOOKS(infer_math_call, emit_math_call)}
/* ... and that numba.cuda.bf16 overloads for bfloat16 (cb16_: the prelude's function, TH_BF16_MATH) */
#define LIBM16B(p, f, c32_, c16_, cb16_) \
  {.path = p, .kind = BK_FUNC, .id = BI_MATH_UNARY, ARGS(1, 1), .c64 = #f, .c32 = c32_, .c16 = c16_, \
   .cb16 = cb16_, .fold1 = f, HOOKS(infer_math_call, emit_math_call)}
#define LIBMB(p, f, c32_, cb16_) LIBM16B(p, f, c32_, NULL, cb16_)
#define LIBM2(p, f, c32_) \
  {.path = p, .kind = BK_FUNC, .id = BI_MATH_BINARY, ARGS(2, 2), .c64 = #f, .c32 = c32_, .fold2 = f, \
   HOOKS(infer_math_call, emit_math_call)}
#define MCONST(p, v) \
  {.path = p, .kind = BK_VALUE, .id = BI_MATH_CONST, .result = &type_float64, .value = v, \
   .emit = emit_math_const_value}
#define TY(p, t) \
  {.path = p, .kind = BK_TYPE, .id = BI_TYPE, ARGS(1, 1), .result = &t, \
   HOOKS(infer_cast_builtin_call, emit_cast_builtin_call)}
#define CAST(p, t) \
  {.path = p, .kind = BK_FUNC, .id = BI_CAST, ARGS(1, 1), .result = &t, \
   HOOKS(infer_cast_builtin_call, emit_cast_builtin_call)}
/* What CPython's math.degrees, math.radians and the predicates compute on a float (mathmodule.c:
 * x * radToDeg with radToDeg = 180.0 / pi, x * degToRad; a predicate as 0 or 1), for folding. */
static double fold_degrees(double x) { return x * (180.0 / 3.141592653589793); }
static double fold_radians(double x) { return x * (3.141592653589793 / 180.0); }
static double fold_isnan(double x) { return isnan(x); }
static double fold_isinf(double x) { return isinf(x); }
static double fold_isfinite(double x) { return isfinite(x); }

/* atomics change memory; barriers and warp operations meet other threads */
#define ATOMIC(p, cls, c, helper) \
  {.path = p, .kind = BK_FUNC, .id = BI_ATOMIC, ARGS(3, 3), .atomic = cls, \
   FX(BF_EFFECTS | BF_CHECKS_ARITY | BF_STORES_ELEMENT), .c64 = c, .helper_fn = helper, \
   HOOKS(infer_atomic_call, emit_atomic_call)}
#define CUDA(p, lo, hi, f, r, c, inf, em) \
  {.path = p, .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(lo, hi), FX(f), .result = r, \
   .c64 = c, HOOKS(inf, em)}
/* numba-cuda's loads and stores with a cache hint (cuda.ldca(a, i) ... cuda.stwt(a, i, v)): the
 * prelude's p2c_ldca ... (HC_CACHE_HINTS), PTX's ld.global.ca ... st.global.wt of the element.
 * They change where the value is cached, never what is read or written; never moved or dropped.
 * The typing hook checks the argument count (it rewrites the array and index into one element,
 * as the atomics' does). */
#define CACHE_HINT(p, n, c) \
  {.path = p, .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(n, n), \
   FX(BF_EFFECTS | BF_CHECKS_ARITY | (n == 3 ? BF_STORES_ELEMENT : 0)), \
   .c64 = c, HC(HC_CACHE_HINTS), HOOKS(infer_cache_hint_call, emit_cache_hint_call)}
#define WARP (BF_EFFECTS | BF_COLLECTIVE)
#define SHFL(p, c, what) \
  {.path = p, .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(3, 3), FX(WARP), .c64 = c, \
   .arg_name = what, HOOKS(infer_shfl_call, emit_warp_builtin_call)}
#define BITCOUNT(p, i, r, c64_, c32_) \
  {.path = p, .kind = BK_FUNC, .id = i, ARGS(1, 1), .result = r, .c64 = c64_, .c32 = c32_, \
   HOOKS(infer_bitcount_call, emit_bitcount_call)}
/* cmath: complex functions, written in the prelude (TH_CMATH) as Numba writes them */
#define CMATH(p, lo, hi, r, c, helpers_, inf, em) \
  {.path = p, .kind = BK_FUNC, .id = BI_CMATH, ARGS(lo, hi), FX(BF_CHECKS_ARITY), .result = r, \
   .c64 = c, helpers_, HOOKS(inf, em)}
#define CEXP(p, c) CMATH(p, 1, 1, NULL, c, TH(TH_CEXPLOG), infer_cmath_call, emit_cmath_call)
#define CHYP(p, c) CMATH(p, 1, 1, NULL, c, TH(TH_CHYPERBOLIC), infer_cmath_call, emit_cmath_call)
#define CINV(p, c) \
  CMATH(p, 1, 1, NULL, c, TH2(TH_CINVERSE, TH_CSQRT), infer_cmath_call, emit_cmath_call)
#define CPRED(p, c) \
  CMATH(p, 1, 1, &type_bool, c, TH(TH_CEXPLOG), infer_cmath_call, emit_cmath_call)
/* CUDA vector types: the constructor of type_vectors[b][n - 1], under Numba's name (p "x1" ..
 * p "x4") or an alias (cuda.float4); it takes 1 to n arguments whose lanes add up to n */
#define VECTOR(p, b, n) \
  {.path = p, .kind = BK_FUNC, .id = BI_VECTOR, ARGS(1, n), .result = &type_vectors[b][n - 1], \
   HOOKS(infer_vector_ctor_call, emit_vector_ctor_call)}
#define VECTORS(p, b) VECTOR(p "1", b, 1), VECTOR(p "2", b, 2), VECTOR(p "3", b, 3), VECTOR(p "4", b, 4)
#define FP16(p, n, r, c) \
  {.path = p, .kind = BK_FUNC, .id = BI_FP16, ARGS(n, n), .result = r, .c64 = c, \
   HOOKS(infer_fp16_call, emit_half_builtin_call)}
/* cuda.fp16's math functions: the float function rounded to float16 (TH_HALF_MATH) */
#define FP16_MATH(p, c) \
  {.path = p, .kind = BK_FUNC, .id = BI_FP16, ARGS(1, 1), .result = &type_float16, .c64 = c, \
   TH(TH_HALF_MATH), HOOKS(infer_fp16_call, emit_half_builtin_call)}

/* numba.cuda._internal.cuda_fp8's cvt_NAME: the prelude's p2c_cvt_NAME, its parameters proto
 * (infer_fp8_cvt_call's letters) */
#define FP8_CVT(name, proto_, r) \
  {.path = "numba.cuda._internal.cuda_fp8." name, .kind = BK_FUNC, .id = BI_FP8_CVT, \
   ARGS(sizeof proto_ - 1, sizeof proto_ - 1), .proto = proto_, .result = &r, .c64 = "p2c_" name, \
   TH2(TH_FP8, TH_FP8_BITS), HOOKS(infer_fp8_cvt_call, emit_half_builtin_call)}
/* numba.cuda.bf16's intrinsics: proto gives the parameters' types (infer_bf16_call's letters),
 * r the result type, c the prelude's function (TH_BF16...; the math ones TH_BF16_MATH) */
#define BF16(p, proto_, r, c) \
  {.path = "numba.cuda.bf16." p, .kind = BK_FUNC, .id = BI_BF16, ARGS(sizeof proto_ - 1, sizeof proto_ - 1), \
   .proto = proto_, .result = &r, .c64 = c, HOOKS(infer_bf16_call, emit_half_builtin_call)}
#define BF16_MATH(p, c) \
  {.path = "numba.cuda.bf16." p, .kind = BK_FUNC, .id = BI_BF16, ARGS(1, 1), .proto = "b", \
   .result = &type_bfloat16, .c64 = c, TH(TH_BF16_MATH), HOOKS(infer_bf16_call, emit_half_builtin_call)}
/* The four rounding modes of a conversion: to nearest even, toward zero, down, up */
#define BF16_MODES(p, proto_, r, c) \
  BF16(p "_rn", proto_, r, c "_rn"), BF16(p "_rz", proto_, r, c "_rz"), \
  BF16(p "_rd", proto_, r, c "_rd"), BF16(p "_ru", proto_, r, c "_ru")
/* An integer type's conversions both ways, in the four modes (T: its C type) */
#define BF16_INT(name, letter, t, T) \
  BF16_MODES(name "_to_bfloat16", letter, type_bfloat16, "p2c_bf16_of"), \
  BF16(name "_to_bfloat16", letter, type_bfloat16, "p2c_bf16_of_rn"), \
  BF16("bfloat16_to_" name "_rn", "b", t, "p2c_bf16_to_rn<" T ">"), \
  BF16("bfloat16_to_" name "_rz", "b", t, "p2c_bf16_to_rz<" T ">"), \
  BF16("bfloat16_to_" name "_rd", "b", t, "p2c_bf16_to_rd<" T ">"), \
  BF16("bfloat16_to_" name "_ru", "b", t, "p2c_bf16_to_ru<" T ">")

/* numba.cuda.libdevice's functions (libdevice.def): each called by its C name on both targets,
 * typed by its prototype; the hooks read the prototype. */
#define LD(name, inputs, proto_) \
  {.path = "numba.cuda.libdevice." #name, .kind = BK_FUNC, .id = BI_LIBDEVICE, ARGS(inputs, inputs), \
   .c64 = "__nv_" #name, .proto = proto_, HOOKS(infer_libdevice_call, emit_libdevice_call)},

static const Builtin table[] = {
    MOD("numba"), MOD("numba.cuda"), MOD("numba.cuda.shared"), MOD("numba.cuda.local"),
    MOD("numba.types"), MOD("math"), MOD("numpy"), MOD("builtins"),
    MOD("numba.cuda.threadIdx"), MOD("numba.cuda.blockIdx"), MOD("numba.cuda.blockDim"),
    MOD("numba.cuda.gridDim"),
    THREAD_INDEX("numba.cuda.threadIdx.x", "threadIdx.x", 10, 1),
    THREAD_INDEX("numba.cuda.threadIdx.y", "threadIdx.y", 10, 2),
    THREAD_INDEX("numba.cuda.threadIdx.z", "threadIdx.z", 6, 3),
    INDEX("numba.cuda.blockIdx.x", "blockIdx.x", 31, BF_BLOCK_UNIFORM),
    INDEX("numba.cuda.blockIdx.y", "blockIdx.y", 16, BF_BLOCK_UNIFORM),
    INDEX("numba.cuda.blockIdx.z", "blockIdx.z", 16, BF_BLOCK_UNIFORM),
    INDEX("numba.cuda.blockDim.x", "blockDim.x", 11, BF_POSITIVE | BF_LAUNCH_DIM),
    INDEX("numba.cuda.blockDim.y", "blockDim.y", 11, BF_POSITIVE | BF_LAUNCH_DIM),
    INDEX("numba.cuda.blockDim.z", "blockDim.z", 7, BF_POSITIVE | BF_LAUNCH_DIM),
    INDEX("numba.cuda.gridDim.x", "gridDim.x", 31, BF_POSITIVE | BF_LAUNCH_DIM),
    INDEX("numba.cuda.gridDim.y", "gridDim.y", 16, BF_POSITIVE | BF_LAUNCH_DIM),
    INDEX("numba.cuda.gridDim.z", "gridDim.z", 16, BF_POSITIVE | BF_LAUNCH_DIM),
    INDEX("numba.cuda.warpsize", "warpSize", 6, BF_POSITIVE),
    /* grid: blockDim * gridDim + threadIdx < 2^42 */
    {.path = "numba.cuda.grid", .kind = BK_FUNC, .id = BI_GRID, ARGS(1, 1), .bits = 42,
     FX(BF_NONNEG | BF_PER_ELEMENT), HOOKS(infer_grid_call, emit_grid_call)},
    {.path = "numba.cuda.gridsize", .kind = BK_FUNC, .id = BI_GRIDSIZE, ARGS(1, 1), .bits = 42,
     FX(BF_NONNEG | BF_POSITIVE | BF_LAUNCH_DIM | BF_PER_ELEMENT), HOOKS(infer_grid_call, emit_grid_call)},
    {.path = "numba.cuda.syncthreads", .kind = BK_FUNC, .id = BI_SYNCTHREADS, ARGS(0, 0),
     FX(BF_EFFECTS | BF_BARRIER), .result = &type_void, .c64 = "__syncthreads",
     HOOKS(infer_fixed_call, emit_plain_builtin_call)},
    {.path = "numba.cuda.shared.array", .kind = BK_FUNC, .id = BI_SHARED_ARRAY, ARGS(0, 3),
     FX(BF_EFFECTS | BF_KEYWORDS | BF_CHECKS_ARITY | BF_ARRAY_ALLOC),
     HOOKS(infer_shared_array_call, emit_shared_array_call)},
    {.path = "numba.cuda.local.array", .kind = BK_FUNC, .id = BI_LOCAL_ARRAY, ARGS(0, 3),
     FX(BF_EFFECTS | BF_KEYWORDS | BF_CHECKS_ARITY | BF_ARRAY_ALLOC), .infer = infer_local_array_call},
    {.path = "numba.cuda.jit", .kind = BK_DECORATOR, .id = BI_CUDA_JIT},
    /* read only at module level: `f = cuda.declare_device(...)` and a link list's items */
    {.path = "numba.cuda.declare_device", .kind = BK_DECORATOR, .id = BI_DECLARE_DEVICE},
    {.path = "numba.cuda.CUSource", .kind = BK_DECORATOR, .id = BI_CUSOURCE},
    /* read only at module level: a device array the Python package froze from a global */
    {.path = "numba.cuda._captured_array", .kind = BK_DECORATOR, .id = BI_CAPTURED_ARRAY},
    {.path = "numba.vectorize", .kind = BK_DECORATOR, .id = BI_VECTORIZE},
    {.path = "numba.guvectorize", .kind = BK_DECORATOR, .id = BI_GUVECTORIZE},
    /* numba.jit and njit: CPU functions when called from the host, device functions in kernels */
    {.path = "numba.jit", .kind = BK_DECORATOR, .id = BI_JIT},
    {.path = "numba.njit", .kind = BK_DECORATOR, .id = BI_JIT},
    /* register_jitable: a plain function that jitted code calls, as a @jit function is */
    {.path = "numba.extending.register_jitable", .kind = BK_DECORATOR, .id = BI_JIT},
    {.path = "numba.core.extending.register_jitable", .kind = BK_DECORATOR, .id = BI_JIT},
    {.path = "numba.cuda.extending.register_jitable", .kind = BK_DECORATOR, .id = BI_JIT},
    /* numba.stencil: the function becomes a kernel of its name (frontend/stencil.c); a call of
     * it in a function pyk2cuda compiles is E-stencil (the Python package compiles such calls) */
    {.path = "numba.stencil", .kind = BK_DECORATOR, .id = BI_STENCIL},
    {.path = "numba.cuda.vectorize", .kind = BK_DECORATOR, .id = BI_VECTORIZE},

    /* CUDA intrinsics: atomics, barriers and fences, warp operations, bit functions, memories */
    MOD("numba.cuda.atomic"), MOD("numba.cuda.const"),
    ATOMIC("numba.cuda.atomic.add", AC_ARITH, "atomicAdd", "p2c_atomic_add"),
    ATOMIC("numba.cuda.atomic.sub", AC_SUB, "atomicSub", "p2c_atomic_sub"),
    ATOMIC("numba.cuda.atomic.and_", AC_BITWISE, "atomicAnd", "p2c_atomic_and"),
    ATOMIC("numba.cuda.atomic.or_", AC_BITWISE, "atomicOr", "p2c_atomic_or"),
    ATOMIC("numba.cuda.atomic.xor", AC_BITWISE, "atomicXor", "p2c_atomic_xor"),
    ATOMIC("numba.cuda.atomic.max", AC_MINMAX, "atomicMax", "p2c_atomic_max"),
    ATOMIC("numba.cuda.atomic.min", AC_MINMAX, "atomicMin", "p2c_atomic_min"),
    ATOMIC("numba.cuda.atomic.nanmax", AC_MINMAX, "atomicMax", "p2c_atomic_nanmax"),
    ATOMIC("numba.cuda.atomic.nanmin", AC_MINMAX, "atomicMin", "p2c_atomic_nanmin"),
    ATOMIC("numba.cuda.atomic.exch", AC_BITWISE, "atomicExch", "p2c_atomic_exch"),
    ATOMIC("numba.cuda.atomic.inc", AC_INCDEC, "atomicInc", "p2c_atomic_inc"),
    ATOMIC("numba.cuda.atomic.dec", AC_INCDEC, "atomicDec", "p2c_atomic_dec"),
    {.path = "numba.cuda.atomic.cas", .kind = BK_FUNC, .id = BI_ATOMIC, ARGS(4, 4),
     .atomic = AC_BITWISE, FX(BF_EFFECTS | BF_CHECKS_ARITY | BF_STORES_ELEMENT), .c64 = "atomicCAS",
     .helper_fn = "p2c_atomic_cas", HOOKS(infer_atomic_call, emit_atomic_call)},
    {.path = "numba.cuda.atomic.compare_and_swap", .kind = BK_FUNC, .id = BI_ATOMIC_COMPARE_AND_SWAP,
     ARGS(3, 3), .atomic = AC_BITWISE, FX(BF_EFFECTS | BF_CHECKS_ARITY | BF_STORES_ELEMENT),
     .c64 = "atomicCAS",
     .helper_fn = "p2c_atomic_cas", HOOKS(infer_atomic_call, emit_atomic_call)},
    CUDA("numba.cuda.syncthreads_count", 1, 1, BF_EFFECTS | BF_BARRIER, NULL, "__syncthreads_count",
         infer_sync_predicate_call, emit_plain_builtin_call),
    CUDA("numba.cuda.syncthreads_and", 1, 1, BF_EFFECTS | BF_BARRIER, NULL, "__syncthreads_and",
         infer_sync_predicate_call, emit_plain_builtin_call),
    CUDA("numba.cuda.syncthreads_or", 1, 1, BF_EFFECTS | BF_BARRIER, NULL, "__syncthreads_or",
         infer_sync_predicate_call, emit_plain_builtin_call),
    CUDA("numba.cuda.threadfence", 0, 0, BF_EFFECTS | BF_FENCE, &type_void, "__threadfence",
         infer_fixed_call, emit_plain_builtin_call),
    CUDA("numba.cuda.threadfence_block", 0, 0, BF_EFFECTS, &type_void, "__threadfence_block",
         infer_fixed_call, emit_plain_builtin_call),
    CUDA("numba.cuda.threadfence_system", 0, 0, BF_EFFECTS | BF_FENCE, &type_void, "__threadfence_system",
         infer_fixed_call, emit_plain_builtin_call),
    /* __nanosleep needs sm_70; the simulator's returns at once (CUDA allows any sleep from 0 to
     * twice the duration asked for) */
    CUDA("numba.cuda.nanosleep", 1, 1, BF_EFFECTS, &type_void, "__nanosleep", infer_nanosleep_call,
         emit_plain_builtin_call),
    CUDA("numba.cuda.syncwarp", 0, 1, WARP, &type_void, "__syncwarp", infer_syncwarp_call,
         emit_syncwarp_call),
    SHFL("numba.cuda.shfl_sync", "__shfl_sync", "source lane"),
    SHFL("numba.cuda.shfl_up_sync", "__shfl_up_sync", "lane delta"),
    SHFL("numba.cuda.shfl_down_sync", "__shfl_down_sync", "lane delta"),
    SHFL("numba.cuda.shfl_xor_sync", "__shfl_xor_sync", "lane mask"),
    CUDA("numba.cuda.all_sync", 2, 2, WARP, &type_bool, "__all_sync", infer_vote_call, emit_vote_call),
    CUDA("numba.cuda.any_sync", 2, 2, WARP, &type_bool, "__any_sync", infer_vote_call, emit_vote_call),
    CUDA("numba.cuda.eq_sync", 2, 2, WARP, &type_bool, "__uni_sync", infer_vote_call, emit_vote_call),
    CUDA("numba.cuda.ballot_sync", 2, 2, WARP, &type_int32, "__ballot_sync", infer_vote_call,
         emit_int32_warp_call),
    CUDA("numba.cuda.match_any_sync", 2, 2, WARP, &type_int32, "__match_any_sync", infer_match_call,
         emit_int32_warp_call),
    CUDA("numba.cuda.match_all_sync", 2, 2, WARP, NULL, "__match_all_sync", infer_match_call,
         emit_match_all_call),
    CUDA("numba.cuda.activemask", 0, 0, WARP, &type_uint32, "__activemask", infer_fixed_call,
         emit_plain_builtin_call),
    {.path = "numba.cuda.lanemask_lt", .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(0, 0),
     .result = &type_uint32, .c64 = "p2c_lanemask_lt", HC(HC_LANE),
     HOOKS(infer_fixed_call, emit_plain_builtin_call)},
    {.path = "numba.cuda.laneid", .kind = BK_VALUE, .id = BI_LANEID, .result = &type_int32,
     .c64 = "p2c_laneid()", HC(HC_LANE), .emit = emit_spelled_value},
    BITCOUNT("numba.cuda.popc", BI_POPC, NULL, "__popcll", "__popc"),
    BITCOUNT("numba.cuda.clz", BI_CLZ, NULL, "__clzll", "__clz"),
    BITCOUNT("numba.cuda.ffs", BI_FFS, &type_uint32, "__ffsll", "__ffs"),
    {.path = "numba.cuda.brev", .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(1, 1),
     .c64 = "__brevll", .c32 = "__brev", HOOKS(infer_brev_call, emit_brev_call)},
    {.path = "numba.cuda.fma", .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(3, 3), .c64 = "fma",
     .c32 = "fmaf", HOOKS(infer_float_op_call, emit_math_call)},
    {.path = "numba.cuda.cbrt", .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(1, 1), .c64 = "cbrt",
     .c32 = "cbrtf", HOOKS(infer_float_op_call, emit_math_call)},
    {.path = "numba.cuda.selp", .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(3, 3),
     HOOKS(infer_selp_call, emit_selp_call)},
    /* cuda.cg: a grid group and its barrier. g.sync() is typed as a call of the row
     * numba.cuda.cg.GridGroup.sync with g as its argument (infer_method_call). */
    MOD("numba.cuda.cg"),
    {.path = "numba.cuda.cg.this_grid", .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(0, 0),
     FX(BF_GRID), .result = &type_grid_group, .c64 = "p2c_this_grid", HC(HC_GRID),
     HOOKS(infer_fixed_call, emit_plain_builtin_call)},
    {.path = "numba.cuda.cg.GridGroup.sync", .kind = BK_FUNC, .id = BI_CUDA_INTRINSIC, ARGS(1, 1),
     FX(BF_EFFECTS | BF_BARRIER | BF_GRID), .result = &type_void, .c64 = "p2c_grid_sync",
     HC(HC_GRID), HOOKS(infer_fixed_call, emit_plain_builtin_call)},
    CACHE_HINT("numba.cuda.ldca", 2, "p2c_ldca"), CACHE_HINT("numba.cuda.ldcg", 2, "p2c_ldcg"),
    CACHE_HINT("numba.cuda.ldcs", 2, "p2c_ldcs"), CACHE_HINT("numba.cuda.ldlu", 2, "p2c_ldlu"),
    CACHE_HINT("numba.cuda.ldcv", 2, "p2c_ldcv"), CACHE_HINT("numba.cuda.stcg", 3, "p2c_stcg"),
    CACHE_HINT("numba.cuda.stcs", 3, "p2c_stcs"), CACHE_HINT("numba.cuda.stwb", 3, "p2c_stwb"),
    CACHE_HINT("numba.cuda.stwt", 3, "p2c_stwt"),
    {.path = "numba.cuda.const.array_like", .kind = BK_FUNC, .id = BI_CONST_ARRAY_LIKE, ARGS(1, 1),
     FX(BF_NOT_REPEATED), HOOKS(infer_const_array_like_call, emit_const_array_like_call)},

    LIBM16B("math.sqrt", sqrt, "sqrtf", "p2c_hsqrt", "p2c_bf16_sqrt"),
    LIBM16B("math.exp", exp, "expf", "p2c_hexp", "p2c_bf16_exp"),
    LIBM16B("math.exp2", exp2, "exp2f", "p2c_hexp2", "p2c_bf16_exp2"),
    LIBM("math.expm1", expm1, "expm1f"), LIBM16B("math.log", log, "logf", "p2c_hlog", "p2c_bf16_log"),
    LIBM16("math.log2", log2, "log2f", "p2c_hlog2"),
    LIBM16B("math.log10", log10, "log10f", "p2c_hlog10", "p2c_bf16_log10"),
    LIBM("math.log1p", log1p, "log1pf"), LIBM16B("math.sin", sin, "sinf", "p2c_hsin", "p2c_bf16_sin"),
    LIBM16B("math.cos", cos, "cosf", "p2c_hcos", "p2c_bf16_cos"), LIBM("math.tan", tan, "tanf"),
    LIBM("math.asin", asin, "asinf"), LIBM("math.acos", acos, "acosf"),
    LIBM("math.atan", atan, "atanf"), LIBM("math.sinh", sinh, "sinhf"),
    LIBM("math.cosh", cosh, "coshf"), LIBMB("math.tanh", tanh, "tanhf", "p2c_bf16_tanh"),
    LIBM("math.asinh", asinh, "asinhf"), LIBM("math.acosh", acosh, "acoshf"),
    LIBM("math.atanh", atanh, "atanhf"), LIBM16("math.fabs", fabs, "fabsf", "p2c_habs"),
    LIBM("math.erf", erf, "erff"), LIBM("math.erfc", erfc, "erfcf"),
    UNARY("math.gamma", "tgamma", "tgammaf"), UNARY("math.lgamma", "lgamma", "lgammaf"),
    {.path = "math.degrees", .kind = BK_FUNC, .id = BI_MATH_UNARY, ARGS(1, 1), .c64 = "p2c_degrees",
     .c32 = "p2c_degreesf", .fold1 = fold_degrees, H(H_DEGREES), HOOKS(infer_math_call, emit_math_call)},
    {.path = "math.radians", .kind = BK_FUNC, .id = BI_MATH_UNARY, ARGS(1, 1), .c64 = "p2c_radians",
     .c32 = "p2c_radiansf", .fold1 = fold_radians, H(H_DEGREES), HOOKS(infer_math_call, emit_math_call)},
    LIBM2("math.atan2", atan2, "atan2f"), LIBM2("math.pow", pow, "powf"),
    BINARY("math.hypot", "hypot", "hypotf"), LIBM2("math.copysign", copysign, "copysignf"),
    LIBM2("math.fmod", fmod, "fmodf"), LIBM2("math.remainder", remainder, "remainderf"),
    LIBM2("math.nextafter", nextafter, "nextafterf"),
    SPLIT("math.modf", "modf", "modff", NULL), SPLIT("math.frexp", "frexp", "frexpf", &type_int32),
    {MATH16_FIELDS("math.floor", BI_MATH_TO_INT, &type_int64, "floor", "floorf", "p2c_hfloor"), .fold1 = floor,
     .cb16 = "p2c_bf16_floor"},
    {MATH16_FIELDS("math.ceil", BI_MATH_TO_INT, &type_int64, "ceil", "ceilf", "p2c_hceil"), .fold1 = ceil,
     .cb16 = "p2c_bf16_ceil"},
    {MATH16_FIELDS("math.trunc", BI_MATH_TO_INT, &type_int64, "trunc", "truncf", "p2c_htrunc"), .fold1 = trunc,
     .cb16 = "p2c_bf16_trunc"},
    {MATH_FIELDS("math.isnan", BI_MATH_PRED, 1, &type_bool, "isnan", "isnan"), .fold1 = fold_isnan},
    {MATH_FIELDS("math.isinf", BI_MATH_PRED, 1, &type_bool, "isinf", "isinf"), .fold1 = fold_isinf},
    {MATH_FIELDS("math.isfinite", BI_MATH_PRED, 1, &type_bool, "isfinite", "isfinite"), .fold1 = fold_isfinite},
    {.path = "math.ldexp", .kind = BK_FUNC, .id = BI_MATH_LDEXP, ARGS(2, 2), .c64 = "ldexp",
     .c32 = "ldexpf", HOOKS(infer_ldexp_call, emit_math_call)},
    MCONST("math.pi", 3.141592653589793), MCONST("math.e", 2.718281828459045),
    MCONST("math.tau", 6.283185307179586), MCONST("math.inf", INFINITY), MCONST("math.nan", NAN),

    /* NumPy's ufuncs: on scalars a float32 argument computes in float32, an integer in float64,
     * a float16 (where the prelude has the function) in float32 rounded to float16, as NumPy's
     * own loops do; floor, ceil, trunc and rint keep the float type (math's give int64). On
     * arrays, with an output array: np.sin(x, out) (infer_ufunc_array_call). */
    /* np.sqrt also folds at module level (lower_const.c fold_ufunc): IEEE's correctly rounded
       square root, which NumPy's loops and the C library give alike */
    NP_UFUNC("numpy.sqrt", 1, "sqrt", "sqrtf", "p2c_hsqrt", .complex_row = "cmath.sqrt", .fold1 = sqrt),
    NP1C_16("numpy.exp", "exp", "expf", "p2c_hexp", "cmath.exp"),
    NP1C_16("numpy.log", "log", "logf", "p2c_hlog", "cmath.log"),
    NP1C_16("numpy.sin", "sin", "sinf", "p2c_hsin", "cmath.sin"),
    NP1C_16("numpy.cos", "cos", "cosf", "p2c_hcos", "cmath.cos"), NP1C("numpy.tan", "tan", "tanf", "cmath.tan"),
    NP1C("numpy.tanh", "tanh", "tanhf", "cmath.tanh"), NP2("numpy.arctan2", "atan2", "atan2f"),
    NP1C("numpy.arcsin", "asin", "asinf", "cmath.asin"), NP1C("numpy.arccos", "acos", "acosf", "cmath.acos"),
    NP1C("numpy.arctan", "atan", "atanf", "cmath.atan"), NP1C("numpy.sinh", "sinh", "sinhf", "cmath.sinh"),
    NP1C("numpy.cosh", "cosh", "coshf", "cmath.cosh"),
    NP1C("numpy.arcsinh", "asinh", "asinhf", "cmath.asinh"),
    NP1C("numpy.arccosh", "acosh", "acoshf", "cmath.acosh"),
    NP1C("numpy.arctanh", "atanh", "atanhf", "cmath.atanh"),
    NP1_16("numpy.exp2", "exp2", "exp2f", "p2c_hexp2"), NP1("numpy.expm1", "expm1", "expm1f"),
    NP1C_16("numpy.log2", "log2", "log2f", "p2c_hlog2", "numpy.log2 of complex"),
    NP1C_16("numpy.log10", "log10", "log10f", "p2c_hlog10", "cmath.log10"),
    NP1("numpy.log1p", "log1p", "log1pf"),
    NP1("numpy.cbrt", "cbrt", "cbrtf"), NP1_16("numpy.fabs", "fabs", "fabsf", "p2c_habs"),
    NP1_16("numpy.floor", "floor", "floorf", "p2c_hfloor"),
    NP1_16("numpy.ceil", "ceil", "ceilf", "p2c_hceil"),
    NP1_16("numpy.trunc", "trunc", "truncf", "p2c_htrunc"),
    NP1_16("numpy.rint", "rint", "rintf", "p2c_hrint"),
    NP_UFUNC("numpy.deg2rad", 1, "p2c_radians", "p2c_radiansf", NULL, H(H_DEGREES)),
    NP_UFUNC("numpy.rad2deg", 1, "p2c_degrees", "p2c_degreesf", NULL, H(H_DEGREES)),
    NP_UFUNC("numpy.radians", 1, "p2c_radians", "p2c_radiansf", NULL, H(H_DEGREES)),
    NP_UFUNC("numpy.degrees", 1, "p2c_degrees", "p2c_degreesf", NULL, H(H_DEGREES)),
    NP_ELEM("numpy.equal", 2, NPE_COMPARE, &type_bool, "p2c_np_equal"),
    NP_ELEM("numpy.not_equal", 2, NPE_COMPARE, &type_bool, "p2c_np_not_equal"),
    NP_ELEM("numpy.less", 2, NPE_COMPARE, &type_bool, "p2c_np_less"),
    NP_ELEM("numpy.less_equal", 2, NPE_COMPARE, &type_bool, "p2c_np_less_equal"),
    NP_ELEM("numpy.greater", 2, NPE_COMPARE, &type_bool, "p2c_np_greater"),
    NP_ELEM("numpy.greater_equal", 2, NPE_COMPARE, &type_bool, "p2c_np_greater_equal"),
    NP_ELEM("numpy.logical_and", 2, NPE_LOGICAL, &type_bool, "p2c_np_logical_and"),
    NP_ELEM("numpy.logical_or", 2, NPE_LOGICAL, &type_bool, "p2c_np_logical_or"),
    NP_ELEM("numpy.logical_xor", 2, NPE_LOGICAL, &type_bool, "p2c_np_logical_xor"),
    NP_ELEM("numpy.logical_not", 1, NPE_LOGICAL, &type_bool, "p2c_np_logical_not"),
    NP_ELEM("numpy.bitwise_and", 2, NPE_BITWISE, NULL, "p2c_np_bitwise_and"),
    NP_ELEM("numpy.bitwise_or", 2, NPE_BITWISE, NULL, "p2c_np_bitwise_or"),
    NP_ELEM("numpy.bitwise_xor", 2, NPE_BITWISE, NULL, "p2c_np_bitwise_xor"),
    NP_ELEM("numpy.invert", 1, NPE_BITWISE, NULL, "p2c_np_invert"),
    NP_ELEM("numpy.bitwise_not", 1, NPE_BITWISE, NULL, "p2c_np_invert"),
    NP_ELEM("numpy.maximum", 2, NPE_EXTREMUM, NULL, "p2c_np_maximum"),
    NP_ELEM("numpy.minimum", 2, NPE_EXTREMUM, NULL, "p2c_np_minimum"),
    NP_ELEM("numpy.fmax", 2, NPE_EXTREMUM, NULL, "p2c_np_fmax"),
    NP_ELEM("numpy.fmin", 2, NPE_EXTREMUM, NULL, "p2c_np_fmin"),
    NP2("numpy.hypot", "hypot", "hypotf"), NP2("numpy.copysign", "copysign", "copysignf"),
    NP2("numpy.nextafter", "nextafter", "nextafterf"),
    MATH("numpy.isnan", BI_MATH_PRED, 1, &type_bool, "isnan", "isnan"),
    MATH("numpy.isinf", BI_MATH_PRED, 1, &type_bool, "isinf", "isinf"),
    MATH("numpy.isfinite", BI_MATH_PRED, 1, &type_bool, "isfinite", "isfinite"),
    {.path = "numpy.datetime64", .kind = BK_FUNC, .id = BI_TIME_VALUE, ARGS(1, 2), HOOKS(infer_time_value_call, NULL)},
    {.path = "numpy.timedelta64", .kind = BK_FUNC, .id = BI_TIME_VALUE, ARGS(1, 2), HOOKS(infer_time_value_call, NULL)},
    {.path = "numpy.isnat", .kind = BK_FUNC, .id = BI_ISNAT, ARGS(1, 1), .result = &type_bool,
     HOOKS(infer_isnat_call, emit_isnat_call)},
    {.path = "numpy.abs", .kind = BK_FUNC, .id = BI_ABS, ARGS(1, 1), FX(BF_NONNEG),
     HOOKS(infer_abs_call, emit_abs_call)},
    {.path = "numpy.absolute", .kind = BK_FUNC, .id = BI_ABS, ARGS(1, 1), FX(BF_NONNEG),
     HOOKS(infer_abs_call, emit_abs_call)},
    MCONST("numpy.pi", 3.141592653589793), MCONST("numpy.e", 2.718281828459045),
    MCONST("numpy.inf", INFINITY), MCONST("numpy.nan", NAN),

    /* a.view(dtype) is typed as a call of this row with a as its first argument
     * (infer_array_method); the hook checks the arity, to count view()'s own arguments. */
    {.path = "numpy.ndarray.view", .kind = BK_FUNC, .id = BI_ARRAY_VIEW, ARGS(2, 2),
     FX(BF_VIEW | BF_CHECKS_ARITY), TH(TH_VIEW_DTYPE), HOOKS(infer_array_view_call, emit_array_view_call)},
    /* a.reshape(shape), a.reshape(d0, d1, ...): likewise */
    {.path = "numpy.ndarray.reshape", .kind = BK_FUNC, .id = BI_ARRAY_RESHAPE, ARGS(2, 1 + P2C_MAX_NDIM),
     FX(BF_VIEW | BF_CHECKS_ARITY), TH(TH_VIEW_RESHAPE),
     HOOKS(infer_array_reshape_call, emit_array_reshape_call)},
    /* q = a.copy(): likewise; the assignment copies a into q's storage (emit_assign_one) */
    {.path = "numpy.ndarray.copy", .kind = BK_FUNC, .id = BI_ARRAY_COPY, ARGS(1, 1),
     FX(BF_EFFECTS | BF_NEW_ARRAY | BF_CHECKS_ARITY), .infer = infer_array_copy_call},

    /* NumPy's reductions of a whole array, as Numba computes them (docs/semantics.md) */
    NP_REDUCE("numpy.sum", NPR_SUM, "p2c_np_sum"), NP_REDUCE("numpy.prod", NPR_PROD, "p2c_np_prod"),
    NP_REDUCE("numpy.mean", NPR_MEAN, "p2c_np_mean"), NP_REDUCE("numpy.var", NPR_VAR, "p2c_np_var"),
    NP_REDUCE("numpy.std", NPR_STD, "p2c_np_std"), NP_REDUCE("numpy.min", NPR_MIN, "p2c_np_min"),
    NP_REDUCE("numpy.max", NPR_MAX, "p2c_np_max"), NP_REDUCE("numpy.amin", NPR_MIN, "p2c_np_min"),
    NP_REDUCE("numpy.amax", NPR_MAX, "p2c_np_max"), NP_REDUCE("numpy.nanmin", NPR_NANMIN, "p2c_np_nanmin"),
    NP_REDUCE("numpy.nanmax", NPR_NANMAX, "p2c_np_nanmax"),
    NP_REDUCE("numpy.nanmean", NPR_NANMEAN, "p2c_np_nanmean"),
    NP_REDUCE("numpy.nansum", NPR_NANSUM, "p2c_np_nansum"),
    NP_REDUCE("numpy.nanprod", NPR_NANPROD, "p2c_np_nanprod"),
    NP_REDUCE("numpy.count_nonzero", NPR_COUNT_NONZERO, "p2c_np_count_nonzero"),
    NP_REDUCE("numpy.all", NPR_ALL, "p2c_np_all"), NP_REDUCE("numpy.any", NPR_ANY, "p2c_np_any"),

    /* NumPy's array creation, in @jit functions the host calls (docs/python.md, "CPU functions") */
    NP_ALLOC("numpy.empty", NPA_EMPTY, 1, 2), NP_ALLOC("numpy.zeros", NPA_ZEROS, 1, 2),
    NP_ALLOC("numpy.ones", NPA_ONES, 1, 2), NP_ALLOC("numpy.full", NPA_FULL, 2, 3),
    NP_ALLOC("numpy.empty_like", NPA_EMPTY_LIKE, 1, 2), NP_ALLOC("numpy.zeros_like", NPA_ZEROS_LIKE, 1, 2),
    NP_ALLOC("numpy.ones_like", NPA_ONES_LIKE, 1, 2), NP_ALLOC("numpy.full_like", NPA_FULL_LIKE, 2, 3),
    NP_ALLOC("numpy.arange", NPA_ARANGE, 1, 4),

    TY("numpy.bool_", type_bool), TY("numpy.bool", type_bool), TY("numpy.int8", type_int8),
    TY("numpy.int16", type_int16),
    TY("numpy.int32", type_int32), TY("numpy.int64", type_int64), TY("numpy.intp", type_int64),
    TY("numpy.uint8", type_uint8), TY("numpy.uint16", type_uint16), TY("numpy.uint32", type_uint32),
    TY("numpy.uint64", type_uint64), TY("numpy.uintp", type_uint64), TY("numpy.float32", type_float32),
    TY("numpy.float64", type_float64), TY("numpy.single", type_float32), TY("numpy.double", type_float64),
    TY("numba.boolean", type_bool), TY("numba.bool_", type_bool), TY("numba.int8", type_int8),
    TY("numba.int16", type_int16), TY("numba.int32", type_int32), TY("numba.int64", type_int64),
    TY("numba.intp", type_int64), TY("numba.uint8", type_uint8), TY("numba.uint16", type_uint16),
    TY("numba.uint32", type_uint32), TY("numba.uint64", type_uint64), TY("numba.uintp", type_uint64),
    TY("numba.float32", type_float32), TY("numba.float64", type_float64), TY("numba.double", type_float64),
    TY("numba.types.boolean", type_bool), TY("numba.types.int8", type_int8),
    TY("numba.types.int16", type_int16), TY("numba.types.int32", type_int32),
    TY("numba.types.int64", type_int64), TY("numba.types.uint8", type_uint8),
    TY("numba.types.uint16", type_uint16), TY("numba.types.uint32", type_uint32),
    TY("numba.types.uint64", type_uint64), TY("numba.types.float32", type_float32),
    TY("numba.types.float64", type_float64),
    TY("numba.void", type_void), TY("numba.types.void", type_void),

    {.path = "builtins.abs", .kind = BK_FUNC, .id = BI_ABS, ARGS(1, 1), FX(BF_NONNEG),
     HOOKS(infer_abs_call, emit_abs_call)},
    {.path = "builtins.min", .kind = BK_FUNC, .id = BI_MIN, ARGS(2, 127),
     FX(BF_NONNEG_IF_ALL | BF_CHECKS_ARITY), .c64 = "p2c_min", H(H_MINMAX),
     HOOKS(infer_minmax_call, emit_minmax_call)},
    {.path = "builtins.max", .kind = BK_FUNC, .id = BI_MAX, ARGS(2, 127),
     FX(BF_NONNEG_IF_ANY | BF_CHECKS_ARITY), .c64 = "p2c_max", H(H_MINMAX),
     HOOKS(infer_minmax_call, emit_minmax_call)},
    OPER("builtins.pow", OP_POW),
    MOD("operator"),
    OPER("operator.add", OP_ADD), OPER("operator.sub", OP_SUB), OPER("operator.mul", OP_MUL),
    OPER("operator.truediv", OP_DIV), OPER("operator.floordiv", OP_FLOORDIV),
    OPER("operator.mod", OP_MOD), OPER("operator.pow", OP_POW), OPER("operator.lshift", OP_LSHIFT),
    OPER("operator.rshift", OP_RSHIFT), OPER("operator.and_", OP_BITAND),
    OPER("operator.or_", OP_BITOR), OPER("operator.xor", OP_BITXOR), OPER("operator.lt", OP_LT),
    OPER("operator.le", OP_LE), OPER("operator.gt", OP_GT), OPER("operator.ge", OP_GE),
    OPER("operator.eq", OP_EQ), OPER("operator.ne", OP_NE),
    CAST("builtins.int", type_int64), CAST("builtins.float", type_float64),
    CAST("builtins.bool", type_bool),
    FN("builtins.round", BI_ROUND, 1, 2, 0, infer_round_call, emit_round_call),
    /* isinstance(v, T): a bool known when the kernel is compiled */
    FN("builtins.isinstance", BI_ISINSTANCE, 2, 2, BF_CHECKS_ARITY, infer_isinstance_call, emit_isinstance_call),
    {.path = "builtins.len", .kind = BK_FUNC, .id = BI_LEN, ARGS(1, 1), .bits = 62, FX(BF_NONNEG),
     HOOKS(infer_len_call, emit_len_call)},
    FN("builtins.range", BI_RANGE, 1, 3, BF_ITERABLE | BF_CHECKS_ARITY, infer_loop_only_call, NULL),
    /* numba.prange: range whose iterations may run on several cores (BF_PARALLEL); else range */
    FN("numba.prange", BI_RANGE, 1, 3, BF_ITERABLE | BF_CHECKS_ARITY | BF_PARALLEL, infer_loop_only_call, NULL),
    FN("builtins.print", BI_PRINT, 0, 127, BF_EFFECTS | BF_KEYWORDS | BF_CHECKS_ARITY, infer_print_call,
       NULL),
    FN("builtins.enumerate", BI_ENUMERATE, 1, 2, BF_ITERABLE | BF_CHECKS_ARITY, infer_loop_only_call, NULL),
    FN("builtins.zip", BI_ZIP, 1, 127, BF_ITERABLE | BF_CHECKS_ARITY, infer_loop_only_call, NULL),
    /* numba's literal_unroll(t), under its three import paths: `for x in literal_unroll(t)` is
     * lowered to a loop over the tuple t (lower_for, infer_unrolled) */
    FN("numba.literal_unroll", BI_LITERAL_UNROLL, 1, 1, BF_CHECKS_ARITY, infer_loop_only_call, NULL),
    FN("numba.misc.special.literal_unroll", BI_LITERAL_UNROLL, 1, 1, BF_CHECKS_ARITY, infer_loop_only_call,
       NULL),
    FN("numba.cuda.misc.special.literal_unroll", BI_LITERAL_UNROLL, 1, 1, BF_CHECKS_ARITY,
       infer_loop_only_call, NULL),
    FN("builtins.tuple", BI_TUPLE, 1, 1, 0, infer_tuple_call, emit_tuple_call),
    FN("builtins.complex", BI_COMPLEX, 1, 2, BF_CHECKS_ARITY, infer_complex_ctor_call,
       emit_complex_ctor_call),

    MOD("cmath"),
    CMATH("cmath.sqrt", 1, 1, NULL, "p2c_csqrt", TH2(TH_CSQRT, TH_CEXPLOG), infer_cmath_call,
          emit_cmath_call),
    CEXP("cmath.exp", "p2c_cexp"),
    CMATH("cmath.log", 1, 2, NULL, "p2c_clog", TH(TH_CEXPLOG), infer_cmath_call, emit_cmath_call),
    CEXP("cmath.log10", "p2c_clog10"),
    CHYP("cmath.sin", "p2c_csin"), CHYP("cmath.cos", "p2c_ccos"), CHYP("cmath.tan", "p2c_ctan"),
    CHYP("cmath.sinh", "p2c_csinh"), CHYP("cmath.cosh", "p2c_ccosh"), CHYP("cmath.tanh", "p2c_ctanh"),
    CINV("cmath.asin", "p2c_casin"), CINV("cmath.acos", "p2c_cacos"), CINV("cmath.atan", "p2c_catan"),
    CINV("cmath.asinh", "p2c_casinh"), CINV("cmath.acosh", "p2c_cacosh"),
    CINV("cmath.atanh", "p2c_catanh"),
    /* np.log2 of a complex number, which cmath lacks: a row no Python name reaches (the space) */
    CEXP("numpy.log2 of complex", "p2c_clog2"),
    CMATH("cmath.phase", 1, 1, NULL, "p2c_cphase", TH(TH_CEXPLOG), infer_cmath_phase_call,
          emit_cmath_call),
    CMATH("cmath.polar", 1, 1, NULL, "p2c_cpolar", TH(TH_CEXPLOG), infer_cmath_polar_call,
          emit_polar_call),
    CMATH("cmath.rect", 2, 2, NULL, "p2c_crect", TH(TH_CEXPLOG), infer_cmath_rect_call, emit_cmath_call),
    CPRED("cmath.isnan", "p2c_cisnan"), CPRED("cmath.isinf", "p2c_cisinf"),
    CPRED("cmath.isfinite", "p2c_cisfinite"),
    MCONST("cmath.pi", 3.141592653589793), MCONST("cmath.e", 2.718281828459045),
    MCONST("cmath.tau", 6.283185307179586), MCONST("cmath.inf", INFINITY), MCONST("cmath.nan", NAN),
    TY("numpy.complex64", type_complex64), TY("numpy.complex128", type_complex128),
    TY("numpy.csingle", type_complex64), TY("numpy.cdouble", type_complex128),
    TY("numpy.complex_", type_complex128), TY("numba.complex64", type_complex64),
    TY("numba.complex128", type_complex128), TY("numba.types.complex64", type_complex64),
    TY("numba.types.complex128", type_complex128),
    TY("numpy.float16", type_float16), TY("numpy.half", type_float16), TY("numba.float16", type_float16),
    TY("numba.cuda.types.float16", type_float16),
    TY("numba.types.float16", type_float16),

    /* bfloat16 (numba-cuda's numba.cuda.bf16 and numba.cuda.types.bfloat16): the type, a
     * constructor from any number (to nearest even), and numba.cuda.bf16's intrinsics, each
     * rounding once as the GPU's bf16 instructions and cuda_bf16.h's functions do */
    TY("numba.bfloat16", type_bfloat16), TY("numba.types.bfloat16", type_bfloat16),
    TY("numba.cuda.bfloat16", type_bfloat16), TY("numba.cuda.types.bfloat16", type_bfloat16),
    TY("numba.cuda.bf16.bfloat16", type_bfloat16),
    /* the fp8 types of numba.cuda._internal.cuda_fp8: constructors (cuda_fp8.h's, SATFINITE) */
    TY("numba.fp8_e5m2", type_fp8_e5m2), TY("numba.fp8_e4m3", type_fp8_e4m3),
    TY("numba.fp8_e8m0", type_fp8_e8m0), MOD("numba.cuda._internal.cuda_fp8"),
    TY("numba.cuda._internal.cuda_fp8.fp8_e5m2", type_fp8_e5m2),
    TY("numba.cuda._internal.cuda_fp8.fp8_e4m3", type_fp8_e4m3),
    TY("numba.cuda._internal.cuda_fp8.fp8_e8m0", type_fp8_e8m0),
    /* ... and its conversions of storage bytes, with cuda_fp8.h's enums as arguments (TH_FP8_CVT) */
    FP8_CVT("cvt_float_to_fp8", "fSI", type_uint8), FP8_CVT("cvt_double_to_fp8", "dSI", type_uint8),
    FP8_CVT("cvt_bfloat16raw_to_fp8", "rSI", type_uint8),
    FP8_CVT("cvt_float_to_e8m0", "fSR", type_uint8), FP8_CVT("cvt_double_to_e8m0", "dSR", type_uint8),
    FP8_CVT("cvt_bfloat16raw_to_e8m0", "rSR", type_uint8),
    FP8_CVT("cvt_e8m0_to_bf16raw", "u", type_bf16_raw),
    MOD("numba.cuda.bf16"),
    BF16("habs", "b", type_bfloat16, "p2c_bf16_abs"), BF16("hneg", "b", type_bfloat16, "p2c_bf16_neg"),
    BF16("hadd", "bb", type_bfloat16, "p2c_bf16_add"), BF16("hsub", "bb", type_bfloat16, "p2c_bf16_sub"),
    BF16("hmul", "bb", type_bfloat16, "p2c_bf16_mul"), BF16("hdiv", "bb", type_bfloat16, "p2c_bf16_div"),
    BF16("hadd_rn", "bb", type_bfloat16, "p2c_bf16_add"), BF16("hsub_rn", "bb", type_bfloat16, "p2c_bf16_sub"),
    BF16("hmul_rn", "bb", type_bfloat16, "p2c_bf16_mul"),
    BF16("hadd_sat", "bb", type_bfloat16, "p2c_bf16_add_sat"),
    BF16("hsub_sat", "bb", type_bfloat16, "p2c_bf16_sub_sat"),
    BF16("hmul_sat", "bb", type_bfloat16, "p2c_bf16_mul_sat"),
    BF16("hfma", "bbb", type_bfloat16, "p2c_bf16_fma"), BF16("hfma_sat", "bbb", type_bfloat16, "p2c_bf16_fma_sat"),
    BF16("hfma_relu", "bbb", type_bfloat16, "p2c_bf16_fma_relu"),
    BF16("heq", "bb", type_bool, "p2c_bf16_eq"), BF16("hne", "bb", type_bool, "p2c_bf16_ne"),
    BF16("hge", "bb", type_bool, "p2c_bf16_ge"), BF16("hgt", "bb", type_bool, "p2c_bf16_gt"),
    BF16("hle", "bb", type_bool, "p2c_bf16_le"), BF16("hlt", "bb", type_bool, "p2c_bf16_lt"),
    BF16("hequ", "bb", type_bool, "p2c_bf16_equ"), BF16("hneu", "bb", type_bool, "p2c_bf16_neu"),
    BF16("hgeu", "bb", type_bool, "p2c_bf16_geu"), BF16("hgtu", "bb", type_bool, "p2c_bf16_gtu"),
    BF16("hleu", "bb", type_bool, "p2c_bf16_leu"), BF16("hltu", "bb", type_bool, "p2c_bf16_ltu"),
    BF16("hmax", "bb", type_bfloat16, "p2c_bf16_max"), BF16("hmin", "bb", type_bfloat16, "p2c_bf16_min"),
    BF16("hmax_nan", "bb", type_bfloat16, "p2c_bf16_max_nan"),
    BF16("hmin_nan", "bb", type_bfloat16, "p2c_bf16_min_nan"),
    BF16("hisnan", "b", type_bool, "p2c_bf16_isnan"), BF16("hisinf", "b", type_int32, "p2c_bf16_isinf"),
    BF16("bfloat16_to_float32", "b", type_float32, "p2c_float_of"),
    BF16("float32_to_bfloat16", "f", type_bfloat16, "p2c_bf16_of_rn"),
    BF16("float64_to_bfloat16", "d", type_bfloat16, "p2c_bf16_of"),
    BF16_MODES("float32_to_bfloat16", "f", type_bfloat16, "p2c_bf16_of"),
    BF16("bfloat16_to_int8_rz", "b", type_int8, "p2c_bf16_to_rz<int8_t>"),
    BF16("bfloat16_to_uint8_rz", "b", type_uint8, "p2c_bf16_to_rz<uint8_t>"),
    BF16_INT("int16", "s", type_int16, "int16_t"), BF16_INT("uint16", "S", type_uint16, "uint16_t"),
    BF16_INT("int32", "i", type_int32, "int32_t"), BF16_INT("uint32", "I", type_uint32, "uint32_t"),
    BF16_INT("int64", "l", type_int64, "int64_t"), BF16_INT("uint64", "L", type_uint64, "uint64_t"),
    BF16("bfloat16_as_int16", "b", type_int16, "p2c_bf16_as_int16"),
    BF16("bfloat16_as_uint16", "b", type_uint16, "p2c_bf16_as_uint16"),
    BF16("int16_as_bfloat16", "s", type_bfloat16, "p2c_bf16_from_bits"),
    BF16("uint16_as_bfloat16", "S", type_bfloat16, "p2c_bf16_from_bits"),
    BF16_MATH("htrunc", "p2c_bf16_trunc"), BF16_MATH("hceil", "p2c_bf16_ceil"),
    BF16_MATH("hfloor", "p2c_bf16_floor"), BF16_MATH("hrint", "p2c_bf16_rint"),
    BF16_MATH("hsqrt", "p2c_bf16_sqrt"), BF16_MATH("hrsqrt", "p2c_bf16_rsqrt"),
    BF16_MATH("hrcp", "p2c_bf16_rcp"), BF16_MATH("hlog", "p2c_bf16_log"),
    BF16_MATH("hlog2", "p2c_bf16_log2"), BF16_MATH("hlog10", "p2c_bf16_log10"),
    BF16_MATH("hcos", "p2c_bf16_cos"), BF16_MATH("hsin", "p2c_bf16_sin"),
    BF16_MATH("hexp", "p2c_bf16_exp"), BF16_MATH("hexp2", "p2c_bf16_exp2"),
    BF16_MATH("hexp10", "p2c_bf16_exp10"), BF16_MATH("htanh", "p2c_bf16_tanh"),
    BF16_MATH("htanh_approx", "p2c_bf16_tanh"),

    /* cuda.fp16: float16 intrinsics, each rounding once as the GPU's f16 instructions do */
    MOD("numba.cuda.fp16"),
    FP16("numba.cuda.fp16.hadd", 2, &type_float16, "p2c_hadd"),
    FP16("numba.cuda.fp16.hsub", 2, &type_float16, "p2c_hsub"),
    FP16("numba.cuda.fp16.hmul", 2, &type_float16, "p2c_hmul"),
    FP16("numba.cuda.fp16.hdiv", 2, &type_float16, "p2c_hdiv"),
    FP16("numba.cuda.fp16.hmax", 2, &type_float16, "p2c_hmax"),
    FP16("numba.cuda.fp16.hmin", 2, &type_float16, "p2c_hmin"),
    FP16("numba.cuda.fp16.hneg", 1, &type_float16, "p2c_hneg"),
    FP16("numba.cuda.fp16.habs", 1, &type_float16, "p2c_habs"),
    FP16("numba.cuda.fp16.hfma", 3, &type_float16, "p2c_hfma"),
    FP16("numba.cuda.fp16.heq", 2, &type_bool, "p2c_heq"),
    FP16("numba.cuda.fp16.hne", 2, &type_bool, "p2c_hne"),
    FP16("numba.cuda.fp16.hgt", 2, &type_bool, "p2c_hgt"),
    FP16("numba.cuda.fp16.hge", 2, &type_bool, "p2c_hge"),
    FP16("numba.cuda.fp16.hlt", 2, &type_bool, "p2c_hlt"),
    FP16("numba.cuda.fp16.hle", 2, &type_bool, "p2c_hle"),
    FP16_MATH("numba.cuda.fp16.hsin", "p2c_hsin"), FP16_MATH("numba.cuda.fp16.hcos", "p2c_hcos"),
    FP16_MATH("numba.cuda.fp16.hlog", "p2c_hlog"), FP16_MATH("numba.cuda.fp16.hlog2", "p2c_hlog2"),
    FP16_MATH("numba.cuda.fp16.hlog10", "p2c_hlog10"), FP16_MATH("numba.cuda.fp16.hexp", "p2c_hexp"),
    FP16_MATH("numba.cuda.fp16.hexp2", "p2c_hexp2"), FP16_MATH("numba.cuda.fp16.hexp10", "p2c_hexp10"),
    FP16_MATH("numba.cuda.fp16.hsqrt", "p2c_hsqrt"), FP16_MATH("numba.cuda.fp16.hrsqrt", "p2c_hrsqrt"),
    FP16_MATH("numba.cuda.fp16.hrcp", "p2c_hrcp"), FP16_MATH("numba.cuda.fp16.hceil", "p2c_hceil"),
    FP16_MATH("numba.cuda.fp16.hfloor", "p2c_hfloor"), FP16_MATH("numba.cuda.fp16.htrunc", "p2c_htrunc"),
    FP16_MATH("numba.cuda.fp16.hrint", "p2c_hrint"),

    /* CUDA vector types (type_vectors' rows: int8 .. uint64, float32, float64), then Numba's
     * aliases, its C names for those types on Linux x86-64 and AArch64 (long is 64 bits) */
    VECTORS("numba.cuda.int8x", 0), VECTORS("numba.cuda.int16x", 1),
    VECTORS("numba.cuda.int32x", 2), VECTORS("numba.cuda.int64x", 3),
    VECTORS("numba.cuda.uint8x", 4), VECTORS("numba.cuda.uint16x", 5),
    VECTORS("numba.cuda.uint32x", 6), VECTORS("numba.cuda.uint64x", 7),
    VECTORS("numba.cuda.float32x", 8), VECTORS("numba.cuda.float64x", 9),
    VECTORS("numba.cuda.char", 0), VECTORS("numba.cuda.short", 1), VECTORS("numba.cuda.int", 2),
    VECTORS("numba.cuda.long", 3), VECTORS("numba.cuda.longlong", 3),
    VECTORS("numba.cuda.uchar", 4), VECTORS("numba.cuda.ushort", 5), VECTORS("numba.cuda.uint", 6),
    VECTORS("numba.cuda.ulong", 7), VECTORS("numba.cuda.ulonglong", 7),
    VECTORS("numba.cuda.float", 8), VECTORS("numba.cuda.double", 9),

    MOD("numba.cuda.libdevice"),
#include "builtins/libdevice.def"
};

const Type *builtin_libdevice_type(char letter) {
  switch (letter) {
  case 'i': case 'I': return &type_int32;
  case 'l': case 'L': return &type_int64;
  case 'h': case 'H': return &type_int16;
  case 'f': case 'F': return &type_float32;
  case 'd': case 'D': return &type_float64;
  case 'v': return &type_void;
  default: return NULL;
  }
}

const Builtin *builtin_table(size_t *count) {
  *count = sizeof table / sizeof table[0];
  return table;
}

const Builtin *builtin_lookup(const char *path) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].kind != BK_MODULE && strcmp(table[i].path, path) == 0) return &table[i];
  return NULL;
}

void builtins_index(StrMap *m) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].kind != BK_MODULE) strmap_add(m, table[i].path, (void *)&table[i]);
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
  return p;
}
