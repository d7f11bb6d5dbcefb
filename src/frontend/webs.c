/* One variable per web: Numba versions a variable at each assignment (SSA) and types each
 * version, joining versions only where a read can see more than one of them (a phi). So a name
 * may hold a 2-d array in one part of a function and a 1-d one in another (numba-cuda's
 * test_ssa: `arr = arr.reshape(6)` then `arr = arr.reshape(3, 2)` in a loop), or an int as a
 * loop's target and an array later in the loop (test_issue5493_unneeded_phi). pyk2cuda gives a
 * variable one type, so each name is cut into its webs: the assignments that some read can see
 * together, joined through the reads (reaching definitions over the structured body). Each web
 * but the first (the one holding the parameter, else the first assignment in source order)
 * becomes a variable of its own, of the same Python name.
 *
 * A read no assignment reaches stays with the first web (defuse.c reports it). The walk is
 * linear in the body times its loop depth: a loop's assignments that reach its next iteration
 * do not depend on what comes into the loop, so they are found once per loop (gen) and added to
 * the state at its head. */
#include <stdint.h>
#include <string.h>

#include "frontend/frontend.h"

/* A set of assignments (ids), sorted; shared between states, never changed once made. */
typedef struct Set {
  const int *ids;
  int n;
} Set;

typedef struct State {
  Set *vars;               /* per variable: the assignments that may have given its value */
  bool dead;               /* after a return, raise, break or continue */
} State;

/* A pointer-keyed table (open addressing), for assignment ids and loops' gen states. */
typedef struct PtrMap {
  const void **keys;
  void **values;
  size_t cap, len;
} PtrMap;

typedef struct LoopCtx {
  State brk, cont;         /* merged states at its breaks and continues */
  struct LoopCtx *up;
} LoopCtx;

typedef struct Webs {
  Arena *a;
  Function *fn;
  PtrMap def_ids;          /* the int * a def writes its variable to -> id + 1 */
  PtrMap gens;             /* Stmt * -> State * */
  int ndefs, defs_cap;
  int **def_slot;          /* per id: the int that names its variable (NULL: a parameter) */
  int *def_var;            /* per id */
  int *parent;             /* union-find */
  VEC(int *) use_slot;     /* each read... */
  VEC(int) use_def;        /* ...and an assignment it sees, or -1 */
  bool recording;          /* the real pass (not a loop's gen pass) */
  LoopCtx *loop;
} Webs;

