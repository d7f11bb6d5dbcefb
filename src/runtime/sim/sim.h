/* The CPU simulator: runs the generated CUDA C on the host (`--device sim`).
 *
 * sim_module_load compiles the CUDA C text with the host C++ compiler and a prelude that defines
 * the CUDA built-ins (prelude.h), caches the shared object, and loads it with dlopen.
 * sim_launch runs one kernel over a grid: blocks go to a pool of worker threads; the threads of a
 * block run one after another, or as fibers that switch at __syncthreads() when the kernel uses
 * barriers. See docs/simulator.md.
 *
 * A SimModule is used by one launch at a time (launches on one module are serialized); separate
 * modules share nothing. A launch makes sure that the process's SIGSEGV and SIGBUS handler is the
 * simulator's, which catches a kernel's faults and passes every other fault on to the handler
 * installed before it (fault.h; docs/simulator.md, "Faults"). The simulator never prints and never exits: failures are statuses with
 * a message, and the host compiler's output is kept as a log. */
#ifndef P2C_RUNTIME_SIM_H
#define P2C_RUNTIME_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pyk2cuda.h"

typedef struct SimModule SimModule;

typedef struct SimDim3 {
  uint32_t x, y, z;
} SimDim3;

typedef struct SimLoadRequest {
  const char *source;            /* the generated CUDA C (docs/generated-code.md) */
  size_t source_len;
  /* The host C++ compiler and any extra arguments, split at spaces (no quoting).
   * NULL: $PYK2CUDA_CXX, else "c++". */
  const char *cxx;
  /* Where compiled modules are cached (a sim/ folder is made inside). NULL: $PYK2CUDA_CACHE_DIR,
   * else $XDG_CACHE_HOME/pyk2cuda, else $HOME/.cache/pyk2cuda. */
  const char *cache_dir;
  bool no_cache;                 /* neither read nor write the cache */
  /* Only look in the cache: a module that is not there is not compiled, and the load returns
   * P2C_ERR_SIM with *out NULL (what the first tier of host functions asks first) */
  bool cache_only;
  const P2cAllocator *allocator; /* NULL: malloc; must outlive the module */
  P2cInterruptFn interrupt;      /* asked while the compiler runs (p2c_compiler_set_interrupt) */
  void *interrupt_userdata;
  /* Where `source` came from, so that a fault can name its line: python_lines[i] is the Python
   * line of the source's line i + 1 (0: none), for python_line_count lines, in python_file. NULL:
   * a fault names no Python line. Both must outlive the module (they are not copied). */
  const uint32_t *python_lines;
  size_t python_line_count;
  const char *python_file;
} SimLoadRequest;

/* Compiles and loads `req->source`. Status: P2C_OK; P2C_ERR_SIM when the host compiler fails
 * or cannot be run, or the result does not load; P2C_ERR_INTERRUPTED when req->interrupt said
 * so while the compiler ran (its process group is ended, the work folder removed); P2C_ERR_IO when no temporary folder can be
 * written; P2C_ERR_USAGE for a request without source; P2C_ERR_NOMEM.
 * On every status but P2C_ERR_USAGE and P2C_ERR_NOMEM, *out receives a module (owned by the
 * caller, released with sim_module_delete) holding the compiler's log and, after a failure, the
 * message (sim_module_error); only a module loaded with P2C_OK can launch. Otherwise *out is NULL.
 * An unusable cache folder is not an error: the module is then built in a temporary folder. */
P2cStatus sim_module_load(const SimLoadRequest *req, SimModule **out);

/* Unloads the module and frees its fiber stacks. Accepts NULL. Must not race a launch. */
void sim_module_delete(SimModule *m);

/* True when the module came from the cache, without running the compiler. */
bool sim_module_cache_hit(const SimModule *m);
/* The host compiler's output (warnings, errors), "" when it printed nothing or did not run.
 * Owned by the module. */
