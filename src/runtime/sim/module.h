/* The simulator's module object, shared by sim.c (loading) and launch.c (running). Private to
 * src/runtime/sim. */
#ifndef P2C_RUNTIME_SIM_MODULE_H
#define P2C_RUNTIME_SIM_MODULE_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "codegen/codegen.h"
#include "runtime/bounds.h"
#include "runtime/sim/fault.h"
#include "runtime/sim/lines.h"
#include "runtime/sim/prelude.h"
#include "runtime/sim/sim.h"

/* The name of the generated source in a module's work folder, and so in its line table. */
#define SIM_SOURCE_FILE P2C_SIM_SOURCE_FILE

/* Fiber stacks kept by one worker slot across launches (launch.c). */
typedef struct SimStackPool SimStackPool;
/* The module's helper threads, started at its first launch on more than one worker and kept
 * until sim_module_delete (launch.c). */
typedef struct SimHelpers SimHelpers;

struct SimModule {
  const P2cAllocator *alloc;
  void *handle;                           /* dlopen handle; NULL when the load failed */
  void (*bind)(P2cSimThread *self);       /* the module's p2c_sim_bind */
  P2cBoundsRecord *bounds;                /* its p2c_bounds_report; NULL without bounds checks */
  bool cache_hit;
  char *log;                              /* compiler output, NUL-terminated; NULL: none */
  size_t log_size;                        /* bytes allocated for log */
  char error[1024];

  pthread_mutex_t launch_lock;            /* one launch at a time */
  /* The launch holding launch_lock is inside the host's interrupt check (launch_interrupted),
   * which may run host code that launches this module again: such a launch fails at once
   * instead of waiting for a lock that its own caller holds. */
  atomic_bool in_host_check;
  _Atomic uint64_t host_checks;           /* how many such checks have begun */
  SimStackPool *pools;                    /* one per worker slot, grown on demand */
  size_t pool_count;
  SimHelpers *helpers;                    /* NULL until a launch needs them */
  struct SimSanitizer *san;               /* --sanitize's checker, made at its first launch */
  SimAltStack altstack;                   /* the launching thread's signal stack, when it has none */
  char fault[512];                        /* after a kernel faulted: why; then no more launches */
  SimFaultReport fault_at;                /* and where, as far as known */
  SimLines lines;                         /* the object's line table (lines.h); empty: none */
  /* The request's map from the source's lines to Python lines (SimLoadRequest) */
  const uint32_t *python_lines;
  size_t python_line_count;
  const char *python_file;
  /* dlsym's answers, kept (sim.c, sim_module_symbol); allocated with the module, so that a
   * lookup through a const SimModule may fill it. */
  struct SimSymbolMemo *symbols;
};

/* dlsym for a function: ISO C has no cast from an object pointer to a function pointer. Cast
 * the result to the function's type. */
typedef void (*SimFn)(void);
static inline SimFn sim_dlsym_fn(void *handle, const char *name) {
  void *p = dlsym(handle, name);
  SimFn f;
  memcpy(&f, &p, sizeof f);
  return f;
}

/* Stops and joins the helper threads and frees the fiber stacks of all worker slots
 * (launch.c). */
void sim_release_workers(SimModule *m);

#endif
