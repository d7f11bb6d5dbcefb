/* Identifier hygiene for generated code (see names.h). The reserved list covers C11 and C++17
 * keywords, alternative operator spellings, CUDA built-in variables and qualifiers, names the
 * CUDA math library and printf declare, the integer typedefs of the prelude, the macros and
 * global names of the host library headers the simulator's prelude includes (host_names.h,
 * generated at build time from those headers: INFINITY, M_PI, RAND_MAX, exit), and the prefixes
 * the generator keeps for itself (p2c_, P2C_ for the macros of the generated code and of the
 * simulator's prelude, PYK2CUDA_) or the implementation reserves (__, _X). */
#include "codegen/names.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_names.h"

/* Each list is sorted in strcmp order, for bsearch (tests/unit/test_codegen.c checks it). */

/* C and C++ keywords, and names the C and C++ libraries define as macros or types */
static const char *const keywords[] = {
    "EOF", "NULL", "alignas", "alignof", "and", "and_eq", "asm", "assert", "auto", "bitand",
    "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class",
    "co_await", "co_return", "co_yield", "compl", "concept", "const", "const_cast", "consteval",
    "constexpr", "constinit", "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "errno", "explicit", "export", "extern", "false", "final",
    "float", "for", "friend", "goto", "if", "inline", "int", "long", "main", "mutable", "namespace",
    "new", "noexcept", "not", "not_eq", "nullptr", "offsetof", "operator", "or", "or_eq",
    "override", "private", "protected", "ptrdiff_t", "public", "register", "reinterpret_cast",
    "requires", "restrict", "return", "short", "signed", "size_t", "sizeof", "static",
    "static_assert", "static_cast", "std", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
};

/* CUDA built-in variables, types and device-runtime functions */
static const char *const cuda_names[] = {
    "atomicAdd", "atomicAnd", "atomicCAS", "atomicDec", "atomicExch", "atomicInc", "atomicMax",
    "atomicMin", "atomicOr", "atomicSub", "atomicXor", "blockDim", "blockIdx", "clock", "clock64",
    "cudaError_t", "dim3", "double2", "float2", "float3", "float4", "free", "gridDim", "half",
    "int3", "malloc", "memcpy", "memset", "printf", "surface", "texture", "threadIdx", "uint3",
    "warpSize",
};

/* integer typedefs of the prelude */
static const char *const prelude_typedefs[] = {
    "int16_t", "int32_t", "int64_t", "int8_t", "uint16_t", "uint32_t", "uint64_t", "uint8_t",
};

/* math library names the generated code may call */
static const char *const math_names[] = {
    "__cosf", "__expf", "__logf", "__sinf", "abs", "acos", "acosf", "acosh", "acoshf", "asin",
    "asinf", "asinh", "asinhf", "atan", "atan2", "atan2f", "atanf", "atanh", "atanhf", "cbrt",
    "cbrtf", "ceil", "ceilf", "copysign", "copysignf", "cos", "cosf", "cosh", "coshf", "cospi",
    "cospif", "erf", "erfc", "erfcf", "erfcinv", "erfcx", "erff", "erfinv", "exp", "exp10",
    "exp10f", "exp2", "exp2f", "expf", "expm1", "expm1f", "fabs", "fabsf", "fdim", "floor",
    "floorf", "fma", "fmaf", "fmax", "fmaxf", "fmin", "fminf", "fmod", "fmodf", "frexp", "hypot",
    "hypotf", "ilogb", "isfinite", "isinf", "isnan", "j0", "j1", "jn", "labs", "ldexp", "lgamma",
    "lgammaf", "llabs", "llmax", "llmin", "llrint", "llround", "log", "log10", "log10f", "log1p",
    "log1pf", "log2", "log2f", "logb", "logf", "lrint", "lround", "max", "min", "modf", "nan",
    "nanf", "nearbyint", "nextafter", "norm", "norm3d", "norm4d", "normcdf", "normcdff",
    "normcdfinv", "pow", "powf", "rcbrt", "rcbrtf", "remainder", "remquo", "rhypot", "rint",
    "rintf", "rnorm", "round", "roundf", "rsqrt", "rsqrtf", "saturate", "scalbn", "signbit", "sin",
    "sincos", "sincosf", "sincospi", "sinf", "sinh", "sinhf", "sinpi", "sinpif", "sqrt", "sqrtf",
    "tan", "tanf", "tanh", "tanhf", "tgamma", "tgammaf", "trunc", "truncf", "ullmax", "ullmin",
    "umax", "umin", "y0", "y1", "yn",
};


typedef struct WordList {
  const char *const *words;
  size_t count;
} WordList;

#define WORD_LIST(a) {a, sizeof a / sizeof a[0]}
static const WordList reserved_lists[] = {
    WORD_LIST(keywords), WORD_LIST(cuda_names), WORD_LIST(prelude_typedefs), WORD_LIST(math_names),
    WORD_LIST(host_names),
};

static int compare_words(const void *key, const void *elem) {
  return strcmp(key, *(const char *const *)elem);
}