const char *sim_module_log(const SimModule *m);
/* Why the load failed, "" after success. Owned by the module. */
const char *sim_module_error(const SimModule *m);
/* The address of symbol `name` in a loaded module (dlsym), NULL when it has none: which entry
 * a kernel has (p2c_sim_thread_<symbol> or p2c_sim_blocks_<symbol>), or a __device__ variable's
 * storage. For the CUDA driver stand-in (tests/standin), which runs kernels through the module. */
void *sim_module_symbol(const SimModule *m, const char *name);
/* The address of symbol `prefix` `symbol` (sim_module_symbol of the two joined), answered from
 * the module's memo without formatting the name once it was asked: what a launch asks for its
 * kernel ("p2c_sim_blocks_", "k"). `prefix` must be a string of static storage (a literal): the
 * memo keeps the pointer. */
void *sim_module_symbol_of(const SimModule *m, const char *prefix, const char *symbol);
/* Whether the module runs kernel `symbol` (a kernel with barriers) as regions, without fibers:
 * it has p2c_sim_blocks_<symbol> and no p2c_sim_thread_<symbol> (docs/simulator.md, "Regions").
 * sim_launch then runs it as a kernel without barriers, whatever SimLaunch.uses_barrier says. */
bool sim_kernel_has_regions(const SimModule *m, const char *symbol);
/* Whether the module runs kernel `symbol` as grid regions: a cooperative kernel cut at its grid
 * syncs too (p2c_sim_grid_<symbol>; docs/simulator.md, "Grid regions"), which runs a grid of any
 * size whose memory kept across grid syncs fits (not only the blocks the fibers run at once:
 * sim_max_cooperative_blocks does not apply to it). */
bool sim_kernel_has_grid_regions(const SimModule *m, const char *symbol);

/* What a launch that faulted knows of where, as data (docs/simulator.md, "Faults"). */
typedef struct SimFaultReport {
  uint32_t source_line;   /* the line of the module's source whose code faulted; 0: not known
                           * (code of the prelude, libm or libc; a module without line tables) */
  uint32_t python_line;   /* its Python line (SimLoadRequest.python_lines); 0: not known */
} SimFaultReport;

typedef struct SimLaunch {
  const char *symbol;            /* P2cKernelInfo.symbol: the entries are p2c_sim_thread_<symbol>
                                  * and p2c_sim_blocks_<symbol> (prelude.h) */
  SimDim3 grid, block;
  uint32_t dynamic_shared_bytes; /* p2c_dynamic_shared storage per block */
  void **args;                   /* as cuLaunchKernel's kernelParams */
  bool uses_barrier;             /* P2cKernelInfo.uses_barrier: a block's threads are fibers
                                    (barriers and warp operations need them) */
  bool cooperative;              /* P2cKernelInfo.cooperative (cuda.cg.this_grid): every block
                                    runs at once, on a worker of its own, so that a grid sync can
                                    wait for all of them; at most sim_max_cooperative_blocks */
  unsigned threads;              /* worker threads; 0: $PYK2CUDA_SIM_THREADS, else the number of
                                  * CPUs this process may use; with uses_barrier, at most 16,384
                                  * fibers in all (SIM_MAX_FIBERS, launch.c) */
  size_t stack_bytes;            /* stack of each fiber (uses_barrier); 0: from the kernel's
                                  * P2C_SIM_STACK (its local arrays + 64 KiB), else 64 KiB */
  char *errbuf;                  /* receives a message on failure; may be NULL */
  size_t errbuf_size;
  /* With P2C_ERR_BOUNDS, receives the module's bounds record (runtime/bounds.h); may be NULL. */
  struct P2cBoundsRecord *bounds;
  /* With P2C_ERR_ILLEGAL_ADDRESS, receives where the kernel faulted (for a launch refused after
   * an earlier fault: where that one faulted); may be NULL. */
  SimFaultReport *fault;
  /* Non-NULL: the module was compiled with --sanitize, and the launch runs its checker
   * (sanitize.h) on one worker; the findings go here. */
  struct SimSanReport *sanitize;
  bool sanitize_inputs_apart;    /* with it: see sim_san_begin */
  /* Asked by the calling thread's worker between its runs of blocks, at most every 20 ms; true
   * stops the launch with P2C_ERR_INTERRUPTED (p2c_compiler_set_interrupt). */
  P2cInterruptFn interrupt;
  void *interrupt_userdata;
} SimLaunch;

