/* The facts the analysis records on the expressions of a function codegen emits (Expr.facts,
 * EF_*), so that codegen reads them while it prints instead of asking: whether a subscript or an
 * operand of // or % is >= 0 or > 0 (the rules of nonneg.c, over the variables' facts; recorded
 * on those expressions and the operands their facts come from), which parts of a for loop's
 * iterable the loop cannot change, and how a tuple being unpacked must be taken apart. */
#include "analysis/walk.h"

/* ---- >= 0 and > 0 ---- */

static void record_value(const Function *f, Expr *e) {
  bool nn = an_expr_nonneg(f, e), pos = an_expr_positive(f, e);
  e->facts = (uint8_t)((e->facts & ~(EF_NONNEG | EF_POSITIVE)) | EF_KNOWN | (nn ? EF_NONNEG : 0) |
                       (pos ? EF_POSITIVE : 0));
}

typedef struct Record {
  const Function *f;
  Arena *a;
  VEC(Expr *) spine;   /* a stack: each record_tree pushes its chain above its caller's */
} Record;

static void record_tree(Record *r, Expr *e);

/* Operands before the expression (its rules read their recorded facts); a subtree already
 * recorded is not entered again. The first operands are followed in a loop, not by recursion:
 * a chain `a + b + c + ...` nests to the left as deep as it is long. */
static void record_tree(Record *r, Expr *e) {
  size_t base = r->spine.len;
  for (Expr *x = e; !(x->facts & EF_KNOWN); x = x->kids[0]) {
    vec_push(r->a, &r->spine, x);
    if (x->nkids == 0) break;
  }
  while (r->spine.len > base) {
    Expr *x = r->spine.items[--r->spine.len];
    for (int i = 1; i < x->nkids; i++) record_tree(r, x->kids[i]);
    for (int i = 0; i < x->nkeywords; i++) record_tree(r, x->keywords[i].value);
    record_value(r->f, x);
  }
}

/* The expressions codegen asks about: subscripts (Python's wraparound of a negative index) and
 * the operands of // and % (C's / and % where the dividend is >= 0 and the divisor > 0). */
static bool record_expr(AstWalker *w, const Expr *e) {
  Record *r = w->ctx;
  if (e->kind == EX_INDEX)
    for (int i = 1; i < e->nkids; i++) record_tree(r, e->kids[i]);
  if (e->kind == EX_BINARY && (e->op == OP_FLOORDIV || e->op == OP_MOD)) {
    record_tree(r, e->kids[0]);
    record_tree(r, e->kids[1]);
  }
  return true;
}

/* ---- parts of a for loop's iterable that the loop cannot change ---- */

/* An expression that stays the same while loop s runs (reading it each iteration is the same
 * as reading it once): no variable that the body or the loop's own targets rebind
 * (`for i, y in enumerate(range(i, 7))` reads the i of before the loop). */
static bool stable(const Expr *e, const Stmt *s) {
  if (e->kind == EX_CAST || e->kind == EX_UNARY || e->kind == EX_BINARY) {
    for (int i = 0; i < e->nkids; i++)
      if (!stable(e->kids[i], s)) return false;
    return true;
  }
  return e->kind == EX_INT || e->kind == EX_CONST || e->kind == EX_TEMP ||
         (e->kind == EX_VAR && !an_assigns_var(&s->body, e->var) && !an_target_names(s->targets[0], e->var));
}

static void mark_stable(Expr *e, const Stmt *s) {
  if (stable(e, s)) e->facts |= EF_STABLE;
  for (int i = 0; i < e->nkids; i++) mark_stable(e->kids[i], s);
}

/* ---- tuple unpacking: what codegen evaluates into temporaries first ---- */

static bool reads_any_target(const Expr *value, const Expr *target) {
  if (target->kind == EX_VAR) return an_reads_var(value, target->var);
  for (int i = 0; i < target->nkids; i++)
    if (reads_any_target(value, target->kids[i])) return true;
  return expr_is_store(target);
}

/* Whether the elements of tuple value e can be read one at a time without evaluating anything
 * twice or changing what the elements are. */
static bool elements_at_hand(const Expr *e) {
  if (e->kind == EX_INDEX) return e->ival >= 0 && elements_at_hand(e->kids[0]);
  if (e->kind == EX_ATTR) return an_expr_is_pure(e);
  bool grid = e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN &&
              builtin_has(e->kids[0]->builtin, BF_PER_ELEMENT);
  return e->kind == EX_VAR || e->kind == EX_TEMP || e->kind == EX_CONST || grid;
}

static bool stores_element(const Expr *t) {
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++)
    if (expr_is_store(t->kids[i]) || stores_element(t->kids[i])) return true;
  return false;
}

/* EF_STORES on each tuple of targets (codegen asks it of the tuples it builds for a for loop's
 * elements, which never read the loop's own targets: emit_iter.c evaluates such parts first). */
static void mark_targets(Expr *t) {
  if (t->kind != EX_TUPLE) return;
  if (stores_element(t)) t->facts |= EF_STORES;
  for (int i = 0; i < t->nkids; i++) mark_targets(t->kids[i]);
}

/* target = value, target a tuple: as emit_unpack will take it apart. */
static void record_unpack(const Expr *target, Expr *value) {
  if (target->kind != EX_TUPLE) return;
  if (value->kind == EX_TUPLE) {
    if (reads_any_target(value, target)) value->facts |= EF_READS_TARGET;
    else
      for (int k = 0; k < target->nkids && k < value->nkids; k++) record_unpack(target->kids[k], value->kids[k]);
  } else if (elements_at_hand(value)) {
    value->facts |= EF_AT_HAND;
  }
}

static bool record_loop(AstWalker *w, const Stmt *s) {
  (void)w;
  if (s->kind == ST_FOR_ITER) {
    mark_stable(s->value, s);
    mark_targets(s->targets[0]);
  }
  if (s->kind == ST_ASSIGN) {
    for (int k = 0; k < s->ntargets; k++) mark_targets(s->targets[k]);
    if (s->ntargets == 1) record_unpack(s->targets[0], s->value);   /* a = b = v: v is a temporary */
  }
  return true;
}

/* Recording only where codegen asks, not on every expression, costs 4.6 M instructions instead
 * of 7.7 M on the 1,000-kernel module (bench/RESULTS.md). */
void an_record_facts(Function *f, Arena *a) {
  Record r = {.f = f, .a = a};
  AstWalker w = {.stmt = record_loop, .expr = record_expr, .ctx = &r};
  ast_walk_block(&w, &f->body);
}
