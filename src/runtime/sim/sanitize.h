/* The simulator's checker (`--sanitize`, docs/simulator.md "Sanitizer"): races on shared and
 * global memory, reads of shared and local memory before any write, divergent barriers and warp
 * operations whose lanes never arrive.
 *
 * A module compiled with --sanitize reports every element access (prelude.h, P2cSanAccess);
 * the launch (launch.c) tells the checker when a block starts, when its barrier is released and
 * which lanes each warp operation released, and reports barrier and warp misuse itself. The
 * checker keeps shadow memory per element: the last write (thread, barrier epoch, warp
 * generation, Python position) and up to two reads since, so that it finds two accesses that no
 * barrier or warp operation orders whatever order the simulator happened to run them in. It
 * runs on one worker (blocks one after another), so it needs no locks. */
#ifndef P2C_RUNTIME_SIM_SANITIZE_H
#define P2C_RUNTIME_SIM_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pyk2cuda.h"
#include "runtime/sim/prelude.h"

typedef enum SimSanKind {
  SIM_SAN_SHARED_RACE,
  SIM_SAN_GLOBAL_RACE,
  SIM_SAN_UNINIT,
  SIM_SAN_BARRIER,
  SIM_SAN_WARP,
  SIM_SAN_KINDS
} SimSanKind;

enum { SIM_SAN_MAX_FINDINGS = 64 };

/* One finding. Races: the access that found the conflict (line, column, access) and the
 * earlier one it conflicts with (other_*). Uninitialized reads: the read. Barriers and warp
 * operations: the call, with `detail` saying what went wrong. */
typedef struct SimSanFinding {
  SimSanKind kind;
  unsigned line, column;
  unsigned other_line, other_column;
  int access, other_access;       /* P2C_SAN_READ, ... */
  int space;                      /* P2C_SAN_SHARED, ... */
  char name[64];                  /* the array */
  int ndim;
  long long index[8];
  uint3 thread, block, other_thread, other_block;
  char detail[200];
} SimSanFinding;

/* What a launch with the checker found: the first SIM_SAN_MAX_FINDINGS distinct findings, and
 * how many distinct findings of each kind there were in all. */
typedef struct SimSanReport {
  SimSanFinding findings[SIM_SAN_MAX_FINDINGS];
  size_t count;
  uint64_t totals[SIM_SAN_KINDS];
  bool out_of_memory;             /* the shadow memory could not grow: some accesses unchecked */
} SimSanReport;

typedef struct SimSanitizer SimSanitizer;

/* A checker, kept by its module for all its launches (its shadow pages are reused). NULL when
 * out of memory. */
SimSanitizer *sim_san_new(const P2cAllocator *alloc);
/* Starts a launch of `block_dim` threads per block over `grid_dim`: the shadow starts empty, and
 * the findings go to `report` (zeroed here). `inputs_apart`: no array argument the kernel only
 * reads shares memory with one it may write (the module then skips checking reads of the former,
 * P2C_SAN_READ_INPUT). */
void sim_san_begin(SimSanitizer *s, uint3 grid_dim, uint3 block_dim, bool inputs_apart,
                   SimSanReport *report);
/* What the module's fast path reads (P2cSimThread.san_shadow); lives as long as the checker. */
P2cSanShadow *sim_san_shadow(SimSanitizer *s);
/* Frees the checker and every shadow page. Accepts NULL. */
void sim_san_delete(SimSanitizer *s);

/* The module's hooks (P2cSimThread.san_access, san_region). */
void sim_san_access(SimSanitizer *s, const P2cSanAccess *a);
void sim_san_region(SimSanitizer *s, const void *p, size_t bytes, int space);

/* From the launch: block `linear` starts; its barrier was released; warp `warp` of the running
 * block completed an operation that orders memory (__syncwarp) with the lanes `group`. */
void sim_san_block(SimSanitizer *s, uint64_t linear);
void sim_san_barrier(SimSanitizer *s);
void sim_san_warp(SimSanitizer *s, unsigned warp, unsigned group);
/* Thread `tid` of the running block reached a threadfence: with its next atomic on global memory
 * it publishes what it (and, through the block's barriers, its block) did before, to every
 * thread that later reaches that element through an atomic of its own ("threadfence" in
 * docs/simulator.md). */
void sim_san_fence(SimSanitizer *s, unsigned tid);
/* After the last block: settles what the checker held back (reads of unwritten shared memory
 * wait for the block's next barrier, to tell them from races). */
void sim_san_finish(SimSanitizer *s);
/* Records a barrier or warp finding (kind SIM_SAN_BARRIER or SIM_SAN_WARP) at line:column, once
 * per kind and position. */
void sim_san_misuse(SimSanitizer *s, SimSanKind kind, unsigned line, unsigned column, uint3 thread,
                    uint3 block, const char *detail);

/* The number of findings, all kinds. */
uint64_t sim_san_total(const SimSanReport *r);
enum { SIM_SAN_MESSAGE_SIZE = 600 };   /* room for any finding's words */

/* One finding's words, without its position and kernel ("shared-memory race on 'c' at index 0:
 * write by thread ... and read at FILE:13:13 by thread ..."; file NULL: "<kernel>"). */
void sim_san_message(const SimSanFinding *f, const char *file, char *buf, size_t size);
/* One finding as a diagnostic line, "FILE:LINE:COL: error: " and its words, then " (kernel
 * 'K')" (file NULL: "<kernel>"; kernel NULL: no suffix). */
void sim_san_format(const SimSanFinding *f, const char *file, const char *kernel, char *buf,
                    size_t size);
/* A kind's stable name ("shared-race", "global-race", "uninitialized-read", "divergent-barrier",
 * "warp-missing-lanes"), or NULL for no kind. */
const char *sim_san_kind_name(SimSanKind kind);
/* "shared", "global" or "local" for a P2C_SAN_SHARED, ... space; "read", "write",
 * "read-modify-write" or "atomic" for a P2C_SAN_READ, ... access (static text). */
const char *sim_san_space_word(int space);
const char *sim_san_access_word(int access);
/* The summary line: "sanitize: 3 errors in kernel 'k': 1 shared-memory race, ...". */
void sim_san_summary(const SimSanReport *r, const char *kernel, char *buf, size_t size);

#endif
