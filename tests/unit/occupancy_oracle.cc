// src/explore/occupancy.c against the CUDA occupancy calculator itself: cuda_occupancy.h, the
// header-only calculator of the CUDA toolkit (cudaOccMaxActiveBlocksPerMultiprocessor), built
// only where the toolkit's header is found (tests/meson.build). For every architecture of
// occupancy.c's table and a grid of kernels (registers, static and dynamic shared memory,
// barriers, block sizes), both must give the same blocks per SM, the same limit from each
// resource, and so the same limiting factors.
// The device properties given to the calculator are the table's own (the figures a
// cudaDeviceProp of that architecture holds); the calculator supplies the rules.
#include <cstdio>

#include <cuda_occupancy.h>

extern "C" {
#include "explore/occupancy.h"
}

static cudaOccDeviceProp props_of(const OccArch *a) {
  cudaOccDeviceProp p;
  p.computeMajor = a->major;
  p.computeMinor = a->minor;
  p.maxThreadsPerBlock = a->max_threads_per_block;
  p.maxThreadsPerMultiprocessor = a->max_threads_per_sm;
  p.regsPerBlock = a->regs_per_block;
  p.regsPerMultiprocessor = a->regs_per_sm;
  p.warpSize = 32;
  p.sharedMemPerBlock = a->smem_per_block;
  p.sharedMemPerMultiprocessor = a->smem_per_sm;
  p.numSms = 132;
  p.sharedMemPerBlockOptin = a->smem_per_block_optin;
  p.reservedSharedMemPerBlock = a->smem_reserved;
  return p;
}

// The calculator's answer for one kernel, as a pyk2cuda launch sets it up: opted in to the
// dynamic shared memory it is launched with, the default carveout.
static bool oracle(const cudaOccDeviceProp &p, const OccKernel &k, cudaOccResult *r) {
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = 1024;
  f.numRegs = k.regs;
  f.sharedSizeBytes = k.static_smem;
  f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  f.maxDynamicSharedSizeBytes = k.dynamic_smem;
  f.numBlockBarriers = k.barriers;
  cudaOccDeviceState s;
  return cudaOccMaxActiveBlocksPerMultiprocessor(r, &p, &f, &s, k.block_threads, k.dynamic_smem) ==
         CUDA_OCC_SUCCESS;
}

int main() {
  static const int regs[] = {0, 1, 16, 24, 32, 33, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255};
  static const unsigned smem[] = {0, 1, 1024, 4000, 16384, 40000, 49152};
  static const unsigned dyn[] = {0, 100, 8192, 50000, 102400, 163840, 200000, 232448};
  static const int blocks[] = {1, 32, 33, 64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024, 1025};
  static const int bars[] = {0, 1, 2, 3, 16};
  long cases = 0, bad = 0;
  for (int i = 0; occ_arch_at(i); i++) {
    const OccArch *a = occ_arch_at(i);
    cudaOccDeviceProp p = props_of(a);
    for (int r : regs)
      for (unsigned s : smem)
        for (unsigned d : dyn)
          for (int b : blocks)
            for (int n : bars) {
              OccKernel k = {r, s, d, n, b};
              cudaOccResult want;
              if (!oracle(p, k, &want)) {
                std::printf("%s: the calculator refused regs %d smem %u+%u block %d\n", a->name, r, s, d, b);
                return 1;
              }
              Occupancy got = occ_compute(a, &k);
              // The limits that give the result, from the calculator's per-limit figures (its
              // limitingFactors keeps bits set before the barrier limit lowered the result).
              int m = want.activeBlocksPerMultiprocessor;
              unsigned want_limits = (want.blockLimitWarps == m ? (unsigned)OCC_BY_WARPS : 0u) |
                                     (want.blockLimitRegs == m ? (unsigned)OCC_BY_REGISTERS : 0u) |
                                     (want.blockLimitSharedMem == m ? (unsigned)OCC_BY_SHARED : 0u) |
                                     (want.blockLimitBlocks == m ? (unsigned)OCC_BY_BLOCKS : 0u) |
                                     (want.blockLimitBarriers == m ? (unsigned)OCC_BY_BARRIERS : 0u);
              bool limits_equal = got.limit_warps == want.blockLimitWarps &&
                                  got.limit_regs == want.blockLimitRegs &&
                                  got.limit_smem == want.blockLimitSharedMem &&
                                  got.limit_blocks == want.blockLimitBlocks &&
                                  got.limit_barriers == want.blockLimitBarriers;
              cases++;
              if (got.blocks_per_sm != m || got.limiters != want_limits || !limits_equal) {
                if (bad++ < 20)
                  std::printf("%s regs %d smem %u dyn %u block %d barriers %d: %d blocks, limiters %#x; "
                              "the calculator: %d, %#x\n",
                              a->name, r, s, d, b, n, got.blocks_per_sm, got.limiters,
                              want.activeBlocksPerMultiprocessor, want_limits);
              }
            }
  }
  std::printf("%ld cases, %ld differ\n", cases, bad);
  return bad ? 1 : 0;
}
