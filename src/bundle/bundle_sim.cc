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
 * block in turn. Kernels that need the simulator's fibers (barriers the regions do not cover,
 * warp operations) are refused with a message: the bundle has no fiber scheduler. No fault
 * handler: a wild index is the host program's fault, as in any C code. */

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

int p2cb_sim_release(P2cbSimLaunchState *s, int status) {
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

/* Runs kernel E over the grid; nonzero with a message in err when it cannot. */
template <typename E>
int p2cb_sim_run(const unsigned g[3], const unsigned b[3], unsigned shared, void **args, char *err, size_t n) {
  if constexpr (E::kind == P2C_SIM_KIND_FIBERS) {
    snprintf(err, n, "the kernel needs the simulator's fibers (barriers or warp operations the "
             "regions do not cover), which bundles do not have: run it on a GPU");
    return 1;
  } else {
    P2cbSimLaunchState s;
    if (!p2cb_sim_prepare(&s, g, b, shared, E::kind == P2C_SIM_KIND_GRID)) {
      snprintf(err, n, "%s", s.failure);
      return p2cb_sim_release(&s, 1);
    }
    p2c_sim_bind(&s.t);
    if constexpr (E::kind == P2C_SIM_KIND_GRID) E::fn(args);
    else E::fn(args, 0, s.blocks);
    if (s.t.print_len) p2cb_sim_print_flush(&s.t);
    p2c_sim_bind(nullptr);
    if (s.failure) snprintf(err, n, "%s", s.failure);
    return p2cb_sim_release(&s, s.failure ? 1 : 0);
  }
}

typedef int (*P2cbSimRun)(const unsigned *, const unsigned *, unsigned, void **, char *, size_t);

}  // namespace
