/* Emission of the CUDA intrinsics under cuda.*: atomics, barriers with a predicate, fences,
 * warp operations, bit and arithmetic intrinsics, dynamic shared memory and constant arrays.
 *
 * Typeinfer converted every argument to the type the intrinsic takes and replaced an atomic's
 * array and index by one element expression (infer_cuda.c), so most calls are written as the
 * CUDA C function of the same meaning: atomicAdd(&a.data[i], v), __shfl_down_sync(mask, v, d).
 * Where CUDA C has no function for a type, or means something else than Numba, a prelude
 * helper does it (prelude_cuda.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

static void open_paren(StrBuf *sb, int p, int prec) {
  if (p < prec) sb_putc(sb, '(');
}

static void close_paren(StrBuf *sb, int p, int prec) {
  if (p < prec) sb_putc(sb, ')');
}

static void emit_arg_list(Gen *G, const Expr *e, int from, StrBuf *sb) {
  for (int i = from; i < e->nkids; i++) {
    if (i > from) sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
  }
}

/* fn(args from kid `from`) */
static void emit_plain_call(Gen *G, const char *fn, const Expr *e, int from, StrBuf *sb) {
  sb_printf(sb, "%s(", fn);
  emit_arg_list(G, e, from, sb);
  sb_putc(sb, ')');
}

/* cuda.syncthreads(), cuda.threadfence(), cuda.syncthreads_count(p) ...: the row's function
 * with the call's arguments. */
void emit_plain_builtin_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  emit_plain_call(G, e->builtin->c64, e, 1, sb);
}

/* ---- atomics ---- */

/* The prelude helper an atomic needs on dtype d, or false when CUDA C has the function. */
static bool atomic_helper(AtomicClass cls, const Type *d, CudaHelper *h) {
  bool is_float = d->kind == TY_FLOAT;
  switch (cls) {
  case AC_SUB:
    *h = HC_ATOMIC_SUB;
    return d->bits == 64 || is_float;
  case AC_MINMAX:
    *h = HC_ATOMIC_FMINMAX;
    return is_float;
  case AC_INCDEC:
    *h = HC_ATOMIC_INCDEC64;
    return d->bits == 64;
  case AC_ARITH:     /* add, and, or, xor, exch, cas: CUDA has them for every type but int64 */
  case AC_BITWISE:
    break;
  }
  *h = HC_ATOMIC_I64;
  return d == &type_int64;
}

/* Whether an atomic is add on a float64 element of a global array, which Numba's code spells
 * atom.add.f64 (generic addressing, test_atomics asserts it): the prelude's p2c_atomic_add_f64. */
static bool atomic_add_f64_global(const Builtin *b, const Expr *target) {
  return b->atomic == AC_ARITH && strcmp(b->c64, "atomicAdd") == 0 && target->ty == &type_float64 &&
         target->kind == EX_INDEX && target->kids[0]->ty->kind == TY_ARRAY &&
         target->kids[0]->ty->space == MEM_GLOBAL;
}

/* cuda.atomic.OP(a, i, v) -> atomicOP(&a[i], v); the element expression is kids[1]. */
void emit_atomic_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Builtin *b = e->builtin;
  const Expr *target = e->kids[1];
  CudaHelper h;
  const char *fn = b->c64;
  (void)prec;
  if (atomic_add_f64_global(b, target)) {
    cuda_helper_use(&G->helpers, HC_ATOMIC_ADD_F64);
    fn = "p2c_atomic_add_f64";
  } else if (atomic_helper(b->atomic, target->ty, &h)) {
    cuda_helper_use(&G->helpers, h);
    fn = b->helper_fn;
  }
  sb_printf(sb, "%s(&", fn);
  G->san_kind = SAN_ATOMIC;
  emit_expr(G, target, sb, P_UNARY);
  G->san_kind = SAN_READ;
  for (int i = 2; i < e->nkids; i++) {
    sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
  }
  sb_putc(sb, ')');
}

