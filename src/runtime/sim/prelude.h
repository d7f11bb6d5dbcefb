/* pyk2cuda CPU simulator: the host prelude.
 *
 * The simulator compiles generated CUDA C with the host C++ compiler (`c++ -std=c++17 -include
 * prelude.h`). This file gives that compiler what the CUDA environment gives NVRTC: the
 * qualifiers, the built-in index variables, barriers, atomics, and the math library's C names.
 * It is embedded into libpyk2cuda as text at build time (see meson.build) and written next to
 * the source before each compile.
 *
 * The first part is plain C and is also included by sim.c: it is the one definition of the state
 * that the runtime and a compiled module share. The rest is C++ only.
 *
 * How a simulated thread finds its indices: every OS worker thread owns one P2cSimThread; the
 * module's thread_local pointer `p2c_sim_self` points at it (set through p2c_sim_bind). The
 * kernel reads its indices from four thread_local variables of the module (`p2c_sim_tid`, ...),
 * which only the module's entries write and whose address is never taken: the compiler then
 * knows that no store of the kernel can change them, keeps them in registers and hoists what
 * depends only on the block out of the loop over the block's threads (see the entries at the
 * end). */
#ifndef P2C_SIM_PRELUDE_H
#define P2C_SIM_PRELUDE_H

/* Bumped whenever P2cSimThread or the exported functions change. */
#define P2C_SIM_ABI_VERSION 11

#include <stddef.h>
#include <stdint.h>

typedef struct uint3 {
  unsigned int x, y, z;
} uint3;

/* The memory of math results (see "Math" at the end of the C++ part), per worker: one table
 * per call site (sites share tables by their number modulo P2C_SIM_MEMO_TABLES, never results:
 * every entry names its site), each P2C_SIM_MEMO_SETS sets of two entries, chosen by a hash of
 * the argument's bits.
 *
 * Why this size. Kernels reuse a math result across the threads of a block: a function of a row
 * coordinate is computed again in every column, so a site must keep as many values as the block
 * has rows in flight (16 for a 16 x 16 block, 32 for 32 x 8), whose bits a hash scatters at
 * random. Replaying the arguments of samples/great_circle.py's sin(dphi / 2) and cos(phi2)
 * (512 x 512 mesh, 16 x 16 blocks, x fastest; at least 6.25% of calls miss, as each block brings
 * 16 new rows) through caches of each shape gave these misses per call: direct-mapped, 16
 * entries 60-64%, 32 entries 31-34%, 64 entries 20-22%, 128 entries 14-18%; two entries per
 * set, 64 entries 7-9%, 128 entries 6.2-6.8% (callgrind's count of libm calls in the simulator
 * agrees); with 32 x 8 blocks (12.5% must miss), 128 entries in sets of two 14-16%, direct-mapped
 * 26-28%. So: 64 sets of two entries per site, 3 KiB; 32 tables, 96 KiB per worker slot (its
 * printf buffer is 64 KiB), allocated at the slot's first launch and kept with it. A lookup
 * touches one set (48 bytes), so only the values in use occupy the data cache. */
enum {
  P2C_SIM_MEMO_TABLES = 32,
  P2C_SIM_MEMO_SET_BITS = 6,
  P2C_SIM_MEMO_SETS = 1 << P2C_SIM_MEMO_SET_BITS,
  P2C_SIM_MEMO_WAYS = 2,
  P2C_SIM_MEMO_ENTRIES = P2C_SIM_MEMO_TABLES * P2C_SIM_MEMO_SETS * P2C_SIM_MEMO_WAYS
};
typedef struct P2cSimMemo {
  unsigned long long arg, result; /* their bits (a float's in the low-addressed bytes) */
  unsigned tag;                   /* the call site and argument type (see p2c_sim_memo); 0: empty */
} P2cSimMemo;
typedef struct P2cSimMemory {
  P2cSimMemo entries[P2C_SIM_MEMO_ENTRIES]; /* table after table, set after set */
  /* Bit t is set once the module has written table t in this launch: the runtime empties only
   * those afterwards. */
  unsigned used;
} P2cSimMemory;

/* The set of a table that an argument's bits fall in: the top bits of a multiplicative
 * (Fibonacci) hash, which depend on every bit of the argument, float or double. */
static inline unsigned p2c_sim_memo_set(unsigned long long bits) {
  return (unsigned)((bits * 0x9E3779B97F4A7C15ull) >> (64 - P2C_SIM_MEMO_SET_BITS));
}

/* --sanitize (docs/simulator.md, "Sanitizer"): one access to an array element, as the module
 * reports it to the runtime's checker. */
enum {
  P2C_SAN_READ = 0, P2C_SAN_WRITE = 1, P2C_SAN_UPDATE = 2, P2C_SAN_ATOMIC = 3, /* access kinds */
  /* a read of a kernel's array parameter that the kernel never stores to (P2cParam.written):
   * unchecked when the launch's arguments keep such arrays apart from every written one
   * (P2cSanShadow.inputs_apart), since no thread writes their memory; else a read */
  P2C_SAN_READ_INPUT = 4
};
enum {
  P2C_SAN_GLOBAL = 0, P2C_SAN_SHARED = 1, P2C_SAN_LOCAL = 2, P2C_SAN_CONST = 3 /* memory spaces */
};
typedef struct P2cSanAccess {
  const void *addr;          /* the element */
  unsigned bytes;            /* its size */
  int kind, space;           /* P2C_SAN_READ..., P2C_SAN_GLOBAL... (as the code generator knows it) */
  unsigned line, column;     /* the subscript in the Python source */
  const char *name;          /* the array's Python name ("array" for an expression) */
  int ndim;
  const long long *index;    /* ndim indices, negative ones wrapped */
  uint3 thread, block;       /* of the accessing thread */
  unsigned tid;              /* its index in the block, x fastest */
  unsigned pos;              /* p2c_san_pos(line, column) */
} P2cSanAccess;

/* A Python position as the checker keeps it in 32 bits: line << 12 | column (a line past 2^20
 * and a column past 4095 are cut to those). In the module, a constant. */
static inline unsigned p2c_san_pos(unsigned line, unsigned column) {
  return (line < (1u << 20) ? line : (1u << 20) - 1) << 12 | (column < 4096 ? column : 4095);
}

/* The checker's shadow memory (sanitize.c has the rest). For every element touched (cells of 4
 * bytes, of 1 byte for 1- and 2-byte elements) the last write and up to two reads since, each
 * as a record: the access's epoch (a new one begins with each block and at each barrier, counted
 * across the checker's life: blocks run one after another, so the running block's records are
 * those from its first epoch on, and records older than the launch's first epoch are no access),
 * Python position, thread and the generation of its warp (__syncwarp calls its warp had
 * completed) with the kind of access. 12 bytes: a cell is 36 bytes for 4 bytes of memory. */
typedef struct P2cSanRec {
  uint32_t epoch;
  uint32_t pos;              /* p2c_san_pos */
  uint16_t tid;              /* in the block (< 1024) */
  uint16_t wk;               /* warp generation (low 14 bits) << 2 | access kind */
} P2cSanRec;
typedef struct P2cSanCell {
  P2cSanRec w, r[2];
} P2cSanCell;

enum {
  P2C_SAN_PAGE_BYTES = 1024, P2C_SAN_RECENT_BITS = 6, P2C_SAN_RECENT = 1 << P2C_SAN_RECENT_BITS,
  P2C_SAN_WARPS = 32, P2C_SAN_WGEN_MASK = 0x3FFF,
  P2C_SAN_REGIONS = 32
};

/* What the module's fast path (p2c_san_fast) reads of the checker, kept by the checker. */
typedef struct P2cSanShadow {
  uint32_t epoch, launch_epoch, block_epoch;   /* now, the launch's first, the block's first */
  int inputs_apart;                            /* see P2C_SAN_READ_INPUT */
  uint3 block;                                 /* the running block */
  int in_block;                                /* whether one runs */
  /* static shared arrays and dynamic shared memory: an access through a view (typed as global
   * memory by the code generator) that lands in one is a shared access */
  unsigned nshared;
  uintptr_t shared_start[P2C_SAN_REGIONS], shared_end[P2C_SAN_REGIONS];
  uint32_t wgen[P2C_SAN_WARPS];                /* __syncwarp calls each warp of the block completed */
  /* pages found lately, by p2c_san_recent of their key: (address / page) * 2 + (1-byte cells);
   * an empty entry has key UINTPTR_MAX, which no address gives */
  uintptr_t recent_key[P2C_SAN_RECENT];
  P2cSanCell *recent_cells[P2C_SAN_RECENT];
} P2cSanShadow;

/* The fast path is inlined into every access of a module (called, it costs a call and the
 * lookups of the thread's variables, twice what it saves). */
#if defined(__GNUC__)
#define P2C_SAN_INLINE static inline __attribute__((always_inline))
#else
#define P2C_SAN_INLINE static inline
#endif

P2C_SAN_INLINE unsigned p2c_san_recent(uintptr_t key) {
  return (unsigned)(((unsigned long long)key * 0x9E3779B97F4A7C15ull) >> (64 - P2C_SAN_RECENT_BITS));
}
/* Whether r is an access of this launch; of the running block. */
P2C_SAN_INLINE int p2c_san_used(const P2cSanShadow *s, const P2cSanRec *r) { return r->epoch >= s->launch_epoch; }
P2C_SAN_INLINE int p2c_san_in_block(const P2cSanShadow *s, const P2cSanRec *r) { return r->epoch >= s->block_epoch; }
/* Whether earlier access p is ordered before an access of thread `tid` in the running epoch
 * without looking further: no access at all, or one of the running block by the same thread or
 * in an earlier epoch (a barrier lies between). The other cases are the checker's (races). */
P2C_SAN_INLINE int p2c_san_settled(const P2cSanShadow *s, const P2cSanRec *p, unsigned tid) {
  return !p2c_san_used(s, p) ||
         (p2c_san_in_block(s, p) && (p->tid == tid || p->epoch != s->epoch));
}

/* Where a read by thread `tid` goes among the cell's two readers (-1: dropped). A settled
 * reader is redundant (whatever races with it races with this read too) and is replaced. When
 * neither is, both are reads that no barrier orders with this one; a write that comes later
 * races with one of them if it races with this read, except within one warp, where a warp
 * operation may order some lanes and not others: so two reads of one warp make room for a read
 * of another warp (then a write of any warp races with the one of the other warp), and otherwise
 * the read is dropped. */
P2C_SAN_INLINE int p2c_san_read_slot(const P2cSanShadow *s, const P2cSanCell *c, unsigned tid) {
  for (int i = 0; i < 2; i++)
    if (p2c_san_settled(s, &c->r[i], tid)) return i;
  const P2cSanRec *r = c->r;
  if (p2c_san_in_block(s, &r[0]) && p2c_san_in_block(s, &r[1]) && r[0].tid / 32 == r[1].tid / 32 &&
      r[0].tid / 32 != tid / 32)
    return 1;
  return -1;
}

/* The memory space of an access to addr that the code generator saw as `space`: global memory
 * that is one of the shared regions is shared. */
P2C_SAN_INLINE int p2c_san_space(const P2cSanShadow *s, const void *addr, int space) {
  uintptr_t a = (uintptr_t)addr;
  if (space == P2C_SAN_GLOBAL)
    for (unsigned i = 0; i < s->nshared; i++)
      if (a >= s->shared_start[i] && a < s->shared_end[i]) return P2C_SAN_SHARED;
  return space;
}

/* The module's fast path for a plain read or write of global or shared memory: when the cell's
 * page is among the recent ones and every access the cell holds is settled (above), the access
 * can find nothing, and the shadow is updated here as the checker would (a read joins the
 * readers, p2c_san_read_slot; a write replaces the cell's accesses). A read of shared memory also needs a write of the running block before it (else it
 * is uninitialized or meets what an earlier block left: the checker's cases). Returns 0 when the
 * checker must look: then nothing was changed. */
P2C_SAN_INLINE int p2c_san_fast(P2cSanShadow *s, const void *addr, unsigned bytes, int kind,
                               int space, unsigned tid, unsigned pos, uint3 block) {
  if (!s->in_block || block.x != s->block.x || block.y != s->block.y || block.z != s->block.z)
    return 0;
  space = p2c_san_space(s, addr, space);
  if (space != P2C_SAN_GLOBAL && space != P2C_SAN_SHARED) return 0;
  uintptr_t a = (uintptr_t)addr, key = (a / P2C_SAN_PAGE_BYTES) * 2 + (bytes < 4);
  unsigned slot = p2c_san_recent(key);
  if (s->recent_key[slot] != key) return 0;
  uintptr_t off = a % P2C_SAN_PAGE_BYTES;
  P2cSanCell *c = &s->recent_cells[slot][bytes < 4 ? off : off / 4];
  if (!p2c_san_settled(s, &c->w, tid)) return 0;
  uint32_t wgen = tid / 32 < P2C_SAN_WARPS ? s->wgen[tid / 32] & P2C_SAN_WGEN_MASK : 0;
  P2cSanRec cur = {s->epoch, pos, (uint16_t)tid, (uint16_t)(wgen << 2 | (unsigned)kind)};
  if (kind == P2C_SAN_READ) {
    if (space == P2C_SAN_SHARED && !p2c_san_in_block(s, &c->w)) return 0;
    int i = p2c_san_read_slot(s, c, tid);
    if (i >= 0) c->r[i] = cur;
    return 1;
  }
  if (!p2c_san_settled(s, &c->r[0], tid) || !p2c_san_settled(s, &c->r[1], tid)) return 0;
  c->w = cur;
  c->r[0].epoch = c->r[1].epoch = 0;
  return 1;
}

