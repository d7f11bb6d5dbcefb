/* prange loops that run over the CPU's cores (issue 33): in a host entry of an @njit(parallel=
 * True) function, an outermost `for i in prange(...)` whose iterations can be split into chunks,
 * each run by one worker with its own copy of the variables the body binds, gets a ParallelLoop
 * (Stmt.par), which codegen prints as a p2c_prange call (emit_stmt.c). As in Numba's parfors, a
 * variable the body updates only by `v op= x` or `v = v op x` (op + - * | & ^) or `v = min(v, x)`
 * (max), and reads nowhere else there, is a reduction: each chunk starts from op's identity (min
 * and max: from v) and the chunks' values are combined into v after the loop. Any other variable
 * the body binds must not be read outside the loop (its value after a parallel loop is undefined
 * in Numba; here such a loop stays serial), and the loop must not return or break out; a loop
 * that fails a rule runs in order, as range, which gives Numba's results too. */
#include "analysis/walk.h"

/* The bindings of one variable in a loop body: how many, their ReductionKind (-1 when one is
 * not an update a reduction may use, or two disagree), and every occurrence of the variable. */
typedef struct VarUses {
  int var, count, updates;
  int kind;
} VarUses;

static bool count_use(AstWalker *w, const Expr *e) {
  VarUses *u = w->ctx;
  if (e->kind == EX_VAR && e->var == u->var) u->count++;
  return true;
}

/* e without the conversions typeinfer wrapped around it. */
static const Expr *uncast(const Expr *e) {
  while (e && e->kind == EX_CAST) e = e->kids[0];
  return e;
}

static bool is_var(const Expr *e, int v) {
  e = uncast(e);
  return e && e->kind == EX_VAR && e->var == v;
}

/* The ReductionKind whose update binary operator op is (- gathers a sum to subtract), or -1. */
static int op_kind(Op op) {
  switch (op) {
  case OP_ADD:
  case OP_SUB: return RED_ADD;
  case OP_MUL: return RED_MUL;
  case OP_BITOR: return RED_OR;
  case OP_BITAND: return RED_AND;
  case OP_BITXOR: return RED_XOR;
  default: return -1;
  }
}

/* The ReductionKind of statement s binding variable v, or -1. Numba's parfors take `v op= x`,
 * `v = v op x` (and `x op v` for a commutative op) and `v = min(v, x)`, max likewise. Each form
 * names v twice (the target and one operand; augmented assignments are lowered as `v = v op x`),
 * which is_reduction counts on. */
static int binding_kind(const Stmt *s, int v) {
  if (s->ntargets != 1 || s->targets[0]->kind != EX_VAR) return -1;
  const Expr *e = uncast(s->value);
  if (s->kind == ST_AUGASSIGN) return op_kind(s->op);
  if (s->kind != ST_ASSIGN || !e) return -1;
  if (e->kind == EX_BINARY && e->nkids == 2)
    return is_var(e->kids[0], v) || (is_var(e->kids[1], v) && e->op != OP_SUB) ? op_kind(e->op) : -1;
  bool minmax = e->kind == EX_CALL && e->builtin && (e->builtin->id == BI_MIN || e->builtin->id == BI_MAX);
  if (!minmax || e->nkids != 3 || e->nkeywords || !(is_var(e->kids[1], v) || is_var(e->kids[2], v))) return -1;
  return e->builtin->id == BI_MIN ? RED_MIN : RED_MAX;
}

/* One binding of the variable in the body: counted, its kind agreeing with the others' or not. */
static bool note_binding(const Stmt *s, const Expr *value, void *ctx) {
  (void)value;
  VarUses *u = ctx;
  int kind = binding_kind(s, u->var);
  u->kind = kind < 0 || (u->updates && u->kind != kind) ? -1 : kind;
  u->updates++;
  return u->kind < 0;   /* stop at the first binding that is not an update */
}

/* Whether variable v, bound in the body of prange loop `loop`, is a reduction: a number bound
 * only by updates of one kind (bit operators on integers only; no float16), and read nowhere
 * else in the body; *kind gets the kind. */
static bool is_reduction(const Function *f, const Stmt *loop, int v, ReductionKind *kind) {
  const Type *t = f->vars[v].ty;
  if (v == loop->var || !t || (t->kind != TY_INT && t->kind != TY_FLOAT) || t == &type_float16) return false;
  VarUses u = {.var = v};
  an_each_binding(&loop->body, v, note_binding, &u);
  if (u.updates == 0 || u.kind < 0) return false;
  if ((u.kind == RED_OR || u.kind == RED_AND || u.kind == RED_XOR) && t->kind != TY_INT) return false;
  AstWalker w = {.expr = count_use, .ctx = &u};
  ast_walk_block(&w, &loop->body);
  *kind = (ReductionKind)u.kind;
  return u.count == 2 * u.updates;   /* each update's target and operand, nothing more */
}

/* A statement that leaves the loop from inside it: return, or break at the loop's own level. */
static bool leaves(const Block *b, bool nested_loop) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    if (s->kind == ST_RETURN || (s->kind == ST_BREAK && !nested_loop)) return true;
    bool loop = s->kind == ST_FOR_RANGE || s->kind == ST_FOR_ITER || s->kind == ST_WHILE;
    if (leaves(&s->body, nested_loop || loop) || leaves(&s->orelse, nested_loop)) return true;
  }
  return false;
}

/* The ParallelLoop of prange loop s of function f, or NULL when it must run in order. */
static const ParallelLoop *plan_loop(const Function *f, const Stmt *s, Arena *a) {
  if (leaves(&s->body, false)) return NULL;
  ParallelLoop *p = arena_alloc(a, sizeof *p);
  int n = f->nvars ? f->nvars : 1;
  p->private_vars = arena_alloc(a, sizeof(bool) * (size_t)n);
  p->reductions = arena_alloc(a, sizeof(int) * (size_t)n);
  p->reduction_kinds = arena_alloc(a, sizeof(ReductionKind) * (size_t)n);
  p->nreductions = 0;
  for (int v = 0; v < f->nvars; v++) {
    p->private_vars[v] = false;
    if (v != s->var && !an_assigns_var(&s->body, v)) continue;
    ReductionKind kind;
    if (is_reduction(f, s, v, &kind)) {
      p->reductions[p->nreductions] = v;
      p->reduction_kinds[p->nreductions++] = kind;
      continue;
    }
    if (an_used_outside(&f->body, s, v)) return NULL;   /* its value after the loop would matter */
    p->private_vars[v] = true;
  }
  return p;
}

/* The outermost prange loops of block b (inner ones run in order inside a chunk). */
static void plan_block(Function *f, const Block *b, Arena *a) {
  for (int i = 0; i < b->len; i++) {
    Stmt *s = b->items[i];
    if (s->kind == ST_FOR_RANGE && s->parallel) {
      s->par = plan_loop(f, s, a);
      if (s->par) continue;
    }
    plan_block(f, &s->body, a);
    plan_block(f, &s->orelse, a);
  }
}

void an_parallel_loops(Function *f, Arena *a) {
  const Function *g = f->generic ? f->generic : f;
  if (f->host_entry && g->parallel) plan_block(f, &f->body, a);
}
