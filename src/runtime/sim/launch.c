/* The simulator's launcher: a pool of worker threads runs the blocks of a grid.
 *
 * Each worker takes block indices from an atomic counter until the grid is done or the launch
 * stops on an error. All threads of a block run on the worker's OS thread, one block at a time,
 * which is what makes `__shared__` (thread_local in the prelude) per-block storage.
 *
 * Without barriers the module runs a whole run of blocks in one call (p2c_sim_blocks_<kernel>,
 * a loop over blocks and threads compiled together with the kernel); workers take blocks in
 * chunks. With barriers each simulated thread is a fiber with its own stack (mmap'd with a guard page, kept per worker slot
 * across blocks and launches). The worker's scheduler resumes every runnable fiber in turn; a
 * fiber runs until it calls __syncthreads() or returns. When every fiber of the block waits at
 * the barrier they are all released; when some wait and others have returned, the launch stops
 * with an error naming the block.
 *
 * Context switch: on x86-64 a dozen instructions of our own (p2c_sim_switch, below) swap the
 * callee-saved registers and the stack pointer; elsewhere, or with -DP2C_SIM_UCONTEXT, the
 * portable swapcontext. Measured on the development machine (docs/simulator.md): swapcontext
 * 261 ns per switch (it makes a sigprocmask system call each time), the hand-written switch 9 ns.
 * The fibers share the floating-point environment (MXCSR, x87 control word): generated code
 * never changes it, so the switch does not save it. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "runtime/sim/fault.h"
#include "runtime/sim/module.h"
#include "runtime/sim/sanitize.h"
#include "util/arena.h"

#if defined(__x86_64__) && !defined(P2C_SIM_UCONTEXT)
#define SIM_ASM_SWITCH 1
#else
#define SIM_ASM_SWITCH 0
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif

/* Valgrind follows stack switches only when told where the stacks are (no cost outside it). */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define SIM_VALGRIND 1
#endif
#endif

enum {
  MAX_WORKERS = 256,
  MAX_BLOCK_THREADS = 1024,
  MAX_DYNAMIC_SHARED = 232448,     /* 227 KiB: the most an sm_90 block can opt in to */
  DEFAULT_STACK_BYTES = 64 * 1024,
  PRINT_BUFFER_BYTES = 64 * 1024,  /* kernel printf output kept per worker before a write */
  MAX_SYMBOL = 200,
  /* A fiber switching straight to the next one asks for the stack top of the fiber this many
   * places further on, this many cache lines of it (fiber_prefetch). */
  PREFETCH_AHEAD = 2, PREFETCH_LINES = 4,
  /* A cooperative launch (cuda.cg.this_grid) runs every block at once, each on a worker of its
   * own (an OS thread: `__shared__` is per OS thread) and each thread as a fiber: at most this
   * many blocks, and this many threads in all (each fiber is a stack mapping and a guard page,
   * two of the 65,530 mappings Linux allows a process by default). */
  SIM_MAX_COOPERATIVE_BLOCKS = 64, SIM_MAX_COOPERATIVE_THREADS = 16384,
  /* A launch with barriers keeps a fiber (a stack mapping and its guard page) per thread of the
   * block on each worker, kept for the module's next launches: at most this many fibers in all,
   * fewer workers otherwise. 32 workers of 1024-thread blocks took 65,536 of the 65,530
   * mappings Linux gives a process, after which it could start no thread and load no module. */
  SIM_MAX_FIBERS = 16384,
  /* A fiber's stack is this much more than the kernel's local arrays (P2C_SIM_STACK), for the
   * frames, spills and calls around them; at most SIM_MAX_STACK_BYTES. The fibers of one launch
   * take at most SIM_MAX_STACKS_BYTES of address space in all, fewer workers otherwise (at
   * least one): 1024-thread blocks with 512 KiB local arrays take 576 MiB a worker. */
  STACK_SLACK_BYTES = 64 * 1024, STACK_ROUND_BYTES = 64 * 1024,
};
static const size_t SIM_MAX_STACK_BYTES = (size_t)16 << 20;
/* Grid regions (a cooperative kernel cut at its grid syncs): the most memory a launch keeps
 * across grid syncs (every thread's slots, every block's uniform values, shared and dynamic
 * shared memory), mapped without reserving it: only the pages the kernel touches cost memory. */
static const uint64_t SIM_MAX_GRID_BYTES = (uint64_t)2 << 30;
static const uint64_t SIM_MAX_STACKS_BYTES = (uint64_t)8 << 30;

/* ---- Address sanitizer: tell it which stack is in use ------------------------------------- */

#ifdef SIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
static void asan_start(void **fake, const void *bottom, size_t size) {
  __sanitizer_start_switch_fiber(fake, bottom, size);
}
static void asan_finish(void *fake, const void **bottom, size_t *size) {
  __sanitizer_finish_switch_fiber(fake, bottom, size);
}
static void asan_unpoison(void *p, size_t n) { __asan_unpoison_memory_region(p, n); }
#else
static void asan_start(void **fake, const void *bottom, size_t size) {
  (void)fake, (void)bottom, (void)size;
}
static void asan_finish(void *fake, const void **bottom, size_t *size) {
  (void)fake, (void)bottom, (void)size;
}
static void asan_unpoison(void *p, size_t n) { (void)p, (void)n; }
#endif

/* ---- Contexts ------------------------------------------------------------------------------ */

#if SIM_ASM_SWITCH
typedef void *Context; /* the saved stack pointer; the registers are on that stack */

/* p2c_sim_switch(save, to): pushes the callee-saved registers, stores the stack pointer in
 * *save, loads `to` and pops that context's registers; `ret` continues it.
 * p2c_sim_fiber_start: where a new fiber's first switch returns to; calls r12(rbx). */
void p2c_sim_switch(Context *save, Context to);
void p2c_sim_fiber_start(void);
__asm__(".pushsection .text\n"
        ".globl p2c_sim_switch\n"
        ".hidden p2c_sim_switch\n"
        ".type p2c_sim_switch, @function\n"
        "p2c_sim_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size p2c_sim_switch, .-p2c_sim_switch\n"
        ".globl p2c_sim_fiber_start\n"
        ".hidden p2c_sim_fiber_start\n"
        ".type p2c_sim_fiber_start, @function\n"
        "p2c_sim_fiber_start:\n"
        "  movq %rbx, %rdi\n"
        "  callq *%r12\n"
        "  ud2\n"
        ".size p2c_sim_fiber_start, .-p2c_sim_fiber_start\n"
        ".popsection\n");

static void switch_context(Context *save, Context *to) { p2c_sim_switch(save, *to); }
#else
typedef ucontext_t *Context; /* storage that never moves (a ucontext points into itself) */
static void switch_context(Context *save, Context *to) { swapcontext(*save, *to); }
#endif

/* ---- State --------------------------------------------------------------------------------- */

/* FIBER_STOPPED: the thread ended itself through exit_thread (the launch stops). */
/* FIBER_AT_GRID: waits at a grid sync (cooperative launches). */
typedef enum FiberState {
  FIBER_RUNNABLE, FIBER_AT_BARRIER, FIBER_AT_WARP, FIBER_EXITED, FIBER_STOPPED, FIBER_AT_GRID
} FiberState;

/* One simulated thread of a block that uses barriers. The scheduler's data for all fibers of a
 * worker is one compact array (walking it must not touch a page per fiber); each stack is its
 * own mapping, [guard page][stack] (with ucontext, the ucontext_t at the top). */
typedef struct Fiber {
  Context ctx;
  unsigned char *map;      /* the stack's mapping */
  size_t map_size;
  unsigned char *stack;    /* lowest usable byte of the stack */
  size_t stack_size;
  uint3 tid;
  FiberState state;
  int predicate;           /* what it passed to the barrier it waits at */
  unsigned warp_mask;      /* the mask of the warp operation it waits at (0: __activemask) */
  unsigned warp_site;      /* for __activemask: which call */
  unsigned warp_result;    /* the lanes released with it */
  unsigned san_line, san_column;   /* --sanitize: where it waits (barrier or warp operation) */
  bool warp_orders;        /* the warp operation it waits at orders memory (P2cSimThread) */
  void *asan_fake;         /* ASan's fake stack while switched out */
  unsigned valgrind_id;    /* the stack's registration with Valgrind */
} Fiber;

struct SimStackPool {
  Fiber *fibers;
  size_t count, cap;
  size_t stack_size;
  char *print_buf;           /* the slot's printf buffer (PRINT_BUFFER_BYTES), kept too */
  P2cSimMemory *memo;        /* the slot's math memory, kept, empty between launches */
};

typedef struct Run Run;

/* One OS thread of the pool. `st` comes first: the barrier callbacks get it and cast back. */
typedef struct Worker {
  P2cSimThread st;
  Run *run;
  SimStackPool *pool;
  Fiber *cur;                 /* the fiber running now */
  Context sched;              /* the scheduler, while a fiber runs */
#if !SIM_ASM_SWITCH
  ucontext_t sched_uc;        /* what `sched` points at */
#endif
  const void *sched_stack;    /* its stack, for ASan */
  size_t sched_stack_size;
  int barrier_count;          /* result of the barrier the block just passed */
  bool fiber_stopped;         /* a fiber of the block ended itself (exit_thread) */
  bool fiber_polled;          /* the fiber running now came back for the interrupt check */
  size_t arrived, exited;     /* fibers of the block at the barrier, and returned */
  int predicates;             /* nonzero predicates passed to the barrier so far */
  bool warp_waited;           /* a fiber of the block has waited at a warp operation */
  size_t at_grid;             /* fibers of the block waiting at a grid sync */
  bool stray_barrier;         /* a barrier in a launch without uses_barrier */
  sigjmp_buf bail;            /* where exit_thread returns to, in a launch without barriers,
                                 and where a caught fault returns to (fault.h) */
  SimFaultCatch fault;        /* what the fault handler saw */
  bool stray_warp;            /* a warp operation in a launch without uses_barrier */
  uint64_t chunk_first, chunk_count;   /* the blocks of the call running now (no barriers) */
  void *dynamic_shared;       /* allocator block behind st.dynamic_shared */
  size_t dynamic_shared_size;
  size_t warp_slots_size;     /* bytes behind st.warp_slots */
  char failure[160];          /* why this worker could not start */
} Worker;

/* One launch. */
struct Run {
  const SimLaunch *l;
  SimModule *m;
  void (*thread_entry)(void **args);   /* p2c_sim_thread_<kernel> (uses_barrier) */
  void (*blocks_entry)(void **args, uint64_t first, uint64_t count); /* p2c_sim_blocks_<kernel> */
  /* Grid regions: p2c_sim_grid_<kernel>, run once on the calling thread; the phase it runs now
   * (what the workers call instead of blocks_entry), and the memory kept across grid syncs. */
  void (*grid_entry)(void **args);
  void (*phase_fn)(void *ctx, uint64_t first, uint64_t count);
  void *phase_ctx;
  bool phase_watch;                    /* the helpers watch between phases (run_workers) */
  Worker *grid_worker;                 /* the grid level's, which asks the interrupt check too */
  unsigned char *grid_mem, *grid_dynamic;
  size_t grid_mem_size, grid_dynamic_size, grid_dynamic_stride;
  uint64_t block_count;
  uint64_t chunk;                      /* blocks a worker takes at a time (no barriers) */
  uint32_t block_threads;
  size_t stack_bytes;                  /* of each fiber (uses_barrier): fiber_stack_bytes */
  Worker *workers;                     /* one per worker slot; slot 0 is the caller */
  size_t worker_count;
  _Atomic uint64_t next_block;
  _Atomic uint64_t blocks_done;
  atomic_bool stop;
  pthread_mutex_t error_lock;
  SimSanitizer *san;                   /* --sanitize: the checker (one worker); else NULL */
  P2cStatus status;
  char message[512];
  SimFaultReport fault_at;             /* with P2C_ERR_ILLEGAL_ADDRESS: where (worker_faulted) */
  uint64_t next_interrupt_check_ns;   /* slot 0's next call of l->interrupt (monotonic_ns) */
  /* A cooperative launch's grid barrier: blocks waiting at it, blocks finished, and a count of
   * releases that the waiting workers watch (under grid_lock; grid_wake wakes them). */
  pthread_mutex_t grid_lock;
  pthread_cond_t grid_wake;
  uint64_t grid_arrived, grid_finished, grid_releases;
};

