/* The analysis phase's driver (analysis.h): which functions codegen emits, then the facts of
 * each. */
#include <string.h>

#include "analysis/walk.h"

static bool kernel_selected(const AnalysisOptions *o, const char *name) {
  if (!o->only_kernels) return true;
  for (size_t i = 0; i < o->nonly; i++)
    if (strcmp(o->only_kernels[i], name) == 0) return true;
  return false;
}

/* The typed specializations of the selected functions of `kind`, in source order. */
static void collect_kernels(Module *m, const AnalysisOptions *o, FuncKind kind, FunctionList *out, Arena *a) {
  for (size_t i = 0; i < m->funcs.len; i++) {
    Function *g = m->funcs.items[i];
    if (g->kind != kind || !kernel_selected(o, g->name)) continue;
    for (size_t j = 0; j < g->specs.len; j++)
      if (g->specs.items[j]->typed) vec_push(a, out, g->specs.items[j]);
  }
}

/* The host entries of the selected @jit functions (exports false), or the exported
 * specializations of the selected device functions (exports true), in source order. */
static void collect_hosts(Module *m, const AnalysisOptions *o, bool exports, FunctionList *out, Arena *a) {
  for (size_t i = 0; i < m->funcs.len; i++) {
    Function *g = m->funcs.items[i];
    if (!(exports ? g->exported : g->host_jit) || !kernel_selected(o, g->name)) continue;
    for (size_t j = 0; j < g->specs.len; j++) {
      const Function *s = g->specs.items[j];
      if (s->typed && (exports ? s->export_entry : s->host_entry)) vec_push(a, out, g->specs.items[j]);
    }
  }
}

/* ---- what the emitted functions use: device functions, complex and float16 types ---- */

typedef struct Uses {
  Analysis *an;
  Arena *a;
} Uses;

/* Whether t is, or holds, a type of kind `kind` (or, where `only` is given, that one type). */
static bool mentions_of(const Type *t, TypeKind kind, const Type *only) {
  if (!t) return false;
  if ((t->kind == kind && (!only || t == only)) || (t->dtype && mentions_of(t->dtype, kind, only))) return true;
  for (int i = 0; i < t->nelems; i++)
    if (mentions_of(t->elems[i], kind, only)) return true;
  for (int i = 0; i < t->nfields; i++)
    if (mentions_of(t->fields[i].type, kind, only)) return true;
  return false;
}

static bool mentions(const Type *t, TypeKind kind) { return mentions_of(t, kind, NULL); }

/* The record types inside t (an array's dtype, a tuple's elements), each listed once. */
static void note_records(Analysis *an, const Type *t, Arena *a) {
  if (t->dtype) note_records(an, t->dtype, a);
  for (int i = 0; i < t->nelems; i++) note_records(an, t->elems[i], a);
  if (t->kind != TY_RECORD) return;
  for (size_t i = 0; i < an->records.len; i++)
    if (an->records.items[i] == t) return;
  vec_push(a, &an->records, t);
}

/* Type t is named in the text: the prelude's complex and float16 helpers follow it, and the
 * records it holds need their structs. */
static void note_type(Analysis *an, const Type *t, Arena *a) {
  if (!t || t->kind == TY_VOID || t->kind == TY_BOOL || t->kind == TY_INT || t->kind == TY_FLOAT) return;
  an->uses_complex = an->uses_complex || mentions(t, TY_COMPLEX);
  an->uses_half = an->uses_half || mentions_of(t, TY_HALF, &type_float16);
  an->uses_bf16 = an->uses_bf16 || mentions_of(t, TY_HALF, &type_bfloat16);
  an->uses_fp8 = an->uses_fp8 || mentions_of(t, TY_HALF, &type_fp8_e5m2) ||
                 mentions_of(t, TY_HALF, &type_fp8_e4m3) || mentions_of(t, TY_HALF, &type_fp8_e8m0);
  an->uses_charseq = an->uses_charseq || mentions(t, TY_CHARSEQ);
  note_records(an, t, a);
}