typedef struct P2cSimThread P2cSimThread;
struct P2cSimThread {
  uint3 thread_idx, block_idx, block_dim, grid_dim;
  void *dynamic_shared; /* the block's dynamic shared memory (launch's shared bytes) */
  /* Waits for the whole block; returns how many of its threads passed a nonzero predicate.
   * Other simulated threads of the block run meanwhile: the caller reloads its thread index
   * from `thread_idx` afterwards (the scheduler restores it there). */
  int (*barrier)(P2cSimThread *self, int predicate);
  /* Ends the calling simulated thread for good and stops the launch (--check-bounds found an
   * index out of bounds). Never returns. */
  void (*exit_thread)(P2cSimThread *self);
  unsigned dynamic_shared_bytes; /* the size of dynamic_shared */
  /* Warp operations: waits until every lane of this thread's warp that `mask` names and that
   * has not exited waits here with the same mask. Mask 0 is __activemask: it waits until no
   * lane of the warp can move, and goes on with the lanes waiting at the same call `site`.
   * Returns the lanes released together. */
  unsigned (*warp_sync)(P2cSimThread *self, unsigned mask, unsigned site);
  /* One exchange slot per thread of the block, in linear thread order (x fastest): a warp
   * operation's values pass through them. */
  unsigned long long *warp_slots;
  /* Kernel printf output of this worker, kept here and written to stdout in one piece when
   * the buffer is full and when the worker leaves the launch (CUDA too prints a kernel's output
   * at the next synchronization, not as each thread runs). print_flush writes and empties it. */
  char *print_buf;
  size_t print_len, print_cap;
  void (*print_flush)(P2cSimThread *self);
  /* The math memory (see P2cSimMemo), empty at the start of each launch; written and read by
   * the module only. */
  P2cSimMemory *memo;
  /* --sanitize only (never called in a launch without it): checks one access; registers a
   * shared or local array's storage (its cells start unwritten); san_line and san_column name
   * the barrier or warp operation the thread is about to reach. */
  void (*san_access)(P2cSimThread *self, const P2cSanAccess *a);
  void (*san_region)(P2cSimThread *self, const void *p, size_t bytes, int space);
  void (*san_fence)(P2cSimThread *self, unsigned tid);   /* thread `tid` reached a threadfence */
  unsigned san_line, san_column;
  P2cSanShadow *san_shadow;  /* --sanitize only: for p2c_san_fast */
  /* Whether the warp operation the thread is about to wait at orders memory (__syncwarp does;
   * shuffles, votes, match and __activemask do not): set before each warp_sync. */
  int warp_orders;
  /* cuda.cg.this_grid().sync(): waits for every thread of the grid (a cooperative launch runs
   * each block on its own worker, all at once). The caller reloads its thread index afterwards,
   * as after `barrier`. */
  void (*grid_sync)(P2cSimThread *self);
  /* Every P2C_SIM_POLL_EVERY iterations of the kernel's loops (P2C_SIM_POLL): the launch may
   * stop here (the host's interrupt check, a timeout, another worker's error). Returns when it
   * goes on; else ends the calling simulated thread for good, as exit_thread does. */
  void (*poll)(P2cSimThread *self);
  /* Grid regions (a cooperative kernel cut at its grid syncs, P2C_SIM_GRID; docs/simulator.md):
   * grid_phase runs fn(ctx, first, count) over every block of the grid on the launch's workers
   * (chunks of blocks, as a launch without barriers) and returns when all are done: nonzero to go
   * on, 0 when the launch has stopped (an error, an interrupt). grid_storage gives the launch's
   * memory kept across grid syncs, zeroed: block_bytes per block and thread_bytes per thread of
   * the grid (either may be 0, its pointer NULL); 0 when it is more than the simulator allows
   * (the launch stops with the reason). In a phase, grid_dynamic_shared holds every block's
   * dynamic shared memory, grid_dynamic_stride bytes apart (a block keeps it across grid syncs). */
  int (*grid_phase)(P2cSimThread *self, void (*fn)(void *ctx, uint64_t first, uint64_t count), void *ctx);
  int (*grid_storage)(P2cSimThread *self, size_t block_bytes, size_t thread_bytes, void **blocks, void **threads);
  unsigned char *grid_dynamic_shared;
  size_t grid_dynamic_stride;
  /* A prange loop of an @njit(parallel=True) function (codegen's p2c_prange): chunk_count is
   * how many chunks a loop of n iterations is cut into ($PYK2CUDA_SIM_THREADS, else the CPUs
   * this process may use; at most max and n, at least 1); run_chunks runs run(arg, c) for each
   * c in [0, w), chunk 0 on the calling thread and each other on a thread of its own, and
   * returns when all have returned. NULL where the caller offers no threads: p2c_prange then
   * runs the loop in order. */
  int (*chunk_count)(P2cSimThread *self, int64_t n, int max);
  void (*run_chunks)(P2cSimThread *self, int w, void (*run)(void *arg, int c), void *arg);
  /* Whether the launch has stopped (the host's interrupt check, asked here when it is due, a
   * timeout, an error), without leaving it as poll does: chunk 0 of a prange loop asks it at its
   * polls, so that the loop's chunks end at an interrupt. NULL where the caller has none. */
  int (*stopped)(P2cSimThread *self);
};

#ifdef __cplusplus

#define PYK2CUDA_SIM 1

#include <math.h>  /* in C++ also brings the float overloads and isnan/isinf/isfinite */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <limits>
#include <type_traits>
#include <utility>

/* ---- Qualifiers ---------------------------------------------------------------------------- */

/* A kernel is inlined into its entries (below): the loop over a block's threads then runs in
 * the kernel's own frame, with the arguments unpacked once per call. Hidden: the `__shared__`
 * arrays of an inline function are otherwise symbols that the dynamic linker makes one across
 * every loaded module (GCC's STB_GNU_UNIQUE, which RTLD_LOCAL does not stop), so a second
 * module with a kernel of the same name would use the first one's shared arrays, of the first
 * one's sizes (tests/python/test_sim_modules.py). */
#define __global__ inline __attribute__((always_inline, visibility("hidden")))
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
/* A block's threads all run on one OS thread, one block at a time, so storage per OS thread is
 * storage per block. At block scope `thread_local` implies `static`. */
#define __shared__ thread_local
/* Constant memory: generated code declares its arrays `static __constant__ const`. */
#define __constant__

/* ---- Built-in variables -------------------------------------------------------------------- */

struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
  dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

static thread_local P2cSimThread *p2c_sim_self;
/* What threadIdx, blockIdx, blockDim and gridDim read. Written only by the entries below and by
 * the barrier; never through a pointer (their address is never taken), so stores through the
 * kernel's array pointers cannot alias them. */
static thread_local uint3 p2c_sim_tid, p2c_sim_bid, p2c_sim_bdim, p2c_sim_gdim;
/* The worker's math memory (see "Math"), copied from p2c_sim_self by the entries, as the indices
 * are: its address is never taken either, so the compiler keeps it in a register across a loop
 * over threads. */
static thread_local P2cSimMemory *p2c_sim_memory;

#define threadIdx p2c_sim_tid
#define blockIdx p2c_sim_bid
#define blockDim p2c_sim_bdim
#define gridDim p2c_sim_gdim
static constexpr int warpSize = 32;

/* Loops (P2C_SIM_POLL at the top of every loop body of generated code, and the rounds of a
 * lockstep block) count their iterations down on the worker; every P2C_SIM_POLL_EVERY the
 * runtime's poll runs, so that a kernel that never ends can be stopped (docs/simulator.md,
 * "Stopping a launch"). The count's address is never taken: in a loop without calls the compiler
 * keeps it in a register. A spinning loop polls about every 20 us, a loop with 1 us of work
 * every 16 ms. */
enum { P2C_SIM_POLL_EVERY = 16384 };
static thread_local unsigned p2c_sim_poll_left = P2C_SIM_POLL_EVERY;
__attribute__((noinline, cold)) static void p2c_sim_poll_now(void) {
  p2c_sim_poll_left = P2C_SIM_POLL_EVERY;
  p2c_sim_self->poll(p2c_sim_self);
}
#define P2C_SIM_POLL()                                                                         \
  do {                                                                                         \
    if (__builtin_expect(--p2c_sim_poll_left == 0, 0)) p2c_sim_poll_now();                     \
  } while (0)

/* Dynamic shared memory (the launch's shared bytes) and its size. Generated code declares both
 * for NVRTC itself (extern __shared__ and the %dynamic_smem_size register). */
#define p2c_dynamic_shared ((unsigned char *)p2c_sim_self->dynamic_shared)
static inline unsigned p2c_dynamic_shared_size(void) { return p2c_sim_self->dynamic_shared_bytes; }

/* `extern __shared__ T name[];` of hand-written CUDA C, which the driver stand-in rewrites to
 * P2C_SIM_EXTERN_SHARED(T, name) before this build (tests/standin/module.c): the launch's
 * dynamic shared memory seen as a T[], read through p2c_sim_self at each use, so that it is the
 * running block's buffer at block or file scope alike. */
template <typename T> struct P2cSimDynamicShared {
  operator T *() const { return (T *)p2c_dynamic_shared; }
  template <typename I> T &operator[](I i) const { return ((T *)p2c_dynamic_shared)[i]; }
};
#define P2C_SIM_EXTERN_SHARED(T, name) static constexpr P2cSimDynamicShared<T> name{}

/* The linkage of what the runtime looks up with dlsym (the entries below, p2c_sim_abi,
 * p2c_sim_bind). An ahead-of-time bundle's simulator part (docs/aot.md) defines it as `static`
 * before this file, so that two bundles linked into one program share no symbol, and defines
 * P2C_SIM_REGISTER(name, kind, entry), which each entry macro calls with its kind and function,
 * to find a kernel's entry without dlsym. */
#ifndef P2C_SIM_ENTRY
#define P2C_SIM_ENTRY extern "C" __attribute__((visibility("default")))
#endif
enum { P2C_SIM_KIND_FIBERS = 1, P2C_SIM_KIND_BLOCKS = 2, P2C_SIM_KIND_GRID = 3 };
#ifndef P2C_SIM_REGISTER
#define P2C_SIM_REGISTER(name, kind, entry)
#endif

/* What the runtime looks up with dlsym, besides the kernels' entries. */
P2C_SIM_ENTRY unsigned p2c_sim_abi(void) {
  return P2C_SIM_ABI_VERSION;
}
P2C_SIM_ENTRY void p2c_sim_bind(P2cSimThread *self) {
  p2c_sim_self = self;
}

/* ---- Barriers and fences ------------------------------------------------------------------- */

/* Other simulated threads of the block run while this one waits, and write p2c_sim_tid: the
 * scheduler keeps this thread's index in p2c_sim_self->thread_idx, read back after the wait.
 * (Read through a pointer after an opaque call, so the compiler cannot drop the store.) Any
 * other operation that lets other threads of the block run must do the same. */
static inline int p2c_sim_barrier(int predicate) {
  P2cSimThread *self = p2c_sim_self;
  int count = self->barrier(self, predicate);
  p2c_sim_tid = self->thread_idx;
  return count;
}
static inline void __syncthreads(void) { p2c_sim_barrier(1); }
static inline int __syncthreads_count(int predicate) { return p2c_sim_barrier(predicate); }
static inline int __syncthreads_or(int predicate) { return p2c_sim_barrier(predicate) != 0; }
static inline int __syncthreads_and(int predicate) {
  unsigned n = p2c_sim_bdim.x * p2c_sim_bdim.y * p2c_sim_bdim.z;
  return (unsigned)p2c_sim_barrier(predicate) == n;
}
/* A grid-wide barrier (the generated code's p2c_grid_sync, in a cooperative launch). */
static inline void p2c_sim_grid_sync(void) {
  P2cSimThread *self = p2c_sim_self;
  self->grid_sync(self);
  p2c_sim_tid = self->thread_idx;
}
static inline void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
/* CUDA sleeps "approximately" ns nanoseconds, anywhere in [0, 2 * ns]: the simulator takes 0. */
static inline void __nanosleep(unsigned int ns) { (void)ns; }

/* ---- Vector types ------------------------------------------------------------------------ */
/* CUDA's built-in vector types (float4, int2, ... : cuda.float32x4 and friends in Python) and
 * their make_ functions, with CUDA's alignments (2 and 4 lanes aligned to their size, at most
 * 16 bytes; 1 and 3 lanes to the element's). uint3 is the C part's, shared with the runtime. */
#define P2C_SIM_VECTOR13(T, N)                                                                  \
  struct N##1 { T x; };                                                                           \
  static inline N##1 make_##N##1(T x) { return N##1{x}; }                                         \
  P2C_SIM_VECTOR3(T, N)
#define P2C_SIM_VECTOR3(T, N)                                                                   \
  struct N##3 { T x, y, z; };                                                                     \
  static inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define P2C_SIM_VECTOR24(T, N, A2, A4)                                                          \
  struct __align__(A2) N##2 { T x, y; };                                                          \
  struct __align__(A4) N##4 { T x, y, z, w; };                                                    \
  static inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                                 \
  static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define P2C_SIM_VECTORS(T, N, A2, A4) P2C_SIM_VECTOR13(T, N) P2C_SIM_VECTOR24(T, N, A2, A4)
P2C_SIM_VECTORS(signed char, char, 2, 4)
P2C_SIM_VECTORS(unsigned char, uchar, 2, 4)
P2C_SIM_VECTORS(short, short, 4, 8)
P2C_SIM_VECTORS(unsigned short, ushort, 4, 8)
P2C_SIM_VECTORS(int, int, 8, 16)
P2C_SIM_VECTORS(long long, longlong, 16, 16)
P2C_SIM_VECTORS(unsigned long long, ulonglong, 16, 16)
P2C_SIM_VECTORS(float, float, 8, 16)
P2C_SIM_VECTORS(double, double, 16, 16)
struct uint1 { unsigned int x; };
static inline uint1 make_uint1(unsigned int x) { return uint1{x}; }
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }
P2C_SIM_VECTOR24(unsigned int, uint, 8, 16)
#undef P2C_SIM_VECTORS
#undef P2C_SIM_VECTOR24
#undef P2C_SIM_VECTOR3
#undef P2C_SIM_VECTOR13

/* ---- Bit casts ----------------------------------------------------------------------------- */

template <typename To, typename From>
static inline To p2c_sim_bits(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit cast between different sizes");
  To r;
  memcpy(&r, &v, sizeof r);
  return r;
}
static inline int __float_as_int(float v) { return p2c_sim_bits<int>(v); }
static inline unsigned int __float_as_uint(float v) { return p2c_sim_bits<unsigned int>(v); }
static inline float __int_as_float(int v) { return p2c_sim_bits<float>(v); }
static inline float __uint_as_float(unsigned int v) { return p2c_sim_bits<float>(v); }
static inline long long __double_as_longlong(double v) { return p2c_sim_bits<long long>(v); }
static inline double __longlong_as_double(long long v) { return p2c_sim_bits<double>(v); }

/* ---- Atomics ------------------------------------------------------------------------------- */
/* Relaxed, as CUDA's. Integer operations accept every 32- and 64-bit integer type, because
 * int64_t is `long` here but `long long` under NVRTC; NVRTC decides which overloads exist. The
 * value parameter is not deduced, so atomicAdd(float_ptr, 1.0) converts as CUDA's overload does. */

template <typename T>
struct p2c_sim_same {
  typedef T type;
};
#define P2C_SIM_VAL(T) typename p2c_sim_same<T>::type

template <typename T>
static inline void p2c_sim_check_int(void) {
  static_assert(std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "CUDA integer atomics take 32- or 64-bit integers");
}

