/* Which kernels with barriers the simulator may run as regions instead of fibers, and how
 * (docs/simulator.md, "Regions"; codegen's emit_regions.c prints the plan).
 *
 * A kernel is cut at its `cuda.syncthreads()` calls into regions, runs of statements without a
 * barrier; each region becomes a loop over the block's threads, in the order the fibers would
 * run them (x fastest), so every result is the one the fibers give, bit for bit. A statement
 * that holds a barrier is control: a `for` over a range, a `while` or an `if` whose bounds or
 * condition are uniform (the same in every thread of the block: constants, scalar parameters,
 * shapes, blockIdx, blockDim, gridDim, and variables assigned only such values under such
 * control, found by a fixed point), which runs once per block, with the values of thread 0. A
 * variable whose value crosses a barrier (named in two regions or controls, or read in a region
 * that runs more than once per block before that run binds it; a local array named in such a
 * region) is kept per thread in a slot; a `for` holding a barrier is counted once per block, its
 * variable shared by the threads (the body must not rebind it).
 *
 * A grid sync (`g.sync()` as a statement of its own) is a barrier too, and more: the kernel is cut
 * at its grid syncs into phases that codegen runs one after another over every block of the grid
 * (grid regions). A control statement that holds a grid sync runs once per grid, so its bounds or
 * condition must be the same in every block (grid_uniform: as uniform, without blockIdx).
 *
 * A kernel whose device functions reach a barrier is planned on a copy with those functions
 * inlined (inline.c), which codegen prints the block function from (RegionPlan.fn).
 *
 * A warp operation's statement (warp_call: one operation, evaluated on every path of its
 * statement, pure arguments, the full mask) cuts the regions as a barrier does, but starts the
 * next region itself: the region before it ends with each thread's deposit of its lane's value
 * (SimRegion.deposit), and its own region reads them (fetch_buf), so every lane of each warp
 * takes part, as every thread reaches it (uniform control).
 *
 * Anything not shown legal keeps the fibers, with the reason (--dump=analysis): a barrier in
 * any other place (an expression, `syncthreads_count`, a device function that cannot be inlined, a `for` over an
 * iterable, under a thread-dependent condition), a grid sync under control that differs between
 * blocks, or with a shared array in a device function (kept per worker, not per block), warp
 * operations in another form or in a kernel with grid syncs, `return` or
 * `raise` before a barrier (or any raise, or a device function that may raise: it ends one
 * thread, which a region cannot), break or continue of a loop holding a barrier, a parameter
 * that is rebound, more than REGION_SLOT_BYTES per thread kept across barriers, and --sanitize
 * (whose checker follows the fibers) or $PYK2CUDA_SIM_FIBERS (AnalysisOptions.fibers). */
#include <string.h>

#include "analysis/walk.h"

enum { REGION_SLOT_BYTES = 4096, CALL_DEPTH = 16, REGION_WARP_OPS = 32 };

typedef struct Planner {
  const Function *f;
  Arena *a;
  bool *uniform;          /* per variable: the same in every thread wherever it is read */
  const char *refused;    /* the first reason the kernel keeps its fibers */
  VEC(SimRegion) regions;
  VEC(const Stmt *) control;
  int *first_context;     /* per variable: the first region or control naming it (-1: none) */
  bool *many_contexts;    /* per variable: named in two or more */
  bool *in_repeated;      /* per variable: named in a repeated region */
  bool *carried;          /* per variable: read in a repeated region before that run of it binds
                             it (so a run reads what an earlier run left) */
  bool *shared_var;
  const Stmt **recompute; /* per variable: its one binding, run again where a region names it */
  const Builtin *thread_x;   /* threadIdx.x's row */
  bool grid;                 /* the kernel has grid syncs: they cut it too (grid regions) */
  bool blocks_differ;        /* while finding grid_uniform: blockIdx is not uniform */
  bool *grid_uniform;        /* per variable: the same in every thread of the grid */
  VEC(bool) control_grid;    /* per control: it holds a grid sync */
  int nwarp;                 /* warp operations' statements so far (their buffers) */
  int fetch_next;            /* the buffer of the warp operation that starts the next region, or -1 */
} Planner;

static void refuse(Planner *p, const char *why) {
  if (!p->refused) p->refused = why;
}

/* ---- barriers, raises and calls ---- */

static bool is_call_of(const Expr *e, uint32_t facts) {
  return e->kind == EX_CALL && e->kids[0]->kind == EX_BUILTIN && builtin_has(e->kids[0]->builtin, facts);
}

typedef struct Scan {
  int depth;
  bool barrier, collective, grid, raises, deep, device_barrier;
  bool grid_sync;        /* a grid sync of the kernel's own (not a device function's) */
  bool device_shared;    /* a device function it calls declares a shared array */
  bool external;         /* it calls an external function (cuda.declare_device), whose CUDA C
                            may hold barriers that no plan can see */
} Scan;

static void scan_function(Scan *sc, const Function *g);

static bool scan_expr(AstWalker *w, const Expr *e) {
  Scan *sc = w->ctx;
  if (is_call_of(e, BF_BARRIER)) sc->barrier = true;
  if (is_call_of(e, BF_COLLECTIVE)) sc->collective = true;
  if (is_call_of(e, BF_GRID)) sc->grid = true;
  if (is_call_of(e, BF_GRID | BF_BARRIER)) sc->grid_sync = true;
  if (e->kind == EX_CALL && e->func && e->kids[0]->kind == EX_FUNC) {
    if (e->func->extern_symbol) sc->external = true;
    if (e->func->uses_barrier) sc->device_barrier = true;
    scan_function(sc, e->func);
  }
  return true;
}