static size_t ptr_hash(const void *p, size_t cap) { return (size_t)(((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15u) & (cap - 1); }

static void **ptrmap_slot(Arena *a, PtrMap *m, const void *key) {
  if (2 * (m->len + 1) > m->cap) {
    PtrMap old = *m;
    m->cap = old.cap ? 2 * old.cap : 64;
    m->keys = arena_alloc(a, sizeof *m->keys * m->cap);
    m->values = arena_alloc(a, sizeof *m->values * m->cap);
    m->len = 0;
    for (size_t i = 0; i < old.cap; i++)
      if (old.keys[i]) *ptrmap_slot(a, m, old.keys[i]) = old.values[i];
  }
  size_t i = ptr_hash(key, m->cap);
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->len++;
  }
  return &m->values[i];
}

/* ---- assignments and webs ---- */

static int find(Webs *W, int x) {
  while (W->parent[x] != x) x = W->parent[x] = W->parent[W->parent[x]];
  return x;
}

static void join(Webs *W, int x, int y) {
  x = find(W, x), y = find(W, y);
  if (x != y) W->parent[x > y ? x : y] = x < y ? x : y;   /* the earlier assignment is the root */
}

/* The id of the assignment that writes its variable to *slot (made at the first visit). */
static int def_id(Webs *W, int *slot, int var) {
  void **v = slot ? ptrmap_slot(W->a, &W->def_ids, slot) : NULL;
  if (v && *v) return (int)(intptr_t)*v - 1;
  if (W->ndefs == W->defs_cap) {
    int cap = W->defs_cap ? 2 * W->defs_cap : 32;
    int **slots = arena_alloc(W->a, sizeof *slots * (size_t)cap);
    int *vars = arena_alloc(W->a, sizeof *vars * (size_t)cap), *parent = arena_alloc(W->a, sizeof *parent * (size_t)cap);
    if (W->ndefs) {
      memcpy(slots, W->def_slot, sizeof *slots * (size_t)W->ndefs);
      memcpy(vars, W->def_var, sizeof *vars * (size_t)W->ndefs);
      memcpy(parent, W->parent, sizeof *parent * (size_t)W->ndefs);
    }
    W->def_slot = slots, W->def_var = vars, W->parent = parent, W->defs_cap = cap;
  }
  int id = W->ndefs++;
  W->def_slot[id] = slot;
  W->def_var[id] = var;
  W->parent[id] = id;
  if (v) *v = (void *)(intptr_t)(id + 1);
  return id;
}

/* ---- states ---- */

static State state_new(Webs *W) {
  return (State){arena_alloc(W->a, sizeof(Set) * (size_t)(W->fn->nvars ? W->fn->nvars : 1)), false};
}

static State state_copy(Webs *W, const State *s) {
  State c = state_new(W);
  memcpy(c.vars, s->vars, sizeof(Set) * (size_t)W->fn->nvars);
  c.dead = s->dead;
  return c;
}

static Set set_union(Webs *W, Set x, Set y) {
  if (x.ids == y.ids || !y.n) return x;
  if (!x.n) return y;
  int *ids = arena_alloc(W->a, sizeof *ids * (size_t)(x.n + y.n));
  int n = 0, i = 0, j = 0;
  while (i < x.n || j < y.n) {
    int next = j >= y.n || (i < x.n && x.ids[i] <= y.ids[j]) ? x.ids[i] : y.ids[j];
    if (i < x.n && x.ids[i] == next) i++;
    if (j < y.n && y.ids[j] == next) j++;
    ids[n++] = next;
  }
  return (Set){ids, n};
}

/* dst becomes the merge of dst and src (a dead state adds nothing). */
static void merge(Webs *W, State *dst, const State *src) {
  if (src->dead) return;
  if (dst->dead) {
    *dst = state_copy(W, src);
    return;
  }
  for (int v = 0; v < W->fn->nvars; v++) dst->vars[v] = set_union(W, dst->vars[v], src->vars[v]);
}

static void assign(Webs *W, State *s, int var, int id) {
  int *one = arena_alloc(W->a, sizeof *one);
  *one = id;
  s->vars[var] = (Set){one, 1};
}

/* A read of the variable at *slot: it joins the assignments it may see into one web. */
static void read(Webs *W, const State *s, int *slot) {
  if (!W->recording) return;
  Set r = s->dead ? (Set){0} : s->vars[*slot];
  for (int i = 1; i < r.n; i++) join(W, r.ids[0], r.ids[i]);
  vec_push(W->a, &W->use_slot, slot);
  vec_push(W->a, &W->use_def, r.n ? r.ids[0] : -1);
}

/* ---- the walk ---- */

static void walk_block(Webs *W, const Block *b, State *s);

static void read_expr(Webs *W, Expr *e, const State *s) {
  if (!e) return;
  if (e->kind == EX_VAR) read(W, s, &e->var);
  for (int i = 0; i < e->nkids; i++) read_expr(W, e->kids[i], s);
  for (int i = 0; i < e->nkeywords; i++) read_expr(W, e->keywords[i].value, s);
}

/* What target t reads (a store's array and indices), before it is written. */
static void read_target(Webs *W, Expr *t, const State *s) {
  if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) read_target(W, t->kids[i], s);
  else if (t->kind != EX_VAR) read_expr(W, t, s);
}

