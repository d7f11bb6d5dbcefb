/* Kernels with barriers as regions, for the simulator (docs/simulator.md, "Regions"; the plan is
 * the analysis's, analysis/regions.c, whose opening comment says which kernels have one).
 *
 * Such a kernel is emitted once more, under #ifdef PYK2CUDA_SIM, as a function that runs one
 * block:
 *
 *     static inline __attribute__((always_inline)) void p2c_regions_reduce(uint3 p2c_d,
 *                                                     p2c_array<float, 1> x, ...) {
 *       ...declarations (thread 0's values, for the control statements)...
 *       static thread_local struct {        <- the slots: one per thread of each variable whose
 *         int64_t s[1024];                     value crosses a barrier
 *       } p2c_slots;
 *       p2c_sim_each_thread(p2c_d, [&](unsigned p2c_i) {    <- a region, once per thread, x fastest
 *         int64_t s = 0;                      <- the first region gives the slots their zeros
 *         ...statements...
 *         p2c_slots.s[p2c_i] = s;           <- what the region binds goes back to the slot
 *       });
 *       // cuda.syncthreads()               <- a barrier is where one region ends
 *       while (true) {                      <- control: once per block, in thread 0's values
 *         s = p2c_slots.s[0];
 *         if (!(s > 0)) break;
 *         p2c_sim_each_thread(p2c_d, [&](unsigned p2c_i) {
 *           int64_t s = p2c_slots.s[p2c_i];
 *           ...
 *         });
 *       }
 *     }
 *
 * and the prelude runs it for each block of a chunk (P2C_SIM_REGIONS, then P2C_SIM_BLOCKS, whose
 * loop calls it). Every statement is the kernel's own, printed by the same code; a variable no
 * other region or control names is a plain local of its region, fresh for each thread; a local
 * array kept across barriers is a reference to its slot. Threads run in the order the fibers run
 * them, so results are the same bit for bit, and the compiler sees plain loops over the threads.
 * A warp operation's statement starts a region whose threads read the lanes' values that the
 * region before deposited (P2C_SIM_WARP_DEPOSIT at its end, P2C_SIM_WARP_FETCH at the start). */
#include <string.h>

#include "codegen/cg.h"

enum { SLOT_THREADS = 1024 };   /* CUDA's most threads per block: sim_launch refuses more */

typedef struct RegionGen {
  Gen *G;
  const RegionPlan *plan;
  const char *dim, *slots, *idx;
  const char *block, *in;   /* the uniform variables kept across barriers, and a copy of them */
  int next;        /* the next region of the plan */
  /* Grid regions (RegionPlan.grid): the storage kept across grid syncs, per block (the uniform
   * values and the shared arrays) and per thread (the slots), its types, and the block's number
   * in a phase. */
  const char *gblocks, *gthreads, *gblock_t, *gthread_t, *bnum;
  const char *warps;    /* the lanes' values of each warp operation's statement (RegionPlan.nwarp) */
  bool block_storage;   /* the per-block struct has members */
  bool in_phase;        /* emitting inside a phase (a block's part between grid syncs) */
} RegionGen;

/* The extents of a fixed-shape array, "[4][8]". */
static const char *extents(Gen *G, const Type *t) {
  StrBuf sb;
  sb_init(&sb, G->a);
  for (int k = 0; k < t->ndim; k++) sb_printf(&sb, "[%lld]", (long long)t->fixed_shape[k]);
  return sb_str(&sb);
}

static bool is_local_array(const Type *t) {
  return t->kind == TY_ARRAY && t->fixed_shape != NULL;
}

/* Thread p2c_i's slot of variable v: an element of the variable's array of 1024 in a block's
 * regions, a member of the thread's struct in grid regions (sized for the grid's threads). */
static const char *slot_at(RegionGen *rg, int v) {
  const char *name = rg->G->vnames[v];
  if (rg->plan->grid) return arena_printf(rg->G->a, "%s[%s].%s", rg->slots, rg->idx, name);
  return arena_printf(rg->G->a, "%s.%s[%s]", rg->slots, name, rg->idx);
}

