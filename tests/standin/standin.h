/* The CUDA driver stand-in (tests/standin, docs/runtime.md "The driver stand-in"): the state the
 * files of libcuda.so.1 share. Private to this folder.
 *
 * One process-wide state (a driver is process-wide: every dlopen of libcuda.so.1 hands back the
 * same library and its state), guarded by one mutex: every entry point takes it, so the stand-in
 * is thread-safe and runs one thing at a time (it models no concurrency).
 *
 * Files: driver.c (initialization, devices, errors, contexts, leak report), memory.c (device
 * arena, copies, pinned and registered host memory), module.c (PTX and CUBIN, functions,
 * launches), queue.c (streams, events, and running queued work through the simulator). */
#ifndef P2C_STANDIN_H
#define P2C_STANDIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

/* CUresult values, as cuda.h numbers them. */
enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_UNKNOWN = 999,
};

/* The modelled device (an H200's figures; docs/runtime.md). */
enum {
  SI_MAX_DEVICES = 8,
  SI_SM_COUNT = 132,
  SI_MAX_THREADS = 1024,
  SI_SHARED_DEFAULT = 48 * 1024,
  SI_SHARED_OPTIN = 227 * 1024,
  SI_SHARED_PER_SM = 228 * 1024,
  SI_THREADS_PER_SM = 2048,
  SI_BLOCKS_PER_SM = 32,
  SI_PARAM_BYTES = 32764,
  SI_ALIGN = 256, /* cuMemAlloc's alignment */
};

typedef struct SiCtx SiCtx;
typedef struct SiStream SiStream;
typedef struct SiEvent SiEvent;
typedef struct SiModule SiModule;
typedef struct SiFunction SiFunction;
typedef struct SiWork SiWork;

/* A device allocation (or, with `pinned`, page-locked host memory): device ones live in the
 * arena, inaccessible (PROT_NONE) except while the stand-in copies or runs a kernel. */
typedef struct SiAlloc {
  SiCtx *ctx;
  unsigned char *ptr; /* what cuMemAlloc returned: the end of its pages, SI_ALIGN-aligned */
  size_t size;
  unsigned char *pages; /* the page-aligned start of the pages holding it */
  size_t pages_len;
  bool pinned;       /* cuMemHostAlloc (host memory, always accessible) */
  bool registered;   /* cuMemHostRegister (the caller's memory; `flags` kept) */
  bool global;       /* a module's __device__ variable (in the simulator's module) */
  bool stream_ordered; /* cuMemAllocAsync: cuMemFree does not wait for the context */
  SiModule *module;  /* the module of a global */
  unsigned flags;
} SiAlloc;

/* One queued operation of a stream, and what it waits for. */
typedef struct SiDep {
  SiStream *stream;
  uint64_t seq; /* that stream's work up to this number must be done */
} SiDep;

typedef enum { WORK_COPY, WORK_SET, WORK_KERNEL, WORK_RECORD, WORK_WAIT, WORK_FREE } SiWorkKind;

struct SiWork {
  SiWorkKind kind;
  uint64_t seq;
  SiWork *next;
  SiDep *deps;
  size_t dep_count;
  /* copy / set: dst and src are host addresses of either side (device addresses are host
   * addresses in the arena); `staging` is a pageable source copied at the call; free: dst is
   * the allocation cuMemFreeAsync frees */
  unsigned char *dst;
  const unsigned char *src;
  size_t bytes;
  unsigned char value;
  unsigned char *staging;
  /* kernel */
  SiFunction *fn;
  uint32_t grid[3], block[3], shared;
  bool cooperative;
  unsigned char *params; /* the parameters' bytes, copied at the launch */
  void **args;
  /* record */
  SiEvent *event;
};

struct SiStream {
  SiCtx *ctx;
  unsigned flags; /* CU_STREAM_NON_BLOCKING = 1 */
  bool destroyed;
  bool per_thread;  /* CU_STREAM_PER_THREAD's stream of thread `owner`, made at its first use */
  pthread_t owner;
  uint64_t tail;  /* seq of the last work queued here (0: none) */
  SiWork *head, *last;
  SiStream *next; /* the context's list */
};

struct SiEvent {
  SiCtx *ctx;
  unsigned flags;
  bool destroyed, recorded, done;
  SiStream *stream;
  uint64_t seq;
  double ms; /* wall clock when reached */
  SiEvent *next;
};

/* One `.entry` of a module: its name and parameter sizes, from the PTX or the CUBIN. */
typedef struct SiEntry {
  char *name;
  size_t param_count;
  uint32_t *param_sizes;
  uint32_t static_shared;
  uint32_t max_threads;   /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: .maxntid's product, else the device's */
} SiEntry;

struct SiFunction {
  SiModule *module;
  SiEntry *entry;
  int max_dynamic_shared; /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  SiFunction *next;
};

