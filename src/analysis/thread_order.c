/* The order in which the simulator runs a block's threads and a chunk's blocks, for a kernel it
 * runs as plain loops (Function.sim_threads_yx; docs/simulator.md, "Thread order").
 *
 * The simulator's loops take threadIdx.x fastest, then y, then z, and blocks likewise. A kernel
 * written `i, j = cuda.grid(2)` ... `out[i, j]` (Numba's documentation spells 2-D kernels so)
 * then walks a C-ordered array down its columns: thread x+1 is the next row, a whole row's
 * stride away, so each inner-loop step touches another cache line, and the host compiler cannot
 * vectorize the loop. On a GPU the same kernel is uncoalesced; on the simulator it is 2.5x
 * slower than the same kernel written `j, i = cuda.grid(2)` (bench/sim_streaming.py). Taking
 * threadIdx.y fastest (and blockIdx.y fastest, so that a chunk of blocks sweeps along rows)
 * makes the inner loop walk the rows' contiguous elements instead.
 *
 * The order is free only where no thread can observe another's progress. So a kernel qualifies
 * only when neither it nor any device function it calls
 *   - calls a builtin with effects beyond its own memory or that meets other threads (atomics,
 *     print, barriers, warp operations, fences, grid groups, local and shared arrays): what an
 *     atomic returns, and the order of printed lines, would change;
 *   - raises or asserts, or checks its indices (the first failing thread is the one reported);
 *   - calls linked CUDA C (cuda.declare_device), which the analysis cannot see into;
 * and it is no lockstep kernel (that path has its own loop). Two threads storing to one element
 * without an atomic race on a GPU in any order; which one the simulator's loop ends with may
 * change, as it may between GPUs.
 *
 * Which order helps is read off the kernel's own subscripts: per variable, the thread dimensions
 * its value derives from (through threadIdx and cuda.grid, by data flow only); per array
 * subscript, the dimensions of its contiguous index (the last for C and 'A' layouts, the first
 * for 'F') and of its others. y goes fastest only when some subscript's contiguous index derives
 * from y and another of its indices from x, and no subscript's contiguous index derives from x
 * (that one is already walked in order). */
#include <string.h>

#include "analysis/walk.h"

enum { DIM_X = 1, DIM_Y = 2, DIM_Z = 4 };

typedef struct Order {
  uint8_t *dims;      /* per variable: the thread dimensions its values derive from */
  bool changed;       /* the last pass widened some variable's dims */
  int y_votes;        /* subscripts that walk memory in order with y fastest */
  int x_votes;        /* subscripts that walk memory in order with x fastest */
} Order;

/* ---- which kernels may change order ---- */

static bool free_block(const Block *b, int depth);

/* Whether e calls nothing whose order other threads could see (the builtins' facts), and every
 * device function it calls is free too. */
static bool free_expr(const Expr *e, int depth) {
  if (e->kind == EX_BUILTIN && (e->builtin->facts & (BF_EFFECTS | BF_BARRIER | BF_COLLECTIVE | BF_FENCE | BF_GRID)))
    return false;
  /* linked CUDA C (cuda.declare_device) may do anything: atomics, printf, barriers */
  if (e->kind == EX_CALL && e->func && e->func->extern_symbol) return false;
  if (e->kind == EX_CALL && e->func && e->func->kind != FN_KERNEL) {
    /* 8 levels of calls are plenty for a kernel worth reordering; deeper (or recursive) keeps
     * the usual order rather than walking further */
    if (depth >= 8 || !free_block(&e->func->body, depth + 1)) return false;
  }
  for (int i = 0; i < e->nkids; i++)
    if (e->kids[i] && !free_expr(e->kids[i], depth)) return false;
  for (int i = 0; i < e->nkeywords; i++)
    if (!free_expr(e->keywords[i].value, depth)) return false;
  return true;
}

static bool free_stmt(const Stmt *s, int depth) {
  if (s->kind == ST_RAISE) return false;
  const Expr *parts[] = {s->value, s->cond, s->start, s->stop, s->step};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    if (parts[i] && !free_expr(parts[i], depth)) return false;
  for (int i = 0; i < s->ntargets; i++)
    if (!free_expr(s->targets[i], depth)) return false;
  return free_block(&s->body, depth) && free_block(&s->orelse, depth);
}

static bool free_block(const Block *b, int depth) {
  for (int i = 0; i < b->len; i++)
    if (!free_stmt(b->items[i], depth)) return false;
  return true;
}

