/* pyk2cuda's bundle simulator part (docs/aot.md, --with-sim). `pyk2cuda build --with-sim` copies
 * this file, unchanged, into NAME_sim.cc after the simulator's host prelude (compiled with
 * P2C_SIM_ENTRY static, so the entries are the file's own) and before the module's CUDA C (each
 * kernel renamed NAME__k_SYMBOL by a macro, so two bundles' kernels never meet at link time).
 * The generated tail lists each kernel's p2cb_sim_run<p2cb_sim_entry<SYMBOL>> and defines
 * NAME_sim_launch, which NAME.c calls when the bundle runs on the CPU.
 *
 * A launch runs on the calling thread, blocks one after another, each block's threads in turn
 * (or as the regions of a kernel with barriers: the same host C the simulator builds). Kernels
 * that need the simulator's fibers (barriers the regions do not cover, warp operations) or its
 * grid syncs are refused with a message: the bundle has no fiber scheduler. No fault handler:
 * a wild index is the host program's fault, as in any C code. */

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

/* The memory one launch needs beside the kernel's arguments. */
struct P2cbSimLaunchMemory {
  void *shared, *slots, *memo;
  char *print;
};

/* Frees it; returns `status`. (No destructor: the file needs no C++ runtime library, so a C
 * program links it with its C compiler.) */
int p2cb_sim_release(P2cbSimLaunchMemory *m, int status) {
  free(m->shared), free(m->slots), free(m->memo), free(m->print);
  return status;
}

/* Runs kernel E over the grid; nonzero with a message in err when it cannot. */
template <typename E>
int p2cb_sim_run(const unsigned g[3], const unsigned b[3], unsigned shared, void **args, char *err, size_t n) {
  if constexpr (E::kind != P2C_SIM_KIND_BLOCKS) {
    snprintf(err, n, "the kernel needs the simulator's %s, which bundles do not have: run it on a GPU",
             E::kind == P2C_SIM_KIND_GRID ? "grid syncs" : "fibers (barriers or warp operations)");
    return 1;
  } else {
    P2cbSimLaunchMemory mem;
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2], blocks = (uint64_t)g[0] * g[1] * g[2];
    mem.shared = calloc(1, shared ? shared : 1);
    mem.slots = calloc(threads, sizeof(unsigned long long));
    mem.memo = calloc(1, sizeof(P2cSimMemory));
    mem.print = (char *)malloc(64 * 1024);
    if (!mem.shared || !mem.slots || !mem.memo || !mem.print) {
      snprintf(err, n, "out of host memory");
      return p2cb_sim_release(&mem, 1);
    }
    P2cSimThread t;
    memset(&t, 0, sizeof t);
    t.block_dim = uint3{b[0], b[1], b[2]};
    t.grid_dim = uint3{g[0], g[1], g[2]};
    t.dynamic_shared = mem.shared;
    t.dynamic_shared_bytes = shared;
    t.barrier = p2cb_sim_barrier;
    t.exit_thread = p2cb_sim_exit_thread;
    t.warp_sync = p2cb_sim_warp_sync;
    t.warp_slots = (unsigned long long *)mem.slots;
    t.print_buf = mem.print;
    t.print_cap = 64 * 1024;
    t.print_flush = p2cb_sim_print_flush;
    t.memo = (P2cSimMemory *)mem.memo;
    t.poll = p2cb_sim_poll;
    p2c_sim_bind(&t);
    E::fn(args, 0, blocks);
    if (t.print_len) p2cb_sim_print_flush(&t);
    p2c_sim_bind(nullptr);
    return p2cb_sim_release(&mem, 0);
  }
}

typedef int (*P2cbSimRun)(const unsigned *, const unsigned *, unsigned, void **, char *, size_t);

}  // namespace