static bool scan_stmt(AstWalker *w, const Stmt *s) {
  Scan *sc = w->ctx;
  if (s->kind == ST_RAISE) sc->raises = true;
  return true;
}

/* What the statements of a device function reach, through its calls (a depth bound: recursion
 * and deep chains count as a raise, which keeps the fibers). */
static void scan_function(Scan *sc, const Function *g) {
  if (sc->depth >= CALL_DEPTH) {
    sc->deep = true;
    return;
  }
  sc->depth++;
  for (int i = 0; i < g->nvars; i++) {
    const Type *t = g->vars[i].ty;
    if (t && t->kind == TY_ARRAY && t->space == MEM_SHARED) sc->device_shared = true;
  }
  Scan inner = *sc;
  inner.barrier = false;   /* a barrier inside a device function is the callee's, counted apart */
  AstWalker w = {scan_stmt, scan_expr, &inner};
  ast_walk_block(&w, &g->body);
  sc->collective |= inner.collective;
  sc->grid |= inner.grid;
  sc->raises |= inner.raises;
  sc->deep |= inner.deep;
  sc->external |= inner.external;
  sc->device_barrier |= inner.device_barrier || inner.barrier || inner.grid_sync;
  sc->device_shared |= inner.device_shared;
  sc->depth--;
}

static Scan scan_block(const Block *b) {
  Scan sc = {0};
  AstWalker w = {scan_stmt, scan_expr, &sc};
  ast_walk_block(&w, b);
  return sc;
}

static Scan scan_stmt_alone(const Stmt *s) {
  Block b = {(Stmt **)&s, 1};
  return scan_block(&b);
}

/* g.sync() (or cuda.cg.this_grid().sync()) as a statement of its own: a grid region boundary. */
static bool is_grid_sync(const Stmt *s) {
  return s->kind == ST_EXPR && is_call_of(s->value, BF_GRID | BF_BARRIER);
}

/* cuda.syncthreads() as a statement of its own, or a grid sync: a region boundary (a grid sync
 * is a barrier of the block too). */
static bool is_plain_barrier(const Stmt *s) {
  return (s->kind == ST_EXPR && s->value->kind == EX_CALL && s->value->kids[0]->kind == EX_BUILTIN &&
          s->value->kids[0]->builtin->id == BI_SYNCTHREADS) ||
         is_grid_sync(s);
}

/* ---- warp operations ---- */

typedef struct WarpFind {
  const Expr *call;
  int calls;
  bool conditional;   /* one is evaluated only on some paths of its expression */
} WarpFind;

static void find_warp_calls(WarpFind *wf, const Expr *e, bool conditional) {
  if (!e) return;
  if (is_call_of(e, BF_COLLECTIVE)) {
    wf->call = e, wf->calls++;
    wf->conditional |= conditional;
  }
  for (int i = 0; i < e->nkids; i++) {
    bool maybe = (e->kind == EX_IFEXP && i > 0) || (e->kind == EX_BOOLOP && i > 0);
    find_warp_calls(wf, e->kids[i], conditional || maybe);
  }
  for (int i = 0; i < e->nkeywords; i++) find_warp_calls(wf, e->keywords[i].value, conditional);
}

/* Whether e is the constant 0xffffffff (every lane; or -1), under casts, or a module constant of
 * it (FULL = 0xffffffff). */
static bool is_full_mask(const Expr *e) {
  while (e->kind == EX_CAST || (e->kind == EX_CONST && !const_names_itself(e->konst) && e->konst->value))
    e = e->kind == EX_CAST ? e->kids[0] : e->konst->value;
  return e->kind == EX_INT && (uint32_t)e->ival == 0xffffffffu;
}

/* The warp operation of statement s when the regions can run it (a statement of its own, an
 * assignment's or augmented assignment's value, or part of one: evaluated on every path of it,
 * its arguments pure, so each thread may evaluate them again, and the full mask, which names
 * every lane that the uniform control brings there); else NULL, with *why when s holds one. */
static const Expr *warp_call(const Stmt *s, const char **why) {
  *why = NULL;
  WarpFind wf = {0};
  for (int i = 0; i < s->ntargets; i++) find_warp_calls(&wf, s->targets[i], false);
  find_warp_calls(&wf, s->value, false);
  const Expr *parts[] = {s->cond, s->start, s->stop, s->step};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) find_warp_calls(&wf, parts[i], false);
  if (!wf.calls) return NULL;
  bool simple = s->kind == ST_EXPR || s->kind == ST_AUGASSIGN || (s->kind == ST_ASSIGN && s->ntargets == 1);
  if (!simple) return NULL;   /* control holding one: planned as control */
  if (wf.calls > 1 || wf.conditional || scan_stmt_alone(s).barrier) {
    *why = "a warp operation with another one or a barrier in its statement, or on some paths of it";
    return NULL;
  }
  const Expr *c = wf.call;
  for (int i = 1; i < c->nkids; i++)
    if (!an_expr_is_pure(c->kids[i])) {
      *why = "a warp operation whose arguments have effects";
      return NULL;
    }
  if (c->nkids > 1 && !is_full_mask(c->kids[1])) {
    *why = "a warp operation whose mask is not the constant 0xffffffff";
    return NULL;
  }
  return c;
}

