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

bool cuda_call_has_effects(BuiltinId id) {
  switch (id) {
  case BI_LANEMASK_LT:
  case BI_LANEID:
  case BI_POPC:
  case BI_BREV:
  case BI_CLZ:
  case BI_FFS:
  case BI_FMA:
  case BI_CBRT:
  case BI_SELP:
  case BI_CONST_ARRAY_LIKE: return false;
  default: return true;   /* atomics change memory; barriers and warp operations are collective */
  }
}

/* ---- atomics ---- */

static const char *const atomic_c_names[] = {
    [BI_ATOMIC_ADD - BI_ATOMIC_ADD] = "atomicAdd",   [BI_ATOMIC_SUB - BI_ATOMIC_ADD] = "atomicSub",
    [BI_ATOMIC_AND - BI_ATOMIC_ADD] = "atomicAnd",   [BI_ATOMIC_OR - BI_ATOMIC_ADD] = "atomicOr",
    [BI_ATOMIC_XOR - BI_ATOMIC_ADD] = "atomicXor",   [BI_ATOMIC_MAX - BI_ATOMIC_ADD] = "atomicMax",
    [BI_ATOMIC_MIN - BI_ATOMIC_ADD] = "atomicMin",   [BI_ATOMIC_NANMAX - BI_ATOMIC_ADD] = "atomicMax",
    [BI_ATOMIC_NANMIN - BI_ATOMIC_ADD] = "atomicMin", [BI_ATOMIC_EXCH - BI_ATOMIC_ADD] = "atomicExch",
    [BI_ATOMIC_INC - BI_ATOMIC_ADD] = "atomicInc",   [BI_ATOMIC_DEC - BI_ATOMIC_ADD] = "atomicDec",
    [BI_ATOMIC_CAS - BI_ATOMIC_ADD] = "atomicCAS",
    [BI_ATOMIC_COMPARE_AND_SWAP - BI_ATOMIC_ADD] = "atomicCAS",
};

static const char *const atomic_helper_names[] = {
    [BI_ATOMIC_ADD - BI_ATOMIC_ADD] = "p2c_atomic_add",   [BI_ATOMIC_SUB - BI_ATOMIC_ADD] = "p2c_atomic_sub",
    [BI_ATOMIC_AND - BI_ATOMIC_ADD] = "p2c_atomic_and",   [BI_ATOMIC_OR - BI_ATOMIC_ADD] = "p2c_atomic_or",
    [BI_ATOMIC_XOR - BI_ATOMIC_ADD] = "p2c_atomic_xor",   [BI_ATOMIC_MAX - BI_ATOMIC_ADD] = "p2c_atomic_max",
    [BI_ATOMIC_MIN - BI_ATOMIC_ADD] = "p2c_atomic_min",   [BI_ATOMIC_NANMAX - BI_ATOMIC_ADD] = "p2c_atomic_nanmax",
    [BI_ATOMIC_NANMIN - BI_ATOMIC_ADD] = "p2c_atomic_nanmin", [BI_ATOMIC_EXCH - BI_ATOMIC_ADD] = "p2c_atomic_exch",
    [BI_ATOMIC_INC - BI_ATOMIC_ADD] = "p2c_atomic_inc",   [BI_ATOMIC_DEC - BI_ATOMIC_ADD] = "p2c_atomic_dec",
    [BI_ATOMIC_CAS - BI_ATOMIC_ADD] = "p2c_atomic_cas",
    [BI_ATOMIC_COMPARE_AND_SWAP - BI_ATOMIC_ADD] = "p2c_atomic_cas",
};

/* The prelude helper an atomic needs on dtype d, or false when CUDA C has the function. */
static bool atomic_helper(BuiltinId id, const Type *d, CudaHelper *h) {
  bool is_float = d->kind == TY_FLOAT;
  switch (id) {
  case BI_ATOMIC_SUB:
    *h = HC_ATOMIC_SUB;
    return d->bits == 64 || is_float;
  case BI_ATOMIC_MAX:
  case BI_ATOMIC_MIN:
  case BI_ATOMIC_NANMAX:
  case BI_ATOMIC_NANMIN:
    *h = HC_ATOMIC_FMINMAX;
    return is_float;
  case BI_ATOMIC_INC:
  case BI_ATOMIC_DEC:
    *h = HC_ATOMIC_INCDEC64;
    return d->bits == 64;
  default:   /* add, and, or, xor, exch, cas: CUDA has them for every type but int64 */
    *h = HC_ATOMIC_I64;
    return d == &type_int64;
  }
}