/* Records the launch's first error (and, for a fault, where it was) and stops it. */
static void run_fail_v(Run *r, const SimFaultReport *at, P2cStatus st, const char *fmt, va_list ap) {
  pthread_mutex_lock(&r->error_lock);
  if (r->status == P2C_OK) {
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    r->status = st;
    if (at) r->fault_at = *at;
  }
  pthread_mutex_unlock(&r->error_lock);
  atomic_store(&r->stop, true);
  if (r->l->cooperative) {   /* workers waiting at the grid barrier see the stop */
    pthread_mutex_lock(&r->grid_lock);
    pthread_cond_broadcast(&r->grid_wake);
    pthread_mutex_unlock(&r->grid_lock);
  }
}

static void run_fail(Run *r, P2cStatus st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void run_fail(Run *r, P2cStatus st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  run_fail_v(r, NULL, st, fmt, ap);
  va_end(ap);
}

static void run_fail_fault(Run *r, const SimFaultReport *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void run_fail_fault(Run *r, const SimFaultReport *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  run_fail_v(r, at, P2C_ERR_ILLEGAL_ADDRESS, fmt, ap);
  va_end(ap);
}

/* The index of the i-th item of a 3-D range, x fastest (CUDA's linear order). */
static uint3 index_3d(uint64_t i, uint3 dim) {
  uint3 r;
  r.x = (unsigned)(i % dim.x);
  r.y = (unsigned)(i / dim.x % dim.y);
  r.z = (unsigned)(i / dim.x / dim.y);
  return r;
}

/* ---- Fibers -------------------------------------------------------------------------------- */

static size_t page_size(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (size_t)p : 4096;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* Maps a stack for `f`: a guard page, then `stack_size` bytes rounded up to pages, and one page
 * more, which the fiber's start offset (stack_color) may use. */
static bool fiber_init(Fiber *f, size_t stack_size) {
  size_t page = page_size();
  size_t stack = round_up(stack_size, page) + page; /* a page more for stack_color */
#if !SIM_ASM_SWITCH
  stack += round_up(sizeof(ucontext_t), page);
#endif
  size_t size = page + stack;
  unsigned char *map = mmap(NULL, size, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (map == MAP_FAILED) return false;
  if (mprotect(map, page, PROT_NONE) != 0) {
    munmap(map, size);
    return false;
  }
  memset(f, 0, sizeof *f);
  f->map = map;
  f->map_size = size;
  f->stack = map + page;
  f->stack_size = stack;
#ifdef SIM_VALGRIND
  f->valgrind_id = VALGRIND_STACK_REGISTER(f->stack, f->stack + f->stack_size);
#endif
#if !SIM_ASM_SWITCH
  /* makecontext needs a context from getcontext first; only once, since it never moves. */
  f->stack_size -= round_up(sizeof(ucontext_t), page);
  f->ctx = (ucontext_t *)(f->stack + f->stack_size);
  getcontext(f->ctx);
#endif
  return true;
}

static void fiber_release(Fiber *f) {
#ifdef SIM_VALGRIND
  VALGRIND_STACK_DEREGISTER(f->valgrind_id);
#endif
  munmap(f->map, f->map_size);
}

static void fiber_main(Worker *w);

#if !SIM_ASM_SWITCH
/* makecontext passes int arguments: the worker's address comes in two halves. */
static void fiber_start_uc(unsigned hi, unsigned lo) {
  fiber_main((Worker *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo));
}
#endif

/* Prepares a fiber to start the kernel's entry from the top of its stack. */
/* Every stack mapping starts on a page, so the tops of the stacks would all fall in the same
 * cache sets, and a round of switches through a block's fibers would evict itself from L1 and
 * L2: each fiber starts its stack 64 bytes lower than the one before, modulo 4 KiB. */
static size_t stack_color(const Worker *w, const Fiber *f) {
  return (size_t)(f - w->pool->fibers) % 64 * 64;
}

static void fiber_reset(Worker *w, Fiber *f) {
  asan_unpoison(f->stack, f->stack_size);
#if SIM_ASM_SWITCH
  /* The frame p2c_sim_switch pops: r15 r14 r13 r12 rbx rbp, then the return address. After the
   * `ret` the stack pointer is 16-byte aligned for the call in p2c_sim_fiber_start. */
  uintptr_t top = ((uintptr_t)f->stack + f->stack_size - stack_color(w, f)) & ~(uintptr_t)15;
  uintptr_t *frame = (uintptr_t *)(top - 72);
  memset(frame, 0, 72);
  frame[3] = (uintptr_t)fiber_main;          /* r12 */
  frame[4] = (uintptr_t)w;                   /* rbx */
  frame[6] = (uintptr_t)p2c_sim_fiber_start; /* return address */
  f->ctx = frame;
#else
  uintptr_t p = (uintptr_t)w;
  f->ctx->uc_stack.ss_sp = f->stack;
  f->ctx->uc_stack.ss_size = f->stack_size - stack_color(w, f);
  f->ctx->uc_link = NULL;
  makecontext(f->ctx, (void (*)(void))fiber_start_uc, 2, (unsigned)(p >> 16 >> 16), (unsigned)p);
#endif
  f->state = FIBER_RUNNABLE;
}

/* Leaves fiber `f`, which has just set its new state: a round resumes the fibers in order, so
 * when the next fiber can run, f switches straight to it (one switch instead of two through the
 * scheduler; the scheduler's loop then finds it done); otherwise back to the scheduler, which
 * looks further. Returns when f is resumed. Under ASan every switch goes through the scheduler,
 * whose stack the fibers' first frames record. */
/* Asks the cache for the top of a parked fiber's stack: the registers p2c_sim_switch saved and
 * the frames above them (the kernel's locals), which it reads as soon as it is resumed. A round
 * through a block's fibers touches four or five lines of each stack, 256 fibers make 80 KiB,
 * more than L1 holds, and no hardware prefetcher guesses the next stack (another mapping, pages
 * away): without this every switch waited for those lines. Asking two fibers ahead took
 * one worker's time per launch (best of 201) from 0.35 to 0.29 ms on matmul (48 x 48, four
 * barriers per thread); four barriers and no work over 96 x 96 threads, from 0.92 to 0.80 ms
 * with 16 x 16 blocks and from 1.6 to 0.93 ms with 32 x 32 blocks. */
static void fiber_prefetch(const Fiber *f) {
#if SIM_ASM_SWITCH
  const char *top = f->ctx;
  for (int line = 0; line < PREFETCH_LINES; line++) __builtin_prefetch(top + 64 * line);
#else
  (void)f;
#endif
}

static void fiber_leave(Worker *w, Fiber *f, void **asan_fake) {
#ifndef SIM_ASAN
  Fiber *next = f + 1, *end = w->pool->fibers + w->run->block_threads;
  if (next < end && next->state == FIBER_RUNNABLE) {
    if (next + PREFETCH_AHEAD < end) fiber_prefetch(next + PREFETCH_AHEAD);
    w->cur = next;
    w->st.thread_idx = next->tid;
    switch_context(&f->ctx, &next->ctx);
    return;
  }
#endif
  asan_start(asan_fake, w->sched_stack, w->sched_stack_size);
  switch_context(&f->ctx, &w->sched);
  if (asan_fake) asan_finish(*asan_fake, &w->sched_stack, &w->sched_stack_size);
}

/* Body of every fiber: one simulated thread, then on to the next fiber or back to the scheduler
 * for good. */
static void fiber_main(Worker *w) {
  asan_finish(NULL, &w->sched_stack, &w->sched_stack_size);
  Fiber *f = w->cur;
  w->run->thread_entry(w->run->l->args);
  f->state = FIBER_EXITED;
  w->exited++;
  fiber_leave(w, f, NULL);
  /* never resumed */
}

/* Scheduler side: runs fiber `f` until its next barrier or its end. */
static void fiber_resume(Worker *w, Fiber *f) {
  void *fake = NULL;
  w->cur = f;
  w->st.thread_idx = f->tid;
  asan_start(&fake, f->stack, f->stack_size);
  switch_context(&w->sched, &f->ctx);
  asan_finish(fake, NULL, NULL);
}

/* __syncthreads() inside a fiber: park at the barrier until the scheduler releases the block. */
static int fiber_barrier(P2cSimThread *self, int predicate) {
  Worker *w = (Worker *)self;
  Fiber *f = w->cur;
  f->state = FIBER_AT_BARRIER;
  f->predicate = predicate != 0;
  f->san_line = self->san_line, f->san_column = self->san_column;
  w->arrived++;
  w->predicates += predicate != 0;
  fiber_leave(w, f, &f->asan_fake);
  return w->barrier_count;
}

/* __syncthreads() in a launch without uses_barrier: remembered, reported after the block. */
static int stray_barrier(P2cSimThread *self, int predicate) {
  ((Worker *)self)->stray_barrier = true;
  return predicate != 0;
}

/* cuda.cg.this_grid().sync() inside a fiber: park until the scheduler has taken the whole block
 * through the grid barrier (run_block_fibers, grid_barrier). */
static void fiber_grid_sync(P2cSimThread *self) {
  Worker *w = (Worker *)self;
  Fiber *f = w->cur;
  f->state = FIBER_AT_GRID;
  w->at_grid++;
  fiber_leave(w, f, &f->asan_fake);
}

/* A grid sync in a launch without fibers: remembered as a stray barrier (reported after the
 * blocks). The translator always gives a kernel with a grid sync fibers. */
static void stray_grid_sync(P2cSimThread *self) { ((Worker *)self)->stray_barrier = true; }

/* A thread ended itself (exit_thread): the launch stops. The details (which access, which
 * thread) are in the module's bounds record, read by sim_launch. */
static void thread_stopped(Worker *w) {
  run_fail(w->run, P2C_ERR_SIM, "kernel '%s' stopped: a thread ended the launch",
           w->run->l->symbol);
}

/* exit_thread in a fiber: back to the scheduler for good; the fiber's stack is reset before it
 * is used again. */
static void fiber_exit_thread(P2cSimThread *self) {
  Worker *w = (Worker *)self;
  Fiber *f = w->cur;
  thread_stopped(w);
  f->state = FIBER_STOPPED;
  w->fiber_stopped = true;
  asan_start(NULL, w->sched_stack, w->sched_stack_size);
  switch_context(&f->ctx, &w->sched);
  __builtin_unreachable(); /* never resumed */
}

/* exit_thread without fibers: the thread runs on the worker's own stack, under worker_main;
 * jump back there (the frames in between are the module's loop and kernel, which hold nothing
 * that needs releasing). */
static void plain_exit_thread(P2cSimThread *self) {
  Worker *w = (Worker *)self;
  thread_stopped(w);
  siglongjmp(w->bail, 1);
}

static bool launch_interrupted(Worker *w);
static uint64_t monotonic_ns(void);

/* Leaves a launch that has stopped from inside the kernel, at a loop's poll: a fiber goes back
 * to the scheduler for good (its block ends; its stack is reset when used again), a thread
 * without fibers jumps back to worker_main, as exit_thread does, without a message of its own
 * (the launch's first error is what stopped it). */
static void leave_stopped_launch(Worker *w) {
  if (!w->run->l->uses_barrier) siglongjmp(w->bail, 1);
  Fiber *f = w->cur;
  f->state = FIBER_STOPPED;
  w->fiber_stopped = true;
  asan_start(NULL, w->sched_stack, w->sched_stack_size);
  switch_context(&f->ctx, &w->sched);
  __builtin_unreachable(); /* never resumed */
}

/* A loop's poll (P2cSimThread.poll, every P2C_SIM_POLL_EVERY iterations): the calling thread's
 * worker asks the host's interrupt check when it is due, on its own stack: a fiber first
 * switches to the scheduler, which asks it (run_block_fibers) and resumes the fiber, since the
 * check runs host code (Python's signal handlers) that a fiber's stack may not hold. Then any
 * worker leaves a launch that has stopped. So a kernel that spins for ever stops too. */
static void worker_poll(P2cSimThread *self) {
  Worker *w = (Worker *)self;
  Run *r = w->run;
  if ((w == r->workers || w == r->grid_worker) && r->l->interrupt) {
    if (!r->l->uses_barrier) launch_interrupted(w);
    else if (monotonic_ns() >= r->next_interrupt_check_ns) {
      Fiber *f = w->cur;
      w->fiber_polled = true;
      asan_start(&f->asan_fake, w->sched_stack, w->sched_stack_size);
      switch_context(&f->ctx, &w->sched);
      asan_finish(f->asan_fake, &w->sched_stack, &w->sched_stack_size);
    }
  }
  if (atomic_load_explicit(&r->stop, memory_order_relaxed)) leave_stopped_launch(w);
}

/* A warp operation inside a fiber: park until the scheduler releases the lanes of the mask.
 * A mask that does not name the calling lane is an error (CUDA leaves it undefined). */
static unsigned fiber_warp_sync(P2cSimThread *self, unsigned mask, unsigned site) {
  Worker *w = (Worker *)self;
  Fiber *f = w->cur;
  unsigned index = (unsigned)(f - w->pool->fibers), lane = index % 32;
  if (mask && !(mask >> lane & 1u)) {
    uint3 b = w->st.block_idx;
    if (w->run->san) {
      char what[200];
      snprintf(what, sizeof what,
               "warp operation with mask 0x%08x called by lane %u of warp %u, which the mask does "
               "not include (CUDA leaves this undefined), thread (%u,%u,%u) of block (%u,%u,%u)",
               mask, lane, index / 32, f->tid.x, f->tid.y, f->tid.z, b.x, b.y, b.z);
      sim_san_misuse(w->run->san, SIM_SAN_WARP, self->san_line, self->san_column, f->tid, b, what);
      return mask;
    }
    run_fail(w->run, P2C_ERR_SIM,
             "kernel '%s': lane %u of warp %u in block (%u,%u,%u) called a warp operation with "
             "mask 0x%08x, which does not include the lane (CUDA leaves this undefined)",
             w->run->l->symbol, lane, index / 32, b.x, b.y, b.z, mask);
    return mask;
  }
  f->state = FIBER_AT_WARP;
  f->san_line = self->san_line, f->san_column = self->san_column;
  f->warp_orders = self->warp_orders != 0;
  f->warp_mask = mask;
  f->warp_site = site;
  w->warp_waited = true;
  fiber_leave(w, f, &f->asan_fake);
  /* other fibers set theirs meanwhile; an operation's second wait (p2c_sim_exchange) is here */
  self->san_line = f->san_line, self->san_column = f->san_column;
  return f->warp_result;
}

/* A warp operation in a launch without uses_barrier: no lane takes part (the thread keeps its
 * own values); reported after the blocks. */
static unsigned stray_warp_sync(P2cSimThread *self, unsigned mask, unsigned site) {
  ((Worker *)self)->stray_warp = true;
  (void)mask, (void)site;
  return 0;
}

/* ---- Fiber stacks per worker slot ---------------------------------------------------------- */

/* Frees the slot's fiber stacks (its printf buffer and math memory stay). */
static void pool_release(SimModule *m, SimStackPool *p) {
  for (size_t i = 0; i < p->count; i++) fiber_release(&p->fibers[i]);
  mem_free(m->alloc, p->fibers, p->cap * sizeof *p->fibers);
  char *print_buf = p->print_buf;
  P2cSimMemory *memo = p->memo;
  memset(p, 0, sizeof *p);
  p->print_buf = print_buf;
  p->memo = memo;
}

/* Makes sure the pool holds `count` fibers with stacks of at least `stack_size` bytes. Larger
 * stacks are kept for kernels that need less (as a CUDA context keeps the local memory of its
 * largest kernel), so that kernels of one module launched in turn do not map their stacks anew. */
static bool pool_reserve(SimModule *m, SimStackPool *p, size_t count, size_t stack_size) {
  if (p->stack_size < stack_size) {
    pool_release(m, p);
    p->stack_size = stack_size;
  }
  stack_size = p->stack_size;
  if (p->cap < count) {
    Fiber *grown = mem_realloc(m->alloc, p->fibers, p->cap * sizeof *grown, count * sizeof *grown);
    if (!grown) return false;
    p->fibers = grown;
    p->cap = count;
  }
  while (p->count < count) {
    if (!fiber_init(&p->fibers[p->count], stack_size)) return false;
    p->count++;
  }
  return true;
}

static void helpers_stop(SimModule *m);

void sim_release_workers(SimModule *m) {
  helpers_stop(m);
  for (size_t i = 0; i < m->pool_count; i++) {
    mem_free(m->alloc, m->pools[i].print_buf, PRINT_BUFFER_BYTES);
    m->pools[i].print_buf = NULL;
    mem_free(m->alloc, m->pools[i].memo, sizeof *m->pools[i].memo);
    m->pools[i].memo = NULL;
    pool_release(m, &m->pools[i]);
  }
  mem_free(m->alloc, m->pools, m->pool_count * sizeof *m->pools);
  m->pools = NULL;
  m->pool_count = 0;
}

/* Grows the module's pools to `n` slots (empty ones are cheap: no stacks yet). */
static bool pools_grow(SimModule *m, size_t n) {
  if (m->pool_count >= n) return true;
  SimStackPool *grown = mem_realloc(m->alloc, m->pools, m->pool_count * sizeof *grown,
                                    n * sizeof *grown);
  if (!grown) return false;
  memset(grown + m->pool_count, 0, (n - m->pool_count) * sizeof *grown);
  m->pools = grown;
  m->pool_count = n;
  return true;
}

/* ---- Blocks -------------------------------------------------------------------------------- */

/* Blocks [first, first + count) without barriers: one call into the module, which loops over
 * the blocks and their threads. */
static bool run_blocks_plain(Worker *w, uint64_t first, uint64_t count) {
  Run *r = w->run;
  w->chunk_first = first, w->chunk_count = count;   /* for a fault's message */
  if (r->phase_fn) r->phase_fn(r->phase_ctx, first, count);
  else r->blocks_entry(r->l->args, first, count);
  if (w->stray_warp) {
    run_fail(r, P2C_ERR_SIM,
             "kernel '%s' called a warp operation (__shfl_sync, __ballot_sync, __syncwarp, ...) but "
             "was launched without fiber support (uses_barrier is false)", r->l->symbol);
    return false;
  }
  if (!w->stray_barrier) return true;
  run_fail(r, P2C_ERR_SIM,
           "kernel '%s' called __syncthreads() but was launched without barrier support "
           "(uses_barrier is false)", r->l->symbol);
  return false;
}

/* ---- Warp rendezvous ----------------------------------------------------------------------- */

/* The lanes of the warp at `f` (at most 32 fibers) that have not exited. */
static unsigned live_lanes(const Fiber *f, size_t lanes) {
  unsigned live = 0;
  for (size_t j = 0; j < lanes; j++)
    if (f[j].state != FIBER_EXITED) live |= 1u << j;
  return live;
}

/* Lets the lanes of `group` of warp `warp` go on; the checker learns that they met when the
 * operation orders memory (__syncwarp in every lane). */
static void release_lanes(Worker *w, Fiber *f, size_t lanes, unsigned group, unsigned warp) {
  bool orders = true;
  for (size_t j = 0; j < lanes; j++)
    if (group >> j & 1u) {
      f[j].state = FIBER_RUNNABLE, f[j].warp_result = group;
      orders &= f[j].warp_orders;
    }
  if (w->run->san && orders) sim_san_warp(w->run->san, warp, group);
}

/* The lanes waiting in __activemask at the same call as lane i. */
static unsigned activemask_group(const Fiber *f, size_t lanes, size_t i) {
  unsigned group = 0;
  for (size_t j = 0; j < lanes; j++)
    if (f[j].state == FIBER_AT_WARP && f[j].warp_mask == 0 && f[j].warp_site == f[i].warp_site)
      group |= 1u << j;
  return group;
}

/* Lets go every group of lanes whose warp operation can complete: all live lanes named in a
 * mask wait with that same mask. Lanes in __activemask (mask 0) go on only when nothing else
 * in their warp can, each call's lanes together: their result is the set of them. */
static bool release_warp(Worker *w, Fiber *f, size_t lanes, unsigned warp) {
  unsigned live = live_lanes(f, lanes);
  bool released = false, in_activemask = false;
  for (size_t i = 0; i < lanes; i++) {
    if (f[i].state != FIBER_AT_WARP) continue;
    unsigned m = f[i].warp_mask, group = m & live;
    if (m == 0) {
      in_activemask = true;
      continue;
    }
    if (group & ((1u << i) - 1)) continue;   /* the group was judged at its first lane */
    bool ready = true;
    for (size_t j = 0; j < lanes && ready; j++)
      if (group >> j & 1u) ready = f[j].state == FIBER_AT_WARP && f[j].warp_mask == m;
    if (!ready) continue;
    release_lanes(w, f, lanes, group, warp);
    released = true;
  }
  if (released || !in_activemask) return released;
  for (size_t i = 0; i < lanes; i++)
    if (f[i].state == FIBER_AT_WARP && f[i].warp_mask == 0)
      release_lanes(w, f, lanes, activemask_group(f, lanes, i), warp);
  return true;
}

static bool release_warps(Worker *w, Fiber *fibers, size_t n) {
  bool any = false;
  for (size_t base = 0; base < n; base += 32)
    any |= release_warp(w, fibers + base, n - base < 32 ? n - base : 32, (unsigned)(base / 32));
  return any;
}

/* --sanitize: a warp operation that can never complete is a finding; the lanes waiting at it
 * with its mask go on with each other, so that the launch goes on. */
static void san_stuck_warp(Worker *w, Fiber *f, size_t lanes, unsigned i, const char *other) {
  unsigned m = f[i].warp_mask, group = 0;
  for (size_t j = 0; j < lanes; j++)
    if (f[j].state == FIBER_AT_WARP && f[j].warp_mask == m) group |= 1u << j;
  unsigned warp = (unsigned)((f - w->pool->fibers) / 32);
  uint3 b = w->st.block_idx;
  char what[200];
  snprintf(what, sizeof what,
           "warp operation with mask 0x%08x in warp %u of block (%u,%u,%u) waits for lanes that "
           "never arrive: %s (CUDA leaves this undefined)", m, warp, b.x, b.y, b.z, other);
  sim_san_misuse(w->run->san, SIM_SAN_WARP, f[i].san_line, f[i].san_column, f[i].tid, b, what);
  release_lanes(w, f, lanes, group, warp);
}

/* A warp operation that can never complete: names a lane waiting at it and the first lane of its
 * mask that holds it up. */
static void report_stuck_warp(Worker *w, Fiber *fibers, size_t n) {
  size_t i = 0;
  while (i < n && fibers[i].state != FIBER_AT_WARP) i++;
  size_t base = i / 32 * 32, lanes = n - base < 32 ? n - base : 32;
  Fiber *f = fibers + base;
  unsigned m = fibers[i].warp_mask, group = m & live_lanes(f, lanes);
  size_t j = 0;
  while (j < lanes && !((group >> j & 1u) && (f[j].state != FIBER_AT_WARP || f[j].warp_mask != m))) j++;
  char other[80] = "";
  if (j < lanes && f[j].state == FIBER_AT_BARRIER)
    snprintf(other, sizeof other, "lane %zu waits at __syncthreads()", j);
  else if (j < lanes)
    snprintf(other, sizeof other, "lane %zu waits at one with mask 0x%08x", j, f[j].warp_mask);
  uint3 b = w->st.block_idx;
  if (w->run->san) {
    san_stuck_warp(w, f, lanes, (unsigned)(i - base), other[0] ? other : "its lanes differ");
    return;
  }
  run_fail(w->run, P2C_ERR_SIM,
           "kernel '%s': a warp operation cannot complete in warp %zu of block (%u,%u,%u): lane %zu "
           "waits with mask 0x%08x but %s (CUDA leaves this undefined)",
           w->run->l->symbol, base / 32, b.x, b.y, b.z, i - base, m, other[0] ? other : "its lanes differ");
}

/* --sanitize: a barrier that only part of the block reached, or that the block's threads reach
 * at different __syncthreads() calls, is a finding; then the waiting threads go on, as on a GPU
 * where exited threads no longer hold a barrier up. The checker starts a new epoch. */
static int san_release_barrier(Worker *w, Fiber *fibers, size_t n, size_t arrived, size_t exited,
                               int count) {
  size_t first = 0, other = n, gone = n;
  while (fibers[first].state != FIBER_AT_BARRIER) first++;
  for (size_t i = 0; i < n; i++) {
    if (fibers[i].state == FIBER_EXITED && gone == n) gone = i;
    if (fibers[i].state == FIBER_AT_BARRIER && other == n &&
        (fibers[i].san_line != fibers[first].san_line || fibers[i].san_column != fibers[first].san_column))
      other = i;
  }
  const Fiber *f = &fibers[first];
  uint3 b = w->st.block_idx;
  char what[200];
  if (exited > 0) {
    const Fiber *g = &fibers[gone];
    snprintf(what, sizeof what,
             "divergent barrier: syncthreads() reached by %zu threads of block (%u,%u,%u) (the first "
             "thread (%u,%u,%u)) while %zu exited without reaching it (the first thread (%u,%u,%u))",
             arrived, b.x, b.y, b.z, f->tid.x, f->tid.y, f->tid.z, exited, g->tid.x, g->tid.y, g->tid.z);
    sim_san_misuse(w->run->san, SIM_SAN_BARRIER, f->san_line, f->san_column, f->tid, b, what);
  } else if (other < n) {
    const Fiber *o = &fibers[other];
    snprintf(what, sizeof what,
             "divergent barrier: threads of block (%u,%u,%u) wait at different syncthreads() calls: "
             "thread (%u,%u,%u) here, thread (%u,%u,%u) at line %u, column %u",
             b.x, b.y, b.z, f->tid.x, f->tid.y, f->tid.z, o->tid.x, o->tid.y, o->tid.z, o->san_line,
             o->san_column);
    sim_san_misuse(w->run->san, SIM_SAN_BARRIER, f->san_line, f->san_column, f->tid, b, what);
  }
  w->barrier_count = count;
  w->arrived = 0;
  w->predicates = 0;
  for (size_t i = 0; i < n; i++)
    if (fibers[i].state == FIBER_AT_BARRIER) fibers[i].state = FIBER_RUNNABLE;
  sim_san_barrier(w->run->san);
  return 1;
}

/* After every fiber has run as far as it can: releases the barrier when all live fibers wait at
 * it. Returns 1 when released, 0 when the block is done, -1 after an error. */
static int release_barrier(Worker *w, Fiber *fibers, size_t n) {
  size_t arrived = 0, exited = 0;
  int count = 0;
  for (size_t i = 0; i < n; i++) {
    if (fibers[i].state == FIBER_AT_BARRIER) arrived++, count += fibers[i].predicate;
    else if (fibers[i].state == FIBER_EXITED) exited++;
    else if (fibers[i].state == FIBER_AT_WARP) {
      report_stuck_warp(w, fibers, n);
      return w->run->san ? 1 : -1;
    }
  }
  if (arrived == 0) return 0;
  if (w->run->san) return san_release_barrier(w, fibers, n, arrived, exited, count);
  if (exited > 0) {
    uint3 b = w->st.block_idx;
    run_fail(w->run, P2C_ERR_SIM,
             "kernel '%s': __syncthreads() reached by only part of block (%u,%u,%u): "
             "%zu threads arrived, %zu exited (CUDA leaves this undefined)",
             w->run->l->symbol, b.x, b.y, b.z, arrived, exited);
    return -1;
  }
  w->barrier_count = count;
  w->arrived = 0;
  w->predicates = 0;
  for (size_t i = 0; i < n; i++) fibers[i].state = FIBER_RUNNABLE;
  return 1;
}

/* release_barrier for a block where no fiber has waited at a warp operation: after a round
 * every fiber waits at the barrier or has returned, and the counts kept by fiber_barrier and
 * fiber_main say which without a scan (the scan still writes the error message). */
static int release_barrier_counted(Worker *w, Fiber *fibers, size_t n) {
  if (w->arrived == 0) return 0;
  if (w->exited > 0 || w->run->san) return release_barrier(w, fibers, n);
  w->barrier_count = w->predicates;
  w->arrived = 0;
  w->predicates = 0;
  for (size_t i = 0; i < n; i++) fibers[i].state = FIBER_RUNNABLE;
  return 1;
}

/* ---- The grid barrier (cooperative launches) ----------------------------------------------- */

/* Every fiber of the block that has not returned waits at the grid sync: the block arrives at
 * the grid barrier, and this worker waits until every block of the grid has (each block runs on
 * a worker of its own). Blocks that have finished never arrive: on a GPU the others would wait
 * for ever, here the launch stops with an error, as it does when only part of a block arrives
 * (CUDA leaves both undefined) or when threads of one block wait at a grid sync and at another
 * barrier. Returns false when the launch stops. */
static bool grid_barrier(Worker *w, Fiber *fibers, size_t n) {
  Run *r = w->run;
  uint3 b = w->st.block_idx;
  for (size_t i = 0; i < n; i++)
    if (fibers[i].state != FIBER_AT_GRID) {
      run_fail(r, P2C_ERR_SIM,
               "kernel '%s': a grid sync (cuda.cg.this_grid().sync()) reached by only part of "
               "block (%u,%u,%u): thread (%u,%u,%u) %s (CUDA leaves this undefined)",
               r->l->symbol, b.x, b.y, b.z, fibers[i].tid.x, fibers[i].tid.y, fibers[i].tid.z,
               fibers[i].state == FIBER_EXITED ? "has exited" : "waits at another barrier");
      return false;
    }
  pthread_mutex_lock(&r->grid_lock);
  uint64_t seen = r->grid_releases, finished = r->grid_finished;
  bool all = ++r->grid_arrived + finished == r->block_count;
  if (all && finished == 0) {
    r->grid_arrived = 0;
    r->grid_releases++;
    pthread_cond_broadcast(&r->grid_wake);
  }
  while (r->grid_releases == seen && !(all && finished > 0) &&
         !atomic_load_explicit(&r->stop, memory_order_relaxed))
    pthread_cond_wait(&r->grid_wake, &r->grid_lock);
  bool released = r->grid_releases != seen;
  pthread_mutex_unlock(&r->grid_lock);
  if (all && finished > 0)
    run_fail(r, P2C_ERR_SIM,
             "kernel '%s': a grid sync (cuda.cg.this_grid().sync()) waits for %llu block%s that "
             "finished without reaching it (on a GPU it would wait for ever)", r->l->symbol,
             (unsigned long long)finished, finished == 1 ? "" : "s");
  if (!released) return false;
  for (size_t i = 0; i < n; i++) fibers[i].state = FIBER_RUNNABLE;
  w->at_grid = 0;
  if (r->san) sim_san_barrier(r->san);   /* one block (check_cooperative): a new epoch, as at a
                                            block barrier */
  return true;
}

/* A block of a cooperative launch has finished: blocks waiting at the grid barrier for it now
 * wait for a block that will never come (reported by grid_barrier when the last one arrives,
 * or here when it is this one). */
static void grid_block_finished(Run *r) {
  pthread_mutex_lock(&r->grid_lock);
  r->grid_finished++;
  bool stuck = r->grid_arrived > 0 && r->grid_arrived + r->grid_finished == r->block_count;
  uint64_t waiting = r->grid_arrived;
  pthread_mutex_unlock(&r->grid_lock);
  if (stuck)
    run_fail(r, P2C_ERR_SIM,
             "kernel '%s': a grid sync (cuda.cg.this_grid().sync()) reached by %llu block%s "
             "while the others finished without it (on a GPU it would wait for ever)",
             r->l->symbol, (unsigned long long)waiting, waiting == 1 ? "" : "s");
}

/* A block with barriers or warp operations: rounds of resuming every runnable fiber; between
 * rounds, warps whose operation can complete go on first, then the block's barrier. */
static bool run_block_fibers(Worker *w) {
  Run *r = w->run;
  size_t n = r->block_threads;
  Fiber *fibers = w->pool->fibers;
  for (size_t i = 0; i < n; i++) {
    fiber_reset(w, &fibers[i]);
    fibers[i].tid = index_3d(i, w->st.block_dim);
  }
  w->fiber_stopped = w->warp_waited = false;
  w->arrived = w->exited = w->at_grid = 0;
  w->predicates = 0;
  for (;;) {
    /* A resumed fiber may run the ones after it too (fiber_leave): the scan goes on after the
     * last fiber that ran (w->cur). */
    for (size_t i = 0; i < n; i++) {
      if (fibers[i].state != FIBER_RUNNABLE) continue;
      fiber_resume(w, &fibers[i]);
      if (w->fiber_stopped) return false;
      i = (size_t)(w->cur - fibers);
      if (w->fiber_polled) {   /* worker_poll: ask, then resume the same fiber */
        w->fiber_polled = false;
        if (launch_interrupted(w)) return false;
        i--;
      }
    }
    if (atomic_load_explicit(&r->stop, memory_order_relaxed)) return false;
    if (w->warp_waited && release_warps(w, fibers, n)) continue;
    if (w->at_grid > 0) {
      if (!grid_barrier(w, fibers, n)) return false;
      continue;
    }
    int released = w->warp_waited ? release_barrier(w, fibers, n)
                                  : release_barrier_counted(w, fibers, n);
    if (released <= 0) return released == 0;
  }
}

/* ---- Workers ------------------------------------------------------------------------------- */

/* Writes the worker's kernel printf output to stdout (one fwrite: glibc locks the stream for
 * it, so no other worker's output lands inside it). */
static void print_flush(P2cSimThread *self) {
  if (self->print_len) fwrite(self->print_buf, 1, self->print_len, stdout);
  self->print_len = 0;
}

/* The checker's hooks (--sanitize), and what a module compiled without it never calls. */
static void san_access(P2cSimThread *self, const P2cSanAccess *a) {
  sim_san_access(((Worker *)self)->run->san, a);
}
static void san_region(P2cSimThread *self, const void *p, size_t bytes, int space) {
  sim_san_region(((Worker *)self)->run->san, p, bytes, space);
}
static void san_fence(P2cSimThread *self, unsigned tid) { sim_san_fence(((Worker *)self)->run->san, tid); }
static void san_access_off(P2cSimThread *self, const P2cSanAccess *a) { (void)self, (void)a; }
static void san_fence_off(P2cSimThread *self, unsigned tid) { (void)self, (void)tid; }
static void san_region_off(P2cSimThread *self, const void *p, size_t bytes, int space) {
  (void)self, (void)p, (void)bytes, (void)space;
}

/* ---- prange chunks (P2cSimThread.chunk_count, run_chunks) -----------------------------------
 * A prange loop of an @njit(parallel=True) host function runs its chunks on threads of the
 * host: the module's prelude gives each chunk its own state and jumps; here only the count and
 * the threads. */
static size_t default_workers(unsigned cpus);

int sim_prange_workers(int64_t n, int max) {
  size_t w = default_workers(sim_cpu_count());
  if (w > (size_t)max) w = (size_t)max;
  if ((int64_t)w > n) w = n > 0 ? (size_t)n : 1;
  return (int)w;
}

static int chunk_count(P2cSimThread *self, int64_t n, int max) {
  (void)self;
  return sim_prange_workers(n, max);
}

typedef struct ChunkThread {
  void (*run)(void *arg, int c);
  void *arg;
  int c;
  bool started;
  bool faulted;           /* its code faulted: `fault` says how */
  SimFaultCatch fault;
  sigjmp_buf bail;
  pthread_t thread;
} ChunkThread;

/* Runs chunk t->c on the calling thread with its faults caught (as a worker's, fault.h): a fault
 * ends the chunk, not the process, and is the loop's to report. The caller's own catch, if any,
 * is armed again after. Nothing in this frame changes after sigsetjmp. */
static void chunk_guarded(ChunkThread *t, SimFaultCatch *outer) {
  SimAltStack alt = {0};
  sim_altstack_push(&alt);   /* an overflow of a chunk thread's stack is caught too */
  if (sigsetjmp(t->bail, 0) == 0) {
    t->fault = (SimFaultCatch){.jump = &t->bail};
    sim_fault_arm(&t->fault);
    t->run(t->arg, t->c);
  } else {
    t->faulted = true;
  }
  if (outer) sim_fault_arm(outer);
  else sim_fault_disarm();
  sim_altstack_pop(&alt);
  sim_altstack_free(&alt);
}

static void *chunk_main(void *p) {
  chunk_guarded(p, NULL);
  return NULL;
}

/* After every chunk has ended: a chunk's fault `f` stops the launch as a fault of the calling
 * worker would (worker_faulted: the kernel, the Python line, the address), by the jump back to
 * the worker's loop a fault of its own makes. The frames in between (the module's loop and
 * p2c_sim_run_chunks) keep their chunks' state: a fault ends the module (its later launches
 * fail), so it is not freed. */
_Noreturn static void chunk_fault_reported(Worker *w, SimFaultCatch f) {
  f.jump = w->fault.jump, f.on_fiber = false, f.home = w->fault.home, f.home_size = w->fault.home_size;
  w->fault = f;
  sim_fault_disarm();
  siglongjmp(w->bail, SIM_FAULT_JUMPED);
}

/* Chunk 0 here, each other on a thread of its own (on this one after, when none can start); a
 * fault in any of them is reported, after all have ended, as the calling worker's. */
static void run_chunks(P2cSimThread *self, int w, void (*run)(void *arg, int c), void *arg) {
  Worker *worker = (Worker *)self;
  const P2cAllocator *alloc = worker->run->m->alloc;
  ChunkThread *t = mem_alloc(alloc, sizeof *t * (size_t)w);
  if (!t) {   /* no memory to watch them: in order, a fault caught as the worker's own */
    for (int c = 0; c < w; c++) run(arg, c);
    return;
  }
  for (int c = 0; c < w; c++) t[c] = (ChunkThread){.run = run, .arg = arg, .c = c};
  for (int c = 1; c < w; c++) t[c].started = pthread_create(&t[c].thread, NULL, chunk_main, &t[c]) == 0;
  chunk_guarded(&t[0], &worker->fault);
  for (int c = 1; c < w; c++) {
    if (t[c].started) pthread_join(t[c].thread, NULL);
    else chunk_guarded(&t[c], &worker->fault);
  }
  for (int c = 0; c < w; c++)   /* the first in chunk order */
    if (t[c].faulted) {
      SimFaultCatch f = t[c].fault;
      mem_free(alloc, t, sizeof *t * (size_t)w);
      chunk_fault_reported(worker, f);
    }
  mem_free(alloc, t, sizeof *t * (size_t)w);
}

/* P2cSimThread.stopped: the calling worker asks the host's interrupt check when it is due; any
 * worker sees a launch stopped by an error. */
static int worker_stopped(P2cSimThread *self) {
  Worker *w = (Worker *)self;
  launch_interrupted(w);
  return atomic_load_explicit(&w->run->stop, memory_order_relaxed);
}

/* Gives a worker its printf buffer, fiber stacks and dynamic shared memory. */
static bool worker_prepare(Worker *w) {
  Run *r = w->run;
  const SimLaunch *l = r->l;
  w->st.grid_dim = (uint3){l->grid.x, l->grid.y, l->grid.z};
  w->st.block_dim = (uint3){l->block.x, l->block.y, l->block.z};
  w->st.barrier = l->uses_barrier ? fiber_barrier : stray_barrier;
  w->st.exit_thread = l->uses_barrier ? fiber_exit_thread : plain_exit_thread;
  w->st.warp_sync = l->uses_barrier ? fiber_warp_sync : stray_warp_sync;
  w->st.grid_sync = l->uses_barrier ? fiber_grid_sync : stray_grid_sync;
  w->st.poll = worker_poll;
  w->st.chunk_count = chunk_count;
  w->st.run_chunks = run_chunks;
  w->st.stopped = worker_stopped;
  w->st.print_flush = print_flush;
  w->st.grid_dynamic_shared = r->grid_dynamic;
  w->st.grid_dynamic_stride = r->grid_dynamic_stride;
  w->st.san_access = r->san ? san_access : san_access_off;
  w->st.san_region = r->san ? san_region : san_region_off;
  w->st.san_fence = r->san ? san_fence : san_fence_off;
  w->st.san_shadow = r->san ? sim_san_shadow(r->san) : NULL;
  if (!w->pool->print_buf) w->pool->print_buf = mem_alloc(r->m->alloc, PRINT_BUFFER_BYTES);
  if (!w->pool->print_buf) {
    snprintf(w->failure, sizeof w->failure, "out of memory for the printf buffer");
    return false;
  }
  w->st.print_buf = w->pool->print_buf;
  w->st.print_cap = PRINT_BUFFER_BYTES;
  if (!w->pool->memo && (w->pool->memo = mem_alloc(r->m->alloc, sizeof *w->pool->memo)))
    memset(w->pool->memo, 0, sizeof *w->pool->memo);
  if (!w->pool->memo) {
    snprintf(w->failure, sizeof w->failure, "out of memory for the math memory");
    return false;
  }
  w->st.memo = w->pool->memo;
  w->warp_slots_size = sizeof *w->st.warp_slots * r->block_threads;
  w->st.warp_slots = mem_alloc(r->m->alloc, w->warp_slots_size);
  if (!w->st.warp_slots) {
    snprintf(w->failure, sizeof w->failure, "out of memory for warp exchange slots");
    return false;
  }
#if !SIM_ASM_SWITCH
  w->sched = &w->sched_uc;
#endif
  if (l->uses_barrier && !pool_reserve(r->m, w->pool, r->block_threads, r->stack_bytes)) {
    snprintf(w->failure, sizeof w->failure,
             "cannot allocate fiber stacks: %u threads of %zu KiB each", r->block_threads,
             r->stack_bytes / 1024);
    return false;
  }
  if (l->dynamic_shared_bytes > 0) {
    w->dynamic_shared_size = (size_t)l->dynamic_shared_bytes + 63;
    w->dynamic_shared = mem_alloc(r->m->alloc, w->dynamic_shared_size);
    if (!w->dynamic_shared) {
      snprintf(w->failure, sizeof w->failure, "out of memory for dynamic shared memory");
      return false;
    }
    w->st.dynamic_shared = (void *)round_up((uintptr_t)w->dynamic_shared, 64);
    w->st.dynamic_shared_bytes = l->dynamic_shared_bytes;
    if (r->san) sim_san_region(r->san, w->st.dynamic_shared, l->dynamic_shared_bytes, P2C_SAN_SHARED);
  }
  return true;
}

/* How often, at most, the calling thread asks the host's interrupt check during a launch. */
enum { INTERRUPT_CHECK_NS = 20 * 1000 * 1000 };

/* On the calling thread's worker (slot 0), between its runs of blocks, and on the grid level of
 * grid regions (also the calling thread) at its loops' polls: whether the host's interrupt check
 * (p2c_compiler_set_interrupt) stopped the launch. Helpers never call it: the host's check may
 * need its own thread (a Python binding's takes the GIL). */
static bool launch_interrupted(Worker *w) {
  Run *r = w->run;
  const SimLaunch *l = r->l;
  if (!l->interrupt || (w != r->workers && w != r->grid_worker)) return false;
  uint64_t now = monotonic_ns();
  if (now < r->next_interrupt_check_ns) return false;
  r->next_interrupt_check_ns = now + INTERRUPT_CHECK_NS;
  atomic_fetch_add(&r->m->host_checks, 1);
  atomic_store(&r->m->in_host_check, true);
  bool stop = l->interrupt(l->interrupt_userdata);
  atomic_store(&r->m->in_host_check, false);
  if (!stop) return false;
  run_fail(r, P2C_ERR_INTERRUPTED, "kernel '%s' interrupted after %llu of %llu blocks", l->symbol,
           (unsigned long long)atomic_load(&r->blocks_done), (unsigned long long)r->block_count);
  return true;
}

/* The loop of one worker: take a block (or a chunk of blocks without barriers), run it, until
 * the grid is done or the launch stops. */
static void worker_loop(Worker *w) {
  Run *r = w->run;
  uint64_t step = r->l->uses_barrier ? 1 : r->chunk;
  uint3 grid = w->st.grid_dim;
  while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
    uint64_t b = atomic_fetch_add(&r->next_block, step);
    if (b >= r->block_count) break;
    uint64_t n = r->block_count - b < step ? r->block_count - b : step;
    bool ok;
    if (r->l->uses_barrier) {
      w->st.block_idx = index_3d(b, grid);
      if (r->san) sim_san_block(r->san, b);
      ok = run_block_fibers(w);
      if (ok && r->l->cooperative) grid_block_finished(r);
    } else {
      ok = run_blocks_plain(w, b, n);
    }
    if (!ok) break;
    atomic_fetch_add(&r->blocks_done, n);
    if (launch_interrupted(w)) break;
  }
}

/* Empties the math memory tables the launch wrote, so that the next launch starts from an
 * empty memory (and takes as long as this one did), at the cost of the tables it used. */
static void memo_empty(P2cSimMemory *memo) {
  const size_t table = (size_t)P2C_SIM_MEMO_SETS * P2C_SIM_MEMO_WAYS;
  for (unsigned t = 0; t < P2C_SIM_MEMO_TABLES; t++)
    if (memo->used >> t & 1) memset(memo->entries + t * table, 0, table * sizeof *memo->entries);
  memo->used = 0;
}

/* ---- Faults ------------------------------------------------------------------------------
 * A wild access of a kernel (docs/simulator.md, "Faults"): the handler (fault.c) jumps back to
 * worker_main, which reports it here. The launch stops as for any error, with
 * P2C_ERR_ILLEGAL_ADDRESS, and the module refuses every later launch (sim_launch), as a CUDA
 * context does after CUDA_ERROR_ILLEGAL_ADDRESS: the kernel may have written anywhere first. */

#ifdef SIM_ASAN
/* In the handler, before the jump: ASan learns that the thread leaves the fiber's stack. */
enum { FAULT_ON_FIBER = 1 };
#else
enum { FAULT_ON_FIBER = 0 };
#endif

/* Arms the calling thread: a fault in kernel code from here on comes back to w->bail. */
static void fault_arm(Worker *w) {
  w->fault = (SimFaultCatch){.jump = &w->bail, .on_fiber = FAULT_ON_FIBER && w->run->l->uses_barrier,
                             .home = &w->sched_stack, .home_size = &w->sched_stack_size};
  sim_fault_arm(&w->fault);
}

/* Whether the fiber that was running had its stack pointer below its stack (into the guard
 * page, or past it by a frame larger than a page). */
static bool fault_overflowed(const Worker *w, const void *sp) {
  const Fiber *f = w->run->l->uses_barrier ? w->cur : NULL;
  return f && sp && (const unsigned char *)sp < f->stack;
}

/* Who faulted, as far as the worker knows: a fiber is one simulated thread; without barriers
 * the module runs a chunk of blocks in one call, whose thread only the module's registers know. */
static void fault_who(const Worker *w, char *out, size_t size) {
  uint3 b = w->st.block_idx;
  if (w->run->l->uses_barrier) {
    uint3 t = w->cur->tid;
    snprintf(out, size, "thread (%u,%u,%u) of block (%u,%u,%u)", t.x, t.y, t.z, b.x, b.y, b.z);
    return;
  }
  uint3 first = index_3d(w->chunk_first, w->st.grid_dim);
  uint3 last = index_3d(w->chunk_first + w->chunk_count - 1, w->st.grid_dim);
  if (w->chunk_count == 1)
    snprintf(out, size, "a thread of block (%u,%u,%u)", first.x, first.y, first.z);
  else
    snprintf(out, size, "a thread of blocks (%u,%u,%u) to (%u,%u,%u)", first.x, first.y, first.z,
             last.x, last.y, last.z);
}

/* The line of the module's source that holds the faulting instruction, and its Python line,
 * from the object's line table (lines.h), when the instruction is the module's own code (not
 * libm's or libc's): of the source's rows at its address, the last whose line comes from a
 * Python statement, the statement whose instruction it is (the rows before it are statements
 * that begin there with no code of their own, such as an inlined kernel's entry). */
static SimFaultReport fault_where(const SimModule *m, const void *pc) {
  SimFaultReport at = {0, 0};
  Dl_info info;
  struct link_map *own = NULL, *lm = NULL;
  if (!pc || !m->lines.bytes || dlinfo(m->handle, RTLD_DI_LINKMAP, &own) != 0 ||
      !dladdr1(pc, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || lm != own)
    return at;
  uint32_t lines[16];
  size_t n = sim_lines_find(&m->lines, SIM_SOURCE_FILE, (uint64_t)((uintptr_t)pc - lm->l_addr), lines, 16);
  for (size_t i = n; i-- > 0 && !at.python_line;) {
    uint32_t py = lines[i] <= m->python_line_count ? m->python_lines[lines[i] - 1] : 0;
    if (py) at.source_line = lines[i], at.python_line = py;
  }
  if (!at.source_line && n) at.source_line = lines[n - 1];
  return at;
}

/* After the jump back from the handler: stops the launch with a message naming the kernel, the
 * Python line where known, the simulated thread (or its blocks) and the address. */
static void worker_faulted(Worker *w) {
  Run *r = w->run;
  const SimFaultCatch *c = &w->fault;
  if (c->on_fiber) asan_finish(NULL, NULL, NULL);
  char who[120];
  fault_who(w, who, sizeof who);
  if (fault_overflowed(w, c->sp)) {
    size_t stack = w->pool->stack_size;
    run_fail(r, P2C_ERR_ILLEGAL_ADDRESS,
             "kernel '%s': %s overflowed its %zu KiB simulator stack (local arrays too large, or "
             "calls too deep); the module cannot launch again", r->l->symbol, who, stack / 1024);
    return;
  }
  SimFaultReport at = fault_where(r->m, c->pc);
  char where[300] = "";
  if (at.python_line && r->m->python_file)
    snprintf(where, sizeof where, " in %.260s:%u", r->m->python_file, at.python_line);
  const char *what = c->signo == SIGBUS ? "a bus error (SIGBUS)" : "an illegal memory access (SIGSEGV)";
  run_fail_fault(r, &at,
                 "kernel '%s': %s at address %p%s, by %s; the module cannot launch again, as after "
                 "CUDA_ERROR_ILLEGAL_ADDRESS (probably an index out of bounds: bounds checks, "
                 "debug=True or --check-bounds, name the index)", r->l->symbol, what, c->addr, where, who);
}

static void worker_main(Worker *w) {
  Run *r = w->run;
  r->m->bind(&w->st);
  /* A thread that ends itself in a launch without barriers comes back here (plain_exit_thread),
   * and so does a thread whose memory access faulted (worker_faulted); nothing in this frame
   * changes after sigsetjmp. */
  if (worker_prepare(w)) {
    int how = sigsetjmp(w->bail, 0);
    if (how == 0) {
      fault_arm(w);
      worker_loop(w);
    } else if (how == SIM_FAULT_JUMPED) {
      worker_faulted(w);
    }
    sim_fault_disarm();
  }
  if (w->st.print_buf) print_flush(&w->st);
  if (w->st.memo) memo_empty(w->st.memo);
  r->m->bind(NULL);
  mem_free(r->m->alloc, w->dynamic_shared, w->dynamic_shared_size);
  mem_free(r->m->alloc, w->st.warp_slots, w->warp_slots_size);
}

/* ---- Helper threads ------------------------------------------------------------------------
 * A module keeps its helper threads (worker slots 1, 2, ...) from its first launch on more than
 * one worker until it is deleted; between launches they sleep on a condition variable. A
 * launch publishes its Run and wakes them, and the caller works as slot 0 at once. A helper
 * joins the launch only while it is open: when the caller has run out of blocks it closes the
 * launch and waits for the helpers inside it. A helper that wakes late finds it closed and
 * sleeps again, so the launch never waits for a thread to be scheduled, only for blocks to
 * finish (creating threads per launch cost 25 µs and more when the other cores are busy). */

typedef struct HelperStart {
  SimHelpers *h;
  size_t slot;
  uint64_t seen;             /* the generation before the launch that started it */
} HelperStart;

struct SimHelpers {
  pthread_mutex_t lock;
  pthread_cond_t wake;       /* a launch opened, or shutdown */
  pthread_cond_t idle;       /* the last helper left the launch */
  Run *run;                  /* the open launch, or NULL */
  /* Counts launches, so that a helper joins each one once. Written under `lock` and, like
   * `shutdown`, with an atomic store, since a watching helper reads both without it. */
  uint64_t generation;
  bool watch;                /* helpers watch for the next launch before sleeping */
  size_t active;             /* helpers inside `run` (atomic stores: the caller watches it) */
  size_t joined;             /* helpers that have seen `run` (inside it or not) */
  bool shutdown;
  size_t count;              /* threads started */
  pthread_t threads[MAX_WORKERS];
  HelperStart starts[MAX_WORKERS];
};

/* How long a helper that has left a launch watches for the next one before it sleeps. Kernels
 * are often launched one after another (an iterative method, `run --repeat`); a helper asleep
 * on the condition variable took tens of microseconds to be woken and scheduled on this
 * machine's VM, a large part of a launch of 0.1-0.3 ms (samples/great_circle.py on 96 x 96:
 * the second worker joined late enough that two workers were 1.3x one, not 2x). OpenMP
 * runtimes wait the same way before they block (KMP_BLOCKTIME, GOMP_SPINCOUNT). A helper only
 * watches when the module has no more workers than CPUs, so it never takes a CPU from another
 * worker of the launch. */
enum { HELPER_WATCH_NS = 200 * 1000 };

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One turn of a watch that began at `start`: a pause for the sibling hyperthread, and, every 64
 * turns, a look at the clock. False once HELPER_WATCH_NS have passed. */
static bool watch_goes_on(unsigned turn, uint64_t start) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
  return turn % 64 != 0 || monotonic_ns() - start < HELPER_WATCH_NS;
}

/* Called without the lock: returns when a launch after `seen` has opened, shutdown was asked,
 * or the watch is over. */
static void helper_watch(SimHelpers *h, uint64_t seen) {
  uint64_t start = monotonic_ns();
  for (unsigned turn = 1; __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE) == seen &&
                          !__atomic_load_n(&h->shutdown, __ATOMIC_ACQUIRE) && watch_goes_on(turn, start);
       turn++) {
  }
}

/* The caller's side, called without the lock once the launch is closed: returns when no helper
 * is inside it any more, or the watch is over (the caller then sleeps until they leave). */
static void helpers_watch_finish(SimHelpers *h) {
  uint64_t start = monotonic_ns();
  for (unsigned turn = 1; __atomic_load_n(&h->active, __ATOMIC_ACQUIRE) > 0 && watch_goes_on(turn, start);
       turn++) {
  }
}

static void *helper_thread(void *arg) {
  HelperStart start = *(HelperStart *)arg;
  SimHelpers *h = start.h;
  uint64_t seen = start.seen; /* so that the launch being opened is joined */
  SimAltStack alt = {0};      /* for the fault handler, this thread's whole life */
  sim_altstack_push(&alt);
  pthread_mutex_lock(&h->lock);
  for (;;) {
    if (h->watch && !h->shutdown && seen == h->generation) {
      pthread_mutex_unlock(&h->lock);
      helper_watch(h, seen);
      pthread_mutex_lock(&h->lock);
    }
    while (!h->shutdown && (!h->run || seen == h->generation)) pthread_cond_wait(&h->wake, &h->lock);
    if (h->shutdown) break;
    seen = h->generation;
    Run *r = h->run;
    h->joined++;
    pthread_cond_broadcast(&h->idle);
    if (start.slot >= r->worker_count) continue;
    __atomic_store_n(&h->active, h->active + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&h->lock);
    worker_main(&r->workers[start.slot]);
    pthread_mutex_lock(&h->lock);
    __atomic_store_n(&h->active, h->active - 1, __ATOMIC_RELEASE);
    if (h->active == 0) pthread_cond_broadcast(&h->idle);
  }
  pthread_mutex_unlock(&h->lock);
  sim_altstack_pop(&alt);
  sim_altstack_free(&alt);
  return NULL;
}

/* Starts helpers until slots 1 .. n - 1 have one; false when not even the structure can be
 * made. Fewer threads than asked (pthread_create failing) only means fewer workers. */
static bool helpers_ensure(SimModule *m, size_t n) {
  SimHelpers *h = m->helpers;
  if (!h) {
    h = mem_alloc(m->alloc, sizeof *h);
    if (!h) return false;
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->wake, NULL);
    pthread_cond_init(&h->idle, NULL);
    m->helpers = h;
  }
  while (h->count + 1 < n) {
    HelperStart *start = &h->starts[h->count];
    *start = (HelperStart){h, h->count + 1, h->generation};
    sigset_t all, old;
    sigfillset(&all);
    /* Helpers take no signals (the host's threads do), except the faults a kernel can cause in
     * them: blocked, those kill the process before any handler of the host runs. */
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&h->threads[h->count], NULL, helper_thread, start);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) break;
    h->count++;
  }
  return true;
}