static bool is_shared_array(const Type *t) {
  return t && t->kind == TY_ARRAY && t->fixed_shape && t->space == MEM_SHARED;
}

static void emit_grid_storage(RegionGen *rg);

/* The slots' storage: a thread-local struct of one array per variable kept across barriers (of
 * 1024 elements, one per thread), and a struct of the uniform ones, one per block. */
static void emit_slot_structs(RegionGen *rg) {
  Gen *G = rg->G;
  const Function *f = G->fn;
  if (rg->plan->grid) {
    emit_grid_storage(rg);
    return;
  }
  if (rg->plan->slot_bytes) {
    emit_line(G, "static thread_local struct {\n");
    for (int v = 0; v < f->nvars; v++) {
      if (!rg->plan->slot[v]) continue;
      const Type *t = f->vars[v].ty;
      if (is_local_array(t)) emit_line(G, "  %s %s[%d]%s;\n", t->dtype->cname, G->vnames[v], SLOT_THREADS, extents(G, t));
      else emit_line(G, "  %s %s[%d];\n", ctype_of(G, t), G->vnames[v], SLOT_THREADS);
    }
    emit_line(G, "} %s;\n", rg->slots);
  }
  bool any = false;
  for (int v = 0; v < f->nvars; v++) any |= rg->plan->block_slot[v];
  if (!any) return;
  emit_line(G, "struct {\n");
  for (int v = 0; v < f->nvars; v++)
    if (rg->plan->block_slot[v]) emit_line(G, "  %s %s;\n", ctype_of(G, f->vars[v].ty), G->vnames[v]);
  emit_line(G, "} %s = {}, %s;\n", rg->block, rg->in);
}

static bool has_block_slots(const RegionGen *rg) {
  for (int v = 0; v < rg->G->fn->nvars; v++)
    if (rg->plan->block_slot[v]) return true;
  return false;
}

/* Grid regions: the types of what a block keeps across grid syncs, and the launch's storage of
 * them (the simulator's, zeroed, for the whole launch; p2c_sim_grid_storage): per thread of the
 * grid, a struct of its slots; per block, the uniform values kept across barriers and the shared
 * arrays (a block keeps its shared memory across a grid sync, as on a GPU). At the grid level,
 * the uniform values are block 0's, which grid control reads (the same in every block). */
static void emit_grid_storage(RegionGen *rg) {
  Gen *G = rg->G;
  const Function *f = G->fn;
  bool block_slots = has_block_slots(rg), threads = rg->plan->slot_bytes > 0;
  rg->block_storage = block_slots;
  for (int v = 0; v < f->nvars; v++) rg->block_storage |= is_shared_array(f->vars[v].ty);
  if (threads) {
    emit_line(G, "struct %s {\n", rg->gthread_t);
    for (int v = 0; v < f->nvars; v++) {
      const Type *t = f->vars[v].ty;
      if (!rg->plan->slot[v]) continue;
      if (is_local_array(t)) emit_line(G, "  %s %s%s;\n", t->dtype->cname, G->vnames[v], extents(G, t));
      else emit_line(G, "  %s %s;\n", ctype_of(G, t), G->vnames[v]);
    }
    emit_line(G, "};\n");
  }
  if (rg->block_storage) {
    emit_line(G, "struct %s {\n", rg->gblock_t);
    if (block_slots) {
      emit_line(G, "  struct {\n");
      for (int v = 0; v < f->nvars; v++)
        if (rg->plan->block_slot[v]) emit_line(G, "    %s %s;\n", ctype_of(G, f->vars[v].ty), G->vnames[v]);
      emit_line(G, "  } %s;\n", rg->block);
    }
    for (int v = 0; v < f->nvars; v++) {
      const Type *t = f->vars[v].ty;
      if (!is_shared_array(t)) continue;
      const char *align = f->vars[v].align ? arena_printf(G->a, "alignas(%lld) ", (long long)f->vars[v].align) : "";
      emit_line(G, "  %s%s %s%s;\n", align, t->dtype->cname, G->vnames[v], extents(G, t));
    }
    emit_line(G, "};\n");
  }
  if (!threads && !rg->block_storage) return;
  if (rg->block_storage) emit_line(G, "%s *%s = NULL;\n", rg->gblock_t, rg->gblocks);
  if (threads) emit_line(G, "%s *%s = NULL;\n", rg->gthread_t, rg->gthreads);
  emit_line(G, "if (!p2c_sim_grid_storage(%s, %s, %s, %s)) return;\n",
            rg->block_storage ? arena_printf(G->a, "sizeof(%s)", rg->gblock_t) : "0",
            threads ? arena_printf(G->a, "sizeof(%s)", rg->gthread_t) : "0",
            rg->block_storage ? arena_printf(G->a, "(void **)&%s", rg->gblocks) : "NULL",
            threads ? arena_printf(G->a, "(void **)&%s", rg->gthreads) : "NULL");
  if (block_slots) emit_line(G, "auto &%s = %s[0].%s;\n", rg->block, rg->gblocks, rg->block);
}

