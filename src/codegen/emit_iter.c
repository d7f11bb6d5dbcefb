/* for loops over iterables other than a plain range() (which emit.c writes as a C for loop over
 * the variable itself). One hidden counter runs from 0 to the number of iterations:
 *
 *     # for i, (x, y) in enumerate(zip(a, range(2, n))):
 *     p2c_t2 = p2c_min<int64_t>(a.shape[0], p2c_range_len(2, n, 1));
 *     for (p2c_t = 0; p2c_t < p2c_t2; ++p2c_t) {
 *       i = p2c_t;
 *       x = a.data[p2c_t];
 *       y = (int64_t)(2 + p2c_t);
 *
 * zip stops at its shortest iterable, as Python's does. What an iterable needs evaluated once
 * (an array expression the body may rebind, range bounds) is evaluated before the loop, as
 * Python evaluates the iterable once; elements are read at the top of each iteration, as
 * Python's iterators read them (a write to a[k + 1] in the body is seen by the next
 * iteration). The elements form an expression tree (a tuple literal for enumerate and zip),
 * assigned to the targets as any tuple value is. */
#include "codegen/cg.h"

static BuiltinId iter_call(const Expr *it) {
  if (it->kind != EX_CALL || it->kids[0]->kind != EX_BUILTIN) return BI_NONE;
  return builtin_has(it->kids[0]->builtin, BF_ITERABLE) ? it->kids[0]->builtin->id : BI_NONE;
}

/* Text for the C expression e (a temporary, evaluated before the loop, unless the analysis
 * found that the loop cannot change it: EF_STABLE). */
static Expr *once(Gen *G, Expr *e, const Stmt *s) {
  (void)s;
  if (e->facts & EF_STABLE) return e;
  Expr *t = temp_expr(G, e->ty);
  StrBuf sb;
  sb_init(&sb, G->a);
  if (e->ty->kind == TY_ARRAY) emit_array_value(G, e, &sb);
  else emit_expr(G, e, &sb, P_ASSIGN);
  emit_line(G, "%s = %s;\n", t->str, sb_str(&sb));
  return t;
}

static Expr *codegen_text(Gen *G, const Type *t, const char *text, bool nonneg) {
  Expr *e = ast_new_expr(G->a, EX_TEMP, (Loc){0});
  e->ty = t;
  e->str = text;
  e->ival = nonneg;
  e->facts = EF_AT_HAND | (nonneg || type_never_negative(t) ? EF_KNOWN | EF_NONNEG : EF_KNOWN);
  return e;
}

static const char *text_of(Gen *G, const Expr *e, int prec) {
  StrBuf sb;
  sb_init(&sb, G->a);
  emit_expr(G, e, &sb, prec);
  return sb_str(&sb);
}

/* ---- preparing the iterable: what must be evaluated once ---- */

/* A copy of iterable `it` of loop s whose parts that could change during the loop are
 * temporaries. */
static Expr *prepare(Gen *G, const Expr *it, const Stmt *s) {
  Expr *p = arena_dup(G->a, it, sizeof *it);
  if (iter_call(it) == BI_NONE) {
    Expr *o = once(G, p, s);
    o->yield_ty = it->yield_ty;
    return o;
  }
  p->kids = arena_dup(G->a, it->kids, sizeof(Expr *) * (size_t)it->nkids);
  for (int i = 1; i < it->nkids; i++) {
    bool count_start = iter_call(it) == BI_ENUMERATE && i == 2;
    p->kids[i] = iter_call(it) == BI_RANGE || count_start ? once(G, it->kids[i], s)
                                                           : prepare(G, it->kids[i], s);
  }
  return p;
}

/* ---- the number of iterations ---- */

static const char *range_part(Gen *G, const Expr *r, int which, const char *dflt) {
  int n = r->nkids - 1;
  const Expr *part = n == 1 ? (which == 1 ? r->kids[1] : NULL) : which < n ? r->kids[which + 1] : NULL;
  return part ? text_of(G, part, which == 2 ? P_MUL + 1 : P_ADD) : dflt;
}