/* ---- uniform values ---- */

/* An index whose result is a value, not memory that may change between threads or barriers: a
 * tuple's element, or a constant array's. Uniform and recomputable alike when its parts are. */
static bool indexes_values(const Expr *e) {
  const Type *base = e->kids[0]->ty;
  return base && (base->kind == TY_TUPLE || (base->kind == TY_ARRAY && base->space == MEM_CONST));
}

/* A builtin value or call whose result is the same in every thread of a block given the same
 * arguments: the launch's dimensions, blockIdx (unless `blocks_differ`: the same in every thread
 * of the grid), math constants, pure functions of numbers. */
static bool uniform_builtin(const Builtin *b, bool called, bool blocks_differ) {
  if (builtin_has(b, BF_LAUNCH_DIM)) return true;
  if (builtin_has(b, BF_BLOCK_UNIFORM)) return !blocks_differ;
  if (!called) return b->id == BI_MATH_CONST || b->kind == BK_TYPE;
  const uint32_t thread_dependent = BF_EFFECTS | BF_BARRIER | BF_COLLECTIVE | BF_ARRAY_ALLOC | BF_NEW_ARRAY |
                                    BF_VIEW | BF_GRID | BF_PER_ELEMENT | BF_NOT_REPEATED;
  if (b->facts & thread_dependent) return false;
  switch (b->id) {
  case BI_MATH_UNARY: case BI_MATH_BINARY: case BI_MATH_TO_INT: case BI_MATH_PRED: case BI_MATH_LDEXP:
  case BI_ABS: case BI_MIN: case BI_MAX: case BI_CAST: case BI_ROUND: case BI_LEN: case BI_TYPE:
  case BI_OPERATOR: case BI_POPC: case BI_CLZ: case BI_FFS: return true;
  default: return false;
  }
}

static bool uniform_expr(const Planner *p, const Expr *e) {
  if (!e) return true;
  switch (e->kind) {
  case EX_INT: case EX_FLOAT: case EX_IMAG: case EX_BOOL: case EX_STR: case EX_NONE: case EX_CONST: return true;
  case EX_VAR: return p->uniform[e->var];
  case EX_BUILTIN: return uniform_builtin(e->builtin, false, p->blocks_differ);
  case EX_FUNC: case EX_TEMP: return false;
  case EX_CALL:
    if (e->kids[0]->kind != EX_BUILTIN || !uniform_builtin(e->kids[0]->builtin, true, p->blocks_differ)) return false;
    for (int i = 0; i < e->nkeywords; i++)
      if (!uniform_expr(p, e->keywords[i].value)) return false;
    for (int i = 1; i < e->nkids; i++)
      if (!uniform_expr(p, e->kids[i])) return false;
    return true;
  case EX_ATTR:   /* an array's shape, size or ndim; a number's .real; not a record field (memory) */
    return !expr_is_field(e) && uniform_expr(p, e->kids[0]);
  case EX_INDEX:
    if (!indexes_values(e)) return false;
    break;
  case EX_UNARY: case EX_NOT: case EX_BINARY: case EX_COMPARE: case EX_BOOLOP: case EX_IFEXP: case EX_TUPLE:
  case EX_SLICE: case EX_CAST: break;
  }
  for (int i = 0; i < e->nkids; i++)
    if (!uniform_expr(p, e->kids[i])) return false;
  return true;
}

/* Whether a loop body leaves its loop early: break or continue outside a nested loop
 * (`nested` false), return or raise anywhere. Then which threads run its later statements, and
 * how often, depends on each thread. */
static bool leaves_early(const Block *b, bool nested) {
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    switch (s->kind) {
    case ST_BREAK: case ST_CONTINUE:
      if (!nested) return true;
      break;
    case ST_RETURN: case ST_RAISE: return true;
    case ST_IF:
      if (leaves_early(&s->body, nested) || leaves_early(&s->orelse, nested)) return true;
      break;
    case ST_WHILE: case ST_FOR_RANGE: case ST_FOR_ITER:
      if (leaves_early(&s->body, true)) return true;
      break;
    case ST_EXPR: case ST_ASSIGN: case ST_AUGASSIGN: case ST_PASS: break;
    }
  }
  return false;
}

static bool any_return(const Block *b);

static bool stmt_returns(const Stmt *s) {
  return s->kind == ST_RETURN || s->kind == ST_RAISE || any_return(&s->body) || any_return(&s->orelse);
}

static bool any_return(const Block *b) {
  for (int i = 0; i < b->len; i++)
    if (stmt_returns(b->items[i])) return true;
  return false;
}

/* Marks the variables that target t binds as not uniform. */
static bool unmark_target(Planner *p, const Expr *t) {
  bool changed = false;
  if (t->kind == EX_VAR && p->uniform[t->var]) p->uniform[t->var] = false, changed = true;
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++) changed |= unmark_target(p, t->kids[i]);
  return changed;
}

/* target = value under control `ctl` (whether every thread of the block gets here together). */
static bool note_binding(Planner *p, const Expr *t, const Expr *value, bool ctl) {
  if (t->kind == EX_TUPLE && value && value->kind == EX_TUPLE && value->nkids == t->nkids) {
    bool changed = false;
    for (int i = 0; i < t->nkids; i++) changed |= note_binding(p, t->kids[i], value->kids[i], ctl);
    return changed;
  }
  if (ctl && value && uniform_expr(p, value)) return false;
  return unmark_target(p, t);
}

