/* Unit tests for the explore view's pieces (src/explore).
 *
 * Occupancy (occupancy.c): a table of cases, registers 32/64/128/255, shared memory 0, 48 KiB
 * (static) and 100 KiB (dynamic, opted in), blocks of 128/256/1024 threads, on sm_80 and sm_90,
 * whose blocks per SM and limiting factors were computed with the CUDA toolkit's occupancy
 * calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor, CUDA 13.0, with the
 * table's device figures); tests/unit/occupancy_oracle.cc compares a larger grid with that
 * header directly where it is installed. Two rows worked by hand: sm_90, 32 registers, no shared
 * memory, 256 threads: 8 warps a block; 64 warp slots / 8 = 8; 32 * 32 = 1024 registers a warp,
 * 65536 / 4 sub-partitions / 1024 = 16 warps each, 64 / 8 = 8; shared memory (the 1 KiB the
 * driver reserves) 228; so 8 blocks, 64 warps, 100 %, limited by warps and registers alike.
 * sm_80, 48 KiB static: 49152 + 1024 = 50176 bytes a block, 164 KiB / 50176 = 3 blocks. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "explore/occupancy.h"

typedef struct OccCase {
  const char *arch;
  int regs;
  unsigned static_smem, dynamic_smem;
  int block, blocks_per_sm;
  unsigned limiters;
} OccCase;

static const OccCase cases[] = {
      {"sm_80",  32,     0,      0,  128, 16, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_80",  32,     0,      0,  256,  8, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_80",  32,     0,      0, 1024,  2, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_80",  32, 49152,      0,  128,  3, OCC_BY_SHARED},
      {"sm_80",  32, 49152,      0,  256,  3, OCC_BY_SHARED},
      {"sm_80",  32, 49152,      0, 1024,  2, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_80",  32,     0, 102400,  128,  1, OCC_BY_SHARED},
      {"sm_80",  32,     0, 102400,  256,  1, OCC_BY_SHARED},
      {"sm_80",  32,     0, 102400, 1024,  1, OCC_BY_SHARED},
      {"sm_80",  64,     0,      0,  128,  8, OCC_BY_REGISTERS},
      {"sm_80",  64,     0,      0,  256,  4, OCC_BY_REGISTERS},
      {"sm_80",  64,     0,      0, 1024,  1, OCC_BY_REGISTERS},
      {"sm_80",  64, 49152,      0,  128,  3, OCC_BY_SHARED},
      {"sm_80",  64, 49152,      0,  256,  3, OCC_BY_SHARED},
      {"sm_80",  64, 49152,      0, 1024,  1, OCC_BY_REGISTERS},
      {"sm_80",  64,     0, 102400,  128,  1, OCC_BY_SHARED},
      {"sm_80",  64,     0, 102400,  256,  1, OCC_BY_SHARED},
      {"sm_80",  64,     0, 102400, 1024,  1, OCC_BY_REGISTERS | OCC_BY_SHARED},
      {"sm_80", 128,     0,      0,  128,  4, OCC_BY_REGISTERS},
      {"sm_80", 128,     0,      0,  256,  2, OCC_BY_REGISTERS},
      {"sm_80", 128,     0,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_80", 128, 49152,      0,  128,  3, OCC_BY_SHARED},
      {"sm_80", 128, 49152,      0,  256,  2, OCC_BY_REGISTERS},
      {"sm_80", 128, 49152,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_80", 128,     0, 102400,  128,  1, OCC_BY_SHARED},
      {"sm_80", 128,     0, 102400,  256,  1, OCC_BY_SHARED},
      {"sm_80", 128,     0, 102400, 1024,  0, OCC_BY_REGISTERS},
      {"sm_80", 255,     0,      0,  128,  2, OCC_BY_REGISTERS},
      {"sm_80", 255,     0,      0,  256,  1, OCC_BY_REGISTERS},
      {"sm_80", 255,     0,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_80", 255, 49152,      0,  128,  2, OCC_BY_REGISTERS},
      {"sm_80", 255, 49152,      0,  256,  1, OCC_BY_REGISTERS},
      {"sm_80", 255, 49152,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_80", 255,     0, 102400,  128,  1, OCC_BY_SHARED},
      {"sm_80", 255,     0, 102400,  256,  1, OCC_BY_REGISTERS | OCC_BY_SHARED},
      {"sm_80", 255,     0, 102400, 1024,  0, OCC_BY_REGISTERS},
      {"sm_90",  32,     0,      0,  128, 16, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_90",  32,     0,      0,  256,  8, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_90",  32,     0,      0, 1024,  2, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_90",  32, 49152,      0,  128,  4, OCC_BY_SHARED},
      {"sm_90",  32, 49152,      0,  256,  4, OCC_BY_SHARED},
      {"sm_90",  32, 49152,      0, 1024,  2, OCC_BY_WARPS | OCC_BY_REGISTERS},
      {"sm_90",  32,     0, 102400,  128,  2, OCC_BY_SHARED},
      {"sm_90",  32,     0, 102400,  256,  2, OCC_BY_SHARED},
      {"sm_90",  32,     0, 102400, 1024,  2, OCC_BY_WARPS | OCC_BY_REGISTERS | OCC_BY_SHARED},
      {"sm_90",  64,     0,      0,  128,  8, OCC_BY_REGISTERS},
      {"sm_90",  64,     0,      0,  256,  4, OCC_BY_REGISTERS},
      {"sm_90",  64,     0,      0, 1024,  1, OCC_BY_REGISTERS},
      {"sm_90",  64, 49152,      0,  128,  4, OCC_BY_SHARED},
      {"sm_90",  64, 49152,      0,  256,  4, OCC_BY_REGISTERS | OCC_BY_SHARED},
      {"sm_90",  64, 49152,      0, 1024,  1, OCC_BY_REGISTERS},
      {"sm_90",  64,     0, 102400,  128,  2, OCC_BY_SHARED},
      {"sm_90",  64,     0, 102400,  256,  2, OCC_BY_SHARED},
      {"sm_90",  64,     0, 102400, 1024,  1, OCC_BY_REGISTERS},
      {"sm_90", 128,     0,      0,  128,  4, OCC_BY_REGISTERS},
      {"sm_90", 128,     0,      0,  256,  2, OCC_BY_REGISTERS},
      {"sm_90", 128,     0,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_90", 128, 49152,      0,  128,  4, OCC_BY_REGISTERS | OCC_BY_SHARED},
      {"sm_90", 128, 49152,      0,  256,  2, OCC_BY_REGISTERS},
      {"sm_90", 128, 49152,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_90", 128,     0, 102400,  128,  2, OCC_BY_SHARED},
      {"sm_90", 128,     0, 102400,  256,  2, OCC_BY_REGISTERS | OCC_BY_SHARED},
      {"sm_90", 128,     0, 102400, 1024,  0, OCC_BY_REGISTERS},
      {"sm_90", 255,     0,      0,  128,  2, OCC_BY_REGISTERS},
      {"sm_90", 255,     0,      0,  256,  1, OCC_BY_REGISTERS},
      {"sm_90", 255,     0,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_90", 255, 49152,      0,  128,  2, OCC_BY_REGISTERS},
      {"sm_90", 255, 49152,      0,  256,  1, OCC_BY_REGISTERS},
      {"sm_90", 255, 49152,      0, 1024,  0, OCC_BY_REGISTERS},
      {"sm_90", 255,     0, 102400,  128,  2, OCC_BY_REGISTERS | OCC_BY_SHARED},
      {"sm_90", 255,     0, 102400,  256,  1, OCC_BY_REGISTERS},
      {"sm_90", 255,     0, 102400, 1024,  0, OCC_BY_REGISTERS},
};

static void occupancy_matches_the_calculator(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const OccCase *c = &cases[i];
    const OccArch *a = occ_arch(c->arch);
    assert_non_null(a);
    OccKernel k = {c->regs, c->static_smem, c->dynamic_smem, 1, c->block};
    Occupancy o = occ_compute(a, &k);
    if (o.blocks_per_sm != c->blocks_per_sm || o.limiters != c->limiters)
      fail_msg("%s regs %d shared %u+%u block %d: %d blocks (limiters %#x), expected %d (%#x)", c->arch,
               c->regs, c->static_smem, c->dynamic_smem, c->block, o.blocks_per_sm, o.limiters,
               c->blocks_per_sm, c->limiters);
    assert_int_equal(o.warps_per_sm, o.blocks_per_sm * ((c->block + 31) / 32));
    assert_true(o.blocks_per_sm ? o.why_none == NULL : o.why_none != NULL);
  }
}

/* The worked row: 100 % on sm_90, and the text of its limiters. */
static void occupancy_full_and_limiter_text(void **state) {
  (void)state;
  OccKernel k = {32, 0, 0, 1, 256};
  Occupancy o = occ_compute(occ_arch("sm_90"), &k);
  assert_int_equal(o.blocks_per_sm, 8);
  assert_int_equal(o.max_warps_per_sm, 64);
  assert_true(o.fraction == 1.0);
  assert_int_equal(o.smem_per_block, 1024);
  char text[80];
  occ_limiters_text(o.limiters, text, sizeof text);
  assert_string_equal(text, "warps, registers");
  k.block_threads = 1025;
  o = occ_compute(occ_arch("sm_90"), &k);
  assert_int_equal(o.blocks_per_sm, 0);
  assert_non_null(strstr(o.why_none, "more threads"));
  k.block_threads = 256;
  k.barriers = 16;   /* Hopper: 32 block slots x 2 barriers / 16 = 4 blocks */
  o = occ_compute(occ_arch("sm_90"), &k);
  assert_int_equal(o.blocks_per_sm, 4);
  assert_int_equal(o.limiters, OCC_BY_BARRIERS);
}

static void occupancy_arch_names(void **state) {
  (void)state;
  assert_string_equal(occ_arch("sm_90a")->name, "sm_90");
  assert_string_equal(occ_arch("sm_80")->name, "sm_80");
  assert_null(occ_arch("sm_9"));
  assert_null(occ_arch("sm_900"));
  assert_null(occ_arch("sm_100"));
  assert_null(occ_arch("compute_90"));
  assert_non_null(occ_arch_at(0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(occupancy_matches_the_calculator),
      cmocka_unit_test(occupancy_full_and_limiter_text),
      cmocka_unit_test(occupancy_arch_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
