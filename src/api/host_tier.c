/* The two tiers of @jit functions the host calls (docs/simulator.md, "Host functions: two
 * tiers"). Today's tier, the optimized one, is the simulator's host build of the module (g++ -O2,
 * about 0.2 s of CPU for a small function), cached. The first tier makes a first call cheap: at a
 * module's first host call, when the optimized build is not in the cache, the module's C form
 * (codegen_c_form) is compiled in memory by libtcc (about a millisecond; runtime/tcc/tcc.h) and
 * the optimized build starts on a thread of its own; calls run the first tier's code until that
 * build is ready, and the first call that finds it ready swaps it in, before it runs (so never
 * while a call runs). The build writes the cache as any load does, so later processes load the
 * optimized code at once.
 *
 * No first tier (the call goes straight to the optimized tier, as before) when: the module is
 * translated with checks (bounds, raises, --sanitize: the simulator reports them), the optimized
 * build is in the cache, the C form refuses (emit_c.c says what it cannot say), or libtcc is
 * missing, turned off ($PYK2CUDA_LIBTCC=0) or rejects the text. p2c_module_host_tier says which
 * tier ran the last call, and why not the first.
 *
 * The build thread reads only what the module keeps unchanged (its CUDA C, line map, file name)
 * and allocates with malloc, not the compiler's allocator (which P2cAllocator lets a host make
 * thread-unsafe); p2c_module_delete stops it (the build's interrupt check) and joins it. */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/gpu_api.h"
#include "runtime/bounds.h"
#include "runtime/sim/sim.h"
#include "runtime/tcc/tcc.h"
#include "util/arena.h"

struct HostTier {
  const char *why_not_first;   /* static text or tier->why: why calls run on the optimized tier */
  char why[600];
  TccProgram *program;         /* the first tier's code; NULL once swapped out or never made */
  P2cBoundsRecord *record;     /* program's failure record (its raises'); NULL: none, or no program */
  /* the optimized build on its thread */
  bool building;
  pthread_t builder;
  atomic_bool done;            /* the thread has finished (its results below are written) */
  atomic_bool cancel;          /* p2c_module_delete: stop the build */
  SimModule *built;
  P2cStatus built_status;
  SimLoadRequest req;
  P2cHostTier last;            /* the tier of the last call */
};

/* The build's interrupt check: the module is being deleted. */
static bool build_cancelled(void *userdata) { return atomic_load(&((HostTier *)userdata)->cancel); }

/* The one mutable global of this file, with its reason: the optimized builds of a process take
 * turns, one compiler at a time, since a program whose first calls specialize many functions
 * would otherwise start a compiler for each at once on cores that it is using itself. */
static pthread_mutex_t build_turn = PTHREAD_MUTEX_INITIALIZER;

/* Waits for this build's turn, looking at the cancel flag every 20 ms; false when cancelled. */
static bool take_turn(HostTier *t) {
  for (;;) {
    if (atomic_load(&t->cancel)) return false;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 20 * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    if (pthread_mutex_timedlock(&build_turn, &until) == 0) return true;
  }
}

static void *build_main(void *arg) {
  HostTier *t = arg;
  if (take_turn(t)) {
    t->built_status = sim_module_load(&t->req, &t->built);
    pthread_mutex_unlock(&build_turn);
  } else {
    t->built_status = P2C_ERR_INTERRUPTED;
  }
  atomic_store_explicit(&t->done, true, memory_order_release);
  return NULL;
}

/* The request of the module's optimized build, as launch.c's sim_loaded makes it. */
static SimLoadRequest build_request(const P2cModule *m, bool no_cache) {
  size_t len;
  const char *text = p2c_module_cuda(m, &len);
  return (SimLoadRequest){.source = text, .source_len = len, .no_cache = no_cache,
                          .python_lines = m->cg.python_line, .python_line_count = m->cg.nlines,
                          .python_file = m->comp.file};
}

/* The optimized build, already in the cache: loaded into m->sim; false when it is not there. */
static bool load_cached(P2cModule *m, bool no_cache) {
  if (no_cache) return false;
  SimLoadRequest req = build_request(m, false);
  req.cache_only = true;
  req.allocator = &m->alloc;
  SimModule *sm = NULL;
  if (sim_module_load(&req, &sm) != P2C_OK) {
    sim_module_delete(sm);
    return false;
  }
  m->sim = sm;
  return true;
}

/* codegen_c_form in the module's arena. A diagnostic it would add is dropped: the module's
 * diagnostics stay codegen_run's. */