static void helpers_stop(SimModule *m) {
  SimHelpers *h = m->helpers;
  if (!h) return;
  pthread_mutex_lock(&h->lock);
  __atomic_store_n(&h->shutdown, true, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&h->wake);
  pthread_mutex_unlock(&h->lock);
  for (size_t i = 0; i < h->count; i++) pthread_join(h->threads[i], NULL);
  pthread_mutex_destroy(&h->lock);
  pthread_cond_destroy(&h->wake);
  pthread_cond_destroy(&h->idle);
  mem_free(m->alloc, h, sizeof *h);
  m->helpers = NULL;
}

/* Runs the launch on up to `n` workers: the caller's thread and the module's helpers, which
 * watch for the next launch (and the caller for them) only when `watch` (n <= the CPUs). */
static void run_workers(Run *r, Worker *workers, size_t n, bool watch) {
  SimHelpers *h = n > 1 && helpers_ensure(r->m, n) ? r->m->helpers : NULL;
  r->workers = workers;
  r->worker_count = n;
  if (r->l->cooperative && r->l->uses_barrier && n > 1 && (!h || h->count + 1 < n)) {   /* every block needs a worker */
    run_fail(r, P2C_ERR_SIM, "a cooperative launch of %zu blocks needs %zu worker threads; "
             "only %zu could be started", n, n, h ? h->count + 1 : 1);
    return;
  }
  if (h) {
    pthread_mutex_lock(&h->lock);
    h->watch = watch;
    h->run = r;
    __atomic_store_n(&h->generation, h->generation + 1, __ATOMIC_RELEASE);
    h->joined = 0;
    pthread_cond_broadcast(&h->wake);
    pthread_mutex_unlock(&h->lock);
  }
  worker_main(&workers[0]);
  if (h) {
    pthread_mutex_lock(&h->lock);
    /* When the caller could not work (no memory for its fiber stacks), the blocks are the
     * helpers': wait until each has seen the launch before closing it. */
    if (workers[0].failure[0])
      while (h->joined < h->count) pthread_cond_wait(&h->idle, &h->lock);
    h->run = NULL;
    if (h->watch && h->active > 0) {   /* the helpers are finishing their last blocks */
      pthread_mutex_unlock(&h->lock);
      helpers_watch_finish(h);
      pthread_mutex_lock(&h->lock);
    }
    while (h->active > 0) pthread_cond_wait(&h->idle, &h->lock);
    pthread_mutex_unlock(&h->lock);
  }
  if (r->status == P2C_OK && atomic_load(&r->blocks_done) < r->block_count) {
    const char *why = "no worker could start";
    for (size_t i = 0; i < n; i++)
      if (workers[i].failure[0]) why = workers[i].failure;
    run_fail(r, P2C_ERR_SIM, "%s", why);
  }
}