/* The types f's declarations name: its variables', parameters' and result's. */
static void note_declared_types(const Function *f, Analysis *an, Arena *a) {
  for (int i = 0; i < f->nvars; i++) note_type(an, f->vars[i].ty, a);
  for (int i = 0; i < f->nparams; i++) note_type(an, f->arg_types[i], a);
  note_type(an, f->ret_type, a);
}

/* Expression e: its type; a call of a device function met for the first time joins the list,
 * and its body is walked at once (its callees come next, then the call's arguments). */
/* Device function f is called: met for the first time, it joins the list and its body is
 * walked at once (its callees come next). */
static void note_device(AstWalker *w, Function *f) {
  Uses *u = w->ctx;
  FunctionList *devs = &u->an->devices;
  for (size_t i = 0; i < devs->len; i++)
    if (devs->items[i] == f) return;
  vec_push(u->a, devs, f);
  ast_walk_block(w, &f->body);
}

/* Expression e: its type; a call of a device function notes the callee (then the call's
 * arguments are walked). */
static bool note_use(AstWalker *w, const Expr *e) {
  Uses *u = w->ctx;
  note_type(u->an, e->ty, u->a);
  if (e->kind == EX_CALL && e->kids[0]->kind == EX_FUNC && e->func) note_device(w, e->func);
  return true;
}

/* Walks the bodies of the kernels and ufuncs, and through their calls every device function
 * they reach, each once; a host entry is a device function its entry kernel calls. */
static void note_uses(Analysis *an, Arena *a) {
  Uses u = {an, a};
  AstWalker w = {.expr = note_use, .ctx = &u};
  for (size_t i = 0; i < an->kernels.len; i++) ast_walk_block(&w, &an->kernels.items[i]->body);
  for (size_t i = 0; i < an->ufuncs.len; i++) ast_walk_block(&w, &an->ufuncs.items[i]->body);
  for (size_t i = 0; i < an->hosts.len; i++) note_device(&w, an->hosts.items[i]);
  for (size_t i = 0; i < an->exports.len; i++) note_device(&w, an->exports.items[i]);
}

/* ---- local arrays on the deepest call path ---- */

typedef struct LocalWalk {
  uint64_t deepest;        /* the most a callee met so far needs */
  FunctionList *open;      /* the functions whose walk is in progress (recursion) */
  Arena *a;
} LocalWalk;

static uint64_t local_array_bytes(Function *f, FunctionList *open, Arena *a);

/* A call of a device function: what it needs, the most of the callees so far kept. */
static bool note_callee(AstWalker *w, const Expr *e) {
  LocalWalk *lw = w->ctx;
  if (e->kind != EX_CALL || e->kids[0]->kind != EX_FUNC || !e->func) return true;
  uint64_t need = local_array_bytes(e->func, lw->open, lw->a);
  if (need > lw->deepest) lw->deepest = need;
  return true;
}

/* Bytes of f's own local arrays (their fixed shapes, as typed). */
static uint64_t own_local_bytes(const Function *f) {
  uint64_t n = 0;
  for (int i = 0; i < f->nvars; i++) {
    const Type *t = f->vars[i].ty;
    if (!t || t->kind != TY_ARRAY || t->space != MEM_LOCAL || !t->fixed_shape) continue;
    uint64_t b = (uint64_t)t->dtype->bits / 8;
    for (int k = 0; k < t->ndim; k++) b *= (uint64_t)t->fixed_shape[k];
    n += b;
  }
  return n;
}

/* f's local arrays plus the most any function it calls needs (Function.local_bytes), computed
 * once per function; a recursive call adds nothing more (its depth is not known). Typing keeps
 * each array within 512 KiB, so the sums of a real program stay far from overflowing. */