/* cuda.ldca(a, i) -> p2c_ldca(&a[i]), cuda.stcg(a, i, v) -> p2c_stcg(&a[i], v): the prelude's
 * (HC_CACHE_HINTS); the element expression is kids[1]. */
void emit_cache_hint_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  bool store = e->nkids == 3;
  (void)prec;
  sb_printf(sb, "%s(&", e->builtin->c64);
  G->san_kind = store ? SAN_WRITE : SAN_READ;
  emit_expr(G, e->kids[1], sb, P_UNARY);
  G->san_kind = SAN_READ;
  if (store) {
    sb_puts(sb, ", ");
    emit_expr(G, e->kids[2], sb, P_ASSIGN);
  }
  sb_putc(sb, ')');
}

/* ---- warp operations ---- */

/* A lane mask: a literal is written in hex, as CUDA programmers write masks. */
static void emit_mask(Gen *G, const Expr *m, StrBuf *sb) {
  const Expr *lit = m->kind == EX_CAST ? m->kids[0] : m;
  if (lit->kind == EX_INT) {
    sb_printf(sb, "0x%08xu", (unsigned)(uint32_t)lit->uval);
    return;
  }
  emit_expr(G, m, sb, P_ASSIGN);
}

/* fn(mask, args...) */
static void emit_warp_call(Gen *G, const char *fn, const Expr *e, StrBuf *sb) {
  sb_printf(sb, "%s(", fn);
  emit_mask(G, e->kids[1], sb);
  for (int i = 2; i < e->nkids; i++) {
    sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
  }
  sb_putc(sb, ')');
}

/* shfl_sync(mask, value, lane) and the other shuffles */
void emit_warp_builtin_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  emit_warp_call(G, e->builtin->c64, e, sb);
}

/* syncwarp(), syncwarp(mask) */
void emit_syncwarp_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  if (e->nkids == 1) sb_puts(sb, "__syncwarp()");
  else emit_warp_call(G, "__syncwarp", e, sb);
}

/* all_sync, any_sync, eq_sync give a bool: CUDA's int result compared with 0. */
void emit_vote_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  open_paren(sb, P_EQ, prec);
  emit_warp_call(G, e->builtin->c64, e, sb);
  sb_puts(sb, " != 0");
  close_paren(sb, P_EQ, prec);
}

/* ballot_sync, match_any_sync: CUDA's unsigned result as Numba's int32 */
void emit_int32_warp_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  open_paren(sb, P_UNARY, prec);
  sb_puts(sb, "(int32_t)");
  emit_warp_call(G, e->builtin->c64, e, sb);
  close_paren(sb, P_UNARY, prec);
}

/* match_all_sync gives the tuple (mask, all equal): CUDA's __match_all_sync returns the mask
 * and stores the predicate through a pointer, into a temporary; the members of a braced list
 * are evaluated in order, so the call comes first. */
void emit_match_all_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  const char *pred = new_temp(G, &type_int32);
  sb_printf(sb, "%s{(int32_t)__match_all_sync(", tuple_ctype(G, e->ty));
  emit_mask(G, e->kids[1], sb);
  sb_puts(sb, ", ");
  emit_expr(G, e->kids[2], sb, P_ASSIGN);
  sb_printf(sb, ", &%s), %s != 0}", pred, pred);
}

/* ---- bits and arithmetic ---- */

/* popc, clz, ffs on an integer of any width: CUDA's 32- and 64-bit functions, with narrow
 * values zero-extended (Numba counts within the value's own width). */
