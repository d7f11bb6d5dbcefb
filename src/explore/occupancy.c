/* Theoretical occupancy from the CUDA occupancy calculator's rules, for the architectures in one
 * table. Each rule below is the one cuda_occupancy.h (CUDA 13.0,
 * cudaOccMaxActiveBlocksPerMultiprocessor) applies, with the state a pyk2cuda launch has: the
 * default shared-memory carveout (cudaSharedmemCarveoutDefault: the SM's largest shared-memory
 * size), no partitioned global caching (Maxwell and Pascal only), and a kernel that opts in to
 * the dynamic shared memory it is launched with (the runtime sets
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, so the per-block limit is the opt-in one once
 * a block needs more than 48 KiB). tests/unit/test_occupancy.c checks a table of cases, and
 * tests/unit/occupancy_oracle.cc every case of a grid against cuda_occupancy.h itself when the
 * CUDA toolkit's header is installed. */
#include "explore/occupancy.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The limits per architecture. Sources:
 *  - threads, blocks and registers per SM, registers per block and shared memory per SM and per
 *    block: the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
 *    (CUDA 13.0): sm_75 1024 threads, 16 blocks, 64 KiB; sm_80 and sm_87 2048 threads, 164 KiB,
 *    163 KiB opt-in; sm_86 and sm_89 1536 threads, 100 KiB, 99 KiB opt-in; sm_90 2048 threads,
 *    228 KiB, 227 KiB opt-in; 64 K registers per SM and per block; 48 KiB per block without
 *    opting in; 1,024 threads per block; "1 KB of shared memory is reserved for system use" per
 *    block from compute capability 8.0 (cudaDevAttrReservedSharedMemoryPerBlock);
 *  - blocks per SM (sm_80 32, sm_86 and sm_87 16, sm_89 24, sm_90 32, sm_75 16), registers per
 *    thread (256: cudaOccRegAllocationMaxPerThread), register granularity (256 per warp),
 *    sub-partitions (4), shared-memory granularity (256 bytes on sm_75, 128 from sm_80) and the
 *    barriers per resident block on Hopper (2, cudaOccMaxBlocksPerSMBlockBarrierLimit):
 *    cuda_occupancy.h. */
static const OccArch table[] = {
    {"sm_75", 7, 5, 1024, 16, 1024, 65536, 65536, 256, 256, 4, 64 << 10, 48 << 10, 64 << 10, 0, 256, 0},
    {"sm_80", 8, 0, 2048, 32, 1024, 65536, 65536, 256, 256, 4, 164 << 10, 48 << 10, 163 << 10, 1024, 128, 0},
    {"sm_86", 8, 6, 1536, 16, 1024, 65536, 65536, 256, 256, 4, 100 << 10, 48 << 10, 99 << 10, 1024, 128, 0},
    {"sm_87", 8, 7, 2048, 16, 1024, 65536, 65536, 256, 256, 4, 164 << 10, 48 << 10, 163 << 10, 1024, 128, 0},
    {"sm_89", 8, 9, 1536, 24, 1024, 65536, 65536, 256, 256, 4, 100 << 10, 48 << 10, 99 << 10, 1024, 128, 0},
    {"sm_90", 9, 0, 2048, 32, 1024, 65536, 65536, 256, 256, 4, 228 << 10, 48 << 10, 227 << 10, 1024, 128, 2},
};
enum { WARP = 32, ARCH_COUNT = sizeof table / sizeof table[0] };

const OccArch *occ_arch(const char *name) {
  for (int i = 0; i < ARCH_COUNT; i++) {
    size_t n = strlen(table[i].name);
    if (strncmp(name, table[i].name, n) == 0 &&
        (name[n] == '\0' || ((name[n] == 'a' || name[n] == 'f') && name[n + 1] == '\0')))
      return &table[i];
  }
  return NULL;
}

const OccArch *occ_arch_at(int i) { return i >= 0 && i < ARCH_COUNT ? &table[i] : NULL; }

/* Integer helpers, as cuda_occupancy.h's __occDivideRoundUp, __occRoundUp, __occMin. */
static int div_up(int x, int y) { return (x + y - 1) / y; }
static int round_up(int x, int y) { return y * div_up(x, y); }
static int min_int(int a, int b) { return a < b ? a : b; }

/* Warp slots (cudaOccMaxBlocksPerSMWarpsLimit): no block above the block limit. */
static int warps_limit(const OccArch *a, int block) {
  if (block > a->max_threads_per_block) return 0;
  return (a->max_threads_per_sm / WARP) / div_up(block, WARP);
}

/* Registers (cudaOccMaxBlocksPerSMRegsLimit): allocated per warp in units of the granularity,
 * warps placed per sub-partition; the hardware's per-block check rounds the warps up to the
 * sub-partitions. */