/* Replaces *p by f(*p) atomically; returns the old value. */
template <typename T, typename F>
static inline T p2c_sim_atomic_update(T *p, F f) {
  T old, next;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do {
    next = f(old);
  } while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

/* This OS thread's private copies of arrays ("Atomics on a worker's copy", below) are the
 * P2C_SIM_PRIVATE_BYTES from p2c_sim_private_at while an entry runs a chunk of blocks with them;
 * otherwise it is the last P2C_SIM_PRIVATE_BYTES of the address space, where no array is. One
 * value, so that the test costs one load; its address is never taken, so that the kernel's
 * stores cannot alias it. */
enum { P2C_SIM_PRIVATE_BYTES = 16384 };
static constexpr uintptr_t P2C_SIM_PRIVATE_NONE = (uintptr_t)0 - P2C_SIM_PRIVATE_BYTES;
static thread_local uintptr_t p2c_sim_private_at = P2C_SIM_PRIVATE_NONE;

/* An integer atomic on a private copy: no other thread sees it, so it is a plain update (f). True
 * when p is in one, with the old value in *old. */
template <typename T, typename F>
static inline __attribute__((always_inline)) bool p2c_sim_private_update(T *p, F f, T *old) {
  p2c_sim_check_int<T>();
  if (__builtin_expect((uintptr_t)p - p2c_sim_private_at >= P2C_SIM_PRIVATE_BYTES, 1)) return false;
  *old = *p;
  *p = f(*old);
  return true;
}

template <typename T>
static inline T atomicAdd(T *p, P2C_SIM_VAL(T) v) {
  if constexpr (std::is_floating_point<T>::value) {
    return p2c_sim_atomic_update(p, [v](T old) { return old + v; });
  } else {
    T old;
    if (p2c_sim_private_update(p, [v](T o) { return (T)(o + v); }, &old)) return old;
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
  }
}
template <typename T>
static inline T atomicSub(T *p, P2C_SIM_VAL(T) v) {
  T old;
  if (p2c_sim_private_update(p, [v](T o) { return (T)(o - v); }, &old)) return old;
  return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicExch(T *p, P2C_SIM_VAL(T) v) {
  T old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
template <typename T>
static inline T atomicMax(T *p, P2C_SIM_VAL(T) v) {
  auto f = [v](T old) { return old > v ? old : v; };
  T old;
  if (p2c_sim_private_update(p, f, &old)) return old;
  return p2c_sim_atomic_update(p, f);
}
template <typename T>
static inline T atomicMin(T *p, P2C_SIM_VAL(T) v) {
  auto f = [v](T old) { return old < v ? old : v; };
  T old;
  if (p2c_sim_private_update(p, f, &old)) return old;
  return p2c_sim_atomic_update(p, f);
}
template <typename T>
static inline T atomicAnd(T *p, P2C_SIM_VAL(T) v) {
  T old;
  if (p2c_sim_private_update(p, [v](T o) { return (T)(o & v); }, &old)) return old;
  return __atomic_fetch_and(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicOr(T *p, P2C_SIM_VAL(T) v) {
  T old;
  if (p2c_sim_private_update(p, [v](T o) { return (T)(o | v); }, &old)) return old;
  return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicXor(T *p, P2C_SIM_VAL(T) v) {
  T old;
  if (p2c_sim_private_update(p, [v](T o) { return (T)(o ^ v); }, &old)) return old;
  return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED);
}
template <typename T>
static inline T atomicCAS(T *p, P2C_SIM_VAL(T) compare, P2C_SIM_VAL(T) v) {
  p2c_sim_check_int<T>();
  __atomic_compare_exchange(p, &compare, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare; /* the old value, whether or not the exchange happened */
}
/* ((old >= v) ? 0 : old + 1) and (((old == 0) | (old > v)) ? v : old - 1), as CUDA's. */
static inline unsigned int atomicInc(unsigned int *p, unsigned int v) {
  return p2c_sim_atomic_update(p, [v](unsigned int old) { return old >= v ? 0u : old + 1; });
}
static inline unsigned int atomicDec(unsigned int *p, unsigned int v) {
  return p2c_sim_atomic_update(p, [v](unsigned int old) {
    return old == 0 || old > v ? v : old - 1;
  });
}

#undef P2C_SIM_VAL

/* ---- Bit intrinsics ------------------------------------------------------------------------ */

static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; i++, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
static inline unsigned long long __brevll(unsigned long long x) {
  return (unsigned long long)__brev((unsigned int)x) << 32 | __brev((unsigned int)(x >> 32));
}

/* ---- Warp operations ----------------------------------------------------------------------- */
/* A warp is 32 consecutive threads in linear order (x fastest), as on the GPU. A warp operation
 * is a rendezvous run by the runtime's scheduler (warp_sync): each lane puts its value in its
 * slot, waits until the lanes named in the mask have arrived, computes its result from the
 * slots of the lanes that took part, and waits once more so that no lane overwrites a slot
 * before all have read it. Lanes named in the mask that have exited (or do not exist, in a
 * block that is not a multiple of 32) do not take part, as CUDA allows. */

static inline unsigned p2c_sim_linear_tid(void) {
  return p2c_sim_tid.x + p2c_sim_bdim.x * (p2c_sim_tid.y + p2c_sim_bdim.y * p2c_sim_tid.z);
}
static inline unsigned p2c_sim_lane(void) { return p2c_sim_linear_tid() & 31u; }

/* Warp operations in regions (docs/simulator.md, "Regions"): a block function runs the statement
 * of a warp operation in two loops over the block's threads. In the first (P2C_WARP_DEPOSIT),
 * each thread evaluates the call, which only puts the lane's value in its slot of the statement's
 * buffer (p2c_sim_warp_buf, the block function's, one per statement) and returns; in the second
 * (P2C_WARP_FETCH), each thread's call computes its result from the slots at once. Every lane of
 * the warp takes part, as every thread reaches the statement (its control is uniform) with the
 * full mask (the analysis checks both), so no lane waits. P2C_WARP_RENDEZVOUS (0): the fibers. */
enum { P2C_WARP_RENDEZVOUS, P2C_WARP_DEPOSIT, P2C_WARP_FETCH };
static thread_local int p2c_sim_warp_mode;
static thread_local unsigned long long *p2c_sim_warp_buf;

/* The lanes of the calling thread's warp that exist (a block's last warp may be partial). */
static inline unsigned p2c_sim_warp_lanes(void) {
  unsigned n = p2c_sim_bdim.x * p2c_sim_bdim.y * p2c_sim_bdim.z, base = p2c_sim_linear_tid() & ~31u;
  return n - base >= 32 ? 0xffffffffu : (1u << (n - base)) - 1u;
}

/* A block function with warp operations: fetch mode while it runs (deposits switch in and out),
 * the fibers' rendezvous again when it returns (and at each fiber's start: a launch that stops
 * leaves the block function by siglongjmp, past this destructor). */
struct p2c_sim_warp_scope {
  p2c_sim_warp_scope() { p2c_sim_warp_mode = P2C_WARP_FETCH; }
  ~p2c_sim_warp_scope() { p2c_sim_warp_mode = P2C_WARP_RENDEZVOUS; }
};
#define P2C_SIM_WARP_REGIONS() p2c_sim_warp_scope p2c_sim_warp_scope_
/* The first loop of a warp operation's statement: the call puts the lane's value in `buf`. */
#define P2C_SIM_WARP_DEPOSIT(buf, ...)                                                          \
  (p2c_sim_warp_buf = (buf), p2c_sim_warp_mode = P2C_WARP_DEPOSIT, (void)(__VA_ARGS__),         \
   p2c_sim_warp_mode = P2C_WARP_FETCH)
/* The second loop: the statement's call reads the lanes' values from `buf`. */
#define P2C_SIM_WARP_FETCH(buf) (p2c_sim_warp_buf = (buf))

/* Other lanes run while this one waits: the thread index is reloaded afterwards, as after a
 * barrier. In regions no lane waits: every lane of the warp is there. */
static inline unsigned p2c_sim_warp_rendezvous(unsigned mask, unsigned site, int orders) {
  if (p2c_sim_warp_mode != P2C_WARP_RENDEZVOUS) return (mask ? mask : 0xffffffffu) & p2c_sim_warp_lanes();
  P2cSimThread *self = p2c_sim_self;
  self->warp_orders = orders;
  unsigned in = self->warp_sync(self, mask, site);
  p2c_sim_tid = self->thread_idx;
  return in;
}
static inline unsigned p2c_sim_warp_wait(unsigned mask) { return p2c_sim_warp_rendezvous(mask, 0, 0); }

template <typename T>
static inline unsigned long long p2c_sim_to_slot(T v) {
  static_assert(sizeof(T) <= 8, "warp operations exchange at most 64 bits");
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof v);
  return b;
}
template <typename T>
static inline T p2c_sim_from_slot(unsigned long long b) {
  T v;
  memcpy(&v, &b, sizeof v);
  return v;
}

/* Deposits `mine`, waits for the lanes of `mask`, and returns f(slots of the warp, own lane,
 * lanes that took part). */
template <typename R, typename F>
static inline R p2c_sim_exchange(unsigned mask, unsigned long long mine, F f) {
  unsigned tid = p2c_sim_linear_tid(), lane = tid & 31u;
  unsigned long long *slots = (p2c_sim_warp_mode ? p2c_sim_warp_buf : p2c_sim_self->warp_slots) + (tid - lane);
  slots[lane] = mine;
  if (p2c_sim_warp_mode == P2C_WARP_DEPOSIT) return R{};
  unsigned in = p2c_sim_warp_wait(mask);
  R r = f(slots, lane, in);
  if (p2c_sim_warp_mode == P2C_WARP_RENDEZVOUS) p2c_sim_warp_wait(mask);
  return r;
}

/* The one warp operation that orders memory: CUDA guarantees memory ordering among the threads
 * that take part in __syncwarp, not in shuffles or votes. */
static inline void __syncwarp(unsigned mask = 0xffffffffu) { p2c_sim_warp_rendezvous(mask, 0, 1); }
/* The lanes that run a call together are those that reach the same call site: each use of
 * __activemask() in the source is a site of its own. */
static inline unsigned p2c_sim_activemask(unsigned site) { return p2c_sim_warp_rendezvous(0, site, 0); }
#define __activemask() p2c_sim_activemask(__COUNTER__)

/* The lane a shuffle reads, or -1 for the thread's own value: CUDA's rules, with the warp cut
 * into segments of `width` lanes (idx 0, up 1, down 2, xor 3). */
static inline int p2c_sim_shfl_source(int mode, unsigned lane, unsigned b, int width) {
  unsigned w = width > 0 && width <= 32 && (width & (width - 1)) == 0 ? (unsigned)width : 32u;
  unsigned first = lane & ~(w - 1);
  switch (mode) {
  case 0: return (int)(first + (b & (w - 1)));
  case 1: return b <= lane - first ? (int)(lane - b) : -1;
  case 2: return b < first + w - lane ? (int)(lane + b) : -1;
  default: return (lane ^ b) < first + w ? (int)(lane ^ b) : -1;
  }
}

template <typename T>
static inline T p2c_sim_shfl(unsigned mask, T var, int mode, unsigned b, int width) {
  return p2c_sim_exchange<T>(mask, p2c_sim_to_slot(var),
                             [&](const unsigned long long *slots, unsigned lane, unsigned in) {
                               int src = p2c_sim_shfl_source(mode, lane, b, width);
                               return src >= 0 && (in >> src & 1u) ? p2c_sim_from_slot<T>(slots[src]) : var;
                             });
}
template <typename T>
static inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  return p2c_sim_shfl(mask, var, 0, (unsigned)src_lane, width);
}
template <typename T>
static inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = 32) {
  return p2c_sim_shfl(mask, var, 1, delta, width);
}
template <typename T>
static inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = 32) {
  return p2c_sim_shfl(mask, var, 2, delta, width);
}
template <typename T>
static inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  return p2c_sim_shfl(mask, var, 3, (unsigned)lane_mask, width);
}

/* The lanes (of those taking part) whose predicate is nonzero; *in receives those taking part. */
static inline unsigned p2c_sim_ballot(unsigned mask, int predicate, unsigned *in_out) {
  unsigned in = 0;
  unsigned r = p2c_sim_exchange<unsigned>(mask, predicate != 0,
                                          [&](const unsigned long long *slots, unsigned, unsigned took) {
                                            unsigned bits = 0;
                                            for (unsigned j = 0; j < 32; j++)
                                              if ((took >> j & 1u) && slots[j]) bits |= 1u << j;
                                            in = took;
                                            return bits;
                                          });
  if (in_out) *in_out = in;
  return r;
}
static inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return p2c_sim_ballot(mask, predicate, NULL);
}
static inline int __all_sync(unsigned mask, int predicate) {
  unsigned in;
  return p2c_sim_ballot(mask, predicate, &in) == in;
}
static inline int __any_sync(unsigned mask, int predicate) {
  return p2c_sim_ballot(mask, predicate, NULL) != 0;
}
static inline int __uni_sync(unsigned mask, int predicate) {
  unsigned in, b = p2c_sim_ballot(mask, predicate, &in);
  return b == 0 || b == in;
}

/* The lanes (of those taking part) whose value has the same bits as this lane's; *in receives
 * those taking part. */
template <typename T>
static inline unsigned p2c_sim_match(unsigned mask, T value, unsigned *in_out) {
  unsigned long long mine = p2c_sim_to_slot(value);
  unsigned in = 0;
  unsigned r = p2c_sim_exchange<unsigned>(mask, mine,
                                          [&](const unsigned long long *slots, unsigned, unsigned took) {
                                            unsigned same = 0;
                                            for (unsigned j = 0; j < 32; j++)
                                              if ((took >> j & 1u) && slots[j] == mine) same |= 1u << j;
                                            in = took;
                                            return same;
                                          });
  if (in_out) *in_out = in;
  return r;
}
template <typename T>
static inline unsigned __match_any_sync(unsigned mask, T value) {
  return p2c_sim_match(mask, value, NULL);
}
/* When every lane taking part has the same value, the mask of those lanes: where `mask` names
 * lanes that do not exist (a partial warp), a GPU leaves them out (Numba's test_match_all_sync
 * launches 10 threads with the full mask and expects 0b1111111111), as ballot does. */
template <typename T>
static inline unsigned __match_all_sync(unsigned mask, T value, int *pred) {
  unsigned in, same = p2c_sim_match(mask, value, &in);
  *pred = same == in;
  return same == in ? in : 0;
}

/* ---- printf -------------------------------------------------------------------------------- */
/* Output goes to the worker's buffer (P2cSimThread.print_buf), not through stdio for every
 * call: the generated code's formats (text, %lld, %llu, %%) are formatted here; any other
 * conversion goes through vsnprintf, so every format means what it means in C. */