static const CodegenResult *make_c_form(P2cModule *m) {
  CodegenResult *cf = arena_alloc(&m->comp.arena, sizeof *cf);
  size_t ndiags = m->comp.diags.len, nerrors = m->comp.error_count;
  bool ok = codegen_c_form(&m->comp, &m->mod, &m->an, &m->cg, cf);
  m->comp.diags.len = ndiags;
  m->comp.error_count = nerrors;
  if (!ok && !cf->c_refused) cf->c_refused = "what it needs (a diagnostic was raised)";
  return cf;
}

const CodegenResult *host_tier_c_form(P2cModule *m) {
  if (!m || !m->ok) return NULL;
  if (m->c_form) return m->c_form;
  jmp_buf oom;
  m->comp.arena.oom = &oom;
  if (setjmp(oom)) {
    m->comp.arena.oom = NULL;
    return NULL;
  }
  m->c_form = make_c_form(m);
  m->comp.arena.oom = NULL;
  return m->c_form;
}

/* The interrupt check of the first-tier call running on this thread (host_tier_call), which the
 * C form's loops reach through p2c_tier_poll: thread-local state, as the fault catch's, because
 * the generated code calls back into it with no argument. */
typedef struct TierPoll {
  P2cInterruptFn interrupt;
  void *userdata;
  double next_ms;
} TierPoll;
static _Thread_local TierPoll tier_poll;

static double poll_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Called by the C form's loops every so many iterations: asks the host's interrupt check at most
 * every 20 ms, and leaves the call when it says stop; returns the iterations until the next call. */
static long p2c_tier_poll(void) {
  TierPoll *p = &tier_poll;
  if (!p->interrupt) return 1L << 30;
  double now = poll_now_ms();
  if (now >= p->next_ms) {
    if (p->interrupt(p->userdata)) sim_call_leave();
    p->next_ms = now + 20;
  }
  return 1L << 16;
}

/* The call's heap of NumPy's array creation on this thread (the C form's p2c_heap_now): the
 * runtime's, as libtcc's code has no thread-local storage. Each call empties it at its start and
 * end (p2c_heap_begin, p2c_heap_end), so nothing is left in it between calls but what a raise
 * left, which the next call frees. */
static _Thread_local void *tier_heap;
static void **p2c_tier_heap(void) { return &tier_heap; }

/* A prange loop's chunks in the C form: as many as the optimized tier's (sim_prange_workers). */
static int p2c_tier_prange_workers(int64_t n, int max) { return sim_prange_workers(n, max); }

/* The module's C form compiled by libtcc into t->program; false with the reason in t. */
static bool compile_first(P2cModule *m, HostTier *t) {
  char err[500];
  if (!tcc_available(err, sizeof err)) {
    snprintf(t->why, sizeof t->why, "%s", err);
    t->why_not_first = t->why;
    return false;
  }
  const CodegenResult *cf = host_tier_c_form(m);
  if (!cf) {
    t->why_not_first = "out of memory";
    return false;
  }
  if (cf->c_refused) {
    snprintf(t->why, sizeof t->why, "its C form cannot say %s", cf->c_refused);
    t->why_not_first = t->why;
    return false;
  }
  /* p2c_tier_leave: a raise records itself in the C form's p2c_bounds_report and leaves the call */
  const TccSymbol given[] = {{"p2c_tier_poll", (const void *)(uintptr_t)p2c_tier_poll},
                             {"p2c_tier_leave", (const void *)(uintptr_t)sim_call_leave},
                             {"p2c_tier_heap", (const void *)(uintptr_t)p2c_tier_heap},
                             {"p2c_tier_prange_workers", (const void *)(uintptr_t)p2c_tier_prange_workers},
                             {NULL, NULL}};
  if (tcc_program_compile(cf->text, cf->c_externs, given, NULL, &t->program, err, sizeof err) != P2C_OK) {
    snprintf(t->why, sizeof t->why, "%s", err);
    t->why_not_first = t->why;
    return false;
  }
  t->record = tcc_program_symbol(t->program, P2C_BOUNDS_SYMBOL);   /* looked up once, not per call */
  return true;
}

/* Starts the optimized build on its thread; false when no thread could be started. */
static bool start_build(P2cModule *m, HostTier *t, bool no_cache) {
  t->req = build_request(m, no_cache);
  t->req.interrupt = build_cancelled;
  t->req.interrupt_userdata = t;
  t->building = pthread_create(&t->builder, NULL, build_main, t) == 0;
  return t->building;
}