static bool uniform_block(Planner *p, const Block *b, bool ctl);

static bool uniform_stmt(Planner *p, const Stmt *s, bool ctl) {
  bool changed = false;
  switch (s->kind) {
  case ST_ASSIGN:
    for (int k = 0; k < s->ntargets; k++) changed |= note_binding(p, s->targets[k], s->value, ctl);
    return changed;
  case ST_AUGASSIGN: {
    bool keep = ctl && uniform_expr(p, s->value) && uniform_expr(p, s->targets[0]);
    return keep ? false : unmark_target(p, s->targets[0]);
  }
  case ST_IF: {
    bool c = ctl && uniform_expr(p, s->cond);
    return uniform_block(p, &s->body, c) | uniform_block(p, &s->orelse, c);
  }
  case ST_WHILE:
    return uniform_block(p, &s->body, ctl && uniform_expr(p, s->cond) && !leaves_early(&s->body, false));
  case ST_FOR_RANGE: {
    bool c = ctl && uniform_expr(p, s->start) && uniform_expr(p, s->stop) && uniform_expr(p, s->step);
    if (!c && p->uniform[s->var]) p->uniform[s->var] = false, changed = true;
    return changed | uniform_block(p, &s->body, c && !leaves_early(&s->body, false));
  }
  case ST_FOR_ITER:
    changed = unmark_target(p, s->targets[0]);
    return changed | uniform_block(p, &s->body, false);
  case ST_EXPR: case ST_BREAK: case ST_CONTINUE: case ST_PASS: case ST_RETURN: case ST_RAISE: return false;
  }
  return false;
}

/* One pass over b; after a statement that may end some threads, the rest of b is not uniform
 * control. Returns whether a variable lost its mark. */
static bool uniform_block(Planner *p, const Block *b, bool ctl) {
  bool changed = false;
  for (int i = 0; i < b->len; i++) {
    changed |= uniform_stmt(p, b->items[i], ctl);
    if (stmt_returns(b->items[i])) ctl = false;
  }
  return changed;
}

/* The fixed point: every variable starts uniform; a pass unmarks those bound to a value that
 * is not, or under control that is not; until nothing changes. */
static void find_uniform(Planner *p) {
  const Function *f = p->f;
  p->uniform = arena_alloc(p->a, sizeof(bool) * (size_t)(f->nvars ? f->nvars : 1));
  for (int i = 0; i < f->nvars; i++) p->uniform[i] = true;
  for (int pass = 0; pass <= f->nvars && uniform_block(p, &f->body, true); pass++) {
  }
}

/* ---- the plan ---- */

typedef struct Use {
  Planner *p;
  SimRegion *r;
  int context;
} Use;

static void note_context(Planner *p, int var, int context, bool repeated) {
  if (p->first_context[var] < 0) p->first_context[var] = context;
  else if (p->first_context[var] != context) p->many_contexts[var] = true;
  if (repeated) p->in_repeated[var] = true;
}

static bool use_expr(AstWalker *w, const Expr *e) {
  Use *u = w->ctx;
  if (e->kind != EX_VAR) return true;
  note_context(u->p, e->var, u->context, u->r && u->r->repeated);
  if (u->r) u->r->refs[e->var] = true;
  return true;
}

static void write_target(Use *u, const Expr *t) {
  if (t->kind == EX_VAR) u->r->writes[t->var] = true;
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++) write_target(u, t->kids[i]);
}

static bool use_stmt(AstWalker *w, const Stmt *s) {
  Use *u = w->ctx;
  /* a = cuda.local.array(...) is the declaration of a fixed-shape array, which each region that
   * names it makes: not a use (dynamic shared memory's is an assignment of a view) */
  if (s->kind == ST_ASSIGN && is_call_of(s->value, BF_ARRAY_ALLOC) && s->ntargets == 1 &&
      s->targets[0]->kind == EX_VAR && u->p->f->vars[s->targets[0]->var].ty->fixed_shape)
    return false;
  for (int k = 0; k < s->ntargets; k++) write_target(u, s->targets[k]);
  if (s->kind == ST_FOR_RANGE) {
    u->r->writes[s->var] = true;
    u->r->refs[s->var] = true;
    note_context(u->p, s->var, u->context, u->r->repeated);
  }
  return true;
}

static bool *var_flags(Planner *p) {
  bool *b = arena_alloc(p->a, sizeof(bool) * (size_t)(p->f->nvars ? p->f->nvars : 1));
  memset(b, 0, sizeof(bool) * (size_t)p->f->nvars);
  return b;
}

/* ---- values a run of a region reads from an earlier run ----
 * A variable named in one region only needs no slot, unless the region runs more than once per
 * block and a run may read it before binding it: then it reads what the previous run left. The
 * walk keeps the variables bound so far on every path (`bound`) and marks each read of one not
 * yet bound. Conservative: a loop's body may not run, so what it binds does not count after it;
 * break, continue and return are taken as falling through. */
typedef struct Carry {
  Planner *p;
  bool *bound;
} Carry;