void emit_bitcount_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  BuiltinId id = e->builtin->id;
  const Expr *x = e->kids[1];
  const Type *t = x->ty;
  const char *fn = t->bits == 64 ? e->builtin->c64 : e->builtin->c32;
  bool narrow = t->bits < 32;
  open_paren(sb, narrow && id == BI_CLZ ? P_ADD : P_UNARY, prec);
  if (e->ty != &type_int32) sb_printf(sb, "(%s)", e->ty->cname);
  if (narrow && id == BI_CLZ) sb_putc(sb, '(');
  sb_printf(sb, "%s(", fn);
  if (narrow) sb_printf(sb, "(uint%d_t)", t->bits);
  emit_expr(G, x, sb, narrow ? P_UNARY : P_ASSIGN);
  sb_putc(sb, ')');
  if (narrow && id == BI_CLZ) sb_printf(sb, " - %d)", 32 - t->bits);
  close_paren(sb, narrow && id == BI_CLZ ? P_ADD : P_UNARY, prec);
}

/* Whether reading x unconditionally costs and risks nothing: a literal, a variable or a module
 * constant, through casts. */
static bool selp_leaf(const Expr *x) {
  while (x->kind == EX_CAST) x = x->kids[0];
  switch (x->kind) {
  case EX_INT: case EX_FLOAT: case EX_BOOL: case EX_VAR: case EX_CONST: return true;
  default: return false;
  }
}

/* selp(c, a, b): Numba evaluates all three arguments, in order, before PTX's selp picks one (a
 * call's arguments, as in Python): a[i] is read, and bounds-checked, whatever c says. So each
 * is evaluated once into a temporary, and NVRTC gives selp where a conditional expression would
 * load an element under a branch (test_intrinsics.test_selp counts the branches). Where both
 * values are leaves, reading one of them conditionally is the same thing, and the plain
 * conditional expression reads better. */
void emit_selp_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  if (an_expr_is_pure(e->kids[1]) && selp_leaf(e->kids[2]) && selp_leaf(e->kids[3])) {
    Expr cond = {.kind = EX_IFEXP, .loc = e->loc, .ty = e->ty, .kids = e->kids + 1, .nkids = 3};
    emit_ifexp(G, &cond, sb, prec);
    return;
  }
  const char *t[3];
  open_paren(sb, P_COMMA, prec);
  for (int i = 0; i < 3; i++) {
    t[i] = new_temp(G, e->kids[i + 1]->ty);
    sb_printf(sb, "%s = ", t[i]);
    emit_expr(G, e->kids[i + 1], sb, P_ASSIGN);
    sb_puts(sb, ", ");
  }
  sb_printf(sb, "%s ? %s : %s", t[0], t[1], t[2]);
  close_paren(sb, P_COMMA, prec);
}

/* ---- memories ---- */

/* cuda.shared.array(0, dtype): a view of the block's dynamic shared memory (an array of a
 * fixed shape is declared by its assignment, emit.c). */
void emit_shared_array_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  if (e->ty->fixed_shape) {
    diag_error(G->c, e->loc, "E-internal", "codegen: unexpected call of %s", builtin_display_name(e->builtin));
    return;
  }
  cuda_helper_use(&G->helpers, HC_DYNAMIC_SHARED);
  sb_printf(sb, "p2c_dynamic_shared_array<%s>()", e->ty->dtype->cname);
}

/* cuda.brev(x): the 64-bit function for uint64 */
void emit_brev_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  emit_plain_call(G, e->ty == &type_uint64 ? e->builtin->c64 : e->builtin->c32, e, 1, sb);
}

/* cuda.const.array_like(A): A's __constant__ array */
void emit_const_array_like_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  emit_expr(G, e->kids[1], sb, prec);
}

/* ---- constant arrays ---- */

/* A float constant of type t (float32 or float64) as a constant C expression: inf and NaN
 * as the divisions 1.0 / 0.0 and 0.0 / 0.0, which NVRTC and the host compiler both fold in a
 * constant initializer (the prelude's p2c_inf and p2c_nan are not constant expressions). */