static void assign_target(Webs *W, Expr *t, State *s) {
  if (t->kind == EX_VAR) assign(W, s, t->var, def_id(W, &t->var, t->var));
  if (t->kind == EX_TUPLE)
    for (int i = 0; i < t->nkids; i++) assign_target(W, t->kids[i], s);
}

/* `x += v`: a read of x and an assignment, in one web (they are one name in the C). */
static void aug_assign(Webs *W, Expr *t, State *s) {
  if (t->kind != EX_VAR) {
    read_expr(W, t, s);
    return;
  }
  int id = def_id(W, &t->var, t->var);
  Set r = s->dead ? (Set){0} : s->vars[t->var];
  if (W->recording)
    for (int i = 0; i < r.n; i++) join(W, id, r.ids[i]);
  assign(W, s, t->var, id);
}

/* The loop head's assignment (a for loop's target), into s. */
static void loop_target(Webs *W, Stmt *s, State *st) {
  if (s->kind == ST_FOR_RANGE) assign(W, st, s->var, def_id(W, &s->var, s->var));
  else if (s->kind == ST_FOR_ITER) assign_target(W, s->targets[0], st);
}

/* The loop's body run once from entry st; its state at the end and at each continue merged
 * into *next (what reaches the head again), its breaks into *brk. */
static void loop_body(Webs *W, Stmt *s, State st, State *next, State *brk) {
  if (s->kind == ST_WHILE) read_expr(W, s->cond, &st);
  loop_target(W, s, &st);
  LoopCtx ctx = {.brk = {.dead = true}, .cont = {.dead = true}, .up = W->loop};
  W->loop = &ctx;
  walk_block(W, &s->body, &st);
  W->loop = ctx.up;
  *next = st;
  merge(W, next, &ctx.cont);
  *brk = ctx.brk;
}

/* What loop s's body assigns that reaches its head again, whatever came into the loop. */
static const State *loop_gen(Webs *W, Stmt *s) {
  void **memo = ptrmap_slot(W->a, &W->gens, s);
  if (*memo) return *memo;
  bool recording = W->recording;
  W->recording = false;
  State *gen = arena_alloc(W->a, sizeof *gen);
  State brk;
  loop_body(W, s, state_new(W), gen, &brk);
  W->recording = recording;
  *(State **)ptrmap_slot(W->a, &W->gens, s) = gen;   /* the table may have grown */
  return gen;
}

static void walk_loop(Webs *W, Stmt *s, State *st) {
  if (s->kind != ST_WHILE) {
    read_expr(W, s->value, st);
    read_expr(W, s->start, st);
    read_expr(W, s->stop, st);
    read_expr(W, s->step, st);
  }
  merge(W, st, loop_gen(W, s));   /* the head: from before the loop, or from an iteration */
  State next, brk;
  loop_body(W, s, state_copy(W, st), &next, &brk);
  if (s->kind == ST_WHILE) read_expr(W, s->cond, st);   /* the test that ends it */
  merge(W, st, &brk);
}

static void jump(Webs *W, State *into, State *st) {
  merge(W, into, st);
  st->dead = true;
}

/* A switch without default, so that the compiler names a new statement kind here. */
static void walk_stmt(Webs *W, Stmt *s, State *st) {
  switch (s->kind) {
  case ST_EXPR: read_expr(W, s->value, st); break;
  case ST_ASSIGN:
    read_expr(W, s->value, st);
    for (int k = 0; k < s->ntargets; k++) read_target(W, s->targets[k], st);
    for (int k = 0; k < s->ntargets; k++) assign_target(W, s->targets[k], st);
    break;
  case ST_AUGASSIGN:
    read_expr(W, s->value, st);
    aug_assign(W, s->targets[0], st);
    break;
  case ST_IF: {
    read_expr(W, s->cond, st);
    State other = state_copy(W, st);
    walk_block(W, &s->body, st);
    walk_block(W, &s->orelse, &other);
    merge(W, st, &other);
    break;
  }
  case ST_WHILE:
  case ST_FOR_RANGE:
  case ST_FOR_ITER: walk_loop(W, s, st); break;
  case ST_BREAK:
    if (W->loop) jump(W, &W->loop->brk, st);
    break;
  case ST_CONTINUE:
    if (W->loop) jump(W, &W->loop->cont, st);
    break;
  case ST_PASS: break;
  case ST_RETURN:
    read_expr(W, s->value, st);
    st->dead = true;
    break;
  case ST_RAISE:
    read_expr(W, s->cond, st);
    if (!s->cond) st->dead = true;   /* an assert goes on where its condition holds */
    break;
  }
}