static int p2c_sim_vprintf_any(P2cSimThread *t, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (n > 0) {
    if (t->print_len + (size_t)n + 1 > t->print_cap) t->print_flush(t);
    if ((size_t)n + 1 <= t->print_cap) {
      vsnprintf(t->print_buf + t->print_len, (size_t)n + 1, fmt, again);
      t->print_len += (size_t)n;
    } else {
      vfprintf(stdout, fmt, again);
    }
  }
  va_end(again);
  return n;
}

static int p2c_sim_printf_any(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int p2c_sim_printf_any(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = p2c_sim_vprintf_any(p2c_sim_self, fmt, ap);
  va_end(ap);
  return n;
}

/* The generated code's calls pass only long long and unsigned long long (besides doubles and
 * strings, which go to vsnprintf): those are formatted here in one pass over the format. A conversion other than %lld for a long long or %llu for an unsigned
 * long long drops what was written (print_len has not moved) and vsnprintf does the call.
 * At most 20 characters come out for the 4 of a conversion, so 5 bytes per format byte always
 * suffice. A template, not a variadic function, so that the arguments stay in registers. */
template <typename... A>
static inline int p2c_sim_printf(const char *fmt, A... args) {
  if constexpr (((std::is_same<A, long long>::value ||
                  std::is_same<A, unsigned long long>::value) && ...)) {
    P2cSimThread *t = p2c_sim_self;
    const unsigned long long values[] = {(unsigned long long)args..., 0ULL};
    const bool is_signed[] = {std::is_same<A, long long>::value..., false};
    size_t flen = strlen(fmt);
    if (5 * flen + 1 <= t->print_cap) {
      if (t->print_len + 5 * flen + 1 > t->print_cap) t->print_flush(t);
      char *out = t->print_buf + t->print_len, *begin = out;
      const char *p = fmt;
      size_t k = 0;
      for (;;) {
        char c = *p;
        if (c != '%') {
          if (c == '\0') {
            if (k != sizeof...(A)) break;
            t->print_len += (size_t)(out - begin);
            return (int)(out - begin);
          }
          *out++ = c;
          p++;
          continue;
        }
        if (p[1] == '%') {
          *out++ = '%';
          p += 2;
          continue;
        }
        if (k == sizeof...(A) || p[1] != 'l' || p[2] != 'l' || p[3] != (is_signed[k] ? 'd' : 'u'))
          break;
        unsigned long long u = values[k];
        if (is_signed[k] && (long long)u < 0) {
          *out++ = '-';
          u = 0ULL - u;
        }
        char digits[24], *d = digits + sizeof digits;
        do *--d = (char)('0' + u % 10); while (u /= 10);
        while (d < digits + sizeof digits) *out++ = *d++;
        p += 4;
        k++;
      }
    }
  }
  return p2c_sim_printf_any(fmt, args...);
}
#define printf p2c_sim_printf

/* ---- Ending a thread ----------------------------------------------------------------------- */

/* --check-bounds: the generated code calls this after recording an out-of-bounds access. */
[[noreturn]] static inline void p2c_sim_exit_thread(void) {
  p2c_sim_self->exit_thread(p2c_sim_self);
  __builtin_unreachable();
}

/* ---- prange over the host's cores ---------------------------------------------------------- */
/* A prange loop of an @njit(parallel=True) function (the generated code's p2c_prange, codegen's
 * prelude) runs its chunks with p2c_sim_run_chunks through the runtime's run_chunks (chunk 0 on
 * the calling thread, each other on a thread of its own). Each chunk runs with its own
 * P2cSimThread, a copy of the caller's with its own math memory and printf buffer (written to
 * stdout as the chunk ends, after what the caller printed before the loop), an exit_thread that
 * ends the chunk (a raise: its record is written) and a poll that ends it once another chunk
 * has raised. No chunk calls the caller's poll, which may leave the call while the other
 * threads still run: chunk 0 (on the calling thread) asks the caller's stopped() instead, and an
 * interrupt ends every chunk at its next poll, then the call (the loop returns as after a raise;
 * the launch's error is the interrupt). A fault in any chunk is the runtime's (run_chunks). The jump
 * out of a chunk is GCC's __builtin_setjmp (no header: the names of <setjmp.h> stay free for
 * generated code, codegen/host_names.py). Returns nonzero when a chunk raised (the caller then
 * ends its thread). */
enum { P2C_SIM_PRANGE_MAX = 64, P2C_SIM_PRANGE_PRINT = 4096 };
typedef struct P2cSimChunkRun {
  void (*fn)(void *ctx, int c);
  void (*done)(void *ctx, int c);
  void *ctx;
  int stop;                 /* atomic: a chunk raised, the others end at their next poll */
  struct P2cSimChunk *chunks;
  P2cSimThread *caller;     /* the calling thread's state (its stopped check) */
} P2cSimChunkRun;
typedef struct P2cSimChunk {
  P2cSimThread st;          /* first: the chunk's state, which exit_thread and poll get */
  void *exit[5];            /* __builtin_setjmp's buffer */
  P2cSimChunkRun *run;
  int c, raised;
} P2cSimChunk;
[[noreturn]] static void p2c_sim_chunk_exit(P2cSimThread *self) {
  __builtin_longjmp(((P2cSimChunk *)self)->exit, 1);
}
static void p2c_sim_chunk_poll(P2cSimThread *self) {
  P2cSimChunkRun *run = ((P2cSimChunk *)self)->run;
  P2cSimThread *caller = run->caller;
  if (((P2cSimChunk *)self)->c == 0 && caller->stopped && caller->stopped(caller))   /* an interrupt */
    __atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n(&run->stop, __ATOMIC_RELAXED)) p2c_sim_chunk_exit(self);
}
static void p2c_sim_chunk_flush(P2cSimThread *self) {
  if (self->print_len) fwrite(self->print_buf, 1, self->print_len, stdout);
  self->print_len = 0;
}
/* Chunk c of the run at arg, on the calling thread, with the chunk's state in place of the
 * caller's (the runtime's run_chunks calls it). */
static void p2c_sim_chunk_run(void *arg, int c) {
  P2cSimChunk *k = &((P2cSimChunkRun *)arg)->chunks[c];
  P2cSimThread *caller = p2c_sim_self;
  P2cSimMemory *memory = p2c_sim_memory;
  p2c_sim_self = &k->st;
  p2c_sim_memory = k->st.memo;
  if (__builtin_setjmp(k->exit) == 0) {
    k->run->fn(k->run->ctx, k->c);
  } else {
    k->raised = 1;
    __atomic_store_n(&k->run->stop, 1, __ATOMIC_RELAXED);
  }
  k->run->done(k->run->ctx, k->c);
  p2c_sim_chunk_flush(&k->st);
  p2c_sim_self = caller;
  p2c_sim_memory = memory;
}
/* The chunks of a loop of n iterations (the runtime's count; 1 where it offers no threads). */
static inline int p2c_sim_prange_workers(int64_t n) {
  P2cSimThread *self = p2c_sim_self;
  return self->chunk_count && self->run_chunks ? self->chunk_count(self, n, P2C_SIM_PRANGE_MAX) : 1;
}
/* Chunk c's state: the caller's, with its own memory, printf buffer, exit and poll; 0 when
 * there is no memory for them. */
static int p2c_sim_chunk_init(P2cSimChunk *k, P2cSimChunkRun *run, int c) {
  k->st = *p2c_sim_self;
  k->st.poll = p2c_sim_chunk_poll;
  k->st.exit_thread = p2c_sim_chunk_exit;
  k->st.memo = (P2cSimMemory *)calloc(1, sizeof(P2cSimMemory));
  k->st.print_buf = (char *)malloc(P2C_SIM_PRANGE_PRINT);
  k->st.print_len = 0;
  k->st.print_cap = P2C_SIM_PRANGE_PRINT;
  k->st.print_flush = p2c_sim_chunk_flush;
  k->run = run, k->c = c;
  return k->st.memo && k->st.print_buf;
}
static int p2c_sim_run_chunks(int w, void (*fn)(void *, int), void (*done)(void *, int), void *ctx) {
  P2cSimChunkRun run = {fn, done, ctx, 0, (P2cSimChunk *)calloc((size_t)w, sizeof(P2cSimChunk)), p2c_sim_self};
  P2cSimChunk *k = run.chunks;
  int raised = 0, ready = 1;
  for (int c = 0; k && c < w; c++) ready &= p2c_sim_chunk_init(&k[c], &run, c);
  if (!k || !ready) {   /* no memory for the chunks' state: the chunks run in order, as range */
    for (int c = 0; k && c < w; c++) free(k[c].st.memo), free(k[c].st.print_buf);
    free(k);
    for (int c = 0; c < w; c++) fn(ctx, c), done(ctx, c);
    return 0;
  }
  p2c_sim_self->print_flush(p2c_sim_self);   /* what the caller printed comes first */
  p2c_sim_self->run_chunks(p2c_sim_self, w, p2c_sim_chunk_run, &run);
  for (int c = 0; c < w; c++) {
    raised |= k[c].raised;
    free(k[c].st.memo);
    free(k[c].st.print_buf);
  }
  free(k);
  return raised;
}

/* ---- Sanitizer (--sanitize) ---------------------------------------------------------------- */
/* Generated code compiled with --sanitize reports every array element it touches (through the
 * code generator's p2c_san_offset), the storage of its shared and local arrays when a function
 * starts, and the Python position of each barrier and warp operation before it. The checking is
 * the runtime's (sanitize.c); the thread's identity comes from the module's own index variables,
 * which are right in every kind of entry. */
P2C_SAN_INLINE void p2c_sim_san_access(const void *p, unsigned bytes, int kind, int space,
                                      unsigned line, unsigned column, const char *name, int ndim,
                                      const long long *index) {
  P2cSimThread *self = p2c_sim_self;
  unsigned tid = p2c_sim_linear_tid(), pos = p2c_san_pos(line, column);
  if (kind == P2C_SAN_READ_INPUT) kind = P2C_SAN_READ;   /* the inputs are not apart */
  if (kind != P2C_SAN_ATOMIC && p2c_san_fast(self->san_shadow, p, bytes, kind, space, tid, pos, p2c_sim_bid))
    return;
  P2cSanAccess a = {p, bytes, kind, space, line, column, name, ndim, index, p2c_sim_tid, p2c_sim_bid,
                    tid, pos};
  self->san_access(self, &a);
}
static inline void p2c_sim_san_region(const void *p, size_t bytes, int space) {
  P2cSimThread *self = p2c_sim_self;
  self->san_region(self, p, bytes, space);
}
static inline void p2c_sim_san_fence(void) {
  P2cSimThread *self = p2c_sim_self;
  self->san_fence(self, p2c_sim_linear_tid());
}
static inline void p2c_sim_san_at(unsigned line, unsigned column) {
  p2c_sim_self->san_line = line;
  p2c_sim_self->san_column = column;
}

/* ---- Kernel entries ------------------------------------------------------------------------ */
/* The generated code ends with one entry per kernel, the one the runtime looks up for it:
 *
 *   P2C_SIM_FIBERS(name) defines void p2c_sim_thread_<name>(void **args)
 *       one simulated thread, the one whose indices are in p2c_sim_self (a fiber: kernels with
 *       barriers or warp operations, P2cKernelInfo.uses_barrier);
 *   P2C_SIM_BLOCKS(name) defines void p2c_sim_blocks_<name>(void **args, uint64_t first,
 *                                                        uint64_t count)
 *       blocks first .. first + count - 1 of the grid (linear numbers, x fastest), each thread
 *       of each block in turn, x fastest (kernels without them).
 *
 * Only one, so that the kernel's body is compiled once: a device function called once from it
 * then has one caller, and the compiler inlines it (samples/great_circle.py's haversine, which
 * two entries kept out of line). P2C_SIM_KERNEL(name) defines both, for hand-written sources
 * (tests/sim/) that launch one kernel both ways.
 *
 * `args` is cuLaunchKernel's kernelParams: args[i] points at parameter i. */

template <typename... P>
struct p2c_sim_params {};

template <typename... P>
static inline p2c_sim_params<P...> p2c_sim_params_of(void (*)(P...)) {
  return {};
}

template <typename... P>
static inline std::index_sequence_for<P...> p2c_sim_index_sequence(p2c_sim_params<P...>) {
  return {};
}

/* Reads the block's dimensions, the grid's and the math memory from the worker's state into the
 * module's variables. */
static inline void p2c_sim_load_dims(P2cSimThread *self) {
  p2c_sim_bdim = self->block_dim;
  p2c_sim_gdim = self->grid_dim;
  p2c_sim_memory = self->memo;
}

template <auto K, typename... P, size_t... I>
static inline __attribute__((always_inline)) void p2c_sim_thread_unpacked(
    void **args, p2c_sim_params<P...>, std::index_sequence<I...>) {
  P2cSimThread *self = p2c_sim_self;
  p2c_sim_load_dims(self);
  p2c_sim_bid = self->block_idx;
  p2c_sim_tid = self->thread_idx;
  K(*(P *)args[I]...);
}

/* Blocks first .. first + count - 1 of the grid (linear numbers, x fastest; y fastest with YX,
 * P2C_SIM_YX below: each number still names one block): sets blockIdx and calls
 * run_block(blockDim) for each. The walk of both entries without fibers, plain and lockstep. */
template <bool YX = false, typename F>
static inline __attribute__((always_inline)) void p2c_sim_each_block(uint64_t first, uint64_t count,
                                                                     F run_block) {
  p2c_sim_load_dims(p2c_sim_self);
  const uint3 g = p2c_sim_gdim, d = p2c_sim_bdim;
  /* the fastest dimension's index and extent, and the other's, as references into b and g */
  uint3 b = {0, 0, (unsigned)(first / g.x / g.y)};
  unsigned &fast = YX ? b.y : b.x, &slow = YX ? b.x : b.y;
  const unsigned nfast = YX ? g.y : g.x, nslow = YX ? g.x : g.y;
  fast = (unsigned)(first % nfast), slow = (unsigned)(first / nfast % nslow);
  for (uint64_t n = 0; n < count; n++) {
    p2c_sim_bid = b;
    run_block(d);
    if (++fast == nfast) {
      fast = 0;
      if (++slow == nslow) slow = 0, b.z++;
    }
  }
}

/* The order of a kernel's threads and blocks (docs/simulator.md, "Thread order"): x fastest,
 * unless P2C_SIM_YX(name) before its entry says y fastest (analysis/thread_order.c: a kernel
 * whose subscripts walk memory in order with y fastest, and whose threads cannot see the order).
 * The runtime's linear block numbers then count y fastest (p2c_sim_each_block<true>). */