static uint64_t local_array_bytes(Function *f, FunctionList *open, Arena *a) {
  for (size_t i = 0; i < open->len; i++)
    if (open->items[i] == f) return 0;
  if (f->local_bytes_known) return f->local_bytes;
  vec_push(a, open, f);
  LocalWalk lw = {0, open, a};
  AstWalker w = {.expr = note_callee, .ctx = &lw};
  ast_walk_block(&w, &f->body);
  open->len--;
  f->local_bytes = own_local_bytes(f) + lw.deepest;
  f->local_bytes_known = true;
  return f->local_bytes;
}

/* ---- NumPy's array creation, on the host's heap ---- */

typedef struct HeapWalk {
  const Expr *site;        /* the first allocation met */
  FunctionList *open;      /* the functions whose walk is in progress (recursion) */
  Arena *a;
} HeapWalk;

static const Expr *heap_alloc_site(Function *f, FunctionList *open, Arena *a);

/* An allocation, or a call of a function that makes one: the first is kept. */
static bool note_heap_alloc(AstWalker *w, const Expr *e) {
  HeapWalk *hw = w->ctx;
  if (hw->site || e->kind != EX_CALL) return true;
  if (e->kids[0]->kind == EX_BUILTIN && e->kids[0]->builtin && builtin_has(e->kids[0]->builtin, BF_HEAP_ALLOC))
    hw->site = e;
  else if (e->kids[0]->kind == EX_FUNC && e->func)
    hw->site = heap_alloc_site(e->func, hw->open, hw->a);
  return true;
}

/* The first array creation f makes, itself or through its callees (Function.heap_alloc),
 * computed once per function. */
static const Expr *heap_alloc_site(Function *f, FunctionList *open, Arena *a) {
  for (size_t i = 0; i < open->len; i++)
    if (open->items[i] == f) return NULL;
  if (f->heap_alloc_known) return f->heap_alloc;
  vec_push(a, open, f);
  HeapWalk hw = {NULL, open, a};
  AstWalker w = {.expr = note_heap_alloc, .ctx = &hw};
  ast_walk_block(&w, &f->body);
  open->len--;
  f->heap_alloc = hw.site;
  f->heap_alloc_known = true;
  return f->heap_alloc;
}

/* A kernel (or ufunc) reaching an array creation through the device functions it calls is
 * refused at the creation: its memory would be the host's (a kernel's own is typeinfer's). */
static void refuse_kernel_allocs(Compilation *c, const FunctionList *kernels, FunctionList *open) {
  for (size_t i = 0; i < kernels->len; i++) {
    const Expr *site = heap_alloc_site(kernels->items[i], open, &c->arena);
    if (site)
      diag_error(c, site->loc, "E-alloc", "%s() allocates memory, which kernel '%s' cannot (it calls the "
                 "function that does): arrays can be created in @jit functions called from the host",
                 builtin_display_name(site->kids[0]->builtin), kernels->items[i]->generic->name);
  }
}

/* ---- the driver ---- */

static void analyse_function(Compilation *c, Function *f, Analysis *an, bool fibers) {
  StmtList loops = {0};
  an_nonneg(f, &c->arena, &loops);
  an_ranges(f, &loops);
  an_parallel_loops(f, &c->arena);
  f->lockstep_loop = f->kind == FN_KERNEL ? an_lockstep_loop(f, &c->arena) : NULL;
  f->regions = an_region_plan(f, &c->arena, fibers);
  an_record_facts(f, &c->arena);
  an_param_writes(f, &c->arena);
  /* the copy that regions inline device functions into stores to the kernel's parameters */
  if (f->regions && f->regions->fn != f) f->regions->fn->param_written = f->param_written;
  f->private_atomics = an_private_atomics(f, &c->arena);
  f->sim_threads_yx = an_threads_yx(f, &c->arena);
  note_declared_types(f, an, &c->arena);
}