/* A fresh local of variable v, as the kernel declares it. */
static void emit_fresh(RegionGen *rg, int v) {
  StrBuf sb;
  sb_init(&sb, rg->G->a);
  emit_var_decl(rg->G, &sb, v);
  const char *text = sb_str(&sb);
  while (*text == ' ') text++;
  emit_line(rg->G, "%s", text);
}

/* Whether recomputed statement s binds a variable that `refs` names (NULL: a uniform one). */
static bool recompute_needed(const RegionPlan *plan, const Stmt *s, const Expr *t, const bool *refs) {
  if (t->kind == EX_VAR) return plan->recompute[t->var] == s && (refs ? refs[t->var] : plan->uniform[t->var]);
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++)
    if (recompute_needed(plan, s, t->kids[i], refs)) return true;
  return false;
}

static bool binds_recomputed(const RegionPlan *plan, const Stmt *s, const Expr *t) {
  if (t->kind == EX_VAR) return plan->recompute[t->var] == s;
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++)
    if (binds_recomputed(plan, s, t->kids[i])) return true;
  return false;
}

/* Whether s is a statement that regions run again (RegionPlan.recompute). */
static bool stmt_recomputed(const RegionPlan *plan, const Stmt *s) {
  return s->kind == ST_ASSIGN && s->ntargets == 1 && binds_recomputed(plan, s, s->targets[0]);
}

/* The targets of a recomputed statement, declared fresh. */
static void declare_targets(RegionGen *rg, const Expr *t) {
  if (t->kind == EX_VAR) emit_fresh(rg, t->var);
  for (int i = 0; t->kind == EX_TUPLE && i < t->nkids; i++) declare_targets(rg, t->kids[i]);
}

/* The recomputed statements (in the kernel's order) that bind what `refs` names (NULL: uniform
 * variables, for a control), with their targets declared first where `declare`. */
static void emit_recomputed(RegionGen *rg, const bool *refs, bool declare) {
  const Block *body = &rg->G->fn->body;
  for (int pass = declare ? 0 : 1; pass < 2; pass++)
    for (int i = 0; i < body->len; i++) {
      const Stmt *s = body->items[i];
      if (!stmt_recomputed(rg->plan, s) || !recompute_needed(rg->plan, s, s->targets[0], refs)) continue;
      if (pass == 0) declare_targets(rg, s->targets[0]);
      else emit_block(rg->G, &(Block){(Stmt **)&body->items[i], 1});
    }
}

/* Whether region r binds a uniform variable kept across barriers. */
static bool writes_block_slot(const RegionPlan *plan, const SimRegion *r, int nvars) {
  for (int v = 0; v < nvars; v++)
    if (plan->block_slot[v] && r->writes[v]) return true;
  return false;
}