static void put_const_float(Gen *G, double v, const Type *t, StrBuf *sb) {
  (void)G;
  const char *f = t == &type_float32 ? "f" : "";
  if (isfinite(v)) emit_float_digits(sb, v, *f);
  else if (isnan(v)) sb_printf(sb, "(0.0%s / 0.0%s)", f, f);
  else sb_printf(sb, "%s(1.0%s / 0.0%s)", v < 0 ? "-" : "", f, f);
}

static void put_const_value(Gen *G, const ConstArray *a, int64_t k, StrBuf *sb) {
  const Type *t = a->dtype;
  if (a->imags) {   /* p2c_complex's constructor is constexpr: a constant initializer */
    const Type *part = type_complex_part(t);
    sb_printf(sb, "%s(", t->cname);
    put_const_float(G, a->floats[k], part, sb);
    sb_puts(sb, ", ");
    put_const_float(G, a->imags[k], part, sb);
    sb_putc(sb, ')');
  } else if (a->floats) {
    put_const_float(G, a->floats[k], t, sb);
  } else if (t->kind == TY_BOOL) {
    sb_puts(sb, a->ints[k] ? "true" : "false");
  } else if (t == &type_uint64) {
    sb_printf(sb, "%lluULL", (unsigned long long)a->ints[k]);
  } else if (a->ints[k] == INT64_MIN) {
    sb_puts(sb, "-9223372036854775807LL - 1");
  } else {
    sb_printf(sb, t->bits == 64 ? "%lldLL" : "%lld", (long long)a->ints[k]);
  }
}

enum { MAX_CONSTANT_BYTES = 64 * 1024 };

/* NAME = np.array([...], dtype=RECORD) used by a kernel: its records' bytes as NumPy lays them
 * out, in a union with the records, which the kernel reads (NAME.items[i]; a union's first
 * member takes the initializer). */
static void emit_const_record_array(Gen *G, Const *k, const Type *record, StrBuf *out) {
  const ConstArray *a = k->array;
  const char *name = namer_claim(&G->global, k->name);
  int64_t bytes = a->count * a->record->size;
  sb_printf(out, "static __constant__ const union {\n  unsigned char bytes[%lld];\n  %s items[%lld];\n} %s = {{",
            (long long)(bytes ? bytes : 1), record->cname, (long long)(a->count ? a->count : 1), name);
  for (int64_t i = 0; i < bytes; i++) sb_printf(out, "%s%u", i == 0 ? "" : i % 16 == 0 ? ",\n    " : ", ", a->bytes[i]);
  sb_puts(out, "}};\n");
  k->cname = arena_printf(G->a, "%s.items", name);
}

/* NAME = np.array(...) used by a kernel: a __constant__ array with its values. An extent of 0
 * is declared 1 (CUDA C has no arrays of size 0, and NVRTC refuses one where the host compiler
 * takes it); the kernel reads the array's shape, never the declaration's. */
static void emit_const_array(Gen *G, Const *k, StrBuf *out) {
  const ConstArray *a = k->array;
  k->cname = namer_claim(&G->global, k->name);
  sb_puts(out, "static __constant__ ");
  /* Numba aligns a constant array to its item's size (make_constant_array: the power of two
   * not below it); C's alignment of a complex item is its part's, half of that, so a complex
   * array says so, and NVRTC loads an item with one vector load (ld.const.v2.f32), as Numba's. */
  if (type_is_complex(a->dtype)) sb_printf(out, "__align__(%d) ", a->dtype->bits / 8);
  sb_printf(out, "const %s %s", a->dtype->cname, k->cname);
  for (int d = 0; d < a->ndim; d++) sb_printf(out, "[%lld]", (long long)(a->shape[d] ? a->shape[d] : 1));
  if (a->ndim == 0) sb_puts(out, "[1]");   /* a 0-d array's one element, read as NAME[0] */
  sb_puts(out, " = {");
  for (int64_t i = 0; i < a->count; i++) {
    sb_puts(out, i == 0 ? "" : i % 8 == 0 ? ",\n    " : ", ");
    put_const_value(G, a, i, out);
  }
  sb_puts(out, "};\n");
}