/* cuda.atomic.OP(a, i, v) -> atomicOP(&a[i], v); the element expression is kids[1]. */
static void emit_atomic(Gen *G, const Expr *e, StrBuf *sb) {
  BuiltinId id = e->builtin->id;
  const Expr *target = e->kids[1];
  CudaHelper h;
  const char *fn = atomic_c_names[id - BI_ATOMIC_ADD];
  if (atomic_helper(id, target->ty, &h)) {
    cuda_helper_use(&G->helpers, h);
    fn = atomic_helper_names[id - BI_ATOMIC_ADD];
  }
  sb_printf(sb, "%s(&", fn);
  emit_expr(G, target, sb, P_UNARY);
  for (int i = 2; i < e->nkids; i++) {
    sb_puts(sb, ", ");
    emit_expr(G, e->kids[i], sb, P_ASSIGN);
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

/* all_sync, any_sync, eq_sync give a bool: CUDA's int result compared with 0. */
static void emit_vote(Gen *G, const char *fn, const Expr *e, StrBuf *sb, int prec) {
  open_paren(sb, P_EQ, prec);
  emit_warp_call(G, fn, e, sb);
  sb_puts(sb, " != 0");
  close_paren(sb, P_EQ, prec);
}

static void emit_int32_warp_call(Gen *G, const char *fn, const Expr *e, StrBuf *sb, int prec) {
  open_paren(sb, P_UNARY, prec);
  sb_puts(sb, "(int32_t)");
  emit_warp_call(G, fn, e, sb);
  close_paren(sb, P_UNARY, prec);
}

/* match_all_sync gives the tuple (mask, all equal): CUDA's __match_all_sync returns the mask
 * and stores the predicate through a pointer, into a temporary; the members of a braced list
 * are evaluated in order, so the call comes first. */
static void emit_match_all(Gen *G, const Expr *e, StrBuf *sb) {
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
static void emit_bitcount(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  BuiltinId id = e->builtin->id;
  const Expr *x = e->kids[1];
  const Type *t = x->ty;
  bool wide = t->bits == 64;
  const char *fn = id == BI_POPC ? (wide ? "__popcll" : "__popc") : id == BI_CLZ ? (wide ? "__clzll" : "__clz")
                   : (wide ? "__ffsll" : "__ffs");
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

/* selp(c, a, b): c ? a : b; with side effects among the operands, each is evaluated once, in
 * order, as Python evaluates arguments. */
static void emit_selp(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  bool pure = expr_is_pure(e->kids[1]) && expr_is_pure(e->kids[2]) && expr_is_pure(e->kids[3]);
  if (pure) {
    open_paren(sb, P_COND, prec);
    emit_expr(G, e->kids[1], sb, P_OR);
    sb_puts(sb, " ? ");
    emit_expr(G, e->kids[2], sb, P_COND);
    sb_puts(sb, " : ");
    emit_expr(G, e->kids[3], sb, P_COND);
    close_paren(sb, P_COND, prec);
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

/* cuda.shared.array(0, dtype): a view of the block's dynamic shared memory. */
static void emit_dynamic_shared(Gen *G, const Expr *e, StrBuf *sb) {
  cuda_helper_use(&G->helpers, HC_DYNAMIC_SHARED);
  sb_printf(sb, "p2c_dynamic_shared_array<%s>()", e->ty->dtype->cname);
}

void emit_cuda_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  BuiltinId id = e->builtin->id;
  bool f32 = e->ty == &type_float32;
  if (id >= BI_ATOMIC_ADD && id <= BI_ATOMIC_COMPARE_AND_SWAP) {
    emit_atomic(G, e, sb);
    return;
  }
  switch (id) {
  case BI_SHARED_ARRAY: emit_dynamic_shared(G, e, sb); return;
  case BI_SYNCTHREADS_COUNT: emit_plain_call(G, "__syncthreads_count", e, 1, sb); return;
  case BI_SYNCTHREADS_AND: emit_plain_call(G, "__syncthreads_and", e, 1, sb); return;
  case BI_SYNCTHREADS_OR: emit_plain_call(G, "__syncthreads_or", e, 1, sb); return;
  case BI_THREADFENCE: sb_puts(sb, "__threadfence()"); return;
  case BI_THREADFENCE_BLOCK: sb_puts(sb, "__threadfence_block()"); return;
  case BI_THREADFENCE_SYSTEM: sb_puts(sb, "__threadfence_system()"); return;
  case BI_SYNCWARP:
    if (e->nkids == 1) sb_puts(sb, "__syncwarp()");
    else emit_warp_call(G, "__syncwarp", e, sb);
    return;
  case BI_SHFL_SYNC: emit_warp_call(G, "__shfl_sync", e, sb); return;
  case BI_SHFL_UP_SYNC: emit_warp_call(G, "__shfl_up_sync", e, sb); return;
  case BI_SHFL_DOWN_SYNC: emit_warp_call(G, "__shfl_down_sync", e, sb); return;
  case BI_SHFL_XOR_SYNC: emit_warp_call(G, "__shfl_xor_sync", e, sb); return;
  case BI_ALL_SYNC: emit_vote(G, "__all_sync", e, sb, prec); return;
  case BI_ANY_SYNC: emit_vote(G, "__any_sync", e, sb, prec); return;
  case BI_EQ_SYNC: emit_vote(G, "__uni_sync", e, sb, prec); return;
  case BI_BALLOT_SYNC: emit_int32_warp_call(G, "__ballot_sync", e, sb, prec); return;
  case BI_MATCH_ANY_SYNC: emit_int32_warp_call(G, "__match_any_sync", e, sb, prec); return;
  case BI_MATCH_ALL_SYNC: emit_match_all(G, e, sb); return;
  case BI_ACTIVEMASK: sb_puts(sb, "__activemask()"); return;
  case BI_LANEMASK_LT:
    cuda_helper_use(&G->helpers, HC_LANE);
    sb_puts(sb, "p2c_lanemask_lt()");
    return;
  case BI_POPC:
  case BI_CLZ:
  case BI_FFS: emit_bitcount(G, e, sb, prec); return;
  case BI_BREV: emit_plain_call(G, e->ty == &type_uint64 ? "__brevll" : "__brev", e, 1, sb); return;
  case BI_FMA: emit_plain_call(G, f32 ? "fmaf" : "fma", e, 1, sb); return;
  case BI_CBRT: emit_plain_call(G, f32 ? "cbrtf" : "cbrt", e, 1, sb); return;
  case BI_SELP: emit_selp(G, e, sb, prec); return;
  case BI_CONST_ARRAY_LIKE: emit_expr(G, e->kids[1], sb, prec); return;
  default:
    diag_error(G->c, e->loc, "E-internal", "codegen: unexpected call of %s", builtin_display_name(e->builtin));
  }
}

void emit_cuda_value(Gen *G, const Expr *e, StrBuf *sb) {
  cuda_helper_use(&G->helpers, HC_LANE);
  (void)e;
  sb_puts(sb, "p2c_laneid()");
}

/* ---- constant arrays ---- */

/* A float32 value in the fewest digits that read back as the same float. */
static void put_float32(StrBuf *sb, double v) {
  char buf[40];
  for (int prec = 6; prec <= 9; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtof(buf, NULL) == (float)v) break;
  }
  sb_puts(sb, buf);
  if (!strpbrk(buf, ".e")) sb_puts(sb, ".0");
  sb_putc(sb, 'f');
}

static void put_float64(StrBuf *sb, double v) {
  char buf[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  sb_puts(sb, buf);
  if (!strpbrk(buf, ".e")) sb_puts(sb, ".0");
}

static void put_const_value(Gen *G, const ConstArray *a, int64_t k, StrBuf *sb) {
  const Type *t = a->dtype;
  if (a->floats && !isfinite(a->floats[k])) {
    Expr lit = {.kind = EX_FLOAT, .fval = a->floats[k]};
    Expr *kids[1] = {&lit};
    Expr cast = {.kind = EX_CAST, .ty = t, .kids = kids, .nkids = 1};
    emit_expr(G, &cast, sb, P_ASSIGN);
  } else if (a->floats) {
    if (t == &type_float32) put_float32(sb, a->floats[k]);
    else put_float64(sb, a->floats[k]);
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

/* NAME = np.array(...) used by a kernel: a __constant__ array with its values. */
static void emit_const_array(Gen *G, Const *k, StrBuf *out) {
  const ConstArray *a = k->array;
  k->cname = namer_claim(&G->global, k->name);
  sb_printf(out, "static __constant__ const %s %s", a->dtype->cname, k->cname);
  for (int d = 0; d < a->ndim; d++) sb_printf(out, "[%lld]", (long long)a->shape[d]);
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
    uint64_t bytes = (uint64_t)k->array->count * (uint64_t)(k->array->dtype->bits / 8 ? k->array->dtype->bits / 8 : 1);
    if ((total += bytes) > MAX_CONSTANT_BYTES) {
      diag_error(G->c, k->loc, "E-const-array",
                 "constant arrays used by the kernels take %llu bytes with '%s'; constant memory "
                 "holds 64 KiB", (unsigned long long)total, k->name);
      return;
    }
    sb_puts(out, total == bytes ? "\n" : "");
    emit_const_array(G, k, out);
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