/* Runs one kernel and returns when every block has finished or the launch stopped on an error.
 * Status: P2C_OK; P2C_ERR_BOUNDS when a module compiled with bounds checks found an index out of
 * bounds (the first failure is in l->bounds; the thread that found it stopped, and with it the
 * launch); P2C_ERR_SANITIZE when l->sanitize is set and the checker found anything (in
 * l->sanitize; the launch ran to its end); P2C_ERR_SIM for a launch made while a launch of the same module runs the host's interrupt check
 * and stays in it for a 50 ms wait (its host code, a signal handler, made this launch: waiting
 * would never end), a bad launch configuration, an unknown kernel, a module that
 * did not load, __syncthreads() reached by only part of a block, a barrier in a kernel launched
 * without uses_barrier, or no memory for fiber stacks; P2C_ERR_INTERRUPTED when l->interrupt
 * said so (after the blocks running then have finished); P2C_ERR_ILLEGAL_ADDRESS when a simulated
 * thread faulted (SIGSEGV or SIGBUS: a wild index, a fiber's stack overflowed): the message names
 * the kernel, the thread (with barriers) or its worker's blocks (without), and the address; the
 * launch stopped as for any error, and the module refuses every later launch with the same
 * status, as a CUDA context does after CUDA_ERROR_ILLEGAL_ADDRESS (delete it and load it again);
 * P2C_ERR_NOMEM; P2C_ERR_USAGE when m or l is NULL. The message goes to l->errbuf. l->args must match the kernel's parameters (nothing
 * can check them). Kernel output (printf) goes to the process's stdout. Launches on one module
 * are serialized; launches on different modules may run at the same time. */
P2cStatus sim_launch(SimModule *m, const SimLaunch *l);

/* The most blocks of `block_threads` threads a cooperative launch may have: each block takes a
 * worker (an OS thread) and each thread a fiber for the whole launch, so both are bounded
 * (SIM_MAX_COOPERATIVE_BLOCKS and SIM_MAX_COOPERATIVE_THREADS in launch.c, docs/simulator.md).
 * What Numba's max_cooperative_grid_blocks(blockdim) answers on the simulator. */
uint32_t sim_max_cooperative_blocks(uint32_t block_threads);
/* The most threads a block of the simulator's launches may have (CUDA's 1024). */
uint32_t sim_max_block_threads(void);

/* Calls fn(args) on the calling thread, catching a memory fault of its code as a launch catches
 * a kernel's (fault.h): P2C_OK, or P2C_ERR_ILLEGAL_ADDRESS with the address in errbuf, or
 * P2C_ERR_INTERRUPTED when the code called sim_call_leave. For host code that no SimModule holds:
 * the first tier's functions (api/host_tier.c). */
P2cStatus sim_call_caught(void (*fn)(void **), void **args, const char *name, char *errbuf, size_t errbuf_size);
/* Ends the sim_call_caught running on this thread at once (from code it called). */
void sim_call_leave(void) __attribute__((noreturn));

/* The chunks of a prange loop of n iterations, at most max: the workers of a launch
 * ($PYK2CUDA_SIM_THREADS, else the CPUs), no more than the iterations, at least 1. Both tiers of a
 * host function cut its loops so (host_tier.c), and so add a reduction's values in one order. */
int sim_prange_workers(int64_t n, int max);
/* The number of CPUs this process may run on (at least 1). */
unsigned sim_cpu_count(void);

/* The text of prelude.h, generated at build time (prelude_text.c). */
extern const char sim_prelude_text[];
extern const size_t sim_prelude_size;

#endif