void emit_const_arrays(Gen *G, StrBuf *out) {
  uint64_t total = 0;
  for (size_t i = 0; i < G->m->consts.len; i++) {
    Const *k = G->m->consts.items[i];
    if (!k->used || !k->array) continue;
    const ConstArray *a = k->array;
    uint64_t item = a->record ? (uint64_t)a->record->size : (uint64_t)(a->dtype->bits / 8 ? a->dtype->bits / 8 : 1);
    uint64_t bytes = (uint64_t)a->count * item;
    if ((total += bytes) > MAX_CONSTANT_BYTES) {
      diag_error(G->c, k->loc, "E-const-array",
                 "constant arrays used by the kernels take %llu bytes with '%s'; constant memory "
                 "holds 64 KiB", (unsigned long long)total, k->name);
      return;
    }
    sb_puts(out, total == bytes ? "\n" : "");
    if (a->record) emit_const_record_array(G, k, k->record_type, out);
    else emit_const_array(G, k, out);
  }
}

/* A device array captured from a Python global (frontend/lower_captured.c): a function returning
 * its value, which holds the address, shape and strides as constants, as Numba embeds them; the
 * memory it points at is the kernel's to read and write. A function, not a variable: NVRTC takes
 * no pointer made from an integer in a __device__ variable's initializer (it calls that dynamic
 * initialization), and an inlined function costs nothing more. Each use is `NAME()`. */
static void emit_captured_array(Gen *G, Const *k, StrBuf *out) {
  const CapturedArray *c = k->captured;
  const char *t = c->dtype->cname;
  const char *name = namer_claim(&G->global, k->name);
  k->cname = arena_printf(G->a, "%s()", name);
  sb_printf(out, "/* '%s': a device array captured from a global (its address, shape and strides) */\n", k->name);
  if (c->ndim == 0) type_helper_use(&G->helpers, TH_ARRAY0);
  sb_printf(out, "static __device__ __forceinline__ p2c_array<%s, %d> %s(void) {\n", t, c->ndim, name);
  sb_printf(out, "  return {(%s *)0x%llxULL", t, (unsigned long long)c->address);
  if (c->ndim == 0) {   /* a 0-d array is its address alone */
    sb_puts(out, "};\n}\n");
    return;
  }
  sb_puts(out, ", {");
  for (int d = 0; d < c->ndim; d++) sb_printf(out, "%s%lldLL", d ? ", " : "", (long long)c->shape[d]);
  sb_puts(out, "}, {");
  for (int d = 0; d < c->ndim; d++) sb_printf(out, "%s%lldLL", d ? ", " : "", (long long)c->strides[d]);
  sb_puts(out, "}};\n}\n");
}

void emit_captured_arrays(Gen *G, StrBuf *out) {
  bool any = false;
  for (size_t i = 0; i < G->m->consts.len; i++) {
    Const *k = G->m->consts.items[i];
    if (!k->used || !k->captured) continue;
    sb_puts(out, any ? "" : "\n");
    emit_captured_array(G, k, out);
    any = true;
  }
}

/* The declaration of a variable holding a constant array: a pointer to its first row, so
 * that c[i][j] indexes it as the array itself. */
void emit_const_array_decl(Gen *G, StrBuf *out, const Type *t, const char *name) {
  (void)G;
  if (t->ndim == 1) {
    sb_printf(out, "  const %s *%s = 0;\n", t->dtype->cname, name);
    return;
  }
  sb_printf(out, "  const %s (*%s)", t->dtype->cname, name);
  for (int k = 1; k < t->ndim; k++) sb_printf(out, "[%lld]", (long long)t->fixed_shape[k]);
  sb_puts(out, " = 0;\n");
}