static void walk_block(Webs *W, const Block *b, State *s) {
  for (int i = 0; i < b->len; i++) walk_stmt(W, b->items[i], s);
}

/* ---- the cut ---- */

/* Gives each web of variable v but the first a new variable; the new index of each id in to[]. */
static void cut(Webs *W, int v, int *to) {
  int first = -1;   /* the parameter's assignment, else the first one */
  for (int id = 0; id < W->ndefs; id++)
    if (W->def_var[id] == v && (first < 0 || !W->def_slot[id])) first = id;
  first = find(W, first);
  for (int id = 0; id < W->ndefs; id++) {
    if (W->def_var[id] != v) continue;
    int root = find(W, id);
    if (root == first) {
      to[id] = v;
    } else if (root != id) {
      to[id] = to[root];   /* the root is the web's earliest id: numbered already */
    } else {
      Function *f = W->fn;
      Var *vars = arena_alloc(W->a, sizeof *vars * (size_t)(f->nvars + 1));
      memcpy(vars, f->vars, sizeof *vars * (size_t)f->nvars);
      vars[f->nvars] = f->vars[v];
      vars[f->nvars].is_param = false;
      f->vars = vars;
      to[id] = f->nvars++;
    }
  }
}

static void renumber(Webs *W) {
  int nvars = W->fn->nvars;
  int *to = arena_alloc(W->a, sizeof *to * (size_t)(W->ndefs ? W->ndefs : 1));
  int *webs = arena_alloc(W->a, sizeof *webs * (size_t)(nvars ? nvars : 1));
  int *seen = arena_alloc(W->a, sizeof *seen * (size_t)(nvars ? nvars : 1));
  for (int id = 0; id < W->ndefs; id++) {   /* count each variable's webs */
    int v = W->def_var[id], root = find(W, id);
    if (root == id) webs[v]++;
    seen[v] = 1;
  }
  for (int id = 0; id < W->ndefs; id++) to[id] = W->def_var[id];
  for (int v = 0; v < nvars; v++)
    if (seen[v] && webs[v] > 1) cut(W, v, to);
  for (size_t i = 0; i < W->use_slot.len; i++)
    if (W->use_def.items[i] >= 0) *W->use_slot.items[i] = to[find(W, W->use_def.items[i])];
  for (int id = 0; id < W->ndefs; id++)
    if (W->def_slot[id]) *W->def_slot[id] = to[id];
}

/* A for loop over one name keeps that name's variable in s->var too. */
static void sync_loop_vars(Block *b) {
  for (int i = 0; i < b->len; i++) {
    Stmt *s = b->items[i];
    if (s->kind == ST_FOR_ITER && s->var >= 0 && s->targets[0]->kind == EX_VAR) s->var = s->targets[0]->var;
    sync_loop_vars(&s->body);
    sync_loop_vars(&s->orelse);
  }
}

void frontend_split_webs(Arena *a, Function *f) {
  Webs W = {.a = a, .fn = f, .recording = true};
  State st = state_new(&W);
  for (int p = 0; p < f->nparams; p++) assign(&W, &st, p, def_id(&W, NULL, p));
  walk_block(&W, &f->body, &st);
  renumber(&W);
  sync_loop_vars(&f->body);
}