/* ---- Grid regions ------------------------------------------------------------------------------
 * A cooperative kernel cut at its grid syncs (docs/simulator.md, "Grid regions"): the module's
 * grid function runs once on the calling thread, under a worker of its own (gw, the grid level);
 * each phase it asks for (grid_phase) runs every block of the grid on the launch's workers, as a
 * launch without barriers, and returns when they all have. */

/* Memory the kernel keeps across grid syncs, zeroed; false (the launch stops with why) past
 * SIM_MAX_GRID_BYTES with what is mapped already. */
static bool grid_map(Run *r, size_t bytes, unsigned char **out, const char *what) {
  uint64_t total = (uint64_t)r->grid_mem_size + r->grid_dynamic_size + bytes;
  if (total > SIM_MAX_GRID_BYTES) {
    run_fail(r, P2C_ERR_SIM, "kernel '%s': a cooperative grid of %llu blocks of %u threads keeps %llu MiB across "
             "grid syncs (%s), more than the simulator's %llu MiB: launch fewer blocks",
             r->l->symbol, (unsigned long long)r->block_count, r->block_threads,
             (unsigned long long)(total >> 20), what, (unsigned long long)(SIM_MAX_GRID_BYTES >> 20));
    return false;
  }
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    run_fail(r, P2C_ERR_NOMEM, "kernel '%s': cannot map %llu MiB kept across grid syncs (%s)", r->l->symbol,
             (unsigned long long)(bytes >> 20), what);
    return false;
  }
  *out = p;
  return true;
}

