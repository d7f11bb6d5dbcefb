/* Identifier hygiene for generated code (see names.h). The reserved list covers C11 and C++17
 * keywords, alternative operator spellings, CUDA built-in variables and qualifiers, names the
 * CUDA math library and printf declare, the integer typedefs of the prelude, and the prefixes
 * the generator keeps for itself (p2c_, PYK2CUDA_) or the implementation reserves (__, _X). */
#include "codegen/names.h"

#include <ctype.h>
#include <string.h>

static const char *const reserved[] = {
    /* C and C++ keywords */
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "override", "final",
    "main", "NULL", "EOF", "assert", "errno", "offsetof", "std", "size_t", "ptrdiff_t",
    /* CUDA */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "uint3", "int3",
    "float2", "float3", "float4", "double2", "half", "printf", "malloc", "free", "memcpy",
    "memset", "clock", "clock64", "atomicAdd", "atomicSub", "atomicMax", "atomicMin",
    "atomicExch", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor", "atomicInc", "atomicDec",
    "cudaError_t", "texture", "surface",
    /* integer typedefs of the prelude */
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    /* math library names the generated code may call */
    "abs", "labs", "llabs", "min", "max", "fmin", "fmax", "sqrt", "sqrtf", "exp", "expf", "expm1",
    "expm1f", "log", "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "sin", "sinf",
    "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2",
    "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf", "asinh", "asinhf", "acosh",
    "acoshf", "atanh", "atanhf", "fabs", "fabsf", "erf", "erff", "erfc", "erfcf", "tgamma",
    "tgammaf", "lgamma", "lgammaf", "pow", "powf", "hypot", "hypotf", "copysign", "copysignf",
    "fmod", "fmodf", "floor", "floorf", "ceil", "ceilf", "trunc", "truncf", "rint", "rintf",
    "round", "roundf", "isnan", "isinf", "isfinite", "signbit", "nan", "nanf", "fma", "fmaf",
    "exp2", "exp2f", "cbrt", "cbrtf", "remainder", "modf", "frexp", "ldexp", "scalbn", "lrint",
    "llrint", "exp10", "exp10f", "rsqrt", "rsqrtf", "rcbrt", "rcbrtf", "sinpi", "sinpif", "cospi",
    "cospif", "sincos", "sincosf", "sincospi", "normcdf", "normcdff", "normcdfinv", "erfinv",
    "erfcinv", "erfcx", "j0", "j1", "jn", "y0", "y1", "yn", "logb", "ilogb", "nearbyint", "nextafter",
    "fdim", "remquo", "norm", "norm3d", "norm4d", "rnorm", "rhypot", "saturate", "signbit",
    "__sinf", "__cosf", "__expf", "__logf", "max", "umax", "umin", "llmax", "llmin", "ullmax",
    "ullmin", "fminf", "fmaxf", "fabsf", "sqrtf", "lround", "llround", "isfinite",
};

bool name_is_reserved(const char *name) {
  if (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1]))) return true;
  if (strncmp(name, "p2c_", 4) == 0 || strncmp(name, "PYK2CUDA", 8) == 0) return true;
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (strcmp(reserved[i], name) == 0) return true;
  return false;
}

void namer_init(Namer *n, Arena *a, const Namer *parent) {
  n->arena = a;
  n->parent = parent;
  n->taken.items = NULL;
  n->taken.len = n->taken.cap = 0;
}

static bool is_taken(const Namer *n, const char *name) {
  for (; n; n = n->parent)
    for (size_t i = 0; i < n->taken.len; i++)
      if (strcmp(n->taken.items[i], name) == 0) return true;
  return false;
}

static const char *claim(Namer *n, const char *want, bool internal) {
  const char *name = want;
  if (!internal && name_is_reserved(name)) {
    /* "__x" and "_X" stay recognizable but leave the reserved space; "int" becomes "int_";
     * the generator's own prefixes get "py_" in front, so that no suffix is needed to escape. */
    while (name[0] == '_') name++;
    bool ours = strncmp(name, "p2c_", 4) == 0 || strncmp(name, "PYK2CUDA", 8) == 0;
    name = arena_printf(n->arena, "%s%s%s", ours ? "py_" : name[0] ? "" : "v", name, ours ? "" : "_");
  }
  const char *base = name;
  for (int k = 2; is_taken(n, name) || (!internal && name_is_reserved(name)); k++)
    name = arena_printf(n->arena, "%s%s%d", base, internal ? "" : "_", k);
  vec_push(n->arena, &n->taken, name);
  return name;
}

const char *namer_claim(Namer *n, const char *want) { return claim(n, want, false); }

const char *namer_claim_temp(Namer *n, const char *base) {
  return claim(n, arena_printf(n->arena, "p2c_%s", base), true);
}