template <auto K>
struct p2c_sim_order_of {
  static constexpr bool yx = false;
};
#define P2C_SIM_YX(name)                                                                       \
  template <>                                                                                  \
  struct p2c_sim_order_of<name> {                                                              \
    static constexpr bool yx = true;                                                           \
  };

/* The parameters arrive as copies (by value), so the loop reads them from registers or the
 * stack, not again through `args` after each store of the kernel. */
template <auto K, typename... P>
static inline __attribute__((always_inline)) void p2c_sim_blocks_loop(uint64_t first,
                                                                      uint64_t count, P... a) {
  if constexpr (p2c_sim_order_of<K>::yx) {
    p2c_sim_each_block<true>(first, count, [&](uint3 d) __attribute__((always_inline)) {
      for (unsigned z = 0; z < d.z; z++)
        for (unsigned x = 0; x < d.x; x++)
          for (unsigned y = 0; y < d.y; y++) {
            p2c_sim_tid = uint3{x, y, z};
            K(a...);
          }
    });
  } else {
    p2c_sim_each_block(first, count, [&](uint3 d) __attribute__((always_inline)) {
      for (unsigned z = 0; z < d.z; z++)
        for (unsigned y = 0; y < d.y; y++)
          for (unsigned x = 0; x < d.x; x++) {
            p2c_sim_tid = uint3{x, y, z};
            K(a...);
          }
    });
  }
}

template <auto K, typename... P, size_t... I>
static inline __attribute__((always_inline)) void p2c_sim_blocks_unpacked(
    void **args, uint64_t first, uint64_t count, p2c_sim_params<P...>,
    std::index_sequence<I...>);

/* Atomics on a worker's copy (docs/simulator.md, "Atomics"). A histogram's
 * `cuda.atomic.add(hist, bin, 1)` from every thread of every worker makes the cores fight over the
 * same cache lines: slower on two workers than on one. Where the analysis shows that a kernel's
 * array parameter is used only by atomic statements of one integer operation whose results are
 * not used (and by its extents), the code generator writes P2C_SIM_PRIVATE(name, op...) before
 * the kernel's entry, one op per parameter (P2C_PRIVATE_NO: no array; _SHARED: an array kept
 * shared; else the operation). The entry then gives each such array a copy on the worker's
 * stack for each chunk of blocks, filled with the operation's identity (0, all ones, the type's
 * lowest or highest value), runs the chunk with the parameter pointing at the copy, where the
 * atomics are plain updates (p2c_sim_private_update), and merges the copy's changed elements into
 * the array with one atomic each. Integer addition (wrapping), and, or, xor, max and min are
 * associative and commutative: the array ends with the same bits as with every atomic on it. An
 * array is kept shared when it overlaps another array parameter (an alias might read it), is
 * not aligned to its elements, or does not fit in what is left of P2C_SIM_PRIVATE_BYTES (the
 * merge's cost is per element of the copy, per chunk). */
enum {
  P2C_PRIVATE_NO, P2C_PRIVATE_SHARED, P2C_PRIVATE_ADD, P2C_PRIVATE_AND, P2C_PRIVATE_OR,
  P2C_PRIVATE_XOR, P2C_PRIVATE_MAX, P2C_PRIVATE_MIN,
};
template <auto K>
struct p2c_sim_private_of {
  static constexpr bool has = false;
};
#define P2C_SIM_PRIVATE(name, ...)                                                             \
  template <>                                                                                  \
  struct p2c_sim_private_of<name> {                                                            \
    static constexpr bool has = true;                                                          \
    static constexpr int ops[] = {__VA_ARGS__};                                                \
  };

/* An array parameter's bytes [lo, hi) (empty for a parameter that is no array, or an empty
 * array), and whether every element sits a whole number of elements from lo. */
struct P2cSimSpan {
  uintptr_t lo, hi;
  bool aligned;
};

template <int OP, typename A>
static inline P2cSimSpan p2c_sim_span_of(const A &a) {
  if constexpr (OP == P2C_PRIVATE_NO) {
    return {0, 0, false};
  } else {
    typedef typename std::remove_pointer<decltype(a.data)>::type T;
    const int n = (int)(sizeof a.shape / sizeof a.shape[0]);
    int64_t lo = 0, hi = (int64_t)sizeof(T);
    bool aligned = (uintptr_t)a.data % sizeof(T) == 0;
    for (int k = 0; k < n; k++) {
      if (a.shape[k] <= 0) return {0, 0, false};
      int64_t extent = (a.shape[k] - 1) * a.strides[k];
      if (extent < 0) lo += extent;
      else hi += extent;
      aligned = aligned && a.strides[k] % (int64_t)sizeof(T) == 0;
    }
    return {(uintptr_t)a.data + (uintptr_t)lo, (uintptr_t)a.data + (uintptr_t)hi, aligned};
  }
}

/* Where parameter i's copy goes in the buffer (advancing *used), or -1 when it stays shared. */
template <int OP>
static inline ptrdiff_t p2c_sim_private_place(const P2cSimSpan *spans, size_t n, size_t i, size_t *used) {
  if constexpr (OP < P2C_PRIVATE_ADD) {
    return -1;
  } else {
    const P2cSimSpan s = spans[i];
    if (!s.aligned || s.hi == s.lo) return -1;
    for (size_t j = 0; j < n; j++)
      if (j != i && spans[j].lo < s.hi && s.lo < spans[j].hi) return -1;
    size_t at = (*used + 63) & ~(size_t)63;
    if (s.hi - s.lo > P2C_SIM_PRIVATE_BYTES - at) return -1;
    *used = at + (s.hi - s.lo);
    return (ptrdiff_t)at;
  }
}

/* The value that leaves an element alone under the operation. */
template <typename T, int OP>
static constexpr T p2c_sim_private_identity(void) {
  if constexpr (OP == P2C_PRIVATE_AND) return (T)~(T)0;
  else if constexpr (OP == P2C_PRIVATE_MAX) return std::numeric_limits<T>::lowest();
  else if constexpr (OP == P2C_PRIVATE_MIN) return std::numeric_limits<T>::max();
  else return (T)0;
}

/* The parameter as the chunk sees it: pointing at its copy (filled with the identity first), or
 * unchanged. */
template <int OP, typename A>
static inline A p2c_sim_private_arg(A a, unsigned char *buf, ptrdiff_t at, P2cSimSpan s) {
  if constexpr (OP >= P2C_PRIVATE_ADD) {
    typedef typename std::remove_pointer<decltype(a.data)>::type T;
    if (at >= 0) {
      T *copy = (T *)(buf + at);
      for (size_t k = 0, n = (s.hi - s.lo) / sizeof(T); k < n; k++) copy[k] = p2c_sim_private_identity<T, OP>();
      a.data = (T *)(buf + at + ((uintptr_t)a.data - s.lo));
    }
  }
  return a;
}

/* Merges parameter a's copy into the array: one atomic per element the chunk changed. */
template <int OP, typename A>
static inline void p2c_sim_private_merge(const A &a, const unsigned char *buf, ptrdiff_t at, P2cSimSpan s) {
  if constexpr (OP >= P2C_PRIVATE_ADD) {
    typedef typename std::remove_pointer<decltype(a.data)>::type T;
    if (at < 0) return;
    const T *copy = (const T *)(buf + at);
    const T id = p2c_sim_private_identity<T, OP>();
    for (size_t k = 0, n = (s.hi - s.lo) / sizeof(T); k < n; k++) {
      T v = copy[k], *to = (T *)s.lo + k;
      if (v == id) continue;
      if constexpr (OP == P2C_PRIVATE_ADD) __atomic_fetch_add(to, v, __ATOMIC_RELAXED);
      else if constexpr (OP == P2C_PRIVATE_AND) __atomic_fetch_and(to, v, __ATOMIC_RELAXED);
      else if constexpr (OP == P2C_PRIVATE_OR) __atomic_fetch_or(to, v, __ATOMIC_RELAXED);
      else if constexpr (OP == P2C_PRIVATE_XOR) __atomic_fetch_xor(to, v, __ATOMIC_RELAXED);
      else if constexpr (OP == P2C_PRIVATE_MAX) p2c_sim_atomic_update(to, [v](T o) { return o > v ? o : v; });
      else p2c_sim_atomic_update(to, [v](T o) { return o < v ? o : v; });
    }
  }
}

/* Calls run with the kernel's parameters, read from `args`: as they are, or, for a kernel with
 * P2C_SIM_PRIVATE, with its qualifying arrays on copies for the call (above). */
template <auto K, typename... P, size_t... I, typename Run>
static inline __attribute__((always_inline)) void p2c_sim_with_params(void **args, p2c_sim_params<P...>,
                                                                      std::index_sequence<I...>, Run run) {
  if constexpr (!p2c_sim_private_of<K>::has) {
    run(*(P *)args[I]...);
  } else {
    typedef p2c_sim_private_of<K> S;
    static_assert(sizeof S::ops / sizeof S::ops[0] == sizeof...(P), "one P2C_PRIVATE_ per parameter");
    alignas(64) unsigned char buf[P2C_SIM_PRIVATE_BYTES];
    const P2cSimSpan spans[] = {p2c_sim_span_of<S::ops[I]>(*(P *)args[I])...};
    ptrdiff_t at[] = {((void)I, (ptrdiff_t)-1)...};
    size_t used = 0;
    ((at[I] = p2c_sim_private_place<S::ops[I]>(spans, sizeof...(P), I, &used)), ...);
    p2c_sim_private_at = (uintptr_t)buf;
    run(p2c_sim_private_arg<S::ops[I]>(*(P *)args[I], buf, at[I], spans[I])...);
    p2c_sim_private_at = P2C_SIM_PRIVATE_NONE;
    (p2c_sim_private_merge<S::ops[I]>(*(P *)args[I], buf, at[I], spans[I]), ...);
  }
}

/* Grid-stride loops in lockstep. A kernel without barriers whose body is a few assignments and
 * then one grid-stride loop (`for k in range(cuda.grid(1), n, cuda.gridsize(1))`) is also
 * emitted as a step function (docs/simulator.md, "Lockstep"):
 *
 *   void step(C &pos, bool first, bool &more, P... params)
 *       runs the assignments again (when `first`, also sets this thread's loop position `pos`
 *       to the range's start and returns at once if the range is empty), runs the loop's body
 *       once for `pos`, and moves `pos` one step on; `more` says whether the range goes on.
 *
 * P2C_SIM_LOCKSTEP(name, step) defines p2c_sim_blocks_<name> so that the threads of a block go
 * through the loop together: iteration 0 of every thread, then iteration 1 of every thread still
 * in the loop, and so on, as a warp does on the GPU (a legal schedule for a kernel without
 * barriers: any interleaving of its threads is). Run thread after thread, a grid-stride loop
 * makes each thread touch one element in every gridsize-th, and with a power-of-two grid those
 * elements fall in the same cache sets, so that every access misses (normalize.py's divide on
 * 2^24 elements with 4096 x 256 threads: 6x slower than a plain loop); in lockstep, the
 * threads of a block consume each cache line together. A thread whose loop goes on after its
 * first iteration keeps its position and index in a lane; the lanes still in the loop are kept
 * packed, in thread order. */
template <typename C, typename... P>
static inline p2c_sim_params<P...> p2c_sim_step_params(void (*)(C &, bool, bool &, P...)) {
  return {};
}

template <typename C>
struct p2c_sim_lockstep_lane {
  C pos;
  uint3 tid;
};

/* One block: a first round over the threads in order (x fastest), each taking a lane only if
 * its loop goes on, then rounds over the lanes, each giving every lane still in the loop one
 * step. A thread with one iteration, the usual case when the grid covers the array, never
 * touches the lanes. The step function is inlined at both calls (it is `always_inline`). */
template <auto STEP, typename C, typename... P>
static inline __attribute__((always_inline)) void p2c_sim_lockstep_block(p2c_sim_lockstep_lane<C> *lanes,
                                                                         uint3 d, P... a) {
  unsigned live = 0;
  for (unsigned z = 0; z < d.z; z++)
    for (unsigned y = 0; y < d.y; y++)
      for (unsigned x = 0; x < d.x; x++) {
        p2c_sim_tid = uint3{x, y, z};
        p2c_sim_lockstep_lane<C> lane;
        bool more = false;
        STEP(lane.pos, true, more, a...);
        if (more) lane.tid = uint3{x, y, z}, lanes[live++] = lane;
      }
  while (live) {
    unsigned kept = 0;
    for (unsigned i = 0; i < live; i++) {
      /* A copy, stepped in registers: reading the lane back whole after the step stored its
       * position would wait for that store (a wider load than the store cannot take its value
       * from the store buffer), about 15 cycles a step. */
      p2c_sim_lockstep_lane<C> lane = lanes[i];
      P2C_SIM_POLL();
      p2c_sim_tid = lane.tid;
      bool more = false;
      STEP(lane.pos, false, more, a...);
      if (more) lanes[kept++] = lane;
    }
    live = kept;
  }
}

template <auto STEP, typename C, typename... P>
static inline __attribute__((always_inline)) void p2c_sim_lockstep_loop(uint64_t first,
                                                                        uint64_t count, P... a) {
  p2c_sim_lockstep_lane<C> lanes[1024]; /* CUDA's most threads per block; sim_launch checks the limit */
  p2c_sim_each_block(first, count, [&](uint3 d) __attribute__((always_inline)) {
    p2c_sim_lockstep_block<STEP, C, P...>(lanes, d, a...);
  });
}

template <auto K, auto STEP, typename C, typename... P, size_t... I>
static inline __attribute__((always_inline)) void p2c_sim_lockstep_unpacked(
    void **args, uint64_t first, uint64_t count, void (*)(C &, bool, bool &, P...),
    std::index_sequence<I...> seq) {
  p2c_sim_with_params<K>(args, p2c_sim_params<P...>{}, seq, [&](P... a) __attribute__((always_inline)) {
    p2c_sim_lockstep_loop<STEP, C, P...>(first, count, a...);
  });
}

/* Kernels with barriers as regions (docs/simulator.md, "Regions"). The code generator cuts such a
 * kernel at its barriers and emits a block function
 *
 *   void fn(uint3 blockDim, P... params)
 *       one block: each run of statements between barriers is a call of p2c_sim_each_thread
 *       (below), the statements that hold barriers (uniform loops and conditions) run once,
 *       values crossing a barrier live in per-thread slots;
 *
 * then P2C_SIM_REGIONS(name, fn), which records fn as the kernel's (p2c_sim_regions_of<name>),
 * and P2C_SIM_BLOCKS(name), whose loop over the chunk's blocks then calls fn for each: the
 * runtime launches the kernel as one without barriers (no fibers), and tells the path by the
 * entries the module has (a kernel with barriers and no p2c_sim_thread_ entry). */
template <auto K>
struct p2c_sim_regions_of {
  static constexpr bool has = false;
};

