/* Tuples as C values. Each tuple type the generated code uses becomes a struct, declared once
 * before the functions:
 *
 *     struct p2c_tuple_i64_f64 { int64_t f0; double f1; };    (int64, float64)
 *     struct p2c_tuple_i64x3 { int64_t f[3]; };               UniTuple(int64 x 3)
 *
 * A UniTuple keeps its elements in an array so that a runtime index is a plain subscript;
 * other tuples name each member. Tuple values are built with braces
 * (`p2c_tuple_i64_f64{i, x}`), so a variable, a parameter and a return value are ordinary C
 * values. Element access avoids building the struct where the parts are at hand: element 1 of
 * `(a, b)` is `b`, element 0 of `cuda.grid(2)` is the x coordinate. An operand with side effects
 * (a device call) is evaluated once, into a temporary, before its elements are used. */
#include <string.h>

#include "codegen/cg.h"

/* ".f0" or ".f[0]" */
void put_member(StrBuf *sb, const Type *t, int k) {
  if (type_tuple_uniform(t)) sb_printf(sb, ".f[%d]", k);
  else sb_printf(sb, ".f%d", k);
}

const char *type_suffix(Gen *G, const Type *t) {
  if (t->kind == TY_ARRAY) return arena_printf(G->a, "a%d%s", t->ndim, type_suffix(G, t->dtype));
  if (t->kind == TY_BOOL) return "b";
  if (t->enum_class) return arena_printf(G->a, "e%s", type_suffix(G, t->dtype));   /* an enum member */
  if (t->kind == TY_TUPLE) {   /* deep tuples get a short name (the namer keeps it unique) */
    StrBuf sb;
    sb_init(&sb, G->a);
    sb_printf(&sb, "tup%d", t->nelems);
    for (int i = 0; i < t->nelems && t->nest <= 2 && t->nelems <= 8; i++)
      sb_puts(&sb, type_suffix(G, t->elems[i]));
    return sb_str(&sb);
  }
  return arena_printf(G->a, "%c%d", t->kind == TY_FLOAT ? 'f' : t->is_signed ? 'i' : 'u', t->bits);
}

static const char *struct_base_name(Gen *G, const Type *t) {
  StrBuf sb;
  sb_init(&sb, G->a);
  if (t->tuple_class) return t->tuple_class;   /* a namedtuple: its class (an ASCII identifier) */
  sb_puts(&sb, "tuple");
  if (t->nelems == 0) sb_puts(&sb, "_empty");
  else if (type_tuple_uniform(t)) sb_printf(&sb, "_%sx%d", type_suffix(G, t->elems[0]), t->nelems);
  else
    for (int i = 0; i < t->nelems && i < 8; i++) sb_printf(&sb, "_%s", type_suffix(G, t->elems[i]));
  return sb_str(&sb);
}

const char *tuple_ctype(Gen *G, const Type *t) {
  if (G->on_second_thread) {
    G->needs_tuples = true;
    return "p2c_tuple_pending";   /* never seen: this thread's text is discarded */
  }
  for (size_t i = 0; i < G->tuple_ctypes.len; i++)
    if (G->tuple_ctypes.items[i].type == t) return G->tuple_ctypes.items[i].name;
  for (int i = 0; i < t->nelems; i++) ctype_of(G, t->elems[i]);   /* members are defined first */
  TupleCType tc = {t, namer_claim_temp(&G->global, struct_base_name(G, t))};
  vec_push(G->a, &G->tuple_ctypes, tc);
  return tc.name;
}

void emit_tuple_structs(Gen *G, StrBuf *out) {
  for (size_t i = 0; i < G->tuple_ctypes.len; i++) {
    const Type *t = G->tuple_ctypes.items[i].type;
    /* C (the first tier's C form) names a struct through a typedef, and C++ by its tag */
    sb_printf(out, "\n/* %s */\n%sstruct %s {\n", t->name, G->c_form ? "typedef " : "", G->tuple_ctypes.items[i].name);
    if (t->nelems && type_tuple_uniform(t))
      sb_printf(out, "  %s f[%d];\n", ctype_of(G, t->elems[0]), t->nelems);
    else
      for (int k = 0; k < t->nelems; k++) sb_printf(out, "  %s f%d;\n", ctype_of(G, t->elems[k]), k);
    if (G->c_form) sb_printf(out, "} %s;\n", G->tuple_ctypes.items[i].name);
    else sb_puts(out, "};\n");
  }
}

/* ---- codegen-made expressions ---- */

