/* The C form of a module's @jit host functions, for the first tier (libtcc, runtime/tcc/tcc.h;
 * docs/simulator.md, "Host functions: two tiers"). The same printer writes it from the same typed
 * AST as the CUDA C (codegen_c_form in emit.c runs it with Gen.c_form set); what differs is said
 * here, in one place each:
 *  - types: an array is a struct per element type and rank (p2c_array_double_2, laid out as
 *    the C++ template p2c_array<double, 2> is), declared before the code;
 *  - the prelude: a C header (below) makes CUDA's qualifiers vanish and declares the integer
 *    types and the libm functions the code calls (each recorded where it is printed: c_form_math);
 *    the helpers are prelude.c's own texts (prelude_emit_c), an overloaded helper renamed per
 *    type and chosen with _Generic, the two template helpers (min/max, abs) in a C form of their
 *    own, which the tier tests run against the C++ one;
 *  - the host entry: a C function taking cuLaunchKernel's kernelParams (void **), which the
 *    runtime calls directly.
 * Tuples are structs in both. NumPy's array creation and prange are the prelude's C texts (prelude.c:
 * the call's heap, the chunks run in turn). Whatever the C form cannot say (records, complex numbers, views,
 * bounds checks, CUDA intrinsics) refuses it with the reason
 * (c_form_refuse; CodegenResult.c_refused), and the runtime runs that function on the optimized
 * tier only. Codegen decides this itself, as it alone knows what it prints (codegen.h). A text
 * libtcc still rejects is refused at run time with libtcc's message, the same way. */
#include <string.h>

#include "codegen/cg.h"

void c_form_refuse(Gen *G, const char *why) {
  if (!G->c_refused) G->c_refused = why;
}

/* The element type's C spelling as part of a name: "unsigned char" -> "unsigned_char". */
static const char *name_part(Gen *G, const char *cname) {
  char *s = arena_strdup(G->a, cname);
  for (char *p = s; *p; p++)
    if (*p == ' ') *p = '_';
  return s;
}

const char *c_form_array_type(Gen *G, const Type *t) {
  const Type *e = t->dtype;
  if (e->kind != TY_BOOL && e->kind != TY_INT && e->kind != TY_FLOAT) {
    c_form_refuse(G, "an array of tuples, records, complex numbers or other non-number elements");
    return "p2c_array_unsupported";
  }
  bool known = false;
  for (size_t i = 0; i < G->c_arrays.len; i++)
    known |= G->c_arrays.items[i].dtype == e && G->c_arrays.items[i].ndim == t->ndim;
  if (!known) {
    CArray a = {e, t->ndim};
    vec_push(G->a, &G->c_arrays, a);
  }
  return arena_printf(G->a, "p2c_array_%s_%d", name_part(G, e->cname), t->ndim);
}

void c_form_math(Gen *G, const char *fn, int arity, bool f32) {
  for (size_t i = 0; i < G->c_math.len; i++)
    if (strcmp(G->c_math.items[i].name, fn) == 0) return;
  CMath m = {fn, arity, f32};
  vec_push(G->a, &G->c_math, m);
}

/* The C header: what the CUDA C takes from CUDA, C++ and the simulator's prelude, in C. */
static const char c_header[] =
    "/* The C form of this module's @jit host functions, for pyk2cuda's first tier (libtcc). */\n"
    "typedef signed char int8_t;\n"
    "typedef short int16_t;\n"
    "typedef int int32_t;\n"
    "typedef long int64_t;\n"
    "typedef unsigned char uint8_t;\n"
    "typedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef unsigned long uint64_t;\n"
    "typedef _Bool bool;\n"
    "#define true 1\n"
    "#define false 0\n"
    "#define __device__\n"
    "#define __forceinline__ inline\n"
    "#define __noinline__\n"
    "/* In loops: where the host's interrupt check is asked, every so many iterations (the\n"
    "   runtime's p2c_tier_poll says how many until the next time). */\n"
    "long p2c_tier_poll(void);\n"
    "static long p2c_tier_budget;\n"
    "#define P2C_SIM_POLL() do { if (--p2c_tier_budget < 0) p2c_tier_budget = p2c_tier_poll(); } while (0)\n";

/* The struct of each array type used, as p2c_array<T, N> lays it out. */
static void emit_array_structs(Gen *G, StrBuf *out) {
  for (size_t i = 0; i < G->c_arrays.len; i++) {
    CArray t = G->c_arrays.items[i];
    if (t.ndim == 0) {   /* a 0-d array: its element's address (C has no arrays of extent 0) */
      sb_printf(out, "typedef struct { %s *data; } p2c_array_%s_0;\n", t.dtype->cname, name_part(G, t.dtype->cname));
      continue;
    }
    sb_printf(out, "typedef struct { %s *data; int64_t shape[%d]; int64_t strides[%d]; } p2c_array_%s_%d;\n",
              t.dtype->cname, t.ndim, t.ndim, name_part(G, t.dtype->cname), t.ndim);
  }
}