/* The first line of a block function: blockIdx, blockDim and gridDim as constants of the
 * function (locals that hide the module's variables of those names, which the macros blockIdx,
 * blockDim and gridDim read). They do not change during a block, but the compiler cannot know:
 * a loop's poll calls the runtime, after which it would read them again, in each thread's
 * region (block_sum's grid-stride start and step: four instructions per thread). */
#define P2C_SIM_BLOCK_CONSTANTS()                                                              \
  const uint3 p2c_sim_bid = ::p2c_sim_bid, p2c_sim_bdim = ::p2c_sim_bdim,                      \
              p2c_sim_gdim = ::p2c_sim_gdim;                                                   \
  (void)p2c_sim_bid, (void)p2c_sim_bdim, (void)p2c_sim_gdim

template <typename F>
static inline __attribute__((always_inline)) void p2c_sim_each_thread(uint3 d, F body) {
  unsigned i = 0;
  for (unsigned z = 0; z < d.z; z++)
    for (unsigned y = 0; y < d.y; y++)
      for (unsigned x = 0; x < d.x; x++) {
        p2c_sim_tid = uint3{x, y, z};
        body(i++);
      }
}

/* The threads whose threadIdx.x is below `hi`, in the same order: a region that is one `if
 * threadIdx.x < U:` (the others do nothing in it; the body's index stays the linear one). */
template <typename N, typename F>
static inline __attribute__((always_inline)) void p2c_sim_each_thread_below(uint3 d, N hi, F body) {
  unsigned n = !(hi > 0) ? 0u : (unsigned long long)hi >= d.x ? d.x : (unsigned)hi;
  for (unsigned z = 0; z < d.z; z++)
    for (unsigned y = 0; y < d.y; y++) {
      unsigned row = (z * d.y + y) * d.x;
      for (unsigned x = 0; x < n; x++) {
        p2c_sim_tid = uint3{x, y, z};
        body(row + x);
      }
    }
}

/* The threads whose threadIdx.x is `at`, in order: a region that is one `if threadIdx.x == U:`. */
template <typename N, typename F>
static inline __attribute__((always_inline)) void p2c_sim_each_thread_at(uint3 d, N at, F body) {
  if (!(at >= 0) || (unsigned long long)at >= d.x) return;
  unsigned x = (unsigned)at;
  for (unsigned z = 0; z < d.z; z++)
    for (unsigned y = 0; y < d.y; y++) {
      p2c_sim_tid = uint3{x, y, z};
      body((z * d.y + y) * d.x + x);
    }
}

template <auto FN, typename... P>
static inline __attribute__((always_inline)) void p2c_sim_regions_loop(uint64_t first, uint64_t count, P... a) {
  p2c_sim_each_block(first, count, [&](uint3 d) __attribute__((always_inline)) { FN(d, a...); });
}

/* P2C_SIM_BLOCKS's body: the kernel's block function where it has one, else every thread of
 * each block in turn. */
template <auto K, typename... P, size_t... I>
static inline __attribute__((always_inline)) void p2c_sim_blocks_unpacked(
    void **args, uint64_t first, uint64_t count, p2c_sim_params<P...>,
    std::index_sequence<I...> seq) {
  p2c_sim_with_params<K>(args, p2c_sim_params<P...>{}, seq, [&](P... a) __attribute__((always_inline)) {
    if constexpr (p2c_sim_regions_of<K>::has)
      p2c_sim_regions_loop<p2c_sim_regions_of<K>::block, P...>(first, count, a...);
    else
      p2c_sim_blocks_loop<K, P...>(first, count, a...);
  });
}

/* The entries' own names all start with p2c_, which the generated code never uses for a Python
 * name (a kernel may be called `first`, `count`, `args` or `params`). */
#define P2C_SIM_FIBERS(name)                                                                   \
  P2C_SIM_ENTRY void p2c_sim_thread_##name(void **p2c_args) {                                  \
    p2c_sim_warp_mode = P2C_WARP_RENDEZVOUS; /* a block function left by a jump set no mode back */ \
    auto p2c_params = p2c_sim_params_of(name);                                                 \
    p2c_sim_thread_unpacked<name>(p2c_args, p2c_params, p2c_sim_index_sequence(p2c_params));  \
  }                                                                                            \
  P2C_SIM_REGISTER(name, P2C_SIM_KIND_FIBERS, p2c_sim_thread_##name)
#define P2C_SIM_BLOCKS(name)                                                                   \
  P2C_SIM_ENTRY void p2c_sim_blocks_##name(                                                    \
      void **p2c_args, uint64_t p2c_first, uint64_t p2c_count) {                               \
    auto p2c_params = p2c_sim_params_of(name);                                                 \
    p2c_sim_blocks_unpacked<name>(p2c_args, p2c_first, p2c_count, p2c_params,                  \
                                  p2c_sim_index_sequence(p2c_params));                         \
  }                                                                                            \
  P2C_SIM_REGISTER(name, P2C_SIM_KIND_BLOCKS, p2c_sim_blocks_##name)
#define P2C_SIM_KERNEL(name) P2C_SIM_FIBERS(name) P2C_SIM_BLOCKS(name)
/* P2C_SIM_STACK(name, bytes): the kernel's threads keep `bytes` of local arrays on their stacks
 * (on the deepest call path); the runtime sizes its fibers' stacks from p2c_sim_stack_<name>
 * (docs/simulator.md, "Blocks with barriers"). Absent: no local arrays. */
#define P2C_SIM_STACK(name, bytes)                                                             \
  P2C_SIM_ENTRY const unsigned long long p2c_sim_stack_##name = (bytes);
#define P2C_SIM_LOCKSTEP(name, step)                                                           \
  P2C_SIM_ENTRY void p2c_sim_blocks_##name(                                                    \
      void **p2c_args, uint64_t p2c_first, uint64_t p2c_count) {                               \
    p2c_sim_lockstep_unpacked<name, step>(p2c_args, p2c_first, p2c_count, step,                \
                                    p2c_sim_index_sequence(p2c_sim_step_params(step)));        \
  }                                                                                            \
  P2C_SIM_REGISTER(name, P2C_SIM_KIND_BLOCKS, p2c_sim_blocks_##name)

/* Grid regions (docs/simulator.md, "Grid regions"): a cooperative kernel whose grid syncs are
 * region boundaries too is emitted as a grid function
 *
 *   void fn(uint3 blockDim, P... params)
 *       the whole grid, once per launch on the calling worker: each run of statements between
 *       grid syncs is a phase, p2c_sim_grid_phase(lambda) below, which runs the lambda for every
 *       block of the grid on the launch's workers and returns when all have; a statement that
 *       holds a grid sync (a loop or condition the same in every block) runs once, between
 *       phases; what a block keeps across grid syncs lives in p2c_sim_grid_storage's memory;
 *
 * then P2C_SIM_GRID(name, fn), which defines p2c_sim_grid_<name>(void **args). Between phases the
 * grid level's indices are thread 0 of block 0 (grid control reads only values the same in every
 * block). */
template <typename F>
static void p2c_sim_grid_blocks(void *ctx, uint64_t first, uint64_t count) {
  const F &fn = *(const F *)ctx;
  P2cSimThread *self = p2c_sim_self;
  uint64_t b = first;
  p2c_sim_each_block(first, count, [&](uint3 d) __attribute__((always_inline)) {
    if (self->grid_dynamic_shared) self->dynamic_shared = self->grid_dynamic_shared + b * self->grid_dynamic_stride;
    F own = fn; /* the block's own copy of the grid function's variables */
    own(d, b++);
  });
}

static inline void p2c_sim_grid_level(void) {
  p2c_sim_load_dims(p2c_sim_self);
  p2c_sim_bid = uint3{0, 0, 0};
  p2c_sim_tid = uint3{0, 0, 0};
}

template <typename F>
static inline bool p2c_sim_grid_phase(F fn) {
  P2cSimThread *self = p2c_sim_self;
  bool go = self->grid_phase(self, p2c_sim_grid_blocks<F>, &fn) != 0;
  p2c_sim_grid_level();
  return go;
}

static inline bool p2c_sim_grid_storage(size_t block_bytes, size_t thread_bytes, void **blocks, void **threads) {
  P2cSimThread *self = p2c_sim_self;
  return self->grid_storage(self, block_bytes, thread_bytes, blocks, threads) != 0;
}

template <auto FN, typename... P, size_t... I>
static inline void p2c_sim_grid_unpacked(void **args, p2c_sim_params<P...>, std::index_sequence<I...>) {
  p2c_sim_grid_level();
  FN(p2c_sim_bdim, *(P *)args[I]...);
}

#define P2C_SIM_GRID(name, fn)                                                                 \
  P2C_SIM_ENTRY void p2c_sim_grid_##name(void **p2c_args) {                                    \
    auto p2c_params = p2c_sim_params_of(name);                                                 \
    p2c_sim_grid_unpacked<fn>(p2c_args, p2c_params, p2c_sim_index_sequence(p2c_params));      \
  }                                                                                            \
  P2C_SIM_REGISTER(name, P2C_SIM_KIND_GRID, p2c_sim_grid_##name)

#define P2C_SIM_REGIONS(name, fn)                                                              \
  template <>                                                                                  \
  struct p2c_sim_regions_of<name> {                                                            \
    static constexpr bool has = true;                                                          \
    static constexpr auto block = fn;                                                          \
  };

/* ---- libdevice ------------------------------------------------------------------------------ */
/* numba.cuda.libdevice's functions (src/builtins/libdevice.def), which generated code calls by
 * libdevice's C names (__nv_sin): on the GPU NVRTC links libdevice itself; here each is host C
 * of the same meaning, typed as the generated code calls it (Numba's types: unsigned values
 * travel as the signed integers of their width). docs/semantics.md ("libdevice") says which are
 * exact and which are the C library's within libdevice's error bounds.
 *
 * Exact, as the PTX instructions libdevice uses define them: the integer helpers, conversions
 * (to an integer: rounded as named, then clamped to the type's range, NaN to 0), operations
 * rounded in a named mode (_rn _rz _ru _rd, computed here in that rounding mode of the host),
 * bit casts, predicates, saturate, powi (libdevice's loop), float16 conversions, round,
 * llround, ilogb. The fast_ intrinsics are libdevice's compositions of the GPU's approximate
 * instructions (fast_expf is ex2.approx(x * log2(e)) with the product rounded to float), each
 * approximate instruction computed here to the float nearest its exact value. */
#include <fenv.h>
#include <limits>

/* v as the compiler cannot see through: it neither folds an operation on it nor moves one past
 * a change of the rounding mode (the asm reads and writes v in memory, and clobbers memory,
 * which orders it with the calls of fesetround). */
template <typename T>
static inline T p2c_nv_opaque(T v) {
  __asm__ volatile("" : "+m"(v) : : "memory");
  return v;
}
/* f() evaluated in rounding mode `mode` (FE_TONEAREST, ...); the mode is restored after. */
template <typename F>
static inline auto p2c_nv_rounded(int mode, F f) -> decltype(f()) {
  int old = fegetround();
  fesetround(mode);
  auto r = p2c_nv_opaque(f());
  fesetround(old);
  return r;
}
#define P2C_NV_IN(mode, expr) p2c_nv_rounded(mode, [&] { return expr; })
#define P2C_NV_O(v) p2c_nv_opaque(v)

/* An integral value (or NaN, or an infinity) converted to integer type I as PTX's cvt does:
 * clamped to I's range, NaN to 0. */
template <typename I>
static inline I p2c_nv_to_int(double v) {
  if (v != v) return 0;
  if (v <= (double)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
  if (v >= (double)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
  return (I)v;
}

/* The four rounding modes of libdevice's names, as the host's modes, and as the rounding of a
 * float to an integral value. */
#define P2C_NV_MODES(M) M(rn, FE_TONEAREST, nearbyint) M(rz, FE_TOWARDZERO, trunc) \
  M(ru, FE_UPWARD, ceil) M(rd, FE_DOWNWARD, floor)
#define P2C_NV_ROUNDED(m, mode, integral)                                                        \
  static inline double __nv_dadd_##m(double x, double y) { return P2C_NV_IN(mode, P2C_NV_O(x) + P2C_NV_O(y)); } \
  static inline double __nv_dmul_##m(double x, double y) { return P2C_NV_IN(mode, P2C_NV_O(x) * P2C_NV_O(y)); } \
  static inline double __nv_ddiv_##m(double x, double y) { return P2C_NV_IN(mode, P2C_NV_O(x) / P2C_NV_O(y)); } \
  static inline double __nv_drcp_##m(double x) { return P2C_NV_IN(mode, 1.0 / P2C_NV_O(x)); }            \
  static inline double __nv_dsqrt_##m(double x) { return P2C_NV_IN(mode, sqrt(P2C_NV_O(x))); }          \
  static inline double __nv_fma_##m(double x, double y, double z) {                                      \
    return P2C_NV_IN(mode, fma(P2C_NV_O(x), P2C_NV_O(y), P2C_NV_O(z)));                                 \
  }                                                                                                      \
  static inline float __nv_fadd_##m(float x, float y) { return P2C_NV_IN(mode, P2C_NV_O(x) + P2C_NV_O(y)); } \
  static inline float __nv_fsub_##m(float x, float y) { return P2C_NV_IN(mode, P2C_NV_O(x) - P2C_NV_O(y)); } \
  static inline float __nv_fmul_##m(float x, float y) { return P2C_NV_IN(mode, P2C_NV_O(x) * P2C_NV_O(y)); } \
  static inline float __nv_fdiv_##m(float x, float y) { return P2C_NV_IN(mode, P2C_NV_O(x) / P2C_NV_O(y)); } \
  static inline float __nv_frcp_##m(float x) { return P2C_NV_IN(mode, 1.0f / P2C_NV_O(x)); }             \
  static inline float __nv_fsqrt_##m(float x) { return P2C_NV_IN(mode, sqrtf(P2C_NV_O(x))); }           \
  static inline float __nv_fmaf_##m(float x, float y, float z) {                                         \
    return P2C_NV_IN(mode, fmaf(P2C_NV_O(x), P2C_NV_O(y), P2C_NV_O(z)));                                \
  }                                                                                                      \
  static inline float __nv_double2float_##m(double d) { return P2C_NV_IN(mode, (float)P2C_NV_O(d)); }   \
  static inline float __nv_int2float_##m(int i) { return P2C_NV_IN(mode, (float)P2C_NV_O(i)); }         \
  static inline float __nv_uint2float_##m(int i) { return P2C_NV_IN(mode, (float)P2C_NV_O((unsigned)i)); } \
  static inline float __nv_ll2float_##m(long long l) { return P2C_NV_IN(mode, (float)P2C_NV_O(l)); }    \
  static inline float __nv_ull2float_##m(long long l) {                                                  \
    return P2C_NV_IN(mode, (float)P2C_NV_O((unsigned long long)l));                                     \
  }                                                                                                      \
  static inline double __nv_ll2double_##m(long long l) { return P2C_NV_IN(mode, (double)P2C_NV_O(l)); } \
  static inline double __nv_ull2double_##m(long long l) {                                                \
    return P2C_NV_IN(mode, (double)P2C_NV_O((unsigned long long)l));                                   \
  }                                                                                                      \
  static inline int __nv_double2int_##m(double d) { return p2c_nv_to_int<int>(integral(d)); }           \
  static inline int __nv_double2uint_##m(double d) { return (int)p2c_nv_to_int<unsigned>(integral(d)); } \
  static inline long long __nv_double2ll_##m(double f) { return p2c_nv_to_int<long long>(integral(f)); } \
  static inline long long __nv_double2ull_##m(double f) {                                                \
    return (long long)p2c_nv_to_int<unsigned long long>(integral(f));                                   \
  }                                                                                                      \
  static inline int __nv_float2int_##m(float x) { return p2c_nv_to_int<int>(integral((double)x)); }     \
  static inline int __nv_float2uint_##m(float x) {                                                       \
    return (int)p2c_nv_to_int<unsigned>(integral((double)x));                                          \
  }                                                                                                      \
  static inline long long __nv_float2ll_##m(float f) { return p2c_nv_to_int<long long>(integral((double)f)); } \
  static inline long long __nv_float2ull_##m(float f) {                                                  \
    return (long long)p2c_nv_to_int<unsigned long long>(integral((double)f));                           \
  }