/* name_is_reserved but for the "_X" prefix (namer_claim_symbol's test). */
static bool name_is_reserved_word(const char *name) {
  if (name[0] == '_' && name[1] == '_') return true;
  if (strncmp(name, "p2c_", 4) == 0 || strncmp(name, "P2C_", 4) == 0 ||
      strncmp(name, "PYK2CUDA", 8) == 0)
    return true;
  for (size_t i = 0; i < sizeof reserved_lists / sizeof reserved_lists[0]; i++) {
    const WordList *l = &reserved_lists[i];
    if (bsearch(name, l->words, l->count, sizeof *l->words, compare_words)) return true;
  }
  return false;
}

bool name_is_reserved(const char *name) {
  return (name[0] == '_' && isupper((unsigned char)name[1])) || name_is_reserved_word(name);
}

bool names_reserved_lists_sorted(void) {
  for (size_t i = 0; i < sizeof reserved_lists / sizeof reserved_lists[0]; i++)
    for (size_t j = 1; j < reserved_lists[i].count; j++)
      if (strcmp(reserved_lists[i].words[j - 1], reserved_lists[i].words[j]) >= 0) return false;
  return true;
}

void namer_init(Namer *n, Arena *a, const Namer *parent) {
  n->arena = a;
  n->parent = parent;
  strmap_init(&n->taken, a);
  strmap_init(&n->next_number, a);
}

static bool is_taken(const Namer *n, const char *name) {
  for (; n; n = n->parent)
    if (strmap_has(&n->taken, name)) return true;
  return false;
}

/* The numbered variants of `base` ("x_2", "x_3", ...; "p2c_t2", ... for temporaries) are tried
 * in order; next_number remembers where the last search for this base stopped, so that many
 * claims of one base cost linear time. Skipping the numbers below it is safe: they were taken
 * (or reserved) when that search passed them, and names are never released. */
static const char *numbered_variant(Namer *n, const char *base, bool internal) {
  uintptr_t k = (uintptr_t)strmap_get(&n->next_number, base);
  if (k < 2) k = 2;
  const char *name;
  do
    name = arena_printf(n->arena, "%s%s%ju", base, internal ? "" : "_", (uintmax_t)k++);
  while (is_taken(n, name) || (!internal && name_is_reserved(name)));
  strmap_put(&n->next_number, base, (void *)k);
  return name;
}

/* C identifiers are ASCII here (NVRTC and host compilers differ on UTF-8 ones): each non-ASCII
 * character of a Python name becomes "u" and 4 hex digits, or "U" and 8 ("été" -> "u00e9tu00e9").
 * A collision with a Python name spelled that way is settled by the numbering in claim. */
static const char *ascii_spelling(Namer *n, const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  while (*p && *p < 0x80) p++;
  if (!*p) return name;
  StrBuf sb;
  sb_init(&sb, n->arena);
  for (p = (const unsigned char *)name; *p;) {
    if (*p < 0x80) {
      sb_putc(&sb, (char)*p++);
      continue;
    }
    /* Valid UTF-8 (checked when the source was read): a lead byte and its continuations. */
    int extra = *p >= 0xF0 ? 3 : *p >= 0xE0 ? 2 : 1;
    uint32_t cp = *p++ & (0x3Fu >> extra);
    for (int i = 0; i < extra && (*p & 0xC0) == 0x80; i++) cp = cp << 6 | (*p++ & 0x3Fu);
    if (cp <= 0xFFFF) sb_printf(&sb, "u%04x", (unsigned)cp);
    else sb_printf(&sb, "U%08x", (unsigned)cp);
  }
  return sb_str(&sb);
}

static const char *claim(Namer *n, const char *want, bool internal) {
  const char *name = ascii_spelling(n, want);
  bool reserved = !internal && name_is_reserved(name);
  if (reserved) {
    /* "__x" and "_X" stay recognizable but leave the reserved space; "int" becomes "int_";
     * the generator's own prefixes get "py_" in front, so that no suffix is needed to escape. */
    while (name[0] == '_') name++;
    bool ours = strncmp(name, "p2c_", 4) == 0 || strncmp(name, "P2C_", 4) == 0 ||
                strncmp(name, "PYK2CUDA", 8) == 0;
    name = arena_printf(n->arena, "%s%s%s", ours ? "py_" : name[0] ? "" : "v", name, ours ? "" : "_");
    reserved = name_is_reserved(name);
  }
  if (reserved || is_taken(n, name)) name = numbered_variant(n, name, internal);
  strmap_put(&n->taken, name, NULL);
  return name;
}

const char *namer_claim(Namer *n, const char *want) { return claim(n, want, false); }

const char *namer_claim_symbol(Namer *n, const char *want) {
  if (strcmp(ascii_spelling(n, want), want) != 0 || is_taken(n, want) || name_is_reserved_word(want))
    return namer_claim(n, want);
  strmap_put(&n->taken, want, NULL);
  return want;
}

void namer_take(Namer *n, const char *name) { strmap_put(&n->taken, name, NULL); }

const char *namer_claim_temp(Namer *n, const char *base) {
  return claim(n, arena_printf(n->arena, "p2c_%s", base), true);
}
