/* pyk2cuda's bundle simulator part (docs/aot.md, --with-sim). `pyk2cuda build --with-sim` copies
 * this file, unchanged, into NAME_sim.cc after the simulator's host prelude (compiled with
 * P2C_SIM_ENTRY static, so the entries are the file's own) and before the module's CUDA C (each
 * kernel renamed NAME__k_SYMBOL by a macro, so two bundles' kernels never meet at link time).
 * The generated tail lists each kernel's p2cb_sim_run<p2cb_sim_entry<SYMBOL>> and defines
 * NAME_sim_launch, which NAME.c calls when the bundle runs on the CPU.
 *
 * A launch runs on the calling thread, blocks one after another, each block's threads in turn
 * (or as the regions of a kernel with barriers, or in lockstep: the same host C the simulator
 * builds); a cooperative kernel cut at its grid syncs (grid regions) runs each phase over every
 * block in turn; kernels that need the simulator's fibers (barriers the regions do not cover,
 * warp operations) run each block's threads as fibers (below). A grid sync outside grid regions
 * is refused with a message (it needs every block at once). No fault handler: a wild index is
 * the host program's fault, as in any C code. */

#include <ucontext.h>

/* Each entry macro of the prelude registers its kernel here: kind (P2C_SIM_KIND_BLOCKS, ...) and
 * the entry function, found by the kernel's function (a template argument). */
template <auto K>
struct p2cb_sim_entry {
  static constexpr int kind = 0;
};
#undef P2C_SIM_REGISTER
#define P2C_SIM_REGISTER(name, kind_, entry_)                                                      \
  template <>                                                                                      \
  struct p2cb_sim_entry<name> {                                                                    \
    static constexpr int kind = kind_;                                                             \
    static constexpr auto fn = entry_;                                                             \
  };

