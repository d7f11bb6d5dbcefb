/* Theoretical occupancy: how many blocks of a kernel one multiprocessor holds at once, for an
 * architecture, a block size and the kernel's registers, shared memory and barriers, and which
 * resource limits it. The rules are the CUDA occupancy calculator's (cuda_occupancy.h,
 * cudaOccMaxActiveBlocksPerMultiprocessor) with the default carveout and no partitioned global
 * caching; the per-architecture limits are one table in occupancy.c. No GPU is asked. */
#ifndef P2C_EXPLORE_OCCUPANCY_H
#define P2C_EXPLORE_OCCUPANCY_H

#include <stdbool.h>
#include <stdint.h>

/* One architecture's limits (occupancy.c says where each figure comes from). */
typedef struct OccArch {
  const char *name;              /* "sm_90" */
  int major, minor;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int max_threads_per_block;
  int regs_per_sm, regs_per_block, max_regs_per_thread, reg_granularity, sub_partitions;
  uint32_t smem_per_sm;          /* the largest carveout, bytes */
  uint32_t smem_per_block;       /* without opting in (48 KiB) */
  uint32_t smem_per_block_optin; /* the most a kernel may opt in to */
  uint32_t smem_reserved;        /* the driver's per-block reservation (1 KiB from sm_80) */
  uint32_t smem_granularity;
  int barriers_per_block_slot;   /* named barriers available per resident block (Hopper) */
} OccArch;

/* What limits the blocks per SM: a bit per limit that equals the result (several may). The
 * calculator's own limitingFactors keeps the bits set before its barrier limit (Hopper) lowers
 * the result; these name only the limits that give it. */
enum {
  OCC_BY_WARPS = 1,
  OCC_BY_REGISTERS = 2,
  OCC_BY_SHARED = 4,
  OCC_BY_BLOCKS = 8,
  OCC_BY_BARRIERS = 16,
};

typedef struct OccKernel {
  int regs;                 /* registers per thread, as ptxas reports them */
  uint32_t static_smem;     /* __shared__ bytes, as ptxas reports them */
  uint32_t dynamic_smem;    /* the launch's dynamic shared memory */
  int barriers;             /* named barriers used, as ptxas reports them */
  int block_threads;        /* threads per block */
} OccKernel;

typedef struct Occupancy {
  int blocks_per_sm;        /* the result: resident blocks per SM (0: the block cannot run) */
  int warps_per_sm, max_warps_per_sm;
  double fraction;          /* warps_per_sm / max_warps_per_sm */
  unsigned limiters;        /* OCC_BY_* */
  int limit_warps, limit_regs, limit_smem, limit_blocks, limit_barriers;   /* INT_MAX: none */
  uint32_t smem_per_block;  /* allocated per block: static + dynamic + reserved, rounded */
  const char *why_none;     /* when blocks_per_sm is 0: the reason, static text; else NULL */
} Occupancy;

/* The row for "sm_XY" (a suffix 'a' or 'f' names the same row), or NULL for an architecture
 * the table does not have. Static storage. */
const OccArch *occ_arch(const char *name);
/* The i-th row (0, 1, ...) or NULL past the last. */
const OccArch *occ_arch_at(int i);
/* Computes k's occupancy on a. */
Occupancy occ_compute(const OccArch *a, const OccKernel *k);
/* The limiters' names, "registers, shared memory", written into buf (NUL-terminated). */
void occ_limiters_text(unsigned limiters, char *buf, int cap);

#endif