/* libm's functions that the prelude's helpers and codegen's own spellings call (fmod in //,
 * fmin/fmax for min and max of two floats, ...), declared in every C form. */
static const CMath helper_libm[] = {
    {"fmod", 2, false}, {"fmodf", 2, true}, {"copysign", 2, false}, {"copysignf", 2, true},
    {"floor", 1, false}, {"floorf", 1, true}, {"ceil", 1, false}, {"ceilf", 1, true},
    {"fmin", 2, false}, {"fminf", 2, true}, {"fmax", 2, false}, {"fmaxf", 2, true},
    {"pow", 2, false}, {"rint", 1, false}, {"fabs", 1, false}, {"fabsf", 1, true},
};

/* The prototype of each libm function called. */
static void emit_math_decls(Gen *G, StrBuf *out) {
  for (size_t i = 0; i < sizeof helper_libm / sizeof helper_libm[0]; i++) c_form_math(G, helper_libm[i].name,
                                                                                       helper_libm[i].arity,
                                                                                       helper_libm[i].f32);
  for (size_t i = 0; i < G->c_math.len; i++) {
    const CMath *m = &G->c_math.items[i];
    const char *t = m->f32 ? "float" : "double";
    sb_printf(out, "%s %s(%s%s%s);\n", t, m->name, t, m->arity == 2 ? ", " : "", m->arity == 2 ? t : "");
  }
}

/* The helpers' bits the C form has (prelude_emit_c); any other refuses it, with what it is for. */
static void check_helpers(Gen *G) {
  HelperSet h = G->helpers;
  uint64_t c_bits = 0;
  for (int i = 0; i < H_COUNT; i++)
    if (prelude_c_form_has((Helper)i)) c_bits |= (uint64_t)1 << i;
  if (h.bits & ((uint64_t)1 << H_BOUNDS_VIEW)) c_form_refuse(G, "bounds checks");
  if (h.bits & ~c_bits) c_form_refuse(G, "a prelude helper its C form lacks");
  if (h.type_bits) c_form_refuse(G, "array views, complex numbers, float16, character sequences or datetimes");
  if (h.cuda_bits) c_form_refuse(G, "CUDA intrinsics");
}

void c_form_assemble(Gen *G, const StrBuf *defs, CodegenResult *out) {
  StrBuf text;
  sb_init(&text, G->a);
  check_helpers(G);
  sb_printf(&text, "/* Generated by pyk2cuda %s from %s. */\n", PYK2CUDA_VERSION_STRING, G->c->file);
  sb_puts(&text, c_header);
  emit_array_structs(G, &text);
  emit_tuple_structs(G, &text);
  emit_math_decls(G, &text);
  prelude_emit_c(&text, G->helpers);
  sb_puts(&text, sb_str(defs));
  out->text = sb_str(&text);
  out->len = text.len;
  out->c_refused = G->c_refused;
  const char **externs = arena_alloc(G->a, sizeof *externs * (G->c_math.len + 1));
  for (size_t i = 0; i < G->c_math.len; i++) externs[i] = G->c_math.items[i].name;
  externs[G->c_math.len] = NULL;
  out->c_externs = externs;
}

/* The host entry in C: its parameters read from kernelParams, as the CUDA C kernel's. */
void emit_host_entry_c(Gen *G, const Function *spec, const char *symbol, StrBuf *out) {
  bool result = host_has_result(spec), heap = spec->heap_alloc != NULL;
  const char *res = NULL;
  if (result) {
    const char *bytes = c_form_array_type(G, &(Type){.kind = TY_ARRAY, .dtype = &type_uint8, .ndim = 1});
    res = arena_printf(G->a, "(*(%s *)p2c_args[%d])", bytes, spec->nparams);
  }
  sb_printf(out, "/* The host's call of %s (@jit), in C: the arguments as cuLaunchKernel's kernelParams%s%s. */\n",
            spec->generic->name, result ? ", the result's bytes last" : "", heap ? "; its arrays live on the call's heap" : "");
  sb_printf(out, "void %s(void **p2c_args) {\n", symbol);
  if (heap) {
    helper_use(&G->helpers, H_NP_ALLOC);
    sb_puts(out, "  p2c_heap_begin();\n");
  }
  sb_puts(out, "  ");
  if (result) sb_printf(out, "*(%s *)%s.data = ", ctype_of(G, spec->ret_type), res);
  sb_printf(out, "%s(", spec->cname);
  for (int i = 0; i < spec->nparams; i++)
    sb_printf(out, "%s*(%s *)p2c_args[%d]", i ? ", " : "", ctype_of(G, spec->arg_types[i]), i);
  sb_puts(out, ");\n");
  if (heap) emit_heap_end(G, NULL, spec, res, out);
  sb_puts(out, "}\n");
}