static void carry_reads(Carry *c, const Expr *e) {
  if (!e) return;
  if (e->kind == EX_VAR && !c->bound[e->var]) c->p->carried[e->var] = true;
  for (int i = 0; i < e->nkids; i++) carry_reads(c, e->kids[i]);
  for (int i = 0; i < e->nkeywords; i++) carry_reads(c, e->keywords[i].value);
}

static void carry_bind(Carry *c, const Expr *t) {
  if (t->kind == EX_VAR) c->bound[t->var] = true;
  else if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) carry_bind(c, t->kids[i]);
  else carry_reads(c, t);   /* a subscript reads its array and indices */
}

static void carry_block(Carry *c, const Block *b);

/* Walks b with a copy of the bound set (and the loop's targets bound); returns the set at b's end. */
static bool *carry_apart(Carry *c, const Block *b, int loop_var, const Expr *targets) {
  size_t n = sizeof(bool) * (size_t)(c->p->f->nvars ? c->p->f->nvars : 1);
  bool *saved = c->bound;
  c->bound = arena_alloc(c->p->a, n);
  memcpy(c->bound, saved, n);
  if (loop_var >= 0) c->bound[loop_var] = true;
  if (targets) carry_bind(c, targets);
  carry_block(c, b);
  bool *end = c->bound;
  c->bound = saved;
  return end;
}

static void carry_stmt(Carry *c, const Stmt *s) {
  switch (s->kind) {
  case ST_EXPR: case ST_RETURN: carry_reads(c, s->value); break;
  case ST_RAISE: carry_reads(c, s->cond); break;
  case ST_ASSIGN:
    carry_reads(c, s->value);
    for (int k = 0; k < s->ntargets; k++) carry_bind(c, s->targets[k]);
    break;
  case ST_AUGASSIGN:
    carry_reads(c, s->targets[0]);
    carry_reads(c, s->value);
    carry_bind(c, s->targets[0]);
    break;
  case ST_IF: {
    carry_reads(c, s->cond);
    bool *then_set = carry_apart(c, &s->body, -1, NULL);
    bool *else_set = carry_apart(c, &s->orelse, -1, NULL);
    for (int i = 0; i < c->p->f->nvars; i++) c->bound[i] = then_set[i] && else_set[i];
    break;
  }
  case ST_WHILE:
    carry_reads(c, s->cond);
    carry_apart(c, &s->body, -1, NULL);
    carry_apart(c, &s->orelse, -1, NULL);
    break;
  case ST_FOR_RANGE:
    carry_reads(c, s->start);
    carry_reads(c, s->stop);
    carry_reads(c, s->step);
    carry_apart(c, &s->body, s->var, NULL);
    carry_apart(c, &s->orelse, -1, NULL);
    break;
  case ST_FOR_ITER:
    carry_reads(c, s->value);
    carry_apart(c, &s->body, -1, s->targets[0]);
    carry_apart(c, &s->orelse, -1, NULL);
    break;
  case ST_BREAK: case ST_CONTINUE: case ST_PASS: break;
  }
}

static void carry_block(Carry *c, const Block *b) {
  for (int i = 0; i < b->len; i++) carry_stmt(c, b->items[i]);
}

static int bindings(const Function *f, int var);

/* ---- values cheaper to compute again than to keep ----
 * A variable bound once, before the kernel's first barrier, by a value computed from the thread's
 * and block's indices, the launch's dimensions, parameters and constants (tid = cuda.threadIdx.x,
 * i = cuda.grid(1), n = x.shape[0]) keeps no slot: a region that names it runs its statement
 * again (the indices are the thread's own there). */
static bool recomputable(const Planner *p, const Expr *e) {
  switch (e->kind) {
  case EX_INT: case EX_FLOAT: case EX_IMAG: case EX_BOOL: case EX_STR: case EX_NONE: case EX_CONST: return true;
  case EX_VAR: return e->var < p->f->nparams;   /* parameters are never rebound (find_shared_vars) */
  case EX_BUILTIN:
    return e->builtin->id == BI_INDEX || uniform_builtin(e->builtin, false, false);
  case EX_FUNC: case EX_TEMP: return false;
  case EX_CALL:
    if (e->kids[0]->kind != EX_BUILTIN) return false;
    if (!uniform_builtin(e->kids[0]->builtin, true, false) && e->kids[0]->builtin->id != BI_GRID) return false;
    if (e->nkeywords) return false;
    for (int i = 1; i < e->nkids; i++)
      if (!recomputable(p, e->kids[i])) return false;
    return true;
  case EX_ATTR: return !expr_is_field(e) && recomputable(p, e->kids[0]);
  case EX_INDEX:
    if (!indexes_values(e)) return false;
    break;
  case EX_UNARY: case EX_NOT: case EX_BINARY: case EX_COMPARE: case EX_BOOLOP: case EX_IFEXP: case EX_TUPLE:
  case EX_SLICE: case EX_CAST: break;
  }
  for (int i = 0; i < e->nkids; i++)
    if (!recomputable(p, e->kids[i])) return false;
  return true;
}

static bool recomputable_targets(const Planner *p, const Expr *t) {
  if (t->kind == EX_VAR) {
    const Type *ty = p->f->vars[t->var].ty;
    return !p->shared_var[t->var] && ty && !(ty->kind == TY_ARRAY && ty->fixed_shape) && bindings(p->f, t->var) == 1;
  }
  if (t->kind != EX_TUPLE) return false;
  for (int i = 0; i < t->nkids; i++)
    if (!recomputable_targets(p, t->kids[i])) return false;
  return true;
}