/* ---- libdevice ----
 * A call is libdevice's own function by its C name (__nv_sin) on both targets: NVRTC links
 * libdevice for a program that declares and calls it, and the simulator's prelude defines each
 * on the host. An out-parameter becomes a temporary whose address is passed, and the call's
 * value the tuple of the result and the temporaries, built left to right (a braced list's order):
 * `p2c_tuple_f64_i32{__nv_frexp(x, &t), t}`, `p2c_tuple_f64x2{{(__nv_sincos(x, &s, &c), s), c}}`. */

/* Notes that function b is called, for its declaration. */
static void libdevice_use(Gen *G, const Builtin *b) {
  for (size_t i = 0; i < G->libdevice.len; i++)
    if (G->libdevice.items[i] == b) return;
  vec_push(G->a, &G->libdevice, b);
}

void libdevice_merge(Gen *G, const Gen *side_gen) {
  for (size_t i = 0; i < side_gen->libdevice.len; i++) libdevice_use(G, side_gen->libdevice.items[i]);
}

/* Writes the arguments of libdevice call e: its operands, and &temp for each out-parameter (whose
 * temporaries are named in outs[]); returns the number of out-parameters. */
static int libdevice_args(Gen *G, const Expr *e, const char **outs, StrBuf *sb) {
  int k = 1, nout = 0;
  for (const char *p = e->builtin->proto + 2; *p; p++) {
    if (p != e->builtin->proto + 2) sb_puts(sb, ", ");
    if (*p >= 'A' && *p <= 'Z') {
      outs[nout] = new_temp(G, builtin_libdevice_type(*p));
      sb_printf(sb, "&%s", outs[nout++]);
    } else {
      emit_expr(G, e->kids[k++], sb, P_ASSIGN);
    }
  }
  return nout;
}

void emit_libdevice_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Builtin *b = e->builtin;
  (void)prec;
  libdevice_use(G, b);
  if (e->ty->kind != TY_TUPLE) {
    emit_plain_call(G, b->c64, e, 1, sb);
    return;
  }
  const char *outs[3];
  bool uni = type_tuple_uniform(e->ty), void_result = b->proto[0] == 'v';
  sb_printf(sb, "%s{%s%s%s(", tuple_ctype(G, e->ty), uni ? "{" : "", void_result ? "(" : "", b->c64);
  int nout = libdevice_args(G, e, outs, sb);
  sb_putc(sb, ')');
  /* a void function's first element is (call, first temporary) */
  for (int i = 0; i < nout; i++) sb_printf(sb, ", %s%s", outs[i], i == 0 && void_result ? ")" : "");
  sb_printf(sb, "%s}", uni ? "}" : "");
}

/* The C declaration of a libdevice parameter or result of letter c (builtins/libdevice.def). */
static const char *libdevice_ctype(Gen *G, char c) {
  const Type *t = builtin_libdevice_type(c);
  return c >= 'A' && c <= 'Z' ? arena_printf(G->a, "%s *", t->cname) : t->cname;
}

static int by_path(const void *a, const void *b) {
  return strcmp((*(const Builtin *const *)a)->path, (*(const Builtin *const *)b)->path);
}

void emit_libdevice_decls(Gen *G, StrBuf *out) {
  if (!G->libdevice.len) return;
  qsort(G->libdevice.items, G->libdevice.len, sizeof *G->libdevice.items, by_path);
  sb_puts(out, "\n#ifndef PYK2CUDA_SIM  /* libdevice's functions, which NVRTC links */\n");
  for (size_t i = 0; i < G->libdevice.len; i++) {
    const Builtin *b = G->libdevice.items[i];
    sb_printf(out, "extern \"C\" __device__ %s %s(", libdevice_ctype(G, b->proto[0]), b->c64);
    for (const char *p = b->proto + 2; *p; p++)
      sb_printf(out, "%s%s", p == b->proto + 2 ? "" : ", ", libdevice_ctype(G, *p));
    sb_puts(out, ");\n");
  }
  sb_puts(out, "#endif\n");
}