P2C_NV_MODES(P2C_NV_ROUNDED)
#undef P2C_NV_ROUNDED
#undef P2C_NV_MODES
static inline double __nv_int2double_rn(int i) { return (double)i; }
static inline double __nv_uint2double_rn(int i) { return (double)(unsigned)i; }

/* Bits of doubles and floats. */
static inline long long __nv_double_as_longlong(double x) { return __double_as_longlong(x); }
static inline double __nv_longlong_as_double(long long x) { return __longlong_as_double(x); }
static inline int __nv_float_as_int(float x) { return __float_as_int(x); }
static inline float __nv_int_as_float(int x) { return __int_as_float(x); }
static inline int __nv_double2hiint(double d) { return (int)((unsigned long long)__double_as_longlong(d) >> 32); }
static inline int __nv_double2loint(double d) { return (int)__double_as_longlong(d); }
static inline double __nv_hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)((unsigned long long)(unsigned)hi << 32 | (unsigned)lo));
}

/* float16 as its 16 bits (an int16): PTX's cvt.rn.f16.f32 (round to nearest even; overflow to
 * infinity; a NaN becomes the canonical 0x7fff) and cvt.f32.f16 (exact; a NaN becomes the
 * canonical float NaN). */
static inline short __nv_float2half_rn(float f) {
  unsigned x = (unsigned)__float_as_int(f), sign = x >> 16 & 0x8000u;
  unsigned ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return 0x7fff;
  if (ax >= 0x477ff000u) return (short)(sign | 0x7c00u);   /* rounds to 65520 or more: infinity */
  if (ax < 0x38800000u) {   /* a float16 subnormal or zero: units of 2^-24, rounded to even */
    float scaled = __int_as_float((int)ax) * 16777216.0f;   /* exact: ax < 2^-14 */
    return (short)(sign | (unsigned)nearbyintf(scaled));
  }
  unsigned mant = ax & 0x7fffffu, exp = (ax >> 23) - 112;   /* rebias 127 -> 15 */
  unsigned h = exp << 10 | mant >> 13, rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
  return (short)(sign | h);
}
static inline float __nv_half2float(short bits) {
  unsigned h = (unsigned short)bits, sign = (h & 0x8000u) << 16, e = h >> 10 & 0x1f, m = h & 0x3ffu;
  if (e == 0x1f) return m ? __int_as_float(0x7fffffff) : __int_as_float((int)(sign | 0x7f800000u));
  float mag = e == 0 ? (float)m * 5.9604644775390625e-8f : ldexpf((float)(m | 0x400u), (int)e - 25);
  return sign ? -mag : mag;
}

/* Integers: PTX's semantics at 32 or 64 bits, wrapping. */
static inline int __nv_abs(int x) { return x >= 0 ? x : (int)(0u - (unsigned)x); }
static inline long long __nv_llabs(long long x) { return x >= 0 ? x : (long long)(0ull - (unsigned long long)x); }
static inline int __nv_brev(int x) { return (int)__brev((unsigned)x); }
static inline long long __nv_brevll(long long x) { return (long long)__brevll((unsigned long long)x); }
static inline int __nv_clz(int x) { return __clz(x); }
static inline int __nv_clzll(long long x) { return __clzll(x); }
static inline int __nv_ffs(int x) { return __ffs(x); }
static inline int __nv_ffsll(long long x) { return __ffsll(x); }
static inline int __nv_popc(int x) { return __popc((unsigned)x); }
static inline int __nv_popcll(long long x) { return __popcll((unsigned long long)x); }
/* prmt.b32 with the selector's bit 3 of each nibble cleared (libdevice masks it with 0x7777):
 * byte i of the result is byte (s >> 4i) & 7 of y:x. */
static inline int __nv_byte_perm(int x, int y, int s) {
  unsigned long long v = (unsigned long long)(unsigned)y << 32 | (unsigned)x;
  unsigned r = 0;
  for (int i = 0; i < 4; i++) r |= (unsigned)(v >> (8 * ((s >> (4 * i)) & 7)) & 0xffu) << (8 * i);
  return (int)r;
}
static inline int __nv_hadd(int x, int y) { return (x & y) + ((x ^ y) >> 1); }
static inline int __nv_rhadd(int x, int y) { return (x | y) - ((x ^ y) >> 1); }
static inline int __nv_uhadd(int x, int y) { return (int)(((unsigned)x & (unsigned)y) + (((unsigned)x ^ (unsigned)y) >> 1)); }
static inline int __nv_urhadd(int x, int y) { return (int)(((unsigned)x | (unsigned)y) - (((unsigned)x ^ (unsigned)y) >> 1)); }
static inline int __nv_mul24(int x, int y) {
  int a = (int)((unsigned)x << 8) >> 8, b = (int)((unsigned)y << 8) >> 8;
  return (int)((unsigned)a * (unsigned)b);
}
static inline int __nv_umul24(int x, int y) { return (int)(((unsigned)x & 0xffffffu) * ((unsigned)y & 0xffffffu)); }
static inline int __nv_mulhi(int x, int y) { return (int)((long long)x * y >> 32); }
static inline int __nv_umulhi(int x, int y) { return (int)((unsigned long long)(unsigned)x * (unsigned)y >> 32); }
static inline long long __nv_mul64hi(long long x, long long y) { return (long long)((__int128)x * y >> 64); }
static inline long long __nv_umul64hi(long long x, long long y) {
  return (long long)((unsigned __int128)(unsigned long long)x * (unsigned long long)y >> 64);
}
/* sad: z + |x - y|, the difference taken as an unsigned 32-bit number */
static inline int __nv_sad(int x, int y, int z) {
  return (int)((unsigned)z + (x > y ? (unsigned)x - (unsigned)y : (unsigned)y - (unsigned)x));
}
static inline int __nv_usad(int x, int y, int z) {
  unsigned a = (unsigned)x, b = (unsigned)y;
  return (int)((unsigned)z + (a > b ? a - b : b - a));
}
static inline int __nv_max(int x, int y) { return x > y ? x : y; }
static inline int __nv_min(int x, int y) { return x < y ? x : y; }
static inline int __nv_umax(int x, int y) { return (unsigned)x > (unsigned)y ? x : y; }
static inline int __nv_umin(int x, int y) { return (unsigned)x < (unsigned)y ? x : y; }
static inline long long __nv_llmax(long long x, long long y) { return x > y ? x : y; }
static inline long long __nv_llmin(long long x, long long y) { return x < y ? x : y; }
static inline long long __nv_ullmax(long long x, long long y) { return (unsigned long long)x > (unsigned long long)y ? x : y; }
static inline long long __nv_ullmin(long long x, long long y) { return (unsigned long long)x < (unsigned long long)y ? x : y; }

/* Predicates, as int 0 or 1 (signbit: the sign bit). */
static inline int __nv_isinfd(double x) { return isinf(x) ? 1 : 0; }
static inline int __nv_isinff(float x) { return isinf(x) ? 1 : 0; }
static inline int __nv_isnand(double x) { return isnan(x) ? 1 : 0; }
static inline int __nv_isnanf(float x) { return isnan(x) ? 1 : 0; }
static inline int __nv_isfinited(double x) { return isfinite(x) ? 1 : 0; }
static inline int __nv_finitef(float x) { return isfinite(x) ? 1 : 0; }
static inline int __nv_signbitd(double x) { return signbit(x) ? 1 : 0; }
static inline int __nv_signbitf(float x) { return signbit(x) ? 1 : 0; }

/* The C library's functions of the same meaning (within libdevice's error bounds). */
#define P2C_NV_LIBM1(name) \
  static inline double __nv_##name(double x) { return ::name(x); } \
  static inline float __nv_##name##f(float x) { return ::name##f(x); }
#define P2C_NV_LIBM2(name) \
  static inline double __nv_##name(double x, double y) { return ::name(x, y); } \
  static inline float __nv_##name##f(float x, float y) { return ::name##f(x, y); }
P2C_NV_LIBM1(acos) P2C_NV_LIBM1(acosh) P2C_NV_LIBM1(asin) P2C_NV_LIBM1(asinh) P2C_NV_LIBM1(atan)
P2C_NV_LIBM1(atanh) P2C_NV_LIBM1(cbrt) P2C_NV_LIBM1(ceil) P2C_NV_LIBM1(cos) P2C_NV_LIBM1(cosh)
P2C_NV_LIBM1(erf) P2C_NV_LIBM1(erfc) P2C_NV_LIBM1(exp) P2C_NV_LIBM1(exp10) P2C_NV_LIBM1(exp2)
P2C_NV_LIBM1(expm1) P2C_NV_LIBM1(fabs) P2C_NV_LIBM1(floor) P2C_NV_LIBM1(j0) P2C_NV_LIBM1(j1)
P2C_NV_LIBM1(y0) P2C_NV_LIBM1(y1) P2C_NV_LIBM1(log) P2C_NV_LIBM1(log10) P2C_NV_LIBM1(log1p)
P2C_NV_LIBM1(log2) P2C_NV_LIBM1(logb) P2C_NV_LIBM1(nearbyint) P2C_NV_LIBM1(rint)
P2C_NV_LIBM1(round) P2C_NV_LIBM1(sin) P2C_NV_LIBM1(sinh) P2C_NV_LIBM1(sqrt) P2C_NV_LIBM1(tan)
P2C_NV_LIBM1(tanh) P2C_NV_LIBM1(tgamma) P2C_NV_LIBM1(trunc)
P2C_NV_LIBM2(atan2) P2C_NV_LIBM2(copysign) P2C_NV_LIBM2(fdim) P2C_NV_LIBM2(fmax) P2C_NV_LIBM2(fmin)
P2C_NV_LIBM2(fmod) P2C_NV_LIBM2(hypot) P2C_NV_LIBM2(nextafter) P2C_NV_LIBM2(pow)
P2C_NV_LIBM2(remainder)
#undef P2C_NV_LIBM1
#undef P2C_NV_LIBM2
static inline double __nv_fma(double x, double y, double z) { return fma(x, y, z); }
static inline float __nv_fmaf(float x, float y, float z) { return fmaf(x, y, z); }
static inline double __nv_jn(int n, double x) { return jn(n, x); }
static inline float __nv_jnf(int n, float x) { return jnf(n, x); }
static inline double __nv_yn(int n, double x) { return yn(n, x); }
static inline float __nv_ynf(int n, float x) { return ynf(n, x); }
static inline double __nv_ldexp(double x, int y) { return ldexp(x, y); }
static inline float __nv_ldexpf(float x, int y) { return ldexpf(x, y); }
static inline double __nv_scalbn(double x, int y) { return scalbn(x, y); }
static inline float __nv_scalbnf(float x, int y) { return scalbnf(x, y); }
/* lgamma_r: the sign goes to a local, not to the C library's global signgam (threads race on it) */
static inline double __nv_lgamma(double x) { int sign; return lgamma_r(x, &sign); }
static inline float __nv_lgammaf(float x) { int sign; return lgammaf_r(x, &sign); }
static inline double __nv_frexp(double x, int *e) { return frexp(x, e); }
static inline float __nv_frexpf(float x, int *e) { return frexpf(x, e); }
static inline double __nv_modf(double x, double *i) { return modf(x, i); }
static inline float __nv_modff(float x, float *i) { return modff(x, i); }
static inline double __nv_remquo(double x, double y, int *q) { return remquo(x, y, q); }
static inline float __nv_remquof(float x, float y, int *q) { return remquof(x, y, q); }
static inline void __nv_sincos(double x, double *s, double *c) { *s = sin(x); *c = cos(x); }
static inline void __nv_sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
/* llrint: cvt.rni.s64 (clamped, NaN 0); llround: round half away from zero, then so converted */
static inline long long __nv_llrint(double x) { return p2c_nv_to_int<long long>(nearbyint(x)); }
static inline long long __nv_llrintf(float x) { return p2c_nv_to_int<long long>(nearbyint((double)x)); }
static inline long long __nv_llround(double x) { return p2c_nv_to_int<long long>(round(x)); }
static inline long long __nv_llroundf(float x) { return p2c_nv_to_int<long long>(round((double)x)); }
/* ilogb: libdevice's values for 0 and NaN (INT_MIN) and infinities (INT_MAX) */
static inline int __nv_ilogb(double x) {
  if (isnan(x) || x == 0) return std::numeric_limits<int>::min();
  return isinf(x) ? std::numeric_limits<int>::max() : ilogb(x);
}
static inline int __nv_ilogbf(float x) { return __nv_ilogb((double)x); }
/* powi: libdevice's loop (square and multiply, the reciprocal of the product for y < 0) */
template <typename T>
static inline T p2c_nv_powi(T x, int y) {
  unsigned e = y < 0 ? 0u - (unsigned)y : (unsigned)y;
  T r = 1;
  for (;;) {
    if (e & 1u) r = r * x;
    e >>= 1;
    if (e == 0) return y < 0 ? (T)1 / r : r;
    x = x * x;
  }
}
static inline double __nv_powi(double x, int y) { return p2c_nv_powi<double>(x, y); }
static inline float __nv_powif(float x, int y) { return p2c_nv_powi<float>(x, y); }
/* saturate: clamped to [0, 1], NaN to 0 */
static inline float __nv_saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }

/* Reciprocal roots. rsqrt and rsqrtf are the GPU's approximate instructions: here the correctly
 * rounded value; frsqrt_rn is correctly rounded by definition: the float nearest 1/sqrt(x),
 * found from the double quotient and checked at the midpoints to its neighbours (m*m is exact
 * in a double, fma(m*m, x, -1) has the sign of m*m*x - 1). */
static inline float __nv_frsqrt_rn(float x) {
  if (!(x > 0.0f) || isinf(x)) return (float)(1.0 / sqrt((double)x));
  float r = (float)(1.0 / sqrt((double)x));
  double up = ((double)r + (double)nextafterf(r, INFINITY)) / 2, down = ((double)r + (double)nextafterf(r, 0.0f)) / 2;
  if (fma(up * up, (double)x, -1.0) < 0) return nextafterf(r, INFINITY);
  if (fma(down * down, (double)x, -1.0) > 0) return nextafterf(r, 0.0f);
  return r;
}
static inline double __nv_rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float __nv_rsqrtf(float x) { return __nv_frsqrt_rn(x); }
static inline double __nv_rcbrt(double x) { return 1.0 / cbrt(x); }
static inline float __nv_rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }

/* sin(pi x) and cos(pi x), reduced exactly (fmod by 2, then reflections that are exact by
 * Sterbenz's lemma) to an argument of at most 1/4, where sin and cos of pi times it are
 * accurate; exact zeros and ones at the integers and half-integers. */
static inline double __nv_sinpi(double x) {
  if (isinf(x)) return NAN;
  double a = fabs(fmod(x, 2.0)), sign = x < 0 ? -1.0 : 1.0;
  if (a >= 1.0) {
    a -= 1.0;
    sign = -sign;
  }
  if (a > 0.5) a = 1.0 - a;
  double s = a <= 0.25 ? sin(M_PI * a) : cos(M_PI * (0.5 - a));
  return s == 0 ? copysign(0.0, x) : sign * s;
}
static inline double __nv_cospi(double x) {
  if (isinf(x)) return NAN;
  double a = fabs(fmod(x, 2.0));
  if (a > 1.0) a = 2.0 - a;
  if (a == 0.5) return 0.0;
  if (a <= 0.25) return cos(M_PI * a);
  if (a < 0.75) return sin(M_PI * (0.5 - a));
  return -cos(M_PI * (1.0 - a));
}
static inline float __nv_sinpif(float x) { return (float)__nv_sinpi((double)x); }
static inline float __nv_cospif(float x) { return (float)__nv_cospi((double)x); }
static inline void __nv_sincospi(double x, double *s, double *c) { *s = __nv_sinpi(x); *c = __nv_cospi(x); }
static inline void __nv_sincospif(float x, float *s, float *c) { *s = __nv_sinpif(x); *c = __nv_cospif(x); }

/* erfcx(x) = exp(x^2) erfc(x): x^2 split into a double and its rounding error (fma) so that the
 * exponential keeps its accuracy, and past 26 (where exp(x^2) overflows) the asymptotic series
 * 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(2x^2)^2 - 15/(2x^2)^3 ...), whose terms there fall below
 * 2^-60 within 12. */
static inline double __nv_erfcx(double x) {
  if (isnan(x)) return x;
  if (x == -INFINITY) return INFINITY;
  if (x > 26.0) {
    double t = 1.0 / (2.0 * x * x), term = 1.0, sum = 1.0;
    for (int k = 1; k < 12; k++) {
      term *= -(2 * k - 1) * t;
      sum += term;
    }
    return sum / (x * 1.7724538509055160273);
  }
  double hi = x * x, lo = fma(x, x, -hi);
  return exp(hi) * (1.0 + lo) * erfc(x);
}
static inline float __nv_erfcxf(float x) { return (float)__nv_erfcx((double)x); }
/* erfcinv(y) for 0 < y < 1: Newton's method on log(erfc(x)) = log(erfcx(x)) - x^2, which stays
 * accurate where erfc(x) is subnormal; above 1 by symmetry, erfcinv(2 - y) = -erfcinv(y). */
static inline double __nv_erfcinv(double y) {
  if (!(y >= 0.0 && y <= 2.0)) return NAN;
  if (y == 0.0) return INFINITY;
  if (y == 2.0) return -INFINITY;
  if (y > 1.0) return -__nv_erfcinv(2.0 - y);
  double target = log(y), x = sqrt(fmax(-target, 0.0)) * 0.9;
  for (int i = 0; i < 100; i++) {
    double ex = __nv_erfcx(x), f = log(ex) - x * x - target, step = f * ex * 0.88622692545275801365;
    x += step;
    if (fabs(step) <= 1e-17 * fabs(x)) break;
  }
  return x;
}
/* erfinv(y): Newton's method on erf near 0, erfcinv(1 - |y|) with y's sign beyond 1/2 */
static inline double __nv_erfinv(double y) {
  if (!(fabs(y) <= 1.0)) return NAN;
  if (fabs(y) >= 0.5) return copysign(__nv_erfcinv(1.0 - fabs(y)), y);
  double x = y * 0.88622692545275801365;
  for (int i = 0; i < 50; i++) {
    double step = (erf(x) - y) * 0.88622692545275801365 * exp(x * x);
    x -= step;
    if (fabs(step) <= 1e-17 * fabs(x)) break;
  }
  return x;
}
static inline float __nv_erfinvf(float y) { return (float)__nv_erfinv((double)y); }
static inline float __nv_erfcinvf(float y) { return (float)__nv_erfcinv((double)y); }
/* normcdf(x) = erfc(-x / sqrt(2)) / 2, with the rounding error d of a = -x / sqrt(2) (of the
 * product and of 1/sqrt(2) itself) put back to first order, erfc(a + d) = erfc(a) - d 2/sqrt(pi)
 * exp(-a^2): erfc's slope, 2|a| relative, would make an error of 2^-53 in a an error of dozens
 * of ulp in the tail; normcdfinv(p) = -sqrt(2) erfcinv(2p) */
static inline double __nv_normcdf(double x) {
  const double c = 0.7071067811865476, c_lo = -4.833646656726457e-17;
  if (isinf(x)) return x > 0 ? 1.0 : 0.0;
  double a = -x * c, d = fma(-x, c, -a) - x * c_lo;
  return 0.5 * (erfc(a) - d * 1.1283791670955126 * exp(-a * a));
}
static inline float __nv_normcdff(float x) { return (float)__nv_normcdf((double)x); }
static inline double __nv_normcdfinv(double p) { return -1.41421356237309504880 * __nv_erfcinv(2.0 * p); }
static inline float __nv_normcdfinvf(float p) { return (float)__nv_normcdfinv((double)p); }

/* The fast_ intrinsics (libdevice without __CUDA_FTZ): sin.approx, cos.approx, ex2.approx,
 * lg2.approx each as the float nearest its exact value, div.approx as below, composed as libdevice
 * composes them: the products by log2(e), log2(10), ln(2) and log10(2) rounded to float, and
 * fast_tanf the quotient of the two approximations. */
static inline float p2c_nv_ex2(float x) { return exp2f(x); }
static inline float p2c_nv_lg2(float x) { return log2f(x); }
/* div.approx: x times the reciprocal of y, which is flushed to zero where it is not a normal
 * float (2^126 < |y|: the GPU's zero, or NaN for an infinite x) */
static inline float p2c_nv_div_approx(float x, float y) {
  double r = 1.0 / (double)y;
  if (fabs(r) < 0x1p-126) r = copysign(0.0, r);
  return (float)((double)x * r);
}
static inline float __nv_fast_sinf(float x) { return sinf(x); }
static inline float __nv_fast_cosf(float x) { return cosf(x); }
static inline void __nv_fast_sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
static inline float __nv_fast_tanf(float x) { return p2c_nv_div_approx(sinf(x), cosf(x)); }
static inline float __nv_fast_expf(float x) { return p2c_nv_ex2(P2C_NV_O(x * 1.44269502162933349609375f)); }
static inline float __nv_fast_exp10f(float x) { return p2c_nv_ex2(P2C_NV_O(x * 3.3219280242919921875f)); }
static inline float __nv_fast_log2f(float x) { return p2c_nv_lg2(x); }
static inline float __nv_fast_logf(float x) { return P2C_NV_O(0.693147182464599609375f * p2c_nv_lg2(x)); }
static inline float __nv_fast_log10f(float x) { return P2C_NV_O(0.30103000998497009277f * p2c_nv_lg2(x)); }
static inline float __nv_fast_powf(float x, float y) { return p2c_nv_ex2(P2C_NV_O(y * p2c_nv_lg2(x))); }
static inline float __nv_fast_fdividef(float x, float y) { return p2c_nv_div_approx(x, y); }
#undef P2C_NV_IN
#undef P2C_NV_O

/* ---- Math -------------------------------------------------------------------------------- */
/* Kernels often compute the same transcendental function of the same value in thread after
 * thread: of a kernel argument, or of a coordinate shared by a row or a column of threads (in
 * samples/great_circle.py, cos(lat0) in every thread, sin(dlon / 2) in every row, sin(dphi / 2)
 * and cos(phi2) in every column of a block). The compiler cannot hoist those calls out of the
 * loop over the threads (they sit under the kernel's bounds test), so each call site keeps its
 * recent arguments and results, per worker, in a table of P2cSimThread.memo (the C part above
 * says why its size): a call whose argument has the bits of a kept one returns that one's result
 * bits, which is exact for these pure functions (-0.0 and 0.0, or two NaNs, differ in their bits
 * and are computed apart). An entry is found by a hash of the argument's bits, in a set of two;
 * a miss computes and puts its result first in the set, the other entry going second. Each
 * entry names its site and whether the argument was a float or a double, so that sites sharing
 * a table, or one site in a template used with both types, never take each other's results.
 * A hit costs a multiplication and two or four compares; a miss, that and five stores. Only the
 * slow functions are wrapped; sqrt, fabs and the rounding functions are instructions. */

template <unsigned SITE, typename F, typename T>
static inline __attribute__((always_inline)) auto p2c_sim_memo(F f, T x) -> decltype(f(x)) {
  typedef decltype(f(x)) R;
  if constexpr (!std::is_floating_point<T>::value || sizeof(T) > 8 || sizeof(R) > 8) {
    return f(x);
  } else {
    constexpr unsigned table = SITE % P2C_SIM_MEMO_TABLES;
    constexpr unsigned tag = SITE * 2 + (sizeof(T) == 8); /* SITE >= 1: never 0 (empty) */
    unsigned long long bits = 0;
    memcpy(&bits, &x, sizeof x);
    P2cSimMemory *memory = p2c_sim_memory;
    P2cSimMemo *set =
        memory->entries + (table * P2C_SIM_MEMO_SETS + p2c_sim_memo_set(bits)) * P2C_SIM_MEMO_WAYS;
    R r;
    for (int way = 0; way < P2C_SIM_MEMO_WAYS; way++) {
      if (set[way].arg == bits && set[way].tag == tag) {
        memcpy(&r, &set[way].result, sizeof r);
        return r;
      }
    }
    r = f(x);
    for (int way = P2C_SIM_MEMO_WAYS - 1; way > 0; way--) set[way] = set[way - 1];
    set[0].arg = bits;
    set[0].result = 0;
    memcpy(&set[0].result, &r, sizeof r);
    set[0].tag = tag;
    memory->used |= 1u << table;
    return r;
  }
}

/* `fn` inside the lambda is not expanded again: a macro never expands within itself. */
#define P2C_SIM_MEMO(fn, x) p2c_sim_memo<__COUNTER__ + 1>([](auto p2c_v) { return ::fn(p2c_v); }, (x))
#define sin(x) P2C_SIM_MEMO(sin, x)
#define cos(x) P2C_SIM_MEMO(cos, x)
#define tan(x) P2C_SIM_MEMO(tan, x)
#define asin(x) P2C_SIM_MEMO(asin, x)
#define acos(x) P2C_SIM_MEMO(acos, x)
#define atan(x) P2C_SIM_MEMO(atan, x)
#define sinh(x) P2C_SIM_MEMO(sinh, x)
#define cosh(x) P2C_SIM_MEMO(cosh, x)
#define tanh(x) P2C_SIM_MEMO(tanh, x)
#define asinh(x) P2C_SIM_MEMO(asinh, x)
#define acosh(x) P2C_SIM_MEMO(acosh, x)
#define atanh(x) P2C_SIM_MEMO(atanh, x)
#define exp(x) P2C_SIM_MEMO(exp, x)
#define expm1(x) P2C_SIM_MEMO(expm1, x)
#define log(x) P2C_SIM_MEMO(log, x)
#define log2(x) P2C_SIM_MEMO(log2, x)
#define log10(x) P2C_SIM_MEMO(log10, x)
#define log1p(x) P2C_SIM_MEMO(log1p, x)
#define erf(x) P2C_SIM_MEMO(erf, x)
#define erfc(x) P2C_SIM_MEMO(erfc, x)
#define tgamma(x) P2C_SIM_MEMO(tgamma, x)
#define sinf(x) P2C_SIM_MEMO(sinf, x)
#define cosf(x) P2C_SIM_MEMO(cosf, x)
#define tanf(x) P2C_SIM_MEMO(tanf, x)
#define asinf(x) P2C_SIM_MEMO(asinf, x)
#define acosf(x) P2C_SIM_MEMO(acosf, x)
#define atanf(x) P2C_SIM_MEMO(atanf, x)
#define sinhf(x) P2C_SIM_MEMO(sinhf, x)
#define coshf(x) P2C_SIM_MEMO(coshf, x)
#define tanhf(x) P2C_SIM_MEMO(tanhf, x)
#define asinhf(x) P2C_SIM_MEMO(asinhf, x)
#define acoshf(x) P2C_SIM_MEMO(acoshf, x)
#define atanhf(x) P2C_SIM_MEMO(atanhf, x)
#define expf(x) P2C_SIM_MEMO(expf, x)
#define expm1f(x) P2C_SIM_MEMO(expm1f, x)
#define logf(x) P2C_SIM_MEMO(logf, x)
#define log2f(x) P2C_SIM_MEMO(log2f, x)
#define log10f(x) P2C_SIM_MEMO(log10f, x)
#define log1pf(x) P2C_SIM_MEMO(log1pf, x)
#define erff(x) P2C_SIM_MEMO(erff, x)
#define erfcf(x) P2C_SIM_MEMO(erfcf, x)
#define tgammaf(x) P2C_SIM_MEMO(tgammaf, x)

#endif /* __cplusplus */
#endif /* P2C_SIM_PRELUDE_H */