static void mark_recompute(Planner *p, const Expr *t, const Stmt *s) {
  if (t->kind == EX_VAR) p->recompute[t->var] = s;
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++) mark_recompute(p, t->kids[i], s);
}

/* The statements of the kernel before its first barrier that bind recomputable variables. */
static void find_recompute(Planner *p) {
  const Block *b = &p->f->body;
  for (int i = 0; i < b->len; i++) {
    const Stmt *s = b->items[i];
    Scan sc = scan_stmt_alone(s);
    if (is_plain_barrier(s) || sc.barrier || sc.collective) return;
    if (s->kind == ST_ASSIGN && s->ntargets == 1 && recomputable_targets(p, s->targets[0]) && recomputable(p, s->value))
      mark_recompute(p, s->targets[0], s);
  }
}

/* A region that binds only uniform variables, to uniform values, and does nothing else
 * (`s //= 2` between two barriers of a tree): every thread would compute the same, so it runs
 * once per block. */
static bool runs_once(const Planner *p, const Block *part) {
  for (int i = 0; i < part->len; i++) {
    const Stmt *s = part->items[i];
    if (s->kind == ST_PASS) continue;
    if ((s->kind != ST_ASSIGN && s->kind != ST_AUGASSIGN) || s->ntargets != 1 || s->targets[0]->kind != EX_VAR)
      return false;
    int v = s->targets[0]->var;
    const Type *t = p->f->vars[v].ty;
    if (!p->uniform[v] || p->shared_var[v] || p->recompute[v] || (t->kind == TY_ARRAY && t->fixed_shape) ||
        !uniform_expr(p, s->value))
      return false;
  }
  return part->len > 0;
}

/* Whether e is threadIdx.x, or a variable recomputed from threadIdx.x alone (after casts). */
static bool is_thread_x(const Planner *p, const Expr *e) {
  while (e->kind == EX_CAST) e = e->kids[0];
  if (e->kind == EX_BUILTIN) return e->builtin == p->thread_x;
  if (e->kind != EX_VAR || !p->recompute[e->var]) return false;
  const Stmt *s = p->recompute[e->var];
  return s->targets[0]->kind == EX_VAR && is_thread_x(p, s->value);
}

/* A region that is one `if threadIdx.x < U:` or `if threadIdx.x == U:` (no else; U uniform, an
 * integer): the other threads do nothing in it, so the loop over the threads runs only those (a
 * tree's `if tid < s:`, a block's `if tid == 0:` at its end). Returns U, or NULL; *at for ==. */
static const Expr *runs_below(const Planner *p, const Block *part, bool *at) {
  if (part->len != 1) return NULL;
  const Stmt *s = part->items[0];
  if (s->kind != ST_IF || s->orelse.len || s->cond->kind != EX_COMPARE || s->cond->nkids != 2 ||
      (s->cond->cmps[0] != OP_LT && s->cond->cmps[0] != OP_EQ))
    return NULL;
  *at = s->cond->cmps[0] == OP_EQ;
  const Expr *lhs = s->cond->kids[0], *rhs = s->cond->kids[1];
  if (!lhs->ty || !rhs->ty || !type_is_int(lhs->ty) || !type_is_int(rhs->ty)) return NULL;
  return is_thread_x(p, lhs) && uniform_expr(p, rhs) ? rhs : NULL;
}

/* Region b->items[first, end): what it names and binds; `deposit`, a warp operation's call that
 * each thread evaluates at its end (its lane's value for the statement that follows), or NULL. */
static void add_region(Planner *p, const Block *b, int first, int end, bool repeated, const Expr *deposit) {
  SimRegion r = {b, first, end, repeated, var_flags(p), var_flags(p), false, NULL, false, deposit, -1, p->fetch_next};
  p->fetch_next = -1;
  if (deposit) r.deposit_buf = p->fetch_next = p->nwarp++;
  vec_push(p->a, &p->regions, r);
  SimRegion *rp = &p->regions.items[p->regions.len - 1];
  Use u = {p, rp, 2 * ((int)p->regions.len - 1)};   /* regions even, controls odd */
  AstWalker w = {use_stmt, use_expr, &u};
  Block part = {b->items + first, end - first};
  ast_walk_block(&w, &part);
  if (deposit) ast_walk_expr(&w, deposit);
  bool first_region = p->regions.len == 1, warp = deposit || rp->fetch_buf >= 0;
  rp->once = !first_region && !warp && runs_once(p, &part);
  rp->below = first_region || warp ? NULL : runs_below(p, &part, &rp->at);
  if (repeated) {
    Carry c = {p, var_flags(p)};
    carry_block(&c, &part);
    if (deposit) carry_reads(&c, deposit);
  }
}

/* The expressions a control statement evaluates once per block (once per grid when it holds a
 * grid sync), in thread 0's values. */
static void add_control(Planner *p, const Stmt *s) {
  vec_push(p->a, &p->control, s);
  vec_push(p->a, &p->control_grid, scan_stmt_alone(s).grid_sync);
  Use u = {p, NULL, 2 * ((int)p->control.len - 1) + 1};
  AstWalker w = {NULL, use_expr, &u};
  const Expr *parts[] = {s->cond, s->start, s->stop, s->step};
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (parts[i]) ast_walk_expr(&w, parts[i]);
}

static void plan_block(Planner *p, const Block *b, bool repeated, bool top);