static const char *length_text(Gen *G, const Expr *it) {
  switch (iter_call(it)) {
  case BI_RANGE:
    type_helper_use(&G->helpers, TH_RANGE_LEN);
    return arena_printf(G->a, "p2c_range_len<%s>(%s, %s, %s)", it->ty->cname,
                        range_part(G, it, 0, "0"), range_part(G, it, 1, "0"), range_part(G, it, 2, "1"));
  case BI_ENUMERATE: return length_text(G, it->kids[1]);
  case BI_ZIP: {
    if (it->nkids == 2) return length_text(G, it->kids[1]);
    helper_use(&G->helpers, H_MINMAX);
    StrBuf sb;
    sb_init(&sb, G->a);
    for (int i = 2; i < it->nkids; i++) sb_puts(&sb, G->c_form ? "p2c_min_of(int64_t)(" : "p2c_min<int64_t>(");
    sb_puts(&sb, length_text(G, it->kids[1]));
    for (int i = 2; i < it->nkids; i++) sb_printf(&sb, ", %s)", length_text(G, it->kids[i]));
    return sb_str(&sb);
  }
  default: break;
  }
  const Type *t = it->ty;
  if (t->kind == TY_TUPLE) return arena_printf(G->a, "%d", t->nelems);
  if (t->fixed_shape) return arena_printf(G->a, "%lld", (long long)t->fixed_shape[0]);
  StrBuf sb;
  sb_init(&sb, G->a);
  emit_extent(G, it, t, 0, &sb);
  return sb_str(&sb);
}

/* Whether the length is an extent or a constant (not computed by a helper). */
static bool length_is_plain(const Expr *it) {
  switch (iter_call(it)) {
  case BI_RANGE: return false;
  case BI_ENUMERATE: return length_is_plain(it->kids[1]);
  case BI_ZIP: return it->nkids == 2 && length_is_plain(it->kids[1]);
  default: return true;
  }
}

/* ---- the element at counter k ---- */

static Expr *element(Gen *G, const Expr *it, const char *k);

/* start + k * step, in the range's type (computed in int64 or uint64, where it cannot
 * overflow before it is narrowed). */
static Expr *range_element(Gen *G, const Expr *r, const char *k) {
  const char *start = range_part(G, r, 0, NULL), *step = range_part(G, r, 2, NULL);
  const char *v = k;
  if (step) v = arena_printf(G->a, "%s * %s", k, step);
  if (start) v = arena_printf(G->a, "%s + %s", start, v);
  bool narrow = r->ty->bits < 64;
  if (narrow) v = arena_printf(G->a, start || step ? "(%s)(%s)" : "(%s)%s", r->ty->cname, v);
  else if (start || step) v = arena_printf(G->a, "(%s)", v);
  return codegen_text(G, r->ty, v, !start && !step);
}

static Expr *tuple_of(Gen *G, const Type *t, Expr **kids, int n) {
  Expr *e = ast_new_expr(G->a, EX_TUPLE, (Loc){0});
  e->ty = t;
  e->kids = arena_dup(G->a, kids, sizeof(Expr *) * (size_t)n);
  e->nkids = n;
  return e;
}

/* a[k] (or t[k] of a UniTuple), with k known to be in range. */
static Expr *indexed(Gen *G, const Expr *it, const char *k) {
  Expr *e = ast_new_expr(G->a, EX_INDEX, it->loc);
  e->kids = arena_alloc(G->a, 2 * sizeof(Expr *));
  e->kids[0] = (Expr *)it;
  e->kids[1] = codegen_text(G, &type_int64, k, true);
  e->nkids = 2;
  e->ival = -1;   /* a tuple read with a runtime index */
  e->ty = it->yield_ty;   /* an element, or a row view of an N-D array */
  return e;
}

static Expr *element(Gen *G, const Expr *it, const char *k) {
  switch (iter_call(it)) {
  case BI_RANGE: return range_element(G, it, k);
  case BI_ENUMERATE: {
    const char *count = k;
    if (it->nkids == 3) count = arena_printf(G->a, "(%s + %s)", text_of(G, it->kids[2], P_ADD), k);
    Expr *kids[2] = {codegen_text(G, &type_int64, count, it->nkids == 2), element(G, it->kids[1], k)};
    return tuple_of(G, it->ty, kids, 2);
  }
  case BI_ZIP: {
    Expr *kids[32];
    for (int i = 1; i < it->nkids; i++) kids[i - 1] = element(G, it->kids[i], k);
    return tuple_of(G, it->ty, kids, it->nkids - 1);
  }
  default: break;
  }
  return indexed(G, it, k);
}

void emit_for_iter(Gen *G, const Stmt *s) {
  Expr *it = prepare(G, s->value, s);
  const char *n = length_text(G, it);
  if (!length_is_plain(it)) {   /* a length computed by helpers is computed once */
    Expr *t = temp_expr(G, &type_int64);
    emit_line(G, "%s = %s;\n", t->str, n);
    n = t->str;
  }
  const char *k = new_temp(G, &type_int64);
  emit_line(G, "for (%s = 0; %s < %s; ++%s) {\n", k, k, n, k);
  G->indent += 2;
  emit_assign_one(G, s->targets[0], element(G, it, k));
  emit_loop_body(G, &s->body, true);
  G->indent -= 2;
  emit_line(G, "}\n");
}
