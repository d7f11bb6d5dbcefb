/* Views: a subscript with fewer integer indices than dimensions, or with slices, is a new
 * p2c_array over the same data, built by applying each index in turn with the prelude's
 * helpers (TH_VIEW_INDEX, TH_VIEW_SLICE):
 *
 *     a[i]          p2c_view_index<0>(a, i)
 *     a[i, 1:n]     p2c_view_slice<0>(p2c_view_index<0>(a, i), 1, n, 1)
 *     a[::-1]       p2c_view_slice<0>(a, p2c_slice_max, p2c_slice_min, -1)
 *
 * The dimension a helper works on counts the dimensions left after earlier integer indices.
 * A bare `:` changes nothing and writes nothing. The view's layout is in its type (typeinfer),
 * so a C view is then indexed without strides like any C array.
 *
 * With --check-bounds an integer index is checked against the extent it indexes (slices clamp
 * and cannot be out of bounds); the view so far goes into a temporary, read twice:
 *
 *     a[i]          (p2c_v = a, p2c_view_index<0>(p2c_v, p2c_bounds_axis(i, p2c_v.shape[0],
 *                                                                    0, LINE, COLUMN))) */
#include <string.h>

#include "codegen/cg.h"

enum { SLICE_START = 1, SLICE_STOP = 2, SLICE_STEP = 4 };

/* The sign of a constant step: 1, -1, or 0 when it is only known at run time. */
static int step_sign(const Expr *e) {
  if (!e) return 1;
  while (e->kind == EX_CAST) e = e->kids[0];
  if (e->kind == EX_CONST) e = e->konst->value;
  if (e->kind == EX_INT) return e->ival > 0 || e->is_unsigned_literal ? 1 : -1;
  if (e->kind == EX_UNARY && e->op == OP_NEG && e->kids[0]->kind == EX_INT) return -1;
  return 0;
}

static const Expr *slice_part(const Expr *s, int bit) {
  if (!(s->ival & bit)) return NULL;
  int k = 0;
  for (int b = 1; b < bit; b <<= 1) k += (s->ival & b) != 0;
  return s->kids[k];
}

static bool is_plain(const Expr *e) {
  while (e->kind == EX_CAST) e = e->kids[0];
  return e->kind == EX_VAR || e->kind == EX_INT || e->kind == EX_CONST || e->kind == EX_TEMP;
}

/* A slice's start, stop and step as C text, missing bounds filled in for the step's direction;
 * a step whose sign is known only at run time is evaluated once, into a temporary, when it is
 * needed twice (the comma expression goes to `pre`). */
static void slice_args(Gen *G, const Expr *s, StrBuf *pre, StrBuf *out) {
  const Expr *start = slice_part(s, SLICE_START), *stop = slice_part(s, SLICE_STOP);
  const Expr *step = slice_part(s, SLICE_STEP);
  int sign = step_sign(step);
  StrBuf st;
  sb_init(&st, G->a);
  if (step) emit_expr(G, step, &st, P_ASSIGN);
  else sb_puts(&st, "1");
  const char *step_text = sb_str(&st);
  if (sign == 0 && (!start || !stop) && !is_plain(step)) {
    Expr *t = temp_expr(G, &type_int64);
    sb_printf(pre, "%s = %s, ", t->str, step_text);
    step_text = t->str;
  }
  const char *lo = sign > 0 ? "0" : sign < 0 ? "p2c_slice_max"
                 : arena_printf(G->a, "%s < 0 ? p2c_slice_max : 0", step_text);
  const char *hi = sign > 0 ? "p2c_slice_max" : sign < 0 ? "p2c_slice_min"
                 : arena_printf(G->a, "%s < 0 ? p2c_slice_min : p2c_slice_max", step_text);
  if (start) emit_expr(G, start, out, P_ASSIGN);
  else sb_puts(out, lo);
  sb_puts(out, ", ");
  if (stop) emit_expr(G, stop, out, P_ASSIGN);
  else sb_puts(out, hi);
  sb_printf(out, ", %s", step_text);
}

/* --check-bounds: integer index i of subscript e (at dimension d of the view so far, `cur`),
 * checked against that dimension's extent. `cur` has the array's dimensions less the integer
 * indices before i. */
static void emit_checked_view_index(Gen *G, const Expr *e, int i, int d, const char *cur,
                                    StrBuf *out) {
  int before = 0;
  for (int k = 1; k < i; k++) before += e->kids[k]->kind != EX_SLICE;
  const Type *at = e->kids[0]->ty;
  TempDecl t = {arena_printf(G->a, "p2c_array<%s, %d>", at->dtype->cname, at->ndim - before),
                namer_claim_temp(&G->local, "v")};
  vec_push(G->a, &G->temps, t);
  helper_use(&G->helpers, H_BOUNDS);
  helper_use(&G->helpers, H_BOUNDS_VIEW);
  sb_printf(out, "(%s = %s, p2c_view_index<%d>(%s, p2c_bounds_axis(", t.name, cur, d, t.name);
  emit_checked_index_value(G, e->kids[i], out);
  sb_printf(out, ", %s.shape[%d], %d, %u, %u)))", t.name, d, i - 1, e->loc.line, e->loc.col);
}

