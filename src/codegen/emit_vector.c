/* Emission of CUDA vector types: a value is CUDA's own struct (float4, int2, ...), made by
 * CUDA's make_<type> function and read by member (v.x), as a CUDA programmer writes it. A
 * constructor given vectors (`float4(xy, z, w)`) passes their lanes one by one; a vector
 * argument with side effects (a device function's result) goes to a temporary first, and then
 * so does every argument with side effects, so that they still run once each, in order. */
#include "codegen/cg.h"

static const char lane_names[] = "xyzw";

/* Whether an argument of call e has side effects. */
static bool any_impure_arg(const Expr *e) {
  for (int i = 1; i < e->nkids; i++)
    if (!an_expr_is_pure(e->kids[i])) return true;
  return false;
}

/* Argument a, or the temporary it was evaluated into (the assignment written to `pre`). */
static const Expr *once(Gen *G, const Expr *a, bool hoist, StrBuf *pre) {
  if (!hoist || an_expr_is_pure(a)) return a;
  Expr *t = temp_expr(G, a->ty);
  sb_printf(pre, "%s = ", t->str);
  emit_expr(G, a, pre, P_ASSIGN);
  sb_puts(pre, ", ");
  return t;
}

/* cuda.float32x4(...) (any vector constructor row): make_float4(a, b, c, d). */
void emit_vector_ctor_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  bool hoist = false;
  for (int i = 1; i < e->nkids; i++)
    if (e->kids[i]->ty->kind == TY_VECTOR && !an_expr_is_pure(e->kids[i])) hoist = any_impure_arg(e);
  StrBuf pre, call;
  sb_init(&pre, G->a);
  sb_init(&call, G->a);
  sb_printf(&call, "make_%s(", e->ty->cname);
  for (int i = 1, lane = 0; i < e->nkids; i++) {
    const Expr *a = once(G, e->kids[i], hoist, &pre);
    if (a->ty->kind != TY_VECTOR) {
      if (lane++) sb_puts(&call, ", ");
      emit_expr(G, a, &call, P_ASSIGN);
      continue;
    }
    for (int k = 0; k < a->ty->lanes; k++) {
      if (lane++) sb_puts(&call, ", ");
      emit_expr(G, a, &call, P_POSTFIX);
      sb_printf(&call, ".%c", lane_names[k]);
    }
  }
  sb_putc(&call, ')');
  if (pre.len && prec > P_LOWEST) sb_putc(sb, '(');
  sb_puts(sb, sb_str(&pre));
  sb_puts(sb, sb_str(&call));
  if (pre.len && prec > P_LOWEST) sb_putc(sb, ')');
}

/* v.x .. v.w */
void emit_vector_lane(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;   /* a member access binds tighter than any context */
  emit_expr(G, e->kids[0], sb, P_POSTFIX);
  sb_printf(sb, ".%s", e->str);
}
