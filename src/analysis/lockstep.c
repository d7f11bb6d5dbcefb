/* Which kernels the simulator may run in lockstep (docs/simulator.md, "Lockstep"; the step
 * function itself is codegen's, emit_lockstep.c, whose opening comment shows its shape).
 *
 * A kernel without barriers qualifies when its body is a few assignments and then one
 * grid-stride loop. Running the assignments again at each step is what makes the step
 * function stateless but for the loop position: so the assignments must give the same values
 * every time (no array element, no call of a device function, no effect; `return` under an
 * `if` ends the thread), and no variable may carry a value from one iteration of the loop into
 * the next (each step starts from fresh locals): every variable the body assigns must be
 * assigned, in that iteration, before the body reads it. Loops that break out or return are
 * left alone, as are loops that are not grid-stride loops (a step that does not depend on the
 * launch's dimensions): a thread that walks its own row is faster thread after thread. */
#include <string.h>

#include "analysis/walk.h"

/* ---- which kernels ---- */

/* An expression that gives the same value each time the assignments run: no memory that the
 * loop could write (array elements; a tuple's or a constant array's are fine), no calls of
 * device functions, nothing with effects. */
static bool settled_expr(const Expr *e) {
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_IMAG:
  case EX_BOOL:
  case EX_VAR:
  case EX_CONST:
  case EX_BUILTIN: return true;
  case EX_CALL:
    if (e->kids[0]->kind == EX_FUNC || !an_expr_is_pure(e)) return false;
    if (e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, BF_NOT_REPEATED)) return false;
    for (int i = 0; i < e->nkeywords; i++)
      if (!settled_expr(e->keywords[i].value)) return false;
    break;
  case EX_INDEX: {
    const Type *base = e->kids[0]->ty;
    bool immutable = base && (base->kind == TY_TUPLE || (base->kind == TY_ARRAY && base->space == MEM_CONST));
    if (!immutable) return false;
    break;
  }
  case EX_ATTR:      /* an array's shape, size, ndim; not a record's field, which is memory */
    if (expr_is_field(e)) return false;
    break;
  case EX_TUPLE:
  case EX_CAST:
  case EX_UNARY:     /* operators on settled operands */
  case EX_NOT:
  case EX_BINARY:
  case EX_COMPARE:
  case EX_BOOLOP:
  case EX_IFEXP: break;
  default: return false;   /* not known to be settled */
  }
  for (int i = 0; i < e->nkids; i++)
    if (e->kids[i]->kind != EX_BUILTIN && !settled_expr(e->kids[i])) return false;
  return true;
}

static bool names_only(const Expr *t) {
  if (t->kind == EX_VAR) return true;
  if (t->kind != EX_TUPLE) return false;
  for (int i = 0; i < t->nkids; i++)
    if (!names_only(t->kids[i])) return false;
  return true;
}

static bool settled_block(const Block *b);

/* A statement before the loop: assignments of settled values to names, `if` on settled
 * conditions around such statements, and a bare `return`. */
static bool settled_stmt(const Stmt *s) {
  switch (s->kind) {
  case ST_PASS: return true;
  case ST_EXPR: return s->value->kind == EX_STR;   /* a docstring */
  case ST_RETURN: return !s->value;
  case ST_RAISE: return false;   /* it may end the thread, or report */
  case ST_ASSIGN:
  case ST_AUGASSIGN:
    for (int k = 0; k < s->ntargets; k++)
      if (!names_only(s->targets[k])) return false;
    return settled_expr(s->value);
  case ST_IF: return settled_expr(s->cond) && settled_block(&s->body) && settled_block(&s->orelse);
  case ST_WHILE:
  case ST_FOR_RANGE:
  case ST_FOR_ITER:
  case ST_BREAK:
  case ST_CONTINUE: return false;
  }
  return false;
}

static bool settled_block(const Block *b) {
  for (int i = 0; i < b->len; i++)
    if (!settled_stmt(b->items[i])) return false;
  return true;
}

/* Whether e depends on the launch's dimensions (cuda.gridsize, blockDim, gridDim), directly or
 * through a variable that one of the assignments before the loop (`before`) sets from them. */
typedef struct LaunchDims {
  const Block *before;
  int depth;
} LaunchDims;

static bool from_launch_dims(const Expr *e, const Block *before, int depth);

static bool binding_from_launch_dims(const Stmt *s, const Expr *value, void *ctx) {
  const LaunchDims *d = ctx;
  (void)s;
  return value && from_launch_dims(value, d->before, d->depth + 1);
}

static bool from_launch_dims(const Expr *e, const Block *before, int depth) {
  if (depth > 8) return false;   /* chains of assignments this long are not the idiom */
  if (e->kind == EX_BUILTIN) return builtin_has(e->builtin, BF_LAUNCH_DIM);
  if (e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, BF_LAUNCH_DIM))
    return true;
  if (e->kind == EX_VAR) {
    LaunchDims d = {before, depth};
    return an_each_binding(before, e->var, binding_from_launch_dims, &d);
  }
  for (int i = 0; i < e->nkids; i++)
    if (from_launch_dims(e->kids[i], before, depth)) return true;
  return false;
}