/* P2cSimThread.grid_storage: block_bytes per block, then (from a page) thread_bytes per thread. */
static int grid_storage(P2cSimThread *self, size_t block_bytes, size_t thread_bytes, void **blocks, void **threads) {
  Run *r = ((Worker *)self)->run;
  size_t page = page_size();
  uint64_t block_part = round_up((size_t)r->block_count * block_bytes, page);
  uint64_t thread_part = (uint64_t)r->block_count * r->block_threads * thread_bytes;
  char what[96];
  snprintf(what, sizeof what, "%zu bytes per block, %zu per thread", block_bytes, thread_bytes);
  size_t bytes = (size_t)round_up(block_part + thread_part, page);
  if (r->grid_mem || !grid_map(r, bytes ? bytes : page, &r->grid_mem, what)) return 0;
  r->grid_mem_size = bytes ? bytes : page;
  if (blocks) *blocks = block_bytes ? r->grid_mem : NULL;
  if (threads) *threads = thread_bytes ? r->grid_mem + block_part : NULL;
  return 1;
}

/* P2cSimThread.grid_phase: fn over every block, on the launch's workers; the grid level goes on
 * (nonzero) unless the launch stopped. */
static int grid_phase(P2cSimThread *self, void (*fn)(void *, uint64_t, uint64_t), void *ctx) {
  Worker *gw = (Worker *)self;
  Run *r = gw->run;
  if (atomic_load(&r->stop)) return 0;
  sim_fault_disarm();   /* the calling thread is worker 0 of the phase, which arms its own */
  r->phase_fn = fn;
  r->phase_ctx = ctx;
  atomic_store(&r->next_block, 0);
  atomic_store(&r->blocks_done, 0);
  run_workers(r, r->workers, r->worker_count, r->phase_watch);
  r->phase_fn = NULL;
  r->m->bind(&gw->st);
  fault_arm(gw);
  return !atomic_load(&r->stop);
}