static bool count_binding(const Stmt *s, const Expr *value, void *ctx) {
  (void)s, (void)value;
  ++*(int *)ctx;
  return false;
}

/* How many statements of f bind variable var. */
static int bindings(const Function *f, int var) {
  int n = 0;
  an_each_binding(&f->body, var, count_binding, &n);
  return n;
}

/* Why control statement s cannot be control of regions, or NULL when it can. */
static const char *control_refusal(Planner *p, const Stmt *s) {
  switch (s->kind) {
  case ST_FOR_RANGE:
    if (!uniform_expr(p, s->start) || !uniform_expr(p, s->stop) || !uniform_expr(p, s->step))
      return "a barrier in a range loop whose bounds may differ between threads";
    if (!s->range.direct || bindings(p->f, s->var) != 1)
      return "a barrier in a range loop whose variable is bound elsewhere or read after it";
    return leaves_early(&s->body, false) ? "a barrier in a loop that breaks, continues or returns" : NULL;
  case ST_WHILE:
    if (!uniform_expr(p, s->cond)) return "a barrier in a while loop whose condition may differ between threads";
    if (s->orelse.len) return "a barrier in a while loop with an else block";
    return leaves_early(&s->body, false) ? "a barrier in a loop that breaks, continues or returns" : NULL;
  case ST_IF:
    return uniform_expr(p, s->cond) ? NULL : "a barrier under a condition that may differ between threads";
  case ST_FOR_ITER: return "a barrier in a for loop over an iterable";
  case ST_ASSIGN: case ST_AUGASSIGN: case ST_EXPR: return "a barrier inside an expression";
  case ST_BREAK: case ST_CONTINUE: case ST_PASS: case ST_RETURN: case ST_RAISE: break;
  }
  return NULL;
}

/* A statement that holds a barrier: control, run once per block, whose bodies are planned in
 * turn (a loop's run more than once). */
static void plan_control(Planner *p, const Stmt *s, bool repeated) {
  const char *why = control_refusal(p, s);
  if (!why && scan_stmt_alone(s).grid_sync) {   /* run once per grid: the same in every block */
    bool *block_uniform = p->uniform;
    p->uniform = p->grid_uniform;
    p->blocks_differ = true;
    if (control_refusal(p, s)) why = "a grid sync in a loop or under a condition that may differ between blocks";
    p->uniform = block_uniform;
    p->blocks_differ = false;
  }
  if (why) {
    refuse(p, why);
    return;
  }
  add_control(p, s);
  if (s->kind == ST_FOR_RANGE) p->shared_var[s->var] = true;
  bool loop = s->kind != ST_IF;
  plan_block(p, &s->body, repeated || loop, false);
  plan_block(p, &s->orelse, repeated || loop, false);
}

/* Cuts b into regions at its barriers and control statements. The kernel's first region exists
 * even when empty: it gives the slots of a new block their zeros. */
static void plan_block(Planner *p, const Block *b, bool repeated, bool top) {
  int start = 0;
  for (int i = 0; i < b->len && !p->refused; i++) {
    const Stmt *s = b->items[i];
    bool barrier = is_plain_barrier(s);
    Scan sc = scan_stmt_alone(s);
    if (!barrier && !sc.barrier && !sc.collective) continue;
    const char *why = NULL;
    const Expr *warp = barrier ? NULL : warp_call(s, &why);
    if (why) refuse(p, why);
    if (warp) {   /* the region before ends with the lanes' deposits; the statement starts the next */
      if (p->nwarp >= REGION_WARP_OPS) refuse(p, "more than 32 warp operations");
      add_region(p, b, start, i, repeated, warp);
      start = i;
    } else {
      if (i > start || (top && start == 0)) add_region(p, b, start, i, repeated, NULL);
      if (!barrier) plan_control(p, s, repeated);
      start = i + 1;
    }
    for (int k = 0; k < i && !p->refused; k++)
      if (stmt_returns(b->items[k])) refuse(p, "a return or raise before a barrier");
  }
  /* a thread that returns inside a control's body would still run the regions after it */
  if (!top && any_return(b)) refuse(p, "a return under a condition or loop that holds a barrier");
  if (b->len > start || (top && start == 0 && !p->regions.len)) add_region(p, b, start, b->len, repeated, NULL);
}

/* Bytes of one thread's slot of variable v (0: not a type that a slot can hold). */
static uint64_t slot_bytes(const Var *v) {
  const Type *t = v->ty;
  if (t->kind == TY_ARRAY && t->fixed_shape) {
    uint64_t n = (uint64_t)t->dtype->bits / 8;
    for (int k = 0; k < t->ndim; k++) n *= (uint64_t)t->fixed_shape[k];
    return n;
  }
  int64_t n = type_value_size(t);
  return n > 0 ? (uint64_t)n : 0;
}

/* Variables one per block rather than per thread: parameters (never rebound), shared and
 * constant arrays, the counters of loops holding barriers. */
static void find_shared_vars(Planner *p) {
  const Function *f = p->f;
  for (int i = 0; i < f->nvars; i++) {
    const Type *t = f->vars[i].ty;
    if (i < f->nparams) {
      p->shared_var[i] = true;
      if (f->arg_types[i] != t || an_assigns_var(&f->body, i)) refuse(p, "a parameter that is rebound");
    }
    if (t && t->kind == TY_ARRAY && t->fixed_shape && (t->space == MEM_SHARED || t->space == MEM_CONST))
      p->shared_var[i] = true;
  }
}