/* The first host call of module m: decides the tiers (above). */
static HostTier *tier_begin(P2cModule *m, bool no_cache) {
  HostTier *t = mem_alloc(&m->alloc, sizeof *t);
  if (!t) return NULL;
  memset(t, 0, sizeof *t);
  m->tier = t;
  if (m->an.checks_bounds || m->sanitize) t->why_not_first = "it is translated with checks (debug=, boundscheck=, --sanitize)";
  else if (load_cached(m, no_cache)) t->why_not_first = "its optimized build is in the cache";
  else if (compile_first(m, t) && !start_build(m, t, no_cache)) {
    t->why_not_first = "no thread could be started for the optimized build";
    tcc_program_delete(t->program);
    t->program = NULL;
    t->record = NULL;
  }
  return t;
}

/* Waits for the build thread (when there is one) and takes its module: into m->sim when it
 * loaded (the first tier's code goes), else dropped (the optimized tier's load then runs again
 * in the call, and reports the error). */
static void take_build(P2cModule *m, HostTier *t) {
  if (!t->building) return;
  pthread_join(t->builder, NULL);
  t->building = false;
  if (t->built_status == P2C_OK && !m->sim) {
    m->sim = t->built;
    t->why_not_first = "the optimized build is ready";
  } else {
    sim_module_delete(t->built);
    t->why_not_first = "the optimized build failed";
  }
  t->built = NULL;
  tcc_program_delete(t->program);
  t->program = NULL;
  t->record = NULL;
}

void host_tier_delete(P2cModule *m) {
  HostTier *t = m->tier;
  if (!t) return;
  atomic_store(&t->cancel, true);
  take_build(m, t);
  tcc_program_delete(t->program);
  mem_free(&m->alloc, t, sizeof *t);
  m->tier = NULL;
}

/* The first tier's entry of host function k, NULL when this call is the optimized tier's. */
static void (*first_entry(P2cModule *m, const P2cKernelInfo *k, bool no_cache))(void **) {
  if (m->sim && !m->tier) return NULL;
  HostTier *t = m->tier ? m->tier : tier_begin(m, no_cache);
  if (!t) return NULL;
  if (t->building && atomic_load_explicit(&t->done, memory_order_acquire)) take_build(m, t);
  void *addr = t->program ? tcc_program_symbol(t->program, k->symbol) : NULL;
  void (*fn)(void **);
  memcpy(&fn, &addr, sizeof fn);
  return addr ? fn : NULL;
}

P2cStatus host_tier_call(P2cCompiler *c, P2cModule *m, const P2cKernelInfo *k, const P2cValue *args, bool no_cache,
                         bool *ran) {
  *ran = false;
  void (*fn)(void **) = first_entry(m, k, no_cache);
  if (m->tier) m->tier->last = fn ? P2C_HOST_TIER_FIRST : P2C_HOST_TIER_OPTIMIZED;
  if (!fn) return P2C_OK;
  *ran = true;
  LaunchLeaves leaves = {0};
  Packed p = {0};
  char err[400];
  P2cStatus s = launch_check_fit(c, k, args);
  if (s == P2C_OK) s = launch_leaves(c, k, args, &leaves);
  if (s == P2C_OK) s = launch_pack_args(c, k, &leaves, &p);
  P2cBoundsRecord *record = m->tier->record;   /* where the C form's code can raise; NULL: it cannot */
  if (record) memset(record, 0, sizeof *record);
  if (s == P2C_OK) {
    tier_poll = (TierPoll){c->interrupt, c->interrupt_userdata, poll_now_ms() + 20};
    s = sim_call_caught(fn, p.ptrs, k->python_name, err, sizeof err);
    tier_poll = (TierPoll){0};
  }
  /* a raise left the call as an interrupt leaves it; the record tells them apart */
  if (record && record->claimed && (s == P2C_OK || s == P2C_ERR_INTERRUPTED)) s = P2C_ERR_BOUNDS;
  if (s == P2C_ERR_BOUNDS) api_fail_bounds(c, record, m->comp.file, k->python_name, k->host);
  else if (s == P2C_ERR_ILLEGAL_ADDRESS) api_fail_fault(c, err, m->comp.file, k->python_name, 0);
  else if (s == P2C_ERR_INTERRUPTED) api_fail(c, s, "%s", err);
  launch_free_packed(c, k, &p);
  launch_free_leaves(c, &leaves);
  return s;
}

P2cHostTier p2c_module_host_tier(const P2cModule *m, const char **why_not_first) {
  const HostTier *t = m ? m->tier : NULL;
  if (why_not_first) *why_not_first = t && t->why_not_first ? t->why_not_first : "";
  if (!t) return m && m->sim ? P2C_HOST_TIER_OPTIMIZED : P2C_HOST_TIER_NONE;
  return t->last;
}

P2cStatus p2c_module_host_settle(P2cModule *m) {
  if (!m) return P2C_ERR_USAGE;
  if (m->tier) take_build(m, m->tier);
  return P2C_OK;
}