void emit_view(Gen *G, const Expr *e, StrBuf *sb) {
  StrBuf cur, pre;
  sb_init(&cur, G->a);
  sb_init(&pre, G->a);
  emit_array_value(G, e->kids[0], &cur);
  int d = 0;
  for (int i = 1; i < e->nkids; i++) {
    const Expr *ix = e->kids[i];
    StrBuf next;
    sb_init(&next, G->a);
    if (ix->kind != EX_SLICE && G->fn->checks_bounds) {
      type_helper_use(&G->helpers, TH_VIEW_INDEX);
      emit_checked_view_index(G, e, i, d, sb_str(&cur), &next);
    } else if (ix->kind != EX_SLICE) {
      type_helper_use(&G->helpers, TH_VIEW_INDEX);
      sb_printf(&next, "p2c_view_index<%d>(%s, ", d, sb_str(&cur));
      emit_expr(G, ix, &next, P_ASSIGN);
      sb_putc(&next, ')');
    } else if (ix->nkids == 0) {   /* a[:, j]: the dimension stays as it is */
      d++;
      continue;
    } else {
      type_helper_use(&G->helpers, TH_VIEW_SLICE);
      sb_printf(&next, "p2c_view_slice<%d>(%s, ", d++, sb_str(&cur));
      slice_args(G, ix, &pre, &next);
      sb_putc(&next, ')');
    }
    cur = next;
  }
  if (pre.len) sb_printf(sb, "(%s%s)", sb_str(&pre), sb_str(&cur));
  else sb_puts(sb, sb_str(&cur));
}

/* numpy.ndarray.view(a, dtype) (a.view(dtype)): p2c_view_dtype<U>(a). Where typeinfer left the
 * item-size change to be checked at run time (ival 1), the array goes into a temporary, checked
 * first:
 *
 *     (p2c_v = a, p2c_view_dtype_ok<U>(p2c_v) ? (void)0 : FAIL, p2c_view_dtype<U>(p2c_v))
 *
 * FAIL raises Numba's ValueError: reported with debug=True or --check-bounds (p2c_raise), else
 * the thread ends quietly (p2c_exit_thread), as a raise in a device function ends it. */
void emit_array_view_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  const char *to = e->ty->dtype->cname;
  StrBuf arr;
  sb_init(&arr, G->a);
  emit_array_value(G, e->kids[1], &arr);
  if (!e->ival) {
    sb_printf(sb, "p2c_view_dtype<%s>(%s)", to, sb_str(&arr));
    return;
  }
  const Type *at = e->kids[1]->ty;
  TempDecl t = {arena_printf(G->a, "p2c_array<%s, %d>", at->dtype->cname, at->ndim),
                namer_claim_temp(&G->local, "v")};
  vec_push(G->a, &G->temps, t);
  sb_printf(sb, "(%s = %s, p2c_view_dtype_ok<%s>(%s) ? (void)0 : ", t.name, sb_str(&arr), to, t.name);
  helper_use(&G->helpers, H_BOUNDS);
  if (G->fn->reports_raises) {
    helper_use(&G->helpers, H_RAISE);
    sb_printf(sb, "p2c_raise(%u, %u, \"ValueError: new type not compatible with array\")", e->loc.line,
              e->loc.col);
  } else {
    helper_use(&G->helpers, H_EXIT);
    sb_puts(sb, "p2c_exit_thread()");
  }
  sb_printf(sb, ", p2c_view_dtype<%s>(%s))", to, t.name);
}

/* numpy.ndarray.reshape(a, shape): p2c_reshape<N, REPORT>(a, LINE, COLUMN, d0, d1, ...), the
 * extents given one by one or as the elements of a tuple (evaluated once, into a temporary
 * unless it is a variable). */
void emit_array_reshape_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  bool report = G->fn->reports_raises;
  helper_use(&G->helpers, H_BOUNDS);
  helper_use(&G->helpers, H_RAISE);
  helper_use(&G->helpers, H_EXIT);
  const Expr *shape = e->kids[2];
  const char *tuple = NULL;
  bool from_tuple = e->nkids == 3 && shape->ty->kind == TY_TUPLE;
  if (from_tuple && shape->kind != EX_VAR) {
    tuple = new_temp(G, shape->ty);
    sb_printf(sb, "(%s = ", tuple);
    emit_expr(G, shape, sb, P_ASSIGN);
    sb_puts(sb, ", ");
  }
  sb_printf(sb, "p2c_reshape<%d, %s>(", e->ty->ndim, report ? "true" : "false");
  emit_array_value(G, e->kids[1], sb);
  sb_printf(sb, ", %u, %u", e->loc.line, e->loc.col);
  if (from_tuple) {
    Expr temp = {.kind = EX_TEMP, .ty = shape->ty, .str = tuple, .loc = shape->loc};
    for (int k = 0; k < shape->ty->nelems; k++) {
      sb_puts(sb, ", ");
      emit_tuple_elem(G, tuple ? &temp : shape, k, sb, P_ASSIGN);
    }
  } else {
    for (int i = 2; i < e->nkids; i++) {
      sb_puts(sb, ", ");
      emit_expr(G, e->kids[i], sb, P_ASSIGN);
    }
  }
  sb_putc(sb, ')');
  if (tuple) sb_putc(sb, ')');
}

/* a.real, a.imag of an array: of a complex array, a view of one part of each element
 * (p2c_view_part<0 or 1>(a)); of a real one, .real is the array itself (typeinfer refuses
 * .imag there). */
void emit_array_part(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  const Expr *a = e->kids[0];
  if (!type_is_complex(a->ty->dtype)) {
    emit_expr(G, a, sb, prec);
    return;
  }
  type_helper_use(&G->helpers, TH_VIEW_PART);
  sb_printf(sb, "p2c_view_part<%d>(", strcmp(e->str, "imag") == 0);
  emit_array_value(G, a, sb);
  sb_putc(sb, ')');
}