Expr *tuple_elem_expr(Gen *G, Expr *base, int k) {
  Expr *e = ast_new_expr(G->a, EX_INDEX, base->loc);
  e->kids = arena_alloc(G->a, 2 * sizeof(Expr *));
  e->kids[0] = base;
  e->kids[1] = ast_new_expr(G->a, EX_INT, base->loc);
  e->kids[1]->ival = k;
  e->kids[1]->ty = &type_int64;
  e->kids[1]->facts = EF_KNOWN | EF_NONNEG | (k > 0 ? EF_POSITIVE : 0);
  e->nkids = 2;
  e->ival = k;
  e->ty = base->ty->elems[k];
  e->facts = base->facts & EF_AT_HAND;   /* an element of a tuple at hand is at hand */
  return e;
}

Expr *temp_expr(Gen *G, const Type *t) {
  Expr *e = ast_new_expr(G->a, EX_TEMP, (Loc){0});
  e->ty = t;
  e->str = new_temp(G, t);
  e->facts = EF_KNOWN | EF_AT_HAND | (type_never_negative(t) ? EF_NONNEG : 0);
  return e;
}

/* ---- elements ---- */

/* Whether every kid of a tuple literal other than kid k is free of side effects (so kid k can
 * be used alone). */
static bool others_pure(const Expr *e, int k) {
  for (int i = 0; i < e->nkids; i++)
    if (i != k && !an_expr_is_pure(e->kids[i])) return false;
  return true;
}

/* The expression node of element k of e, where one exists in the tree. */
static const Expr *elem_node(const Expr *e, int k) {
  if (e->kind == EX_TUPLE && others_pure(e, k)) return e->kids[k];
  if (e->kind == EX_CONST) return e->konst->value->kids[k];
  return NULL;
}

/* An element's own expression, as a value (a shared array becomes a view). */
static void emit_node(Gen *G, const Expr *node, StrBuf *sb, int prec) {
  if (node->ty && node->ty->kind == TY_ARRAY) emit_array_value(G, node, sb);
  else emit_expr(G, node, sb, prec);
}

/* Element k of e converted to type `to`. With `all`, the caller writes every element of e once,
 * in order, so the kids of a tuple literal are used as they are. */
static void emit_elem_as(Gen *G, Expr *e, int k, const Type *to, bool all, StrBuf *sb, int prec) {
  const Expr *node = all && e->kind == EX_TUPLE ? e->kids[k] : elem_node(e, k);
  Expr *elem = node ? (Expr *)node : tuple_elem_expr(G, e, k);
  if (elem->ty == to || to->kind == TY_ARRAY) {   /* array layouts share one C type */
    if (node) emit_node(G, node, sb, prec);
    else emit_tuple_elem(G, e, k, sb, prec);
    return;
  }
  /* A literal element converts as a literal: 1 -> 1.0. */
  Expr cast = {.kind = EX_CAST, .ty = to, .kids = &elem, .nkids = 1, .loc = e->loc};
  emit_expr(G, &cast, sb, prec);
}

static bool is_grid_call(const Expr *e) {
  return e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, BF_PER_ELEMENT);
}

void emit_tuple_elem(Gen *G, const Expr *e, int k, StrBuf *sb, int prec) {
  const Expr *node = elem_node(e, k);
  if (node) {
    emit_node(G, node, sb, prec);
    return;
  }
  switch (e->kind) {
  case EX_VAR:
  case EX_TEMP:
    emit_expr(G, e, sb, P_POSTFIX);
    put_member(sb, e->ty, k);
    return;
  case EX_CALL:
    if (!is_grid_call(e)) break;
    emit_grid_elem(e, k, sb, prec);
    return;
  case EX_ATTR:   /* a.shape; m.value of an Enum member, which is held as its value */
    if (e->kids[0]->ty->kind == TY_ENUM) {
      emit_expr(G, e->kids[0], sb, P_POSTFIX);
      put_member(sb, e->ty, k);
      return;
    }
    if (!an_expr_is_pure(e)) break;
    if (e->kids[0]->ty->fixed_shape) sb_printf(sb, "%lld", (long long)e->kids[0]->ty->fixed_shape[k]);
    else emit_extent(G, e->kids[0], e->kids[0]->ty, k, sb);
    return;
  case EX_CAST:
    if (!an_expr_is_pure(e->kids[0])) break;
    emit_elem_as(G, e->kids[0], k, e->ty->elems[k], false, sb, prec);
    return;
  case EX_BINARY: {   /* t1 + t2 */
    if (!an_expr_is_pure(e)) break;
    int n0 = e->kids[0]->ty->nelems;
    if (k < n0) emit_tuple_elem(G, e->kids[0], k, sb, prec);
    else emit_tuple_elem(G, e->kids[1], k - n0, sb, prec);
    return;
  }
  case EX_INDEX:
    if (e->ival >= 0 && (node = elem_node(e->kids[0], (int)e->ival))) {
      emit_tuple_elem(G, node, k, sb, prec);
      return;
    }
    break;
  default: break;
  }
  emit_expr(G, e, sb, P_POSTFIX);
  put_member(sb, e->ty, k);
}