/* ---- the thread dimensions each value derives from ---- */

static uint8_t expr_dims(const Order *o, const Expr *e) {
  if (e->kind == EX_VAR) return o->dims[e->var];
  if (e->kind == EX_BUILTIN) return e->builtin->thread_dim ? (uint8_t)(1u << (e->builtin->thread_dim - 1)) : 0;
  uint8_t d = 0;
  if (e->kind == EX_CALL && e->builtin && e->builtin->id == BI_GRID) d = DIM_X | DIM_Y | DIM_Z;
  for (int i = 0; i < e->nkids; i++)
    if (e->kids[i]) d |= expr_dims(o, e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) d |= expr_dims(o, e->keywords[i].value);
  return d;
}

static void widen(Order *o, int var, uint8_t d) {
  if (var < 0 || (o->dims[var] | d) == o->dims[var]) return;
  o->dims[var] |= d;
  o->changed = true;
}

/* Target t (a name, a tuple of targets, or a subscript, which binds nothing) takes value v's
 * dims; `i, j = cuda.grid(2)` gives element k dimension k alone. */
static void bind_target(Order *o, const Expr *t, const Expr *v, uint8_t d) {
  if (t->kind == EX_VAR) {
    widen(o, t->var, d);
  } else if (t->kind == EX_TUPLE) {
    bool grid = v && v->kind == EX_CALL && v->builtin && v->builtin->id == BI_GRID;
    bool literal = v && v->kind == EX_TUPLE && v->nkids == t->nkids;
    for (int i = 0; i < t->nkids; i++) {
      uint8_t di = grid && i < 3 ? (uint8_t)(1u << i) : literal ? expr_dims(o, v->kids[i]) : d;
      bind_target(o, t->kids[i], literal ? v->kids[i] : NULL, di);
    }
  }
}

static bool flow_stmt(AstWalker *w, const Stmt *s) {
  Order *o = w->ctx;
  switch (s->kind) {
  case ST_ASSIGN:
    for (int i = 0; i < s->ntargets; i++) bind_target(o, s->targets[i], s->value, expr_dims(o, s->value));
    break;
  case ST_AUGASSIGN: bind_target(o, s->targets[0], NULL, expr_dims(o, s->value)); break;
  case ST_FOR_RANGE:
    widen(o, s->var, (uint8_t)((s->start ? expr_dims(o, s->start) : 0) | expr_dims(o, s->stop) |
                               (s->step ? expr_dims(o, s->step) : 0)));
    break;
  case ST_FOR_ITER: bind_target(o, s->targets[0], NULL, expr_dims(o, s->value)); break;
  default: break;
  }
  return true;
}

/* ---- the subscripts' votes ---- */

static bool vote_expr(AstWalker *w, const Expr *e) {
  Order *o = w->ctx;
  const Type *t = e->kind == EX_INDEX ? e->kids[0]->ty : NULL;
  if (!t || t->kind != TY_ARRAY || e->nkids < 2) return true;
  int n = e->nkids - 1;
  int inner = t->layout == 'F' ? 1 : n;   /* the kid that indexes the contiguous dimension */
  uint8_t contiguous = expr_dims(o, e->kids[inner]), other = 0;
  for (int i = 1; i <= n; i++)
    if (i != inner) other |= expr_dims(o, e->kids[i]);
  if (contiguous & DIM_X) o->x_votes++;
  else if ((contiguous & DIM_Y) && (other & DIM_X)) o->y_votes++;
  return true;
}

bool an_threads_yx(const Function *f, Arena *a) {
  if (f->kind != FN_KERNEL || f->uses_barrier || f->lockstep_loop || f->regions || f->checks_bounds ||
      f->reports_raises || f->nvars == 0 || !free_block(&f->body, 0))
    return false;
  Order o = {.dims = arena_alloc(a, (size_t)f->nvars)};
  memset(o.dims, 0, (size_t)f->nvars);
  AstWalker flow = {.stmt = flow_stmt, .ctx = &o};
  do {   /* dims only widen, three bits per variable: a few passes reach the fixed point */
    o.changed = false;
    ast_walk_block(&flow, &f->body);
  } while (o.changed);
  AstWalker vote = {.expr = vote_expr, .ctx = &o};
  ast_walk_block(&vote, &f->body);
  return o.y_votes > 0 && o.x_votes == 0;
}