/* The start of a region, for each thread (or once): its variables, from the slots, recomputed or
 * fresh. A region that binds uniform variables reads them from the copy made before it. */
static void emit_region_vars(RegionGen *rg, const SimRegion *r, bool first) {
  Gen *G = rg->G;
  const Function *f = G->fn;
  const RegionPlan *plan = rg->plan;
  const char *from = writes_block_slot(plan, r, f->nvars) && !r->once ? rg->in : rg->block;
  for (int v = 0; v < f->nvars; v++) {
    if (!f->vars[v].ty || plan->shared_var[v] || plan->recompute[v]) continue;
    const Type *t = f->vars[v].ty;
    bool slot = plan->slot[v];
    if (slot && is_local_array(t) && r->once && !r->refs[v]) continue;   /* no thread there: no slot of one */
    if (slot && is_local_array(t))
      emit_line(G, "%s (&%s)%s = %s;\n", t->dtype->cname, G->vnames[v], extents(G, t), slot_at(rg, v));
    else if (slot && !first && r->refs[v])
      emit_line(G, "%s %s = %s;\n", ctype_of(G, t), G->vnames[v], slot_at(rg, v));
    else if (plan->block_slot[v] && r->refs[v])
      emit_line(G, "%s %s = %s.%s;\n", ctype_of(G, t), G->vnames[v], from, G->vnames[v]);
    else if (r->refs[v] || (slot && first)) emit_fresh(rg, v);
  }
  /* the first region binds them itself */
  if (!first) emit_recomputed(rg, r->refs, true);
  else
    for (int v = 0; v < f->nvars; v++)
      if (plan->recompute[v] && r->refs[v]) emit_fresh(rg, v);
}

/* The end of a region, for each thread: what it bound goes back to the slots (all of them in the
 * first region, which starts each slot of a new block at zero; the uniform ones start at zero
 * with the block function's call). */
static void emit_region_stores(RegionGen *rg, const SimRegion *r, bool first) {
  Gen *G = rg->G;
  const Function *f = G->fn;
  for (int v = 0; v < f->nvars; v++) {
    if (rg->plan->block_slot[v] && r->writes[v])
      emit_line(G, "%s.%s = %s;\n", rg->block, G->vnames[v], G->vnames[v]);
    if (!rg->plan->slot[v] || is_local_array(f->vars[v].ty)) continue;
    if (first || r->writes[v]) emit_line(G, "%s = %s;\n", slot_at(rg, v), G->vnames[v]);
  }
}

/* Before a control statement, or a loop over the threads that stops early: the uniform values
 * its bounds or condition read, in the block's own declarations (every thread's are the same;
 * the compiler drops what nothing reads). */
static void emit_thread0(RegionGen *rg) {
  Gen *G = rg->G;
  const Function *f = G->fn;
  for (int v = 0; v < f->nvars; v++)
    if (rg->plan->block_slot[v]) emit_line(G, "%s = %s.%s;\n", G->vnames[v], rg->block, G->vnames[v]);
  emit_recomputed(rg, NULL, false);
}

/* A region that runs once per block (SimRegion.once), in a scope of its own. */
static void emit_region_once(RegionGen *rg, const SimRegion *r, const Block *part) {
  Gen *G = rg->G;
  emit_line(G, "{   /* once per block: every thread would compute the same */\n");
  G->indent += 2;
  emit_region_vars(rg, r, false);
  emit_block(G, part);
  emit_region_stores(rg, r, false);
  G->indent -= 2;
  emit_line(G, "}\n");
}

/* The end of a region before a warp operation's statement: each thread evaluates the operation's
 * call in deposit mode, which puts its lane's value in the statement's buffer. */
static void emit_deposit(RegionGen *rg, const SimRegion *r) {
  Gen *G = rg->G;
  sb_indent(G->body, G->indent);
  sb_printf(G->body, "P2C_SIM_WARP_DEPOSIT(%s[%d], ", rg->warps, r->deposit_buf);
  emit_expr(G, r->deposit, G->body, P_ASSIGN);
  sb_puts(G->body, ");\n");
}