/* ---- whole values ---- */

/* T{e0, e1, ...} from the elements of e, each converted to the member type. */
static void emit_braced(Gen *G, const Type *t, Expr *e, StrBuf *sb) {
  bool uni = type_tuple_uniform(t);
  sb_printf(sb, G->c_form ? "(%s){%s" : "%s{%s", tuple_ctype(G, t), uni ? "{" : "");   /* C: a compound literal */
  for (int k = 0; k < t->nelems; k++) {
    if (k) sb_puts(sb, ", ");
    emit_elem_as(G, e, k, t->elems[k], true, sb, P_ASSIGN);
  }
  sb_puts(sb, uni ? "}}" : "}");
}

/* An operand, or a temporary holding it when it has side effects (the assignment to the
 * temporary is written to `pre`). */
static Expr *evaluated_once(Gen *G, Expr *operand, StrBuf *pre) {
  if (an_expr_is_pure(operand)) return operand;
  Expr *t = temp_expr(G, operand->ty);
  sb_printf(pre, "%s = ", t->str);
  emit_expr(G, operand, pre, P_ASSIGN);
  sb_puts(pre, ", ");
  return t;
}

/* A tuple computed from other tuples (a conversion or a concatenation): element by element,
 * with each operand that has side effects evaluated once, first. */
static void emit_derived_tuple(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  StrBuf pre;
  sb_init(&pre, G->a);
  Expr *copy = arena_dup(G->a, e, sizeof *e);
  copy->kids = arena_dup(G->a, e->kids, sizeof(Expr *) * (size_t)e->nkids);
  for (int i = 0; i < e->nkids; i++) copy->kids[i] = evaluated_once(G, e->kids[i], &pre);
  (void)prec;   /* a braced value is a postfix expression; with temporaries it is parenthesized */
  if (pre.len) sb_printf(sb, "(%s", sb_str(&pre));
  emit_braced(G, e->ty, copy, sb);
  if (pre.len) sb_putc(sb, ')');
}

bool emit_tuple_value(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  switch (e->kind) {
  case EX_ATTR:   /* a.shape: an array expression with side effects is evaluated once */
    if (!an_expr_is_pure(e)) {
      emit_derived_tuple(G, e, sb, prec);
      return true;
    }
    emit_braced(G, e->ty, (Expr *)e, sb);
    return true;
  case EX_TUPLE:
  case EX_CONST:
    emit_braced(G, e->ty, (Expr *)e, sb);
    return true;
  case EX_CALL:
    if (!is_grid_call(e)) return false;
    emit_braced(G, e->ty, (Expr *)e, sb);
    return true;
  case EX_CAST:
  case EX_BINARY: emit_derived_tuple(G, e, sb, prec); return true;
  default: return false;
  }
}

/* ---- runtime indices ---- */

void emit_tuple_runtime_index(Gen *G, const Expr *e, StrBuf *sb) {
  const Expr *base = e->kids[0];
  const char *n = arena_printf(G->a, "%d", base->ty->nelems);
  if (base->kind == EX_CONST) {   /* a module constant's table */
    sb_printf(sb, "%s[", base->konst->cname);
  } else if (base->kind == EX_ATTR && base->kids[0]->ty->kind == TY_ARRAY && !base->kids[0]->ty->fixed_shape) {   /* a.shape[i] */
    emit_expr(G, base->kids[0], sb, P_POSTFIX);
    sb_puts(sb, ".shape[");
  } else {
    emit_expr(G, base, sb, P_POSTFIX);
    sb_puts(sb, ".f[");
  }
  if (G->fn->checks_bounds || G->fn->debug) emit_checked_tuple_index(G, e, base->ty->nelems, sb);
  else emit_wrapped_index(G, e->kids[1], n, sb, P_LOWEST);
  sb_putc(sb, ']');
}