static int regs_limit(const OccArch *a, int regs, int block) {
  int warps = div_up(block, WARP);
  int per_warp = round_up(regs * WARP, a->reg_granularity);
  int per_block = per_warp * warps;
  int assumed = per_warp * round_up(warps, a->sub_partitions);
  if (a->regs_per_block < assumed || a->regs_per_block < per_block || regs > a->max_regs_per_thread)
    return 0;
  if (per_warp == 0) return INT_MAX;
  int warps_per_sub = (a->regs_per_sm / a->sub_partitions) / per_warp;
  return warps_per_sub * a->sub_partitions / warps;
}

/* Shared memory (cudaOccMaxBlocksPerSMSmemLimit with the default carveout, which is the SM's
 * whole shared memory, so the carveout's rounding never applies). *allocated: per block. */
static int smem_limit(const OccArch *a, const OccKernel *k, uint32_t *allocated) {
  uint64_t fixed = (uint64_t)k->static_smem + a->smem_reserved;
  uint64_t total = fixed + k->dynamic_smem;
  uint64_t rounded = (total + a->smem_granularity - 1) / a->smem_granularity * a->smem_granularity;
  *allocated = rounded > UINT32_MAX ? UINT32_MAX : (uint32_t)rounded;
  uint64_t per_block = (total > a->smem_per_block ? a->smem_per_block_optin : a->smem_per_block);
  if (a->major >= 8) per_block += a->smem_reserved;
  if (rounded > per_block) return 0;
  return rounded ? (int)(a->smem_per_sm / rounded) : INT_MAX;
}

/* Named barriers (cudaOccMaxBlocksPerSMBlockBarrierLimit, Hopper on): a fixed count per SM. */
static int barriers_limit(const OccArch *a, int blocks_limit, int barriers) {
  if (!a->barriers_per_block_slot || barriers <= 0) return INT_MAX;
  return blocks_limit * a->barriers_per_block_slot / barriers;
}

/* Why no block fits, from the first limit that allows none. */
static const char *why_none(const OccArch *a, const OccKernel *k, const Occupancy *o) {
  if (k->block_threads <= 0) return "no threads in a block";
  if (o->limit_warps == 0) return "the block has more threads than the architecture allows (1,024)";
  if (o->limit_regs == 0) return "the block needs more registers than a block may have";
  if (o->limit_smem == 0) return "the block needs more shared memory than a block may have";
  (void)a;
  return "a limit allows no block";
}

Occupancy occ_compute(const OccArch *a, const OccKernel *k) {
  Occupancy o = {0};
  o.max_warps_per_sm = a->max_threads_per_sm / WARP;
  if (k->block_threads <= 0) {
    o.why_none = why_none(a, k, &o);
    return o;
  }
  o.limit_warps = warps_limit(a, k->block_threads);
  o.limit_regs = regs_limit(a, k->regs, k->block_threads);
  o.limit_smem = smem_limit(a, k, &o.smem_per_block);
  o.limit_blocks = a->max_blocks_per_sm;
  int n = min_int(o.limit_regs, min_int(o.limit_smem, min_int(o.limit_warps, o.limit_blocks)));
  o.limit_barriers = INT_MAX;
  if (a->barriers_per_block_slot && k->barriers > 0) {
    o.limit_barriers = barriers_limit(a, o.limit_blocks, k->barriers);
    n = min_int(n, o.limit_barriers);
  }
  o.limiters = (n == o.limit_warps ? OCC_BY_WARPS : 0u) | (n == o.limit_regs ? OCC_BY_REGISTERS : 0u) |
               (n == o.limit_smem ? OCC_BY_SHARED : 0u) | (n == o.limit_blocks ? OCC_BY_BLOCKS : 0u) |
               (n == o.limit_barriers ? OCC_BY_BARRIERS : 0u);
  o.blocks_per_sm = n;
  o.warps_per_sm = n * div_up(k->block_threads, WARP);
  o.fraction = (double)o.warps_per_sm / o.max_warps_per_sm;
  if (n == 0) o.why_none = why_none(a, k, &o);
  return o;
}

void occ_limiters_text(unsigned limiters, char *buf, int cap) {
  static const struct { unsigned bit; const char *name; } names[] = {
      {OCC_BY_WARPS, "warps"},          {OCC_BY_REGISTERS, "registers"},
      {OCC_BY_SHARED, "shared memory"}, {OCC_BY_BLOCKS, "blocks per SM"},
      {OCC_BY_BARRIERS, "barriers"},
  };
  int at = 0;
  if (cap > 0) buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if ((limiters & names[i].bit) && at < cap)
      at += snprintf(buf + at, (size_t)(cap - at), "%s%s", at ? ", " : "", names[i].name);
}