namespace {

/* The thread's callbacks a kernel without fibers can reach. */
int p2cb_sim_barrier(P2cSimThread *, int) { return 0; }   /* regions have none at run time */
void p2cb_sim_exit_thread(P2cSimThread *) { abort(); }    /* bounds checks: never in a bundle */
unsigned p2cb_sim_warp_sync(P2cSimThread *, unsigned mask, unsigned) { return mask; }
void p2cb_sim_poll(P2cSimThread *) {}
void p2cb_sim_print_flush(P2cSimThread *t) {
  fwrite(t->print_buf, 1, t->print_len, stdout);
  fflush(stdout);
  t->print_len = 0;
}

/* One launch's state: the thread the kernel sees (first: the callbacks get its address) and
 * the memory the launch owns, freed at its end. (No destructor: the file needs no C++ runtime
 * library, so a C program links it with its C compiler.) */
struct P2cbSimLaunchState {
  P2cSimThread t;
  uint64_t blocks, threads;
  void *shared, *slots, *memo, *grid_mem;
  unsigned char *grid_shared;
  char *print;
  const char *failure;   /* why a callback stopped the launch, or NULL */
  struct P2cbFibers *fibers;   /* a kernel run with fibers: its block's threads */
};

/* The math memory (P2cSimMemory, 98 KiB) of a launch that has ended, kept for the next one:
 * calloc'ing it at every launch was 97 % of a small launch's instructions on the simulator part
 * (bench/aot_launch.sh). Taken and given back atomically, so launches on several threads each
 * have their own (one of two given back at once is freed). */
P2cSimMemory *p2cb_sim_spare_memo;

P2cSimMemory *p2cb_sim_memo_take(void) {
  P2cSimMemory *m = __atomic_exchange_n(&p2cb_sim_spare_memo, (P2cSimMemory *)nullptr, __ATOMIC_ACQUIRE);
  return m ? m : (P2cSimMemory *)calloc(1, sizeof(P2cSimMemory));
}

/* Empties the tables the launch wrote (as the simulator's memo_empty), then keeps m. */
void p2cb_sim_memo_give(P2cSimMemory *m) {
  if (!m) return;
  const size_t table = (size_t)P2C_SIM_MEMO_SETS * P2C_SIM_MEMO_WAYS;
  for (unsigned t = 0; t < P2C_SIM_MEMO_TABLES; t++)
    if (m->used >> t & 1) memset(m->entries + t * table, 0, table * sizeof *m->entries);
  m->used = 0;
  free(__atomic_exchange_n(&p2cb_sim_spare_memo, m, __ATOMIC_RELEASE));
}

void p2cb_fibers_free(struct P2cbFibers *b);

int p2cb_sim_release(P2cbSimLaunchState *s, int status) {
  p2cb_fibers_free(s->fibers);
  p2cb_sim_memo_give((P2cSimMemory *)s->memo);
  free(s->shared), free(s->slots), free(s->print), free(s->grid_mem), free(s->grid_shared);
  return status;
}

/* a * b + c without wrapping, into *out; false when it would wrap. */
bool p2cb_size(uint64_t a, uint64_t b, uint64_t c, size_t *out) {
  uint64_t v;
  if (__builtin_mul_overflow(a, b, &v) || __builtin_add_overflow(v, c, &v) || v > SIZE_MAX) return false;
  *out = (size_t)v;
  return true;
}

/* Grid regions (P2C_SIM_GRID): a phase runs its function over every block of the grid, here on
 * the calling thread, in block order. */
int p2cb_sim_grid_phase(P2cSimThread *self, void (*fn)(void *, uint64_t, uint64_t), void *ctx) {
  P2cbSimLaunchState *s = (P2cbSimLaunchState *)self;
  fn(ctx, 0, s->blocks);
  return 1;
}

/* Grid regions: the memory kept across grid syncs, zeroed: block_bytes per block (rounded up to
 * 64 bytes in all), then thread_bytes per thread of the grid; once per launch, as the simulator
 * gives it. */
int p2cb_sim_grid_storage(P2cSimThread *self, size_t block_bytes, size_t thread_bytes, void **blocks, void **threads) {
  P2cbSimLaunchState *s = (P2cbSimLaunchState *)self;
  size_t block_part, grid_threads, bytes;
  if (s->grid_mem) return s->failure = "grid storage asked for twice", 0;
  bool fits = p2cb_size(s->blocks, block_bytes, 63, &block_part) && p2cb_size(s->blocks, s->threads, 0, &grid_threads);
  block_part &= ~(size_t)63;
  if (!fits || !p2cb_size(grid_threads, thread_bytes, block_part + 1, &bytes) || !(s->grid_mem = calloc(1, bytes)))
    return s->failure = "out of host memory for what a cooperative grid keeps across grid syncs", 0;
  if (blocks) *blocks = block_bytes ? s->grid_mem : nullptr;
  if (threads) *threads = thread_bytes ? (char *)s->grid_mem + block_part : nullptr;
  return 1;
}

/* The launch's memory and thread state; false (with s->failure) when out of memory. A grid
 * kernel's blocks each keep their dynamic shared memory across grid syncs. */
bool p2cb_sim_prepare(P2cbSimLaunchState *s, const unsigned g[3], const unsigned b[3], unsigned shared, bool grid) {
  memset(s, 0, sizeof *s);
  s->threads = (uint64_t)b[0] * b[1] * b[2], s->blocks = (uint64_t)g[0] * g[1] * g[2];
  size_t stride = ((size_t)shared + 63) & ~(size_t)63, grid_bytes = 0;
  s->shared = calloc(1, shared ? shared : 1);
  s->slots = calloc(s->threads, sizeof(unsigned long long));
  s->memo = p2cb_sim_memo_take();
  s->print = (char *)malloc(64 * 1024);
  if (grid && shared && (!p2cb_size(s->blocks, stride, 0, &grid_bytes) || !(s->grid_shared = (unsigned char *)calloc(1, grid_bytes))))
    return s->failure = "out of host memory", false;
  if (!s->shared || !s->slots || !s->memo || !s->print) return s->failure = "out of host memory", false;
  P2cSimThread &t = s->t;
  t.block_dim = uint3{b[0], b[1], b[2]};
  t.grid_dim = uint3{g[0], g[1], g[2]};
  t.dynamic_shared = s->shared;
  t.dynamic_shared_bytes = shared;
  t.barrier = p2cb_sim_barrier;
  t.exit_thread = p2cb_sim_exit_thread;
  t.warp_sync = p2cb_sim_warp_sync;
  t.warp_slots = (unsigned long long *)s->slots;
  t.print_buf = s->print;
  t.print_cap = 64 * 1024;
  t.print_flush = p2cb_sim_print_flush;
  t.memo = (P2cSimMemory *)s->memo;
  t.poll = p2cb_sim_poll;
  t.grid_phase = p2cb_sim_grid_phase;
  t.grid_storage = p2cb_sim_grid_storage;
  t.grid_dynamic_shared = s->grid_shared;
  t.grid_dynamic_stride = stride;
  return true;
}

/* ---- Fibers: kernels with barriers the regions do not cover, or warp operations ----------
 * A block's threads are fibers (ucontext) on the calling thread: rounds resume every runnable
 * fiber until it waits (a barrier, a warp operation) or returns; between rounds the warps whose
 * operation can complete go on first, then the block's barrier, as the simulator's scheduler
 * does (src/runtime/sim/launch.c, run_block_fibers and release_warp). A barrier reached by
 * only part of the block, a warp operation that can never complete, a mask without the calling
 * lane and a grid sync (which needs every block at once) stop the launch with a message. */

enum { P2CB_RUNNABLE, P2CB_AT_BARRIER, P2CB_AT_WARP, P2CB_EXITED, P2CB_STOPPED };

struct P2cbFiber {
  ucontext_t ctx;
  void *stack;
  uint3 tid;
  int state, predicate;
  unsigned warp_mask, warp_site, warp_result;
};

struct P2cbFibers {
  P2cbFiber *f;
  size_t n, cur;
  size_t stack_bytes;
  ucontext_t sched;
  int barrier_count;
  void (*entry)(void **);
  void **args;
};

void p2cb_fibers_free(P2cbFibers *b) {
  if (!b) return;
  for (size_t i = 0; i < b->n && b->f; i++) free(b->f[i].stack);
  free(b->f), free(b);
}

/* The fiber's body: one simulated thread, then back to the scheduler (uc_link). makecontext
 * passes ints: the launch's address comes in two halves. */
void p2cb_fiber_main(unsigned hi, unsigned lo) {
  P2cbSimLaunchState *s = (P2cbSimLaunchState *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo);
  P2cbFibers *b = s->fibers;
  b->entry(b->args);
  b->f[b->cur].state = P2CB_EXITED;
}

/* Leaves the current fiber, which has set its state, for the scheduler; returns when resumed. */
void p2cb_fiber_leave(P2cbFibers *b) { swapcontext(&b->f[b->cur].ctx, &b->sched); }

int p2cb_fiber_barrier(P2cSimThread *self, int predicate) {
  P2cbFibers *b = ((P2cbSimLaunchState *)self)->fibers;
  b->f[b->cur].state = P2CB_AT_BARRIER;
  b->f[b->cur].predicate = predicate != 0;
  p2cb_fiber_leave(b);
  return b->barrier_count;
}

unsigned p2cb_fiber_warp_sync(P2cSimThread *self, unsigned mask, unsigned site) {
  P2cbSimLaunchState *s = (P2cbSimLaunchState *)self;
  P2cbFibers *b = s->fibers;
  P2cbFiber *f = &b->f[b->cur];
  if (mask && !(mask >> (b->cur % 32) & 1u)) {
    s->failure = "a warp operation's mask does not include the calling lane (CUDA leaves this undefined)";
    f->state = P2CB_STOPPED;
    p2cb_fiber_leave(b);   /* never resumed */
  }
  f->state = P2CB_AT_WARP;
  f->warp_mask = mask, f->warp_site = site;
  p2cb_fiber_leave(b);
  return f->warp_result;
}

void p2cb_fiber_grid_sync(P2cSimThread *self) {
  P2cbSimLaunchState *s = (P2cbSimLaunchState *)self;
  s->failure = "a grid sync that the grid regions do not cover needs every block at once, which the "
               "bundle's simulator part (one thread) cannot run: run it on a GPU";
  s->fibers->f[s->fibers->cur].state = P2CB_STOPPED;
  p2cb_fiber_leave(s->fibers);   /* never resumed */
}

/* The lanes of a warp (f, `lanes` of them) that have not returned. */
unsigned p2cb_live_lanes(const P2cbFiber *f, size_t lanes) {
  unsigned live = 0;
  for (size_t j = 0; j < lanes; j++)
    if (f[j].state != P2CB_EXITED) live |= 1u << j;
  return live;
}

void p2cb_release_lanes(P2cbFiber *f, size_t lanes, unsigned group) {
  for (size_t j = 0; j < lanes; j++)
    if (group >> j & 1u) f[j].state = P2CB_RUNNABLE, f[j].warp_result = group;
}

/* Lets go every group of a warp's lanes whose operation can complete (all live lanes its mask
 * names wait with that mask); lanes in __activemask (mask 0) only when nothing else can, each
 * call site's together. Whether any went on. */
bool p2cb_release_warp(P2cbFiber *f, size_t lanes) {
  unsigned live = p2cb_live_lanes(f, lanes);
  bool released = false, in_activemask = false;
  for (size_t i = 0; i < lanes; i++) {
    if (f[i].state != P2CB_AT_WARP) continue;
    unsigned m = f[i].warp_mask, group = m & live;
    if (m == 0) {
      in_activemask = true;
      continue;
    }
    if (group & ((1u << i) - 1)) continue;   /* judged at its first lane */
    bool ready = true;
    for (size_t j = 0; j < lanes && ready; j++)
      if (group >> j & 1u) ready = f[j].state == P2CB_AT_WARP && f[j].warp_mask == m;
    if (ready) p2cb_release_lanes(f, lanes, group), released = true;
  }
  if (released || !in_activemask) return released;
  for (size_t i = 0; i < lanes; i++) {
    if (f[i].state != P2CB_AT_WARP || f[i].warp_mask != 0) continue;
    unsigned group = 0;
    for (size_t j = 0; j < lanes; j++)
      if (f[j].state == P2CB_AT_WARP && f[j].warp_mask == 0 && f[j].warp_site == f[i].warp_site) group |= 1u << j;
    p2cb_release_lanes(f, lanes, group);
  }
  return true;
}

/* After a round: the block's barrier when every live fiber waits at it (1), the block's end when
 * all have returned (0), or a stop (-1, with s->failure). */
int p2cb_release_barrier(P2cbSimLaunchState *s, P2cbFibers *b) {
  size_t arrived = 0, exited = 0;
  int count = 0;
  for (size_t i = 0; i < b->n; i++) {
    int st = b->f[i].state;
    if (st == P2CB_AT_BARRIER) arrived++, count += b->f[i].predicate;
    else if (st == P2CB_EXITED) exited++;
    else if (st == P2CB_AT_WARP) return s->failure = "a warp operation that can never complete (its lanes wait elsewhere)", -1;
  }
  if (arrived == 0) return 0;
  if (exited) return s->failure = "__syncthreads() reached by only part of a block (CUDA leaves this undefined)", -1;
  b->barrier_count = count;
  for (size_t i = 0; i < b->n; i++) b->f[i].state = P2CB_RUNNABLE;
  return 1;
}

/* One block with fibers: each fiber started at the entry, then rounds until all have returned. */
bool p2cb_run_block_fibers(P2cbSimLaunchState *s) {
  P2cbFibers *b = s->fibers;
  uint3 d = s->t.block_dim;
  uintptr_t p = (uintptr_t)s;
  for (size_t i = 0; i < b->n; i++) {
    P2cbFiber *f = &b->f[i];
    getcontext(&f->ctx);
    f->ctx.uc_stack.ss_sp = f->stack;
    f->ctx.uc_stack.ss_size = b->stack_bytes;
    f->ctx.uc_link = &b->sched;
    makecontext(&f->ctx, (void (*)(void))p2cb_fiber_main, 2, (unsigned)(p >> 16 >> 16), (unsigned)p);
    f->state = P2CB_RUNNABLE;
    f->tid = uint3{(unsigned)(i % d.x), (unsigned)(i / d.x % d.y), (unsigned)(i / d.x / d.y)};
  }
  for (;;) {
    bool waited = false;
    for (size_t i = 0; i < b->n; i++) {
      if (b->f[i].state != P2CB_RUNNABLE) continue;
      b->cur = i;
      s->t.thread_idx = b->f[i].tid;
      swapcontext(&b->sched, &b->f[i].ctx);
      if (s->failure) return false;
      waited |= b->f[i].state == P2CB_AT_WARP;
    }
    bool released = false;
    for (size_t base = 0; waited && base < b->n; base += 32)
      released |= p2cb_release_warp(b->f + base, b->n - base < 32 ? b->n - base : 32);
    if (released) continue;
    int r = p2cb_release_barrier(s, b);
    if (r <= 0) return r == 0;
  }
}

/* Runs a fibers kernel's grid, block after block; false (s->failure) when it stopped. */
bool p2cb_run_fibers(P2cbSimLaunchState *s, void (*entry)(void **), void **args, unsigned long long locals) {
  P2cbFibers *b = (P2cbFibers *)calloc(1, sizeof *b);
  s->fibers = b;
  if (!b || !(b->f = (P2cbFiber *)calloc(s->threads, sizeof *b->f)))
    return s->failure = "out of host memory for the block's fibers", false;
  b->n = s->threads, b->entry = entry, b->args = args;
  b->stack_bytes = locals ? ((size_t)locals + 2 * 65536 - 1) / 65536 * 65536 : 65536;   /* as the simulator */
  for (size_t i = 0; i < b->n; i++)
    if (!(b->f[i].stack = malloc(b->stack_bytes))) return s->failure = "out of host memory for fiber stacks", false;
  s->t.barrier = p2cb_fiber_barrier;
  s->t.warp_sync = p2cb_fiber_warp_sync;
  s->t.grid_sync = p2cb_fiber_grid_sync;
  uint3 g = s->t.grid_dim;
  for (uint64_t k = 0; k < s->blocks; k++) {
    s->t.block_idx = uint3{(unsigned)(k % g.x), (unsigned)(k / g.x % g.y), (unsigned)(k / g.x / g.y)};
    if (!p2cb_run_block_fibers(s)) return false;
  }
  return true;
}

/* Runs kernel E over the grid; nonzero with a message in err when it cannot. */
template <typename E, unsigned long long LOCALS>
int p2cb_sim_run(const unsigned g[3], const unsigned b[3], unsigned shared, void **args, char *err, size_t n) {
  P2cbSimLaunchState s;
  if (!p2cb_sim_prepare(&s, g, b, shared, E::kind == P2C_SIM_KIND_GRID)) {
    snprintf(err, n, "%s", s.failure);
    return p2cb_sim_release(&s, 1);
  }
  p2c_sim_bind(&s.t);
  if constexpr (E::kind == P2C_SIM_KIND_GRID) E::fn(args);
  else if constexpr (E::kind == P2C_SIM_KIND_FIBERS) p2cb_run_fibers(&s, E::fn, args, LOCALS);
  else E::fn(args, 0, s.blocks);
  if (s.t.print_len) p2cb_sim_print_flush(&s.t);
  p2c_sim_bind(nullptr);
  if (s.failure) snprintf(err, n, "%s", s.failure);
  return p2cb_sim_release(&s, s.failure ? 1 : 0);
}

typedef int (*P2cbSimRun)(const unsigned *, const unsigned *, unsigned, void **, char *, size_t);

}  // namespace
