/* What codegen needs to know to write a range() loop as a C for loop (emit.c, range_loop):
 * the sign of the step (a constant, or known positive), whether `k += step` past the last value
 * can overflow the counter (value_bits.c), whether the loop variable can be the counter itself,
 * and which bounds the loop can change (those are evaluated once, before it, as Python does:
 * `for k in range(0, k)` reads the k of before the loop). */
#include "analysis/walk.h"

/* |e| for a constant integer step (ignoring casts), or 0 when e is not one. */
static uint64_t const_magnitude(const Expr *e) {
  if (!e) return 0;
  if (e->kind == EX_CAST) e = e->kids[0];
  if (e->kind == EX_CONST) e = e->konst->value;
  bool neg = e->kind == EX_UNARY && e->op == OP_NEG;
  if (neg) e = e->kids[0];
  if (e->kind != EX_INT || e->is_unsigned_literal) return 0;
  return e->ival < 0 ? 0 - (uint64_t)e->ival : (uint64_t)e->ival;
}

int an_const_sign(const Expr *e) {
  if (!e) return 1;
  if (e->kind == EX_CAST) e = e->kids[0];
  if (e->kind == EX_CONST) e = e->konst->value;
  if (e->kind == EX_INT) return e->ival > 0 ? 1 : e->ival < 0 ? -1 : 0;
  if (e->kind == EX_UNARY && e->op == OP_NEG && e->kids[0]->kind == EX_INT) return e->kids[0]->ival > 0 ? -1 : 0;
  return 2;   /* unknown */
}

bool an_step_is_positive(const Function *f, const Expr *step) {
  return !step || an_const_sign(step) == 1 || an_expr_positive(f, step);
}

/* Whether loop s rebinds variable var: its body, or the loop itself (its variable). */
static bool loop_rebinds(const Stmt *s, int var) {
  return var == s->var || an_assigns_var(&s->body, var);
}

/* A bound the loop cannot change: a constant, a variable it does not rebind, an extent. */
static bool stable_bound(const Expr *e, const Stmt *loop) {
  return e->kind == EX_INT || e->kind == EX_CONST ||
         (e->kind == EX_VAR && !loop_rebinds(loop, e->var)) ||
         (e->kind == EX_CAST && e->kids[0]->kind == EX_VAR && !loop_rebinds(loop, e->kids[0]->var)) ||
         (e->kind == EX_ATTR && e->kids[0]->kind == EX_VAR);
}

/* The value of a constant integer bound (a literal, a module constant, -literal), or false. */
static bool const_bound(const Expr *e, int64_t *v) {
  if (!e) return false;
  if (e->kind == EX_CAST) e = e->kids[0];
  if (e->kind == EX_CONST) e = e->konst->value;
  bool neg = e->kind == EX_UNARY && e->op == OP_NEG;
  if (neg) e = e->kids[0];
  if (e->kind != EX_INT || e->is_unsigned_literal || e->ival < -(1LL << 40) || e->ival > (1LL << 40)) return false;
  *v = neg ? -e->ival : e->ival;
  return true;
}

/* Whether block b holds a loop, at any depth. */
static bool holds_loop(AstWalker *w, const Stmt *s) {
  if (s->kind == ST_WHILE || s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER) *(bool *)w->ctx = true;
  return true;
}

/* A loop short enough to go without the simulator's poll (emit_loop_body): a constant count of
 * at most SHORT_LOOP_TRIPS, and no loop inside, so that every loop nest still polls at least once
 * per SHORT_LOOP_TRIPS iterations of its innermost loop (matmul's `for k in range(TPB)`, an
 * unrolled-looking `range(4)`: the poll's counter cost two instructions an iteration there). */
enum { SHORT_LOOP_TRIPS = 1024 };

static bool short_and_inner(const Stmt *s) {
  int64_t start = 0, stop, step = 1;
  if ((s->start && !const_bound(s->start, &start)) || !const_bound(s->stop, &stop) ||
      (s->step && !const_bound(s->step, &step)) || step == 0)
    return false;
  int64_t trips = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
  if (trips > SHORT_LOOP_TRIPS) return false;
  bool inner = false;
  AstWalker w = {.stmt = holds_loop, .ctx = &inner};
  ast_walk_block(&w, &s->body);
  return !inner;
}

/* Range loop s of function f: its facts. */
static void range_facts(const Function *f, Stmt *s) {
  RangeFacts *r = &s->range;
  r->sign = (int8_t)(an_step_is_positive(f, s->step) ? 1 : an_const_sign(s->step));
  /* k + step past the last value must not overflow the counter: a unit step cannot
   * (k < stop <= the type's largest value), and neither can one when stop and step are both
   * well inside the type. */
  const Type *t = f->vars[s->var].ty;
  int room = t->is_signed ? t->bits - 1 : t->bits;
  bool unit = !s->step || const_magnitude(s->step) == 1;
  r->exact_advance = unit || (an_value_bits(f, s->stop) < room && an_value_bits(f, s->step) < room);
  r->direct = !an_assigns_var(&s->body, s->var) && !an_used_outside(&f->body, s, s->var);
  r->stop_stable = stable_bound(s->stop, s);
  r->step_stable = s->step && stable_bound(s->step, s);
  r->short_and_inner = short_and_inner(s);
}

void an_ranges(const Function *f, const StmtList *loops) {
  for (size_t i = 0; i < loops->len; i++) range_facts(f, loops->items[i]);
}