/* Which functions check their indices: all with the translation's check_bounds; else each kernel
 * whose decorator says debug=True or boundscheck=True (the rule the Python package applies), and
 * the device functions when any kernel checks (a device specialization is emitted once for every
 * kernel that calls it). Which report their raises: the same with debug=True alone, as Numba
 * reports a kernel's exception only after a debug=True launch (its boundscheck= checks nothing
 * on CUDA and reports nothing); a device function also with its own debug=True. A host entry
 * (a @jit function the host calls) always reports its raises, as Numba's CPU functions always
 * raise their exceptions; its indices are checked only as a kernel's are (Numba's njit checks
 * none without boundscheck=True), and its divisions by zero raise ZeroDivisionError (njit's
 * error_model='python'), as do its device functions' where the module has a host entry (the
 * Python package translates a host function's module alone; a file with kernels calling the same
 * device functions gets the checks in them too). */
static void checked_functions(const AnalysisOptions *o, Analysis *an) {
  const FunctionList *lists[] = {&an->kernels, &an->ufuncs, &an->hosts, &an->exports};
  bool any_reports = false;
  for (size_t l = 0; l < 4; l++)
    for (size_t i = 0; i < lists[l]->len; i++) {
      Function *f = lists[l]->items[i];
      const Function *g = f->generic ? f->generic : f;
      f->checks_bounds = o->check_bounds || g->debug || g->boundscheck;
      f->reports_raises = o->check_bounds || g->debug || lists[l] == &an->hosts;
      f->python_errors = lists[l] == &an->hosts;
      an->checks_bounds |= f->checks_bounds;
      any_reports |= f->reports_raises;
    }
  for (size_t i = 0; i < an->devices.len; i++) {
    Function *d = an->devices.items[i];
    d->checks_bounds = an->checks_bounds;
    d->reports_raises = any_reports || (d->generic ? d->generic : d)->debug;
    d->python_errors = an->hosts.len > 0;
  }
}

void analysis_run(Compilation *c, Module *m, const AnalysisOptions *o, Analysis *out) {
  memset(out, 0, sizeof *out);
  collect_kernels(m, o, FN_KERNEL, &out->kernels, &c->arena);
  collect_kernels(m, o, FN_UFUNC, &out->ufuncs, &c->arena);
  collect_hosts(m, o, false, &out->hosts, &c->arena);
  collect_hosts(m, o, true, &out->exports, &c->arena);
  note_uses(out, &c->arena);
  checked_functions(o, out);
  /* codegen writes every constant array a kernel uses: an array of records needs its struct */
  for (size_t i = 0; i < m->consts.len; i++)
    if (m->consts.items[i]->used && m->consts.items[i]->array) note_type(out, m->consts.items[i]->record_type, &c->arena);
  for (size_t i = 0; i < out->kernels.len; i++) analyse_function(c, out->kernels.items[i], out, o->fibers);
  for (size_t i = 0; i < out->ufuncs.len; i++) analyse_function(c, out->ufuncs.items[i], out, o->fibers);
  for (size_t i = 0; i < out->devices.len; i++) analyse_function(c, out->devices.items[i], out, o->fibers);
  FunctionList open = {0};
  for (size_t i = 0; i < out->kernels.len; i++) local_array_bytes(out->kernels.items[i], &open, &c->arena);
  refuse_kernel_allocs(c, &out->kernels, &open);
  refuse_kernel_allocs(c, &out->ufuncs, &open);
  for (size_t i = 0; i < out->hosts.len; i++) heap_alloc_site(out->hosts.items[i], &open, &c->arena);
}

/* ---- the printable form (--dump=analysis) ---- */

static void dump_vars(StrBuf *sb, const Function *f, const bool *set, const char *what) {
  sb_printf(sb, "  %s:", what);
  for (int i = 0; i < f->nvars; i++)
    if (set[i]) sb_printf(sb, " %s", f->vars[i].name);
  sb_putc(sb, '\n');
}

