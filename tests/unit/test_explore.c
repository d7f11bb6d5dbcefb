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
 * sm_80, 48 KiB static: 49152 + 1024 = 50176 bytes a block, 164 KiB / 50176 = 3 blocks.
 *
 * ptxas's log (ptxas.c): entries, their figures, a device function's properties not taken for
 * the kernel's, an older ptxas's cmem[N] and lmem. The CUBIN's constant banks: an ELF made here,
 * then cut at every length and damaged byte by byte (read by ASan-checked copies of exactly that
 * size): some figure or none, never a read outside. PTX lines (ptx_lines.c): .loc of the program's
 * file only, a relative program name, inlined code, the definitions' ranges. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "explore/explore.h"
#include "runtime/cuda/nvdisasm.h"
#include "runtime/cuda/toolkit.h"
#include "pyk2cuda.h"
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

static const char log13[] =
    "ptxas info    : 8 bytes gmem\n"
    "ptxas info    : Function properties for helper\n"
    "ptxas         .     16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'matmul' for 'sm_90'\n"
    "ptxas info    : Function properties for matmul\n"
    "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem\n"
    "ptxas info    : Compiling entry function 'plain' for 'sm_90'\n"
    "ptxas info    : Function properties for plain\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 255 registers, 16 bytes lmem, 384 bytes cmem[0], 8 bytes cmem[2]\n"
    "ptxas info    : Compile time = 10.317 ms\n";

static void ptxas_log_entries(void **state) {
  (void)state;
  Arena a;
  arena_init(&a, NULL);
  EntryResources e[4];
  assert_int_equal(explore_parse_ptxas_log(&a, log13, NULL, 0), 2);
  assert_int_equal(explore_parse_ptxas_log(&a, log13, e, 4), 2);
  assert_string_equal(e[0].symbol, "matmul");
  assert_int_equal(e[0].registers, 32);
  assert_int_equal(e[0].barriers, 1);
  assert_int_equal(e[0].shared_bytes, 2048);
  assert_int_equal(e[0].stack_bytes, 24);
  assert_int_equal(e[0].spill_store_bytes, 8);
  assert_int_equal(e[0].spill_load_bytes, 12);
  assert_int_equal(e[0].constant_bytes[0], -1);
  assert_string_equal(e[1].symbol, "plain");
  assert_int_equal(e[1].registers, 255);
  assert_int_equal(e[1].barriers, 0);
  assert_int_equal(e[1].shared_bytes, 0);
  assert_int_equal(e[1].local_bytes, 16);
  assert_int_equal(e[1].constant_bytes[0], 384);
  assert_int_equal(e[1].constant_bytes[2], 8);
  assert_int_equal(e[1].stack_bytes, 0);
  assert_int_equal(explore_parse_ptxas_log(&a, "", e, 4), 0);
  arena_free(&a);
}