/* The launch of a kernel with grid regions: the grid function on the calling thread (its faults
 * and a stop at a loop's poll come back here, as in worker_main), then its memory unmapped. */
static void run_grid(Run *r, Worker *workers, size_t n, bool watch) {
  r->workers = workers;
  r->worker_count = n;
  r->phase_watch = watch;
  uint32_t dyn = r->l->dynamic_shared_bytes;
  r->grid_dynamic_stride = round_up(dyn, 64);
  if (dyn && !grid_map(r, (size_t)round_up((size_t)r->block_count * r->grid_dynamic_stride, page_size()),
                       &r->grid_dynamic, "dynamic shared memory"))
    return;
  if (dyn) r->grid_dynamic_size = (size_t)round_up((size_t)r->block_count * r->grid_dynamic_stride, page_size());
  Worker gw;
  memset(&gw, 0, sizeof gw);
  gw.run = r;
  gw.pool = &r->m->pools[0];
  r->grid_worker = &gw;
  r->m->bind(&gw.st);
  if (worker_prepare(&gw)) {
    gw.st.grid_phase = grid_phase;
    gw.st.grid_storage = grid_storage;
    int how = sigsetjmp(gw.bail, 0);
    if (how == 0) {
      fault_arm(&gw);
      r->grid_entry(r->l->args);
    } else if (how == SIM_FAULT_JUMPED) {
      worker_faulted(&gw);
    }
    sim_fault_disarm();
  } else {
    run_fail(r, P2C_ERR_SIM, "%s", gw.failure);
  }
  if (gw.st.memo) memo_empty(gw.st.memo);
  r->grid_worker = NULL;
  r->m->bind(NULL);
  mem_free(r->m->alloc, gw.dynamic_shared, gw.dynamic_shared_size);
  mem_free(r->m->alloc, gw.st.warp_slots, gw.warp_slots_size);
  if (r->grid_mem) munmap(r->grid_mem, r->grid_mem_size);
  if (r->grid_dynamic) munmap(r->grid_dynamic, r->grid_dynamic_size);
}