static void emit_region(RegionGen *rg, const SimRegion *r) {
  Gen *G = rg->G;
  bool first = r == &rg->plan->regions[0];
  Block part = {r->block->items + r->first, r->end - r->first};
  if (r->once) {
    emit_region_once(rg, r, &part);
    return;
  }
  if (writes_block_slot(rg->plan, r, G->fn->nvars)) emit_line(G, "%s = %s;\n", rg->in, rg->block);
  if (r->below) {   /* `if threadIdx.x < U:` (== U) alone: the other threads do nothing */
    emit_thread0(rg);
    const char *hi = new_temp(G, r->below->ty);
    sb_indent(G->body, G->indent);
    sb_printf(G->body, "%s = ", hi);
    emit_expr(G, r->below, G->body, P_ASSIGN);
    sb_puts(G->body, ";\n");
    emit_line(G, "p2c_sim_each_thread_%s(%s, %s, [&](unsigned %s) __attribute__((always_inline)) {\n",
              r->at ? "at" : "below", rg->dim, hi, rg->idx);
  } else {
    emit_line(G, "p2c_sim_each_thread(%s, [&](unsigned %s) __attribute__((always_inline)) {\n", rg->dim, rg->idx);
  }
  G->indent += 2;
  emit_region_vars(rg, r, first);
  /* a warp operation's statement first: its call reads the lanes' values that the loop before
   * deposited (prelude, "Warp operations in regions") */
  if (r->fetch_buf >= 0) emit_line(G, "P2C_SIM_WARP_FETCH(%s[%d]);\n", rg->warps, r->fetch_buf);
  if (r->below) {   /* every thread the loop runs passes the `if`: its body alone */
    emit_stmt_comment(G, part.items[0]);
    emit_block(G, &part.items[0]->body);
  } else {
    emit_block(G, &part);
  }
  if (r->deposit) emit_deposit(rg, r);
  emit_region_stores(rg, r, first);
  G->indent -= 2;
  emit_line(G, "});\n");
}

static void emit_plan_block(RegionGen *rg, const Block *b);

static void emit_nested(RegionGen *rg, const Block *b) {
  rg->G->indent += 2;
  emit_plan_block(rg, b);
  rg->G->indent -= 2;
}

/* for v in range(...) holding a barrier: counted once per block, in v itself, which the regions
 * inside share (the body does not rebind it: RangeFacts.direct). */
static void emit_control_for(RegionGen *rg, const Stmt *s) {
  Gen *G = rg->G;
  RangeLoop r = range_loop(G, s);
  const char *stop = new_temp(G, s->stop->ty);
  emit_line(G, "%s = %s;\n", stop, r.stop);
  r.stop = stop;
  if (s->step) {
    const char *step = new_temp(G, s->step->ty);
    emit_line(G, "%s = %s;\n", step, r.step);
    r.step = step;
  }
  const char *v = G->vnames[s->var];
  emit_line(G, "for (%s = %s; %s; %s) {\n", v, r.start, range_loop_test(G, &r, v), range_loop_advance(G, &r, v));
  emit_line(G, "  P2C_SIM_POLL();\n");
  emit_nested(rg, &s->body);
  emit_line(G, "}\n");
}

static void emit_control_while(RegionGen *rg, const Stmt *s) {
  Gen *G = rg->G;
  emit_line(G, "while (true) {\n");
  G->indent += 2;
  emit_line(G, "P2C_SIM_POLL();\n");
  emit_thread0(rg);
  sb_indent(G->body, G->indent);
  sb_puts(G->body, "if (!(");
  emit_expr(G, s->cond, G->body, P_LOWEST);
  sb_puts(G->body, ")) break;\n");
  emit_plan_block(rg, &s->body);
  G->indent -= 2;
  emit_line(G, "}\n");
}