static void put(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* A minimal ELF64: section 0 null, 1 .shstrtab, 2 .nv.constant0.k (648 bytes), 3 .nv.constant3
 * (module constants, 24 bytes), 4 .nv.constant0.other (100 bytes). */
static size_t tiny_cubin(unsigned char *d, size_t cap) {
  static const char names[] = "\0.shstrtab\0.nv.constant0.k\0.nv.constant3\0.nv.constant0.other";
  size_t shoff = 64 + sizeof names, size = shoff + 5 * 64;
  assert_true(size <= cap);
  memset(d, 0, size);
  memcpy(d, "\x7f" "ELF", 4);
  d[4] = 2;
  d[5] = 1;
  put(d + 0x28, shoff, 8);
  put(d + 0x3a, 64, 2);
  put(d + 0x3c, 5, 2);
  put(d + 0x3e, 1, 2);
  memcpy(d + 64, names, sizeof names);
  const uint32_t name_at[5] = {0, 1, 11, 27, 41};
  const uint64_t sizes[5] = {0, sizeof names, 648, 24, 100};
  for (int i = 0; i < 5; i++) {
    unsigned char *sh = d + shoff + (size_t)i * 64;
    put(sh, name_at[i], 4);
    put(sh + 0x18, i == 1 ? 64 : 0, 8);
    put(sh + 0x20, sizes[i], 8);
  }
  return size;
}

static void cubin_constant_banks(void **state) {
  (void)state;
  unsigned char img[1024];
  size_t size = tiny_cubin(img, sizeof img);
  EntryResources r = {.symbol = "k"};
  for (int b = 0; b < 8; b++) r.constant_bytes[b] = -1;
  explore_cubin_constants(img, size, &r);
  assert_int_equal(r.constant_bytes[0], 648);
  assert_int_equal(r.constant_bytes[3], 24);
  assert_int_equal(r.constant_bytes[1], -1);
  r.constant_bytes[0] = 384;   /* the log's figure stays */
  explore_cubin_constants(img, size, &r);
  assert_int_equal(r.constant_bytes[0], 384);
  /* cut and damaged: each copy exactly as long as the image (ASan sees an overread) */
  for (size_t n = 0; n <= size; n++)
    for (size_t at = 0; at < n; at += n / 7 + 1) {
      unsigned char *copy = malloc(n ? n : 1);
      memcpy(copy, img, n);
      if (at < n) copy[at] ^= 0xa5;
      EntryResources x = {.symbol = "k"};
      for (int b = 0; b < 8; b++) x.constant_bytes[b] = -1;
      explore_cubin_constants(copy, n, &x);
      for (int b = 0; b < 8; b++) assert_true(x.constant_bytes[b] >= -1);
      free(copy);
    }
}

static const char ptx[] =
    ".visible .entry k(\n"                                   /* 1 */
    "\t.param .u64 k_param_0\n"                              /* 2 */
    ")\n"                                                     /* 3 */
    "{\n"                                                     /* 4 */
    "\t.loc\t1 10 3\n"                                       /* 5 */
    "\tmov.u32 %r1, %tid.x;\n"                                /* 6 */
    "\t.loc\t1 28 3, function_name $L__info_string0, inlined_at 1 12 3\n" /* 7: a helper */
    "\tadd.s32 %r2, %r1, 1;\n"                                /* 8 */
    "\t.loc\t1 20 3, function_name $L__info_string1, inlined_at 1 12 3\n" /* 9: Python's */
    "\t.loc\t2 5 1\n"                                        /* 10: another file */
    "\tret;\n"                                                /* 11 */
    "}\n"                                                     /* 12 */
    "\tnot.in.a.function;\n"                                  /* 13 */
    ".func  (.param .b32 func_retval0) helper(\n"             /* 14 */
    ")\n"                                                     /* 15 */
    "{\n"                                                     /* 16 */
    "}\n"                                                     /* 17 */
    "\t.file\t1 \"/home/u/work/k.py.cu\"\n"                   /* 18 */
    "\t.file\t2 \"/usr/include/other.h\"\n";                   /* 19 */

static void ptx_lines_and_definitions(void **state) {
  (void)state;
  Arena a;
  arena_init(&a, NULL);
  uint32_t python_line[30] = {0};
  python_line[10 - 1] = 4;
  python_line[12 - 1] = 5;
  python_line[20 - 1] = 7;   /* a device function's statement, inlined at line 12 */
  size_t n;
  const uint32_t want[19] = {0, 0, 0, 0, 10, 10, 12, 12, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const char *programs[2] = {"work/k.py.cu", "/home/u/work/k.py.cu"};   /* relative, absolute */
  for (int p = 0; p < 2; p++) {
    uint32_t *map = explore_ptx_cuda_lines(&a, ptx, strlen(ptx), programs[p], python_line, 30, &n);
    assert_int_equal(n, 19);
    for (size_t i = 0; i < n; i++)
      if (map[i] != want[i]) fail_msg("%s: PTX line %zu: %u, expected %u", programs[p], i + 1, map[i], want[i]);
  }
  uint32_t *none = explore_ptx_cuda_lines(&a, ptx, strlen(ptx), "k.py.cu.other", python_line, 30, &n);
  for (size_t i = 0; i < n; i++) assert_int_equal(none[i], 0);
  size_t ndefs;
  TextDef *defs = explore_definitions(&a, ptx, strlen(ptx), true, &ndefs);
  assert_int_equal(ndefs, 2);
  const TextDef *k = explore_find_definition(defs, ndefs, "k"), *h = explore_find_definition(defs, ndefs, "helper");
  assert_true(k && k->first == 1 && k->last == 12);
  assert_true(h && h->first == 14 && h->last == 17);
  static const char cuda[] =
      "static __device__ int64_t p2c_floordiv(int64_t a, int64_t b);\n"   /* a declaration */
      "extern \"C\" __global__ void k(p2c_array<float, 1> x) {\n"
      "  x.data[0] = 1;\n"
      "}\n"
      "static __device__ __forceinline__ int64_t p2c_floordiv(int64_t a, int64_t b) {\n"
      "  return a / b;\n"
      "}\n";
  defs = explore_definitions(&a, cuda, strlen(cuda), false, &ndefs);
  assert_int_equal(ndefs, 2);
  k = explore_find_definition(defs, ndefs, "k");
  h = explore_find_definition(defs, ndefs, "p2c_floordiv");
  assert_true(k && k->first == 2 && k->last == 4);
  assert_true(h && h->first == 5 && h->last == 7);
  assert_null(explore_find_definition(defs, ndefs, "x"));
  arena_free(&a);
}

/* nvdisasm -c -gi's listing (13.5.37, of a CUBIN NVRTC made with -lineinfo; cut down): line
 * comments above the instructions, the innermost first where code was inlined, one section per
 * function. */
static const char sass[] =
    "\t.target\tsm_90\n"                                                            /* 1 */
    "//--------------------- .text.k                   --------------------------\n" /* 2 */
    "\t.section\t.text.k,\"ax\",@progbits\n"                                        /* 3 */
    "k:\n"                                                                          /* 4 */
    "\t//## File \"/home/u/work/k.py.cu\", line 10\n"                               /* 5 */
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"                   /* 6 */
    "\t//## File \"/home/u/work/k.py.cu\", line 28 inlined at \"/home/u/work/k.py.cu\", line 12\n" /* 7 */
    "\t//## File \"/home/u/work/k.py.cu\", line 12\n"                               /* 8: a helper */
    "        /*0010*/                   S2R R0, SR_TID.X ;\n"                       /* 9 */
    "\t//## File \"/home/u/work/k.py.cu\", line 20 inlined at \"/home/u/work/k.py.cu\", line 12\n" /* 10 */
    "\t//## File \"/home/u/work/k.py.cu\", line 12\n"                               /* 11: Python's */
    "        /*0020*/                   IMAD R5, R5, UR4, R0 ;\n"                   /* 12 */
    "\t//## File \"/usr/include/other.h\", line 5\n"                                /* 13: another file */
    "        /*0030*/                   EXIT ;\n"                                    /* 14 */
    "\n"                                                                            /* 15 */
    "//--------------------- .text.helper              --------------------------\n" /* 16 */
    "        /*0000*/                   RET.REL.NODEC R4 `(k) ;\n"                  /* 17 */
    "\n";                                                                           /* 18 */

static void sass_lines_and_definitions(void **state) {
  (void)state;
  Arena a;
  arena_init(&a, NULL);
  uint32_t python_line[30] = {0};
  python_line[10 - 1] = 4;
  python_line[12 - 1] = 5;
  python_line[20 - 1] = 7;   /* a device function's statement, inlined at line 12 */
  size_t n;
  const uint32_t want[18] = {0, 0, 0, 0, 10, 10, 12, 12, 12, 20, 20, 20, 0, 0, 0, 0, 0, 0};
  const char *programs[2] = {"work/k.py.cu", "/home/u/work/k.py.cu"};   /* relative, absolute */
  for (int p = 0; p < 2; p++) {
    uint32_t *map = explore_sass_cuda_lines(&a, sass, strlen(sass), programs[p], python_line, 30, &n);
    assert_int_equal(n, 18);
    for (size_t i = 0; i < n; i++)
      if (map[i] != want[i]) fail_msg("%s: SASS line %zu: %u, expected %u", programs[p], i + 1, map[i], want[i]);
  }
  uint32_t *none = explore_sass_cuda_lines(&a, sass, strlen(sass), "k.py.cu.other", python_line, 30, &n);
  for (size_t i = 0; i < n; i++) assert_int_equal(none[i], 0);
  size_t ndefs;
  TextDef *defs = explore_sass_definitions(&a, sass, strlen(sass), &ndefs);
  assert_int_equal(ndefs, 2);
  const TextDef *k = explore_find_definition(defs, ndefs, "k"), *h = explore_find_definition(defs, ndefs, "helper");
  assert_true(k && k->first == 2 && k->last == 14);
  assert_true(h && h->first == 16 && h->last == 17);
  /* Cut at every length: never a read past the text. */
  for (size_t cut = 0; cut < sizeof sass - 1; cut++) {
    explore_sass_cuda_lines(&a, sass, cut, programs[0], python_line, 30, &n);
    explore_sass_definitions(&a, sass, cut, &ndefs);
  }
  arena_free(&a);
}

/* rtc_disassemble without nvdisasm: a missing $PYK2CUDA_NVDISASM, a tool that fails, and a
 * stand-in that prints its arguments and its input (the CUBIN, written to a temporary file). */
static void disassemble_with_stand_ins(void **state) {
  (void)state;
  char dir[] = "/tmp/p2c-nvdisasm-XXXXXX", tool[64], err[1400], *text;
  size_t len;
  assert_non_null(mkdtemp(dir));
  setenv("PYK2CUDA_NVDISASM", "/nonexistent/nvdisasm", 1);
  assert_int_equal(rtc_disassemble("ELF", 3, NULL, &text, &len, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(text);
  assert_non_null(strstr(err, "nvdisasm was not found (tried $PYK2CUDA_NVDISASM (/nonexistent/nvdisasm"));
  setenv("PYK2CUDA_NVDISASM", "/bin/false", 1);
  assert_int_equal(rtc_disassemble("ELF", 3, NULL, &text, &len, err, sizeof err), P2C_ERR_IO);
  assert_null(text);
  assert_non_null(strstr(err, "nvdisasm failed (exit 1)"));
  snprintf(tool, sizeof tool, "%s/nvdisasm", dir);
  FILE *f = fopen(tool, "w");
  assert_non_null(f);
  fputs("#!/bin/sh\necho \"args $1 $2\"; cat \"$3\"; echo; echo \"$3\" > \"$(dirname \"$0\")/input\"\n", f);
  fclose(f);
  assert_int_equal(chmod(tool, 0700), 0);
  setenv("PYK2CUDA_NVDISASM", tool, 1);
  assert_int_equal(rtc_disassemble("ELF!", 4, NULL, &text, &len, err, sizeof err), P2C_OK);
  assert_string_equal(text, "args -c -gi\nELF!\n");
  assert_int_equal(len, strlen(text));
  free(text);
  char input[1100] = "", saved[80];
  snprintf(saved, sizeof saved, "%s/input", dir);
  f = fopen(saved, "r");
  assert_non_null(f);
  assert_non_null(fgets(input, sizeof input, f));
  fclose(f);
  input[strcspn(input, "\n")] = '\0';
  assert_int_not_equal(access(input, F_OK), 0);   /* the CUBIN's file is gone, and its folder */
  *strrchr(input, '/') = '\0';
  assert_int_not_equal(access(input, F_OK), 0);
  unsetenv("PYK2CUDA_NVDISASM");
  unlink(saved);
  unlink(tool);
  rmdir(dir);
}

/* The public entry: refusals, and a module with errors gets a page of its Python and
 * diagnostics (no NVRTC needed for it). */
static void api_refusals_and_a_page_with_errors(void **state) {
  (void)state;
  static const char src[] = "from numba import cuda\n\n@cuda.jit\ndef k(x):\n    x[0] = undefined_name\n";
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "bad.py", src, strlen(src), NULL, &m), P2C_ERR_SOURCE);
  const char *html = "x";
  size_t len = 1;
  assert_int_equal(p2c_module_explore(NULL, m, NULL, &html, &len), P2C_ERR_USAGE);
  assert_null(html);
  assert_int_equal(p2c_module_explore(c, NULL, NULL, &html, &len), P2C_ERR_USAGE);
  P2cExploreOptions bad_arch = {.arch = "gfx90", .block_threads = 256}, bad_block = {.arch = "sm_90", .block_threads = -1};
  assert_int_equal(p2c_module_explore(c, m, &bad_arch, &html, &len), P2C_ERR_USAGE);
  assert_non_null(strstr(p2c_compiler_last_error(c), "gfx90"));
  assert_int_equal(p2c_module_explore(c, m, &bad_block, &html, &len), P2C_ERR_USAGE);
  assert_int_equal(p2c_module_explore(c, m, NULL, &html, &len), P2C_OK);
  assert_non_null(html);
  assert_int_equal(strlen(html), len);
  assert_non_null(strstr(html, "\"kernels\":[]"));
  assert_non_null(strstr(html, "undefined_name"));                 /* the Python, and the error */
  assert_non_null(strstr(html, "\"severity\":\"error\""));
  assert_non_null(strstr(html, "no CUDA C was made"));
  assert_null(strstr(html, "@P2C_"));                                /* both markers replaced */
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* An executable stand-in for nvdisasm at DIR/SUB/nvdisasm (the folders made). */
static void stand_in_at(const char *dir, const char *sub, char *path, size_t size) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", dir, sub);
  assert_int_equal(system(cmd), 0);
  snprintf(path, size, "%s/%s/nvdisasm", dir, sub);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("#!/bin/sh\n", f);
  fclose(f);
  assert_int_equal(chmod(path, 0700), 0);
}

/* toolkit_search's visit: the places visited, in order, one per line. */
static bool record_visit(void *ctx, const char *dir, const char *place) {
  char *out = ctx;
  size_t n = strlen(out);
  snprintf(out + n, 4096 - n, "%s|%s\n", dir, place);
  return false;
}

/* One list of toolkit places for NVRTC and nvdisasm (toolkit.h): nvdisasm is found in the order
 * NVRTC is (wheels, conda, $PATH, $CUDA_HOME, ...; $PYK2CUDA_NVDISASM first and alone), the
 * public p2c_find_nvdisasm says the same, and a library's places are the same with lib64 and
 * the loader's path. */
static void nvdisasm_found_where_nvrtc_is(void **state) {
  (void)state;
  static const char *const vars[] = {"PYK2CUDA_NVDISASM", "PYK2CUDA_SITE_PACKAGES", "CONDA_PREFIX", "PATH",
                                     "CUDA_HOME", "CUDA_PATH"};
  char *saved[6];
  for (int i = 0; i < 6; i++) saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
  char dir[] = "/tmp/p2c-toolkit-XXXXXX", root[5][64], tool[5][200], found[1400], pub[1400];
  assert_non_null(mkdtemp(dir));
  static const char *const subs[] = {"nvidia/cuda_nvdisasm/bin", "bin", "bin", "bin", "bin"};
  for (int i = 0; i < 5; i++) {
    snprintf(root[i], sizeof root[i], "%s/%d", dir, i);
    stand_in_at(root[i], subs[i], tool[i], sizeof tool[i]);
  }
  char path_list[200];
  snprintf(path_list, sizeof path_list, "%s/none:%s/2/bin", dir, dir);
  unsetenv("PYK2CUDA_NVDISASM");
  setenv("PYK2CUDA_SITE_PACKAGES", root[0], 1);
  setenv("CONDA_PREFIX", root[1], 1);
  setenv("PATH", path_list, 1);
  setenv("CUDA_HOME", root[3], 1);
  setenv("CUDA_PATH", root[4], 1);
  for (int i = 0; i < 5; i++) {   /* each found in turn once those before it are gone */
    assert_true(rtc_nvdisasm_find(found, sizeof found));
    assert_string_equal(found, tool[i]);
    assert_true(p2c_find_nvdisasm(pub, sizeof pub));
    assert_string_equal(pub, found);
    unlink(tool[i]);
  }
  setenv("PYK2CUDA_NVDISASM", "/bin/true", 1);
  assert_true(p2c_find_nvdisasm(pub, sizeof pub));
  assert_string_equal(pub, "/bin/true");
  unsetenv("PYK2CUDA_NVDISASM");
  assert_false(p2c_find_nvdisasm(pub, sizeof pub) && access("/usr/local/cuda/bin/nvdisasm", X_OK) != 0);
  if (access("/usr/local/cuda/bin/nvdisasm", X_OK) != 0)
    assert_string_equal(pub, "nvdisasm was not found (tried $PYK2CUDA_NVDISASM, NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES, "
                             "$CONDA_PREFIX/bin, $PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin)");
  char visits[4096] = "", want[4096];
  toolkit_search(TOOLKIT_LIBRARY, "nvrtc", record_visit, visits);
  snprintf(want, sizeof want,
           "%s/nvidia/cu13/lib|NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES\n"
           "%s/nvidia/cuda_nvrtc/lib|NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES\n%s/lib|$CONDA_PREFIX/lib\n"
           "|the library path\n%s/lib64|$CUDA_HOME/lib64\n%s/lib64|$CUDA_PATH/lib64\n"
           "/usr/local/cuda/lib64|/usr/local/cuda/lib64\n",
           root[0], root[0], root[1], root[3], root[4]);
  assert_string_equal(visits, want);
  char places[512];
  toolkit_places(TOOLKIT_LIBRARY, places, sizeof places);
  assert_string_equal(places, "NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES, $CONDA_PREFIX/lib, the library path, "
                              "$CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64");
  for (int i = 0; i < 6; i++) {
    if (saved[i]) setenv(vars[i], saved[i], 1);
    else unsetenv(vars[i]);
    free(saved[i]);
  }
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(occupancy_matches_the_calculator),
      cmocka_unit_test(occupancy_full_and_limiter_text),
      cmocka_unit_test(occupancy_arch_names),
      cmocka_unit_test(ptxas_log_entries),
      cmocka_unit_test(cubin_constant_banks),
      cmocka_unit_test(ptx_lines_and_definitions),
      cmocka_unit_test(sass_lines_and_definitions),
      cmocka_unit_test(disassemble_with_stand_ins),
      cmocka_unit_test(nvdisasm_found_where_nvrtc_is),
      cmocka_unit_test(api_refusals_and_a_page_with_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