struct SiModule {
  SiCtx *ctx;
  SiEntry *entries;
  size_t entry_count;
  SiFunction *functions; /* looked up so far */
  char *source;          /* attached with p2cStandinAttachSource; NULL: none */
  size_t source_len;
  struct SimModule *sim; /* compiled at the first launch that runs */
  bool sim_failed;
  SiModule *next;
};

struct SiCtx {
  int device;
  bool primary;
  bool active;      /* retained (primary) or created, and not destroyed */
  int refs;         /* primary: cuDevicePrimaryCtxRetain count */
  unsigned flags;
  CUresult sticky;  /* a fault poisons the context until it is reset (as on hardware) */
  uint64_t seq;     /* numbers the work queued in this context */
  SiStream null_stream; /* the legacy default stream */
  SiStream *streams;
  SiEvent *events;
  SiModule *modules;
  SiCtx *next;      /* created (non-primary) contexts */
};

/* The whole driver. */
typedef struct SiState {
  pthread_mutex_t lock;
  bool initialized;
  bool forked;       /* this process is a child forked after cuInit */
  int devices;       /* PYK2CUDA_STANDIN_DEVICES, default 2 */
  int version;       /* PYK2CUDA_STANDIN_DRIVER_VERSION, default 13000 */
  SiCtx primary[SI_MAX_DEVICES];
  SiCtx *created;
  SiAlloc *allocs;   /* live allocations and registrations */
  size_t alloc_count, alloc_cap;
  unsigned char *arena; /* reserved PROT_NONE, bump-allocated, never reused */
  size_t arena_size, arena_used;
  size_t device_used[SI_MAX_DEVICES];
  unsigned long long kernels_run; /* launches run to their end, for PYK2CUDA_STANDIN_COUNT */
  uint64_t seed;     /* PYK2CUDA_STANDIN_SEED: nonzero runs independent streams in a seeded order */
  unsigned kernel_ms; /* PYK2CUDA_STANDIN_KERNEL_MS: each kernel run takes at least this long */
  unsigned no_pools;  /* PYK2CUDA_STANDIN_NO_MEMORY_POOLS: bit d set, device d has no memory pools */
} SiState;

/* The state, initialized on first use (driver.c). */
SiState *si_state(void);
/* Takes and drops the state's lock. */
void si_lock(void);
void si_unlock(void);

/* CUDA_SUCCESS when calls may proceed; CUDA_ERROR_NOT_INITIALIZED before cuInit and in a child
 * forked after it (as a Linux driver's child is refused). */
CUresult si_ready(void);

/* Every entry point's body: the call under the lock, refused when si_ready says so. */
#define SI_ENTRY(expr)                            \
  do {                                            \
    si_lock();                                    \
    CUresult si_entry_rc_ = si_ready();           \
    if (si_entry_rc_ == CUDA_SUCCESS) si_entry_rc_ = (expr); \
    si_unlock();                                  \
    return si_entry_rc_;                          \
  } while (0)

/* The calling thread's current context, NULL when none (driver.c). */
SiCtx *si_current(void);
/* CUDA_SUCCESS with *out the current context when the driver is initialized and a live context
 * is current; else the error the call returns (its sticky error included when `sticky`). */
CUresult si_need_ctx(SiCtx **out, bool sticky);
/* Says on stderr why a call failed where the CUresult alone would not (the stand-in is a test
 * double: its messages are for the person reading the test's log). */
void si_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double si_now_ms(void);

/* memory.c */
SiAlloc *si_find(const void *p, size_t bytes); /* the live allocation holding [p, p+bytes) */
bool si_is_pinned(const void *p, size_t bytes);
void si_open_device(SiCtx *ctx, bool open);   /* every device allocation of ctx RW, or none */
void si_open_range(SiAlloc *a, bool open);
void si_free_ctx_memory(SiCtx *ctx, bool report, FILE *leaks);
bool si_arena_holds(const void *p);
CUresult si_run_copy(SiWork *w);
void si_run_free(SiWork *w);                  /* a queued cuMemFreeAsync reached (or dropped) */
CUresult si_add_global(SiModule *m, void *p, size_t bytes);
void si_remove_globals(const SiModule *m);
size_t si_device_memory(void);
/* Whether device `device` is modelled without memory pools (PYK2CUDA_STANDIN_NO_MEMORY_POOLS):
 * MEMORY_POOLS_SUPPORTED 0, cuMemAllocAsync refused with CUDA_ERROR_NOT_SUPPORTED. */
bool si_no_pools(int device);
CUresult si_arena_init(SiState *s);

/* queue.c */
CUresult si_enqueue(SiCtx *ctx, SiStream *stream, SiWork *w);
CUresult si_drain_ctx(SiCtx *ctx);            /* everything queued in ctx */
CUresult si_drain_stream(SiStream *s, uint64_t upto);
SiStream *si_stream_of(SiCtx *ctx, void *handle, CUresult *rc);
void si_free_ctx_queues(SiCtx *ctx, FILE *leaks);
void si_work_free(SiWork *w);

/* module.c */
void si_free_ctx_modules(SiCtx *ctx, FILE *leaks);
CUresult si_run_kernel(SiWork *w);

#endif