static void emit_control_if(RegionGen *rg, const Stmt *s) {
  Gen *G = rg->G;
  sb_indent(G->body, G->indent);
  sb_puts(G->body, "if (");
  emit_expr(G, s->cond, G->body, P_LOWEST);
  sb_puts(G->body, ") {\n");
  emit_nested(rg, &s->body);
  if (s->orelse.len) {
    emit_line(G, "} else {\n");
    emit_nested(rg, &s->orelse);
  }
  emit_line(G, "}\n");
}

static bool is_control(const RegionPlan *plan, const Stmt *s) {
  for (int i = 0; i < plan->ncontrol; i++)
    if (plan->control[i] == s) return true;
  return false;
}

static void emit_control(RegionGen *rg, const Stmt *s) {
  emit_stmt_comment(rg->G, s);
  if (s->kind != ST_WHILE) emit_thread0(rg);
  if (s->kind == ST_FOR_RANGE) emit_control_for(rg, s);
  else if (s->kind == ST_WHILE) emit_control_while(rg, s);
  else emit_control_if(rg, s);
}

/* Items [lo, hi) of block b of the kernel: its regions, control statements and barriers, in
 * order (an empty region at hi too: the kernel's first one, when a barrier comes first). */
static void emit_range(RegionGen *rg, const Block *b, int lo, int hi) {
  const RegionPlan *plan = rg->plan;
  int i = lo;
  for (;;) {
    const SimRegion *r = rg->next < plan->nregions ? &plan->regions[rg->next] : NULL;
    if (r && r->block == b && r->first == i && (i < hi || r->end == i)) {
      emit_region(rg, r);
      rg->next++;
      if (r->end > i) {
        i = r->end;
        continue;
      }
      /* an empty region of deposits, then the region its warp operation's statement starts */
      const SimRegion *n = rg->next < plan->nregions ? &plan->regions[rg->next] : NULL;
      if (r->deposit && n && n->block == b && n->first == i) continue;
    }
    if (i >= hi) break;
    const Stmt *s = b->items[i++];
    if (is_control(plan, s)) emit_control(rg, s);
    else emit_stmt_comment(rg->G, s);   /* a barrier: where the regions meet */
  }
}

/* Whether statement s of grid regions runs at the grid level: a grid sync, or a control statement
 * that holds one. */
static bool grid_item(const RegionPlan *plan, const Stmt *s) {
  for (int i = 0; i < plan->ncontrol; i++)
    if (plan->control[i] == s) return plan->control_grid[i];
  return s->kind == ST_EXPR && s->value->kind == EX_CALL && s->value->kids[0]->kind == EX_BUILTIN &&
         builtin_has(s->value->kids[0]->builtin, BF_GRID | BF_BARRIER);
}

/* A phase of grid regions: items [lo, hi) of b (no grid sync among them), run for every block of
 * the grid on the simulator's workers before the grid goes on (p2c_sim_grid_phase, which copies
 * the lambda for each block: each has its own copy of the function's variables, the grid level's
 * values at the phase's start), with the block's storage from the grid's. */
static void emit_phase(RegionGen *rg, const Block *b, int lo, int hi) {
  Gen *G = rg->G;
  const Function *f = G->fn;
  emit_line(G, "if (!p2c_sim_grid_phase([=](uint3 %s, uint64_t %s) mutable __attribute__((always_inline)) {\n",
            rg->dim, rg->bnum);
  G->indent += 2;
  if (has_block_slots(rg)) {
    emit_line(G, "auto &%s = %s[%s].%s;\n", rg->block, rg->gblocks, rg->bnum, rg->block);
    emit_line(G, "decltype(%s->%s) %s;\n", rg->gblocks, rg->block, rg->in);
  }
  if (rg->plan->slot_bytes)
    emit_line(G, "%s *%s = %s + %s * (%s.x * %s.y * %s.z);\n", rg->gthread_t, rg->slots, rg->gthreads, rg->bnum,
              rg->dim, rg->dim, rg->dim);
  for (int v = 0; v < f->nvars; v++)
    if (is_shared_array(f->vars[v].ty)) emit_line(G, "auto &%s = %s[%s].%s;\n", G->vnames[v], rg->gblocks, rg->bnum, G->vnames[v]);
  if (!rg->block_storage && !rg->plan->slot_bytes) emit_line(G, "(void)%s;\n", rg->bnum);
  emit_line(G, "P2C_SIM_BLOCK_CONSTANTS();\n");   /* the block's, not the grid level's */
  bool outer = rg->in_phase;
  rg->in_phase = true;
  emit_range(rg, b, lo, hi);
  rg->in_phase = outer;
  G->indent -= 2;
  emit_line(G, "})) return;\n");
}

