/* NumPy's array creation in @jit functions the host calls (typed by infer_alloc.c): a call of
 * the prelude's constructors (H_NP_ALLOC), which take the shape as a p2c_dims of int64 extents,
 * the fill and the Python position their ValueError names:
 *
 *     np.zeros((n, 3), np.float32)  ->  p2c_np_new<float, 2, 'C'>(p2c_dims<2>{{n, 3}}, 1, float(), 4, 9)
 *     np.arange(0.5, x, 2)          ->  p2c_np_arange<double, double>(0.5, x, (double)2, 5, 9)
 *
 * The first tier's C form (emit_c.c) calls the prelude's C macros instead, which take the array's
 * struct and the extents as an int64_t array:
 *
 *     np.zeros((n, 3), np.float32)  ->  p2c_np_new_c(p2c_array_float_2, float, 2, 'C',
 *                                                    ((const int64_t[2]){n, 3}), 1, (float)0, 4, 9)
 *
 * The arrays live on the host's heap; the host entry's kernel decides which pass to the caller
 * (emit_host.c, p2c_heap_end). */
#include "codegen/cg.h"
#include "typeinfer/typeinfer.h"

/* What each kind of call fills its elements with: 0 nothing, 1 zeros, 2 a value. */
static int fill_kind(NpAlloc which) {
  switch (which) {
  case NPA_EMPTY: case NPA_EMPTY_LIKE: case NPA_ARANGE: return 0;
  case NPA_ZEROS: case NPA_ZEROS_LIKE: return 1;
  case NPA_ONES: case NPA_ONES_LIKE: case NPA_FULL: case NPA_FULL_LIKE: return 2;
  }
  return 0;
}

/* The extents of the new array as int64 values: the shape argument's, or the prototype's. */
static void emit_dims(Gen *G, const NpAllocArgs *a, int ndim, StrBuf *sb) {
  if (G->c_form && ndim == 0) {   /* C has no empty array: no extents to read */
    sb_puts(sb, "(const int64_t *)0");
    return;
  }
  sb_printf(sb, G->c_form ? "((const int64_t[%d]){" : "p2c_dims<%d>{{", ndim);   /* C: () keeps the macro's commas */
  for (int k = 0; k < ndim; k++) {
    if (k) sb_puts(sb, ", ");
    sb_puts(sb, "(int64_t)");
    if (a->like) emit_extent(G, a->like, a->like->ty, k, sb);
    else if (a->shape->ty->kind == TY_INT) emit_expr(G, a->shape, sb, P_UNARY);
    else emit_tuple_elem(G, a->shape, k, sb, P_UNARY);
  }
  sb_puts(sb, G->c_form ? "})" : "}}");
}

/* `x` converted to C type ct: (ct)(x). */
static void emit_as(Gen *G, const char *ct, const Expr *x, StrBuf *sb) {
  sb_printf(sb, "(%s)(", ct);
  emit_expr(G, x, sb, P_ASSIGN);
  sb_putc(sb, ')');
}

/* np.arange(start, stop, step): computed in int64_t, or in double when the bounds or the dtype
 * are floats (Numba computes start + i * step in the bounds' type, then stores it). */
static void emit_arange(Gen *G, const Expr *e, const NpAllocArgs *a, StrBuf *sb) {
  const char *t = ctype_of(G, e->ty->dtype);
  const Expr *bounds[3] = {a->start, a->stop, a->step};
  bool real = e->ty->dtype->kind == TY_FLOAT;
  for (int i = 0; i < 3; i++) real = real || (bounds[i] && bounds[i]->ty->kind == TY_FLOAT);
  const char *c = real ? "double" : e->ty->dtype->kind == TY_INT && !e->ty->dtype->is_signed ? "uint64_t" : "int64_t";
  if (G->c_form) sb_printf(sb, "p2c_np_arange_c(%s, %s, %s, ", ctype_of(G, e->ty), t, c);
  else sb_printf(sb, "p2c_np_arange<%s, %s>(", t, c);
  for (int i = 0; i < 3; i++) {
    if (bounds[i]) emit_as(G, c, bounds[i], sb);
    else sb_printf(sb, "(%s)%d", c, i == 2);   /* start 0, step 1 */
    sb_puts(sb, ", ");
  }
  sb_printf(sb, "%u, %u)", e->loc.line, e->loc.col);
}

/* numpy.empty(...), zeros, ones, full, the _like forms and arange (BI_NP_ALLOC rows) */
void emit_np_alloc_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  helper_use(&G->helpers, H_BOUNDS);   /* p2c_raise's record */
  helper_use(&G->helpers, H_RAISE);
  helper_use(&G->helpers, H_NP_ARRAYS);
  NpAllocArgs a;
  const Expr *bad;
  if (!typeinfer_np_alloc_args(e, &a, &bad)) return;   /* typeinfer bound them */
  NpAlloc which = (NpAlloc)e->kids[0]->builtin->alloc;
  if (which == NPA_ARANGE) {
    emit_arange(G, e, &a, sb);
    return;
  }
  const Type *t = e->ty;
  const char *ct = ctype_of(G, t->dtype);
  if (G->c_form) sb_printf(sb, "p2c_np_new_c(%s, %s, %d, '%c', ", ctype_of(G, t), ct, t->ndim, t->layout);
  else sb_printf(sb, "p2c_np_new<%s, %d, '%c'>(", ct, t->ndim, t->layout);
  emit_dims(G, &a, t->ndim, sb);
  int fill = fill_kind(which);
  sb_printf(sb, ", %d, ", fill);
  if (a.fill) emit_as(G, ct, a.fill, sb);
  else sb_printf(sb, fill == 2 ? "(%s)(1)" : G->c_form ? "(%s)0" : "%s()", ct);
  sb_printf(sb, ", %u, %u)", e->loc.line, e->loc.col);
}