/* ---- Launch -------------------------------------------------------------------------------- */

unsigned sim_cpu_count(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return (unsigned)CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

/* Workers when the launch does not say: $PYK2CUDA_SIM_THREADS (1..256) when set, else the CPUs
 * this process may use (`cpus`). */
static size_t default_workers(unsigned cpus) {
  const char *env = getenv("PYK2CUDA_SIM_THREADS");
  if (env && *env) {
    char *end;
    unsigned long n = strtoul(env, &end, 10);
    if (*end == '\0' && n >= 1 && n <= MAX_WORKERS) return n;
  }
  return cpus;
}

static P2cStatus launch_error(const SimLaunch *l, P2cStatus st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static P2cStatus launch_error(const SimLaunch *l, P2cStatus st, const char *fmt, ...) {
  if (l->errbuf && l->errbuf_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->errbuf, l->errbuf_size, fmt, ap);
    va_end(ap);
  }
  return st;
}

/* Checks grid, block and shared memory against CUDA's limits; writes the complaint to `msg`. */
static bool check_config(const SimLaunch *l, char *msg, size_t size) {
  SimDim3 g = l->grid, b = l->block;
  uint64_t threads = (uint64_t)b.x * b.y * b.z;
  if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z)
    snprintf(msg, size, "grid (%u,%u,%u) and block (%u,%u,%u) need every dimension >= 1", g.x,
             g.y, g.z, b.x, b.y, b.z);
  else if (b.x > 1024 || b.y > 1024 || b.z > 64)
    snprintf(msg, size, "block (%u,%u,%u) exceeds CUDA's limits (1024,1024,64)", b.x, b.y, b.z);
  else if (threads > MAX_BLOCK_THREADS)
    snprintf(msg, size, "block (%u,%u,%u) has %llu threads; CUDA allows at most %d", b.x, b.y,
             b.z, (unsigned long long)threads, MAX_BLOCK_THREADS);
  else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    snprintf(msg, size, "grid (%u,%u,%u) exceeds CUDA's limits (2147483647,65535,65535)", g.x,
             g.y, g.z);
  else if (l->dynamic_shared_bytes > MAX_DYNAMIC_SHARED)
    snprintf(msg, size, "%u bytes of dynamic shared memory exceed the %d a block may use",
             l->dynamic_shared_bytes, MAX_DYNAMIC_SHARED);
  else
    return true;
  return false;
}

/* The prefixes of a kernel's entries in a module (the generated code's P2C_SIM_KERNEL,
 * P2C_SIM_REGIONS and P2C_SIM_GRID, docs/simulator.md). */
#define ENTRY_THREAD "p2c_sim_thread_"
#define ENTRY_BLOCKS "p2c_sim_blocks_"
#define ENTRY_GRID "p2c_sim_grid_"

/* Finds <kind><symbol> (kind: ENTRY_THREAD, ENTRY_BLOCKS or ENTRY_GRID); NULL with a message in
 * `msg`. */
static SimFn find_entry(SimModule *m, const char *kind, const char *symbol, char *msg, size_t size) {
  size_t len = symbol ? strlen(symbol) : 0;
  bool ok = len > 0 && len <= MAX_SYMBOL;
  for (size_t i = 0; ok && i < len; i++) {
    char c = symbol[i];
    ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (i > 0 && c >= '0' && c <= '9');
  }
  if (!ok) {
    snprintf(msg, size, "bad kernel symbol '%.*s'", MAX_SYMBOL, symbol ? symbol : "");
    return NULL;
  }
  void *addr = sim_module_symbol_of(m, kind, symbol);
  SimFn entry;
  memcpy(&entry, &addr, sizeof entry);   /* ISO C has no cast from an object pointer to a function's */
  if (!entry)
    snprintf(msg, size, "no kernel '%s' in the simulator module (looked for %s%s)", symbol, kind, symbol);
  return entry;
}

/* The stack of each fiber: the launch's (SimLaunch.stack_bytes), else the kernel's local arrays
 * (p2c_sim_stack_<symbol>, P2C_SIM_STACK) and STACK_SLACK_BYTES more, rounded up, at most
 * SIM_MAX_STACK_BYTES (a kernel that needs more overflows it, and is told so). */
static size_t fiber_stack_bytes(SimModule *m, const SimLaunch *l) {
  if (l->stack_bytes) return l->stack_bytes;
  const unsigned long long *locals = sim_module_symbol_of(m, "p2c_sim_stack_", l->symbol);
  if (!locals) return DEFAULT_STACK_BYTES;
  if (*locals > SIM_MAX_STACK_BYTES) return SIM_MAX_STACK_BYTES;
  size_t want = round_up((size_t)*locals + STACK_SLACK_BYTES, STACK_ROUND_BYTES);
  return want > SIM_MAX_STACK_BYTES ? SIM_MAX_STACK_BYTES : want;
}

/* Blocks per chunk without barriers: enough threads that taking a chunk costs little next to
 * running it, few enough that every worker gets many chunks (balance when cores are busy). */
static uint64_t chunk_size(uint64_t blocks, uint32_t block_threads, size_t workers) {
  uint64_t want = (4096 + block_threads - 1) / block_threads;
  uint64_t fair = blocks / (workers * 16);
  uint64_t n = want < fair ? want : fair;
  return n > 0 ? n : 1;
}

/* Workers for a launch with barriers, at most n: each keeps a fiber per thread of the block, at
 * most SIM_MAX_FIBERS fibers (mappings) and SIM_MAX_STACKS_BYTES of stacks in all; one at least. */