static RegionPlan *finish_plan(Planner *p) {
  const Function *f = p->f;
  RegionPlan *plan = arena_alloc(p->a, sizeof *plan);
  memset(plan, 0, sizeof *plan);
  plan->slot = var_flags(p);
  plan->block_slot = var_flags(p);
  for (int i = 0; i < f->nvars; i++) {
    const Type *t = f->vars[i].ty;
    bool storage = t && t->kind == TY_ARRAY && t->fixed_shape;   /* a local array keeps its elements */
    bool carried = p->carried[i] || (storage && p->in_repeated[i]);
    if (!t || p->shared_var[i] || p->recompute[i] || !(p->many_contexts[i] || carried)) continue;
    if (p->uniform[i] && !storage) {   /* the same in every thread: one per block */
      plan->block_slot[i] = true;
      continue;
    }
    uint64_t n = slot_bytes(&f->vars[i]);
    if (n == 0 || f->vars[i].align) refuse(p, "a value of a type or alignment that cannot be kept across a barrier");
    plan->slot[i] = true;
    plan->slot_bytes += n;
  }
  if (plan->slot_bytes > REGION_SLOT_BYTES) refuse(p, "more than 4 KiB per thread kept across barriers");
  plan->shared_var = p->shared_var;
  plan->uniform = p->uniform;
  plan->recompute = p->recompute;
  plan->regions = p->regions.items;
  plan->nregions = (int)p->regions.len;
  plan->control = p->control.items;
  plan->ncontrol = (int)p->control.len;
  plan->grid = p->grid;
  plan->control_grid = p->control_grid.items;
  plan->nwarp = p->nwarp;
  return plan;
}

/* The plan of kernel f (the kernel itself, or its copy with device functions inlined), or NULL
 * with the reason in f->regions_refused. */
static RegionPlan *plan_kernel(Function *f, Arena *a, bool fibers) {
  f->regions_refused = NULL;
  Planner p = {.f = f, .a = a};
  Scan sc = scan_block(&f->body);
  if (fibers) refuse(&p, "asked for (--sanitize, whose checker follows the fibers, or $PYK2CUDA_SIM_FIBERS)");
  p.grid = sc.grid_sync;
  p.fetch_next = -1;
  if (sc.collective && p.grid) refuse(&p, "warp operations in a kernel with grid syncs");
  if (p.grid && sc.device_shared) refuse(&p, "a grid sync and a shared array in a device function");
  if (sc.device_barrier) refuse(&p, "a barrier in a device function");
  if (sc.raises || sc.deep) refuse(&p, "a raise or assert (it ends one thread)");
  p.shared_var = var_flags(&p);
  p.many_contexts = var_flags(&p);
  p.in_repeated = var_flags(&p);
  p.carried = var_flags(&p);
  p.first_context = arena_alloc(a, sizeof(int) * (size_t)(f->nvars ? f->nvars : 1));
  for (int i = 0; i < f->nvars; i++) p.first_context[i] = -1;
  if (!p.refused) find_shared_vars(&p);
  if (!p.refused && p.grid) {   /* first the values the same in every block, for grid control */
    p.blocks_differ = true;
    find_uniform(&p);
    p.grid_uniform = p.uniform;
    p.blocks_differ = false;
  }
  if (!p.refused) find_uniform(&p);
  p.recompute = arena_alloc(a, sizeof(Stmt *) * (size_t)(f->nvars ? f->nvars : 1));
  memset(p.recompute, 0, sizeof(Stmt *) * (size_t)f->nvars);
  p.thread_x = builtin_lookup("numba.cuda.threadIdx.x");
  if (!p.refused) find_recompute(&p);
  if (!p.refused) plan_block(&p, &f->body, false, true);
  RegionPlan *plan = p.refused ? NULL : finish_plan(&p);
  f->regions_refused = p.refused;
  if (p.refused) return NULL;
  plan->fn = f;
  return plan;
}

/* A kernel whose device functions reach a barrier: planned on its copy with them inlined (the
 * facts the plan and codegen read computed on the copy, as analysis.c does on a kernel). */
static const RegionPlan *plan_inlined(Function *f, Arena *a) {
  const char *inlined = NULL, *why = NULL;
  Function *k = an_inline_barriers(f, a, &inlined, &why);
  if (!k) {
    f->regions_refused = why;
    return NULL;
  }
  StmtList loops = {0};
  an_nonneg(k, a, &loops);
  an_ranges(k, &loops);
  RegionPlan *plan = plan_kernel(k, a, false);
  an_record_facts(k, a);
  f->regions_refused = k->regions_refused;
  if (plan) plan->inlined = inlined;
  k->regions = plan;   /* codegen prints the copy's block function from its own plan */
  return plan;
}

const RegionPlan *an_region_plan(Function *f, Arena *a, bool fibers) {
  f->regions_refused = NULL;
  if (f->kind != FN_KERNEL || !f->uses_barrier) return NULL;
  Scan sc = scan_block(&f->body);
  if (sc.external) {   /* the linked CUDA C runs as it is written, on the fibers */
    f->regions_refused = "a call of an external function (cuda.declare_device), whose CUDA C may hold barriers";
    return NULL;
  }
  if (!fibers && sc.device_barrier) return plan_inlined(f, a);
  return plan_kernel(f, a, fibers);
}