/* The definite-assignment walk of the loop's body: `set` holds the variables assigned so far in
 * the current iteration; a read of a variable the body assigns (`written`) but that is not in
 * `set` could see the previous iteration's value, which a step function does not keep. */
typedef struct Flow {
  const bool *written;
  bool *set;
  int nvars;
  Arena *a;
  bool ok;
} Flow;

static void flow_reads(Flow *w, const Expr *e) {
  if (!e || !w->ok) return;
  if (e->kind == EX_VAR && w->written[e->var] && !w->set[e->var]) w->ok = false;
  for (int i = 0; i < e->nkids; i++) flow_reads(w, e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) flow_reads(w, e->keywords[i].value);
}

static void flow_target(Flow *w, const Expr *t) {
  if (t->kind == EX_VAR) w->set[t->var] = true;
  else if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) flow_target(w, t->kids[i]);
  else flow_reads(w, t);   /* a subscript reads its array and indices */
}

static bool *copy_set(Flow *w) {
  bool *c = arena_alloc(w->a, sizeof(bool) * (size_t)(w->nvars ? w->nvars : 1));
  memcpy(c, w->set, sizeof(bool) * (size_t)w->nvars);
  return c;
}

static void flow_block(Flow *w, const Block *b, int depth);

/* Walks b with a copy of the current set; returns the set at b's end. */
static bool *flow_apart(Flow *w, const Block *b, int depth) {
  bool *saved = w->set;
  w->set = copy_set(w);
  flow_block(w, b, depth);
  bool *end = w->set;
  w->set = saved;
  return end;
}

static void flow_stmt(Flow *w, const Stmt *s, int depth) {
  switch (s->kind) {
  case ST_EXPR: flow_reads(w, s->value); break;
  case ST_ASSIGN:
    flow_reads(w, s->value);
    for (int k = 0; k < s->ntargets; k++) flow_target(w, s->targets[k]);
    break;
  case ST_AUGASSIGN:
    flow_reads(w, s->targets[0]);
    flow_reads(w, s->value);
    flow_target(w, s->targets[0]);
    break;
  case ST_IF: {
    flow_reads(w, s->cond);
    bool *then_set = flow_apart(w, &s->body, depth);
    bool *else_set = flow_apart(w, &s->orelse, depth);
    for (int i = 0; i < w->nvars; i++) w->set[i] = then_set[i] && else_set[i];
    break;
  }
  case ST_WHILE:   /* the body may not run: what it assigns does not count after it */
    flow_reads(w, s->cond);
    flow_apart(w, &s->body, depth + 1);
    break;
  case ST_FOR_RANGE: {
    flow_reads(w, s->start);
    flow_reads(w, s->stop);
    flow_reads(w, s->step);
    bool *saved = w->set;
    w->set = copy_set(w);
    w->set[s->var] = true;
    flow_block(w, &s->body, depth + 1);
    w->set = saved;
    w->ok = w->ok && s->orelse.len == 0;
    break;
  }
  case ST_FOR_ITER: {
    flow_reads(w, s->value);
    bool *saved = w->set;
    w->set = copy_set(w);
    flow_target(w, s->targets[0]);
    flow_block(w, &s->body, depth + 1);
    w->set = saved;
    w->ok = w->ok && s->orelse.len == 0;
    break;
  }
  case ST_BREAK: w->ok = w->ok && depth > 0; break;   /* leaving the grid-stride loop itself */
  case ST_RETURN:
  case ST_RAISE: w->ok = false; break;   /* a thread that leaves ends lockstep */
  case ST_CONTINUE:
  case ST_PASS: break;
  }
}

static void flow_block(Flow *w, const Block *b, int depth) {
  for (int i = 0; i < b->len && w->ok; i++) flow_stmt(w, b->items[i], depth);
}

const Stmt *an_lockstep_loop(const Function *f, Arena *a) {
  const Block *body = &f->body;
  if (f->kind != FN_KERNEL || f->uses_barrier || body->len == 0) return NULL;
  const Stmt *loop = body->items[body->len - 1];
  if (loop->kind != ST_FOR_RANGE || !loop->step || loop->orelse.len) return NULL;
  Block before = {body->items, body->len - 1};
  if (!settled_block(&before)) return NULL;
  if (!from_launch_dims(loop->step, &before, 0)) return NULL;
  const Expr *bounds[] = {loop->start, loop->stop, loop->step};
  for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
    if (bounds[i] && !settled_expr(bounds[i])) return NULL;
  bool *written = arena_alloc(a, sizeof(bool) * (size_t)(f->nvars ? f->nvars : 1));
  for (int v = 0; v < f->nvars; v++) written[v] = an_assigns_var(&loop->body, v);
  Flow w = {written, arena_alloc(a, sizeof(bool) * (size_t)(f->nvars ? f->nvars : 1)), f->nvars, a, true};
  w.set[loop->var] = true;   /* each step sets it from the position */
  flow_block(&w, &loop->body, 0);
  return w.ok ? loop : NULL;
}