static size_t fiber_workers(size_t n, uint32_t block_threads, size_t stack_bytes) {
  if (n * block_threads > SIM_MAX_FIBERS) n = SIM_MAX_FIBERS / block_threads;
  uint64_t per_worker = (uint64_t)block_threads * stack_bytes;
  if ((uint64_t)n * per_worker > SIM_MAX_STACKS_BYTES) n = (size_t)(SIM_MAX_STACKS_BYTES / per_worker);
  return n > 0 ? n : 1;
}

uint32_t sim_max_block_threads(void) { return MAX_BLOCK_THREADS; }

uint32_t sim_max_cooperative_blocks(uint32_t block_threads) {
  uint32_t by_threads = SIM_MAX_COOPERATIVE_THREADS / (block_threads ? block_threads : 1);
  return by_threads < SIM_MAX_COOPERATIVE_BLOCKS ? by_threads : SIM_MAX_COOPERATIVE_BLOCKS;
}

/* A cooperative launch's own limits (all blocks at once); the complaint goes to `msg`. */
static bool check_cooperative(const SimLaunch *l, char *msg, size_t size) {
  uint64_t blocks = (uint64_t)l->grid.x * l->grid.y * l->grid.z;
  uint32_t threads = l->block.x * l->block.y * l->block.z, most = sim_max_cooperative_blocks(threads);
  if (blocks > most && l->uses_barrier)   /* fibers: every block at once, each on a worker */
    snprintf(msg, size, "a cooperative launch (cuda.cg.this_grid) runs every block at once: the "
             "simulator takes at most %u blocks of %u threads (%d blocks, %d threads in all), "
             "this grid has %llu", most, threads, SIM_MAX_COOPERATIVE_BLOCKS,
             SIM_MAX_COOPERATIVE_THREADS, (unsigned long long)blocks);
  else if (l->sanitize && l->uses_barrier && blocks > 1)
    snprintf(msg, size, "--sanitize runs one block at a time, and a cooperative launch "
             "(cuda.cg.this_grid) of %llu blocks needs them all at once", (unsigned long long)blocks);
  else
    return true;
  return false;
}

/* How long a launch waits for the module's lock before it looks again whether the launch holding
 * it is stuck in one interrupt check. */
enum { LOCK_WAIT_NS = 50 * 1000 * 1000 };

/* Takes the module's launch lock; false, with the message, when the launch holding it stays in
 * one interrupt check for all of a LOCK_WAIT_NS wait. That check runs host code (a Python signal
 * handler), and a launch it makes, on its own thread or on a thread it waits for, would wait for
 * ever for a lock that its own caller holds: it fails instead
 * (tests/python/test_reentrant_launch.py). A launch from another thread that merely meets a
 * check (microseconds) waits for the lock as before. */
static bool take_launch_lock(SimModule *m, const SimLaunch *l) {
  if (pthread_mutex_trylock(&m->launch_lock) == 0) return true;
  for (;;) {
    uint64_t checks = atomic_load(&m->host_checks);
    bool checking = atomic_load(&m->in_host_check);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += LOCK_WAIT_NS;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    if (pthread_mutex_timedlock(&m->launch_lock, &until) == 0) return true;
    if (checking && atomic_load(&m->in_host_check) && atomic_load(&m->host_checks) == checks) break;
  }
  launch_error(l, P2C_ERR_SIM, "kernel '%s' cannot launch now: a launch of the same module is "
               "running host code (a signal handler, or a thread it waits for, made this launch); "
               "the simulator runs one launch of a module at a time", l->symbol);
  return false;
}

/* Whether the module runs kernel `symbol` (one with barriers) as regions: it has the entry of
 * whole blocks and not a fiber's (the code generator's P2C_SIM_REGIONS, docs/simulator.md;
 * hand-written sources define both, P2C_SIM_KERNEL). */
bool sim_kernel_has_regions(const SimModule *m, const char *symbol) {
  return (sim_module_symbol_of(m, ENTRY_BLOCKS, symbol) || sim_kernel_has_grid_regions(m, symbol)) &&
         !sim_module_symbol_of(m, ENTRY_THREAD, symbol);
}

/* Whether the module runs kernel `symbol` as grid regions (P2C_SIM_GRID: cut at its grid syncs
 * too, so a cooperative grid of any size the memory allows runs, not only every block at once). */
bool sim_kernel_has_grid_regions(const SimModule *m, const char *symbol) {
  return sim_module_symbol_of(m, ENTRY_GRID, symbol) != NULL;
}

P2cStatus sim_launch(SimModule *m, const SimLaunch *l) {
  char msg[512];
  if (!m || !l) return P2C_ERR_USAGE;
  SimLaunch as_regions;
  bool grid = m->handle && sim_kernel_has_grid_regions(m, l->symbol);
  if ((l->uses_barrier || grid) && sim_kernel_has_regions(m, l->symbol)) {   /* a kernel with barriers, no fibers */
    as_regions = *l;
    as_regions.uses_barrier = false;
    l = &as_regions;
  }
  if (!m->handle)
    return launch_error(l, P2C_ERR_SIM, "the simulator module did not load: %s", m->error);
  if (!check_config(l, msg, sizeof msg)) return launch_error(l, P2C_ERR_SIM, "bad launch: %s", msg);
  if (l->cooperative && !check_cooperative(l, msg, sizeof msg))
    return launch_error(l, P2C_ERR_SIM, "bad launch: %s", msg);
  SimFn entry = find_entry(m, grid ? ENTRY_GRID : l->uses_barrier ? ENTRY_THREAD : ENTRY_BLOCKS, l->symbol, msg,
                           sizeof msg);
  if (!entry) return launch_error(l, P2C_ERR_SIM, "%s", msg);

  Run r;
  memset(&r, 0, sizeof r);
  r.l = l;
  r.m = m;
  if (grid) r.grid_entry = (void (*)(void **))entry;
  else if (l->uses_barrier) r.thread_entry = (void (*)(void **))entry;
  else r.blocks_entry = (void (*)(void **, uint64_t, uint64_t))entry;
  r.block_count = (uint64_t)l->grid.x * l->grid.y * l->grid.z;
  r.block_threads = l->block.x * l->block.y * l->block.z;
  r.stack_bytes = l->uses_barrier ? fiber_stack_bytes(m, l) : 0;
  atomic_init(&r.next_block, 0);
  atomic_init(&r.blocks_done, 0);
  atomic_init(&r.stop, false);
  pthread_mutex_init(&r.error_lock, NULL);
  pthread_mutex_init(&r.grid_lock, NULL);
  pthread_cond_init(&r.grid_wake, NULL);
  r.next_interrupt_check_ns = l->interrupt ? monotonic_ns() + INTERRUPT_CHECK_NS : 0;
  unsigned cpus = sim_cpu_count();
  size_t n = l->threads ? l->threads : default_workers(cpus);
  if (n > MAX_WORKERS) n = MAX_WORKERS;
  if (n > r.block_count) n = (size_t)r.block_count;
  if (l->sanitize) n = 1;   /* the checker keeps no locks: one block at a time */
  /* every block at once (check_cooperative); without barriers (this_grid() and no sync()) no
   * block can wait for another, and the blocks run as any others do */
  if (l->cooperative && l->uses_barrier) n = (size_t)r.block_count;
  else if (l->uses_barrier) n = fiber_workers(n, r.block_threads, r.stack_bytes);
  r.chunk = chunk_size(r.block_count, r.block_threads, n);

  if (!take_launch_lock(m, l)) return P2C_ERR_SIM;
  if (m->fault[0]) {   /* sticky, as CUDA_ERROR_ILLEGAL_ADDRESS is for a context */
    snprintf(msg, sizeof msg, "%s", m->fault);
    if (l->fault) *l->fault = m->fault_at;
    pthread_mutex_unlock(&m->launch_lock);
    return launch_error(l, P2C_ERR_ILLEGAL_ADDRESS, "kernel '%s' cannot launch: an earlier launch "
                        "of this module faulted (load it again): %s", l->symbol, msg);
  }
  sim_fault_install();
  bool alt = sim_altstack_push(&m->altstack);   /* the calling thread's, for the launch */
  if (m->bounds) memset(m->bounds, 0, sizeof *m->bounds); /* docs/generated-code.md */
  Worker *workers = mem_alloc(m->alloc, n * sizeof *workers);
  if (l->sanitize && !m->san) m->san = sim_san_new(m->alloc);
  if (l->sanitize && m->san) {
    sim_san_begin(m->san, (uint3){l->grid.x, l->grid.y, l->grid.z},
                  (uint3){l->block.x, l->block.y, l->block.z}, l->sanitize_inputs_apart, l->sanitize);
    r.san = m->san;
  }
  if (!workers || !pools_grow(m, n) || (l->sanitize && !r.san)) {
    run_fail(&r, P2C_ERR_NOMEM, "out of memory starting %zu simulator workers", n);
  } else {
    memset(workers, 0, n * sizeof *workers);
    for (size_t i = 0; i < n; i++) {
      workers[i].run = &r;
      workers[i].pool = &m->pools[i];
    }
    if (grid) run_grid(&r, workers, n, n <= cpus);
    else run_workers(&r, workers, n, n <= cpus);
  }
  mem_free(m->alloc, workers, n * sizeof *workers);
  if (r.san) sim_san_finish(r.san);
  P2cBoundsRecord bounds = {0};
  if (m->bounds) bounds = *m->bounds; /* every worker has joined: the record is complete */
  if (alt) sim_altstack_pop(&m->altstack);
  if (r.status == P2C_ERR_ILLEGAL_ADDRESS) {
    snprintf(m->fault, sizeof m->fault, "%s", r.message);
    m->fault_at = r.fault_at;
    if (l->fault) *l->fault = r.fault_at;
  }
  pthread_mutex_unlock(&m->launch_lock);
  pthread_mutex_destroy(&r.error_lock);
  pthread_mutex_destroy(&r.grid_lock);
  pthread_cond_destroy(&r.grid_wake);
  if (bounds.claimed) {
    if (l->bounds) *l->bounds = bounds;
    bounds_format(&bounds, NULL, l->symbol, false, msg, sizeof msg);
    return launch_error(l, P2C_ERR_BOUNDS, "%s", msg);
  }
  if (r.status != P2C_OK) return launch_error(l, r.status, "%s", r.message);
  if (l->sanitize && sim_san_total(l->sanitize) > 0) {
    sim_san_summary(l->sanitize, l->symbol, msg, sizeof msg);
    return launch_error(l, P2C_ERR_SANITIZE, "%s", msg);
  }
  return P2C_OK;
}

/* sim_call_caught: the call armed as a worker arms its kernel code; nothing in this frame
 * changes after sigsetjmp. */
P2cStatus sim_call_caught(void (*fn)(void **), void **args, const char *name, char *errbuf, size_t errbuf_size) {
  sigjmp_buf jump;
  SimFaultCatch c = {.jump = &jump};
  sim_fault_install();
  int how = sigsetjmp(jump, 0);
  if (how == 0) {
    sim_fault_arm(&c);
    fn(args);
  }
  sim_fault_disarm();
  if (how == SIM_FAULT_LEFT) {
    if (errbuf) snprintf(errbuf, errbuf_size, "function '%s' was interrupted", name);
    return P2C_ERR_INTERRUPTED;
  }
  if (how != SIM_FAULT_JUMPED) return P2C_OK;
  if (errbuf)
    snprintf(errbuf, errbuf_size, "function '%s': %s at address %p (probably an index out of bounds: "
             "bounds checks, debug=True or boundscheck=True, name the index)", name,
             c.signo == SIGBUS ? "a bus error (SIGBUS)" : "an illegal memory access (SIGSEGV)", c.addr);
  return P2C_ERR_ILLEGAL_ADDRESS;
}

void sim_call_leave(void) { sim_fault_leave(); }