/* Block b at the grid level of grid regions: each run of statements without a grid sync is a
 * phase; a control statement holding one runs once per grid, in block 0's values (the same in
 * every block: RegionPlan.control_grid). */
static void emit_grid_block(RegionGen *rg, const Block *b) {
  const RegionPlan *plan = rg->plan;
  for (int i = 0;;) {
    int end = i;
    while (end < b->len && !grid_item(plan, b->items[end])) end++;
    const SimRegion *r = rg->next < plan->nregions ? &plan->regions[rg->next] : NULL;
    if (end > i || (r && r->block == b && r->first == i && r->end == i)) emit_phase(rg, b, i, end);
    if (end >= b->len) break;
    const Stmt *s = b->items[end];
    if (is_control(plan, s)) emit_control(rg, s);
    else emit_stmt_comment(rg->G, s);   /* a grid sync: where the phases meet */
    i = end + 1;
  }
}

/* Block b of the kernel: at the grid level of grid regions its phases, else its regions. */
static void emit_plan_block(RegionGen *rg, const Block *b) {
  if (rg->plan->grid && !rg->in_phase) emit_grid_block(rg, b);
  else emit_range(rg, b, 0, b->len);
}

const char *emit_regions_fn(Gen *G, const Function *kernel, StrBuf *out) {
  const Function *f = kernel->regions->fn;   /* the kernel, or its copy with device functions inlined */
  const char *name = namer_claim_temp(&G->global, arena_printf(G->a, "regions_%s", kernel->cname));
  FunctionScope fs;
  function_begin(G, f, &fs);
  RegionGen rg = {.G = G, .plan = f->regions, .dim = namer_claim_temp(&G->local, "d"),
                  .slots = namer_claim_temp(&G->local, "slots"), .idx = namer_claim_temp(&G->local, "i"),
                  .block = namer_claim_temp(&G->local, "block"), .in = namer_claim_temp(&G->local, "in")};
  if (f->regions->grid) {
    rg.gblocks = namer_claim_temp(&G->local, "gblocks");
    rg.gthreads = namer_claim_temp(&G->local, "gthreads");
    rg.gblock_t = namer_claim_temp(&G->local, "gblock");
    rg.gthread_t = namer_claim_temp(&G->local, "gthread");
    rg.bnum = namer_claim_temp(&G->local, "b");
  } else {
    emit_line(G, "P2C_SIM_BLOCK_CONSTANTS();\n");   /* a grid function's come in each phase */
  }
  if (f->regions->nwarp) {   /* per worker: the lanes' values of each warp operation's statement */
    rg.warps = namer_claim_temp(&G->local, "warps");
    emit_line(G, "P2C_SIM_WARP_REGIONS();\n");
    emit_line(G, "static thread_local unsigned long long %s[%d][%d];\n", rg.warps, f->regions->nwarp, SLOT_THREADS);
  }
  emit_slot_structs(&rg);
  emit_plan_block(&rg, &f->body);
  StrBuf header;
  sb_init(&header, G->a);
  sb_printf(&header, "static inline __attribute__((always_inline)) void %s(uint3 %s", name, rg.dim);
  if (f->nparams) sb_puts(&header, ", ");
  emit_params(G, &header, fs.pnames);
  sb_putc(&header, ')');
  function_end(G, &fs, sb_str(&header), out);
  return name;
}