static bool dump_range(AstWalker *w, const Stmt *s) {
  if (s->kind != ST_FOR_RANGE) return true;
  const RangeFacts *r = &s->range;
  sb_printf(w->ctx, "  range at line %u: step sign %d%s%s%s%s%s\n", s->loc.line, r->sign,
            r->exact_advance ? ", exact advance" : "", r->direct ? ", direct counter" : "",
            r->stop_stable ? ", stop stable" : "", r->step_stable ? ", step stable" : "",
            r->short_and_inner ? ", short and inner (no poll)" : "");
  return true;
}

/* A kernel with barriers: the simulator's path (regions, with their count and the variables kept
 * per thread, or fibers and why). */
static void dump_regions(StrBuf *sb, const Function *f) {
  if (f->regions) {
    sb_printf(sb, "  simulator: %d regions, %d controls, %llu bytes per thread kept across barriers\n",
              f->regions->nregions, f->regions->ncontrol, (unsigned long long)f->regions->slot_bytes);
    if (f->regions->inlined) sb_printf(sb, "  simulator: inlined: %s\n", f->regions->inlined);
    dump_vars(sb, f->regions->fn, f->regions->slot, "kept across barriers");
  } else if (f->regions_refused) {
    sb_printf(sb, "  simulator: fibers: %s\n", f->regions_refused);
  }
}

/* The array parameters whose atomics the simulator may run on a worker's copy, with the
 * operation that merges the copies. */
static void dump_private_atomics(StrBuf *sb, const Function *f) {
  static const char *const ops[] = {"", "add", "and", "or", "xor", "max", "min"};
  if (!f->private_atomics) return;
  sb_puts(sb, "  atomics on a worker's copy:");
  for (int i = 0; i < f->nparams; i++)
    if (f->private_atomics[i] != PA_SHARED) sb_printf(sb, " %s (%s)", f->vars[i].name, ops[f->private_atomics[i]]);
  sb_putc(sb, '\n');
}

static void dump_function(StrBuf *sb, const char *kind, const Function *f) {
  sb_printf(sb, "%s %s(", kind, f->name);
  for (int i = 0; i < f->nparams; i++) sb_printf(sb, "%s%s", i ? ", " : "", f->arg_types[i]->name);
  sb_puts(sb, ")\n");
  dump_vars(sb, f, f->nonneg, "nonneg");
  dump_vars(sb, f, f->positive, "positive");
  if (f->lockstep_loop) sb_printf(sb, "  lockstep loop at line %u\n", f->lockstep_loop->loc.line);
  dump_regions(sb, f);
  if (f->sim_threads_yx) sb_puts(sb, "  simulator: threads and blocks y fastest\n");
  if (f->checks_bounds) sb_puts(sb, "  checks bounds\n");
  if (f->local_bytes) sb_printf(sb, "  local arrays: %llu bytes on its deepest call path\n", (unsigned long long)f->local_bytes);
  sb_puts(sb, "  written:");
  for (int i = 0; f->param_written && i < f->nparams; i++)
    if (f->param_written[i] && f->arg_types[i]->kind == TY_ARRAY) sb_printf(sb, " %s", f->vars[i].name);
  sb_putc(sb, '\n');
  dump_private_atomics(sb, f);
  AstWalker w = {.stmt = dump_range, .ctx = sb};
  ast_walk_block(&w, &f->body);
}

void analysis_dump(StrBuf *sb, const Analysis *an) {
  sb_printf(sb, "Analysis: complex types %s, float16 %s%s\n", an->uses_complex ? "used" : "unused",
            an->uses_half ? "used" : "unused", an->uses_bf16 ? ", bfloat16 used" : "");
  for (size_t i = 0; i < an->records.len; i++)
    sb_printf(sb, "Record %s: %s\n", an->records.items[i]->cname, an->records.items[i]->name);
  for (size_t i = 0; i < an->kernels.len; i++) dump_function(sb, "Kernel", an->kernels.items[i]);
  for (size_t i = 0; i < an->ufuncs.len; i++) dump_function(sb, "Ufunc", an->ufuncs.items[i]);
  for (size_t i = 0; i < an->devices.len; i++) dump_function(sb, "Device", an->devices.items[i]);
}
