/* Unit tests for the public compiler API (include/pyk2cuda.h, src/api/compiler.c).
 *
 * Covered: destructors accept NULL and getters accept NULL handles; statuses have text;
 * p2c_translate on a syntax error returns P2C_ERR_SOURCE with a module whose diagnostics carry
 * file, line, column and code; an unknown kernel (-k) and a malformed --sig are P2C_ERR_USAGE
 * with a last-error message and no module; bad arguments are refused; two compilers used on
 * two threads at once produce identical text; and allocation-failure injection, as Lua's memerr
 * tests do it: a host allocator fails the Nth allocation for every N up to the number a
 * successful translation of samples/normalize.py makes (and, in a second pass, every
 * allocation from the Nth on). Each run must return P2C_ERR_NOMEM (or P2C_OK once N is past
 * the total), never crash, and leave the allocator's live blocks and bytes at zero after
 * p2c_module_delete and p2c_compiler_delete; the allocator also checks that every free and
 * realloc passes the size the block was allocated with.
 * tree-sitter allocates with malloc, not with our allocator. To see whether the parser and
 * tree survive an out-of-memory jump out of the frontend, the test routes tree-sitter's own
 * allocations (ts_set_allocator) through a tracking allocator too: what it finds left over is
 * reported and reclaimed, and asserted on only in regression_tree_sitter_freed_on_oom (skipped
 * unless P2C_RUN_KNOWN_BUGS=1). This file includes tree-sitter's header for that alone. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"
#include <tree_sitter/api.h>

#include "pyk2cuda.h"

#ifndef P2C_SOURCE_DIR
#error "P2C_SOURCE_DIR must name the source tree (tests/meson.build passes it)"
#endif


/* ---- a counting, failing allocator --------------------------------------------------------- */

/* Each block carries a header with its size, so frees and reallocs can be checked against the
 * old_size the library passes. */
typedef struct BlockHeader {
  size_t size;
  size_t magic;
} BlockHeader;

enum { HEADER = 16, MAGIC = 0x70326361 };
_Static_assert(sizeof(BlockHeader) <= HEADER, "header fits");

typedef struct CountingAlloc {
  size_t calls;          /* allocations and growing reallocs attempted */
  size_t fail_at;        /* 0: never fail; else fail call number fail_at ... */
  bool fail_after;       /* ... and every later one too */
  size_t failures;
  long live_blocks;
  long long live_bytes;
  size_t size_mismatches;
  atomic_int inside;     /* calls in progress: more than one means the library called at once */
  bool overlapped;
} CountingAlloc;

static void *counting_realloc_body(CountingAlloc *c, void *ptr, size_t old_size, size_t new_size);

/* Makes every allocator call take a while, so that calls from two threads would overlap. */
static bool slow_allocator;

/* The library promises never to call the allocator from two threads at once (pyk2cuda.h). */
static void *counting_realloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  CountingAlloc *c = ud;
  if (atomic_fetch_add(&c->inside, 1) != 0) c->overlapped = true;
  if (slow_allocator) nanosleep(&(struct timespec){0, 200 * 1000}, NULL);
  void *p = counting_realloc_body(c, ptr, old_size, new_size);
  atomic_fetch_sub(&c->inside, 1);
  return p;
}

static void *counting_realloc_body(CountingAlloc *c, void *ptr, size_t old_size, size_t new_size) {
  BlockHeader *h = ptr ? (BlockHeader *)((char *)ptr - HEADER) : NULL;
  if (h && (h->magic != MAGIC || h->size != old_size)) c->size_mismatches++;
  if (new_size == 0) {
    if (h) {
      c->live_blocks--;
      c->live_bytes -= (long long)h->size;
      h->magic = 0;
      free(h);
    }
    return NULL;
  }
  c->calls++;
  if (c->fail_at && (c->calls == c->fail_at || (c->fail_after && c->calls > c->fail_at))) {
    c->failures++;
    return NULL;
  }
  size_t before = h ? h->size : 0;
  BlockHeader *n = realloc(h, HEADER + new_size);
  if (!n) return NULL;
  if (!h) c->live_blocks++;
  c->live_bytes += (long long)new_size - (long long)before;
  n->size = new_size;
  n->magic = MAGIC;
  return (char *)n + HEADER;
}

static P2cAllocator counting_allocator(CountingAlloc *c) { return (P2cAllocator){counting_realloc, c}; }

/* ---- tree-sitter's allocations, tracked ---------------------------------------------------- */

typedef struct TsBlock {
  struct TsBlock *prev, *next;
  size_t size;
  size_t pad;
} TsBlock;

static TsBlock ts_live = {&ts_live, &ts_live, 0, 0};
static long ts_live_blocks;

static void *ts_track(TsBlock *b, size_t size) {
  if (!b) return NULL;
  b->size = size;
  b->next = ts_live.next;
  b->prev = &ts_live;
  ts_live.next->prev = b;
  ts_live.next = b;
  ts_live_blocks++;
  return b + 1;
}

static void ts_untrack(TsBlock *b) {
  b->prev->next = b->next;
  b->next->prev = b->prev;
  ts_live_blocks--;
}

static void *ts_tracked_malloc(size_t n) { return ts_track(malloc(sizeof(TsBlock) + n), n); }

static void *ts_tracked_calloc(size_t count, size_t n) {
  void *p = ts_tracked_malloc(count * n);
  if (p) memset(p, 0, count * n);
  return p;
}

static void ts_tracked_free(void *p) {
  if (!p) return;
  TsBlock *b = (TsBlock *)p - 1;
  ts_untrack(b);
  free(b);
}

static void *ts_tracked_realloc(void *p, size_t n) {
  if (!p) return ts_tracked_malloc(n);
  TsBlock *b = (TsBlock *)p - 1;
  ts_untrack(b);
  TsBlock *q = realloc(b, sizeof(TsBlock) + n);
  if (!q) {
    ts_track(b, b->size);
    return NULL;
  }
  return ts_track(q, n);
}

/* Frees whatever tree-sitter left allocated; returns how many blocks that was. */
static long ts_reclaim(void) {
  long n = ts_live_blocks;
  while (ts_live.next != &ts_live) ts_tracked_free(ts_live.next + 1);
  return n;
}

/* Under LeakSanitizer: the same known bug also leaks the Python grammar's external-scanner state,
 * which the grammar allocates with libc calloc (not through ts_set_allocator), so ts_reclaim
 * cannot free it. Only that allocation site is suppressed; the tracked count above still
 * measures the leak (regression_tree_sitter_freed_on_oom). Unused without sanitizers. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:tree_sitter_python_external_scanner_create\n";
}

/* ---- sources ------------------------------------------------------------------------------- */

static char *read_sample(const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/samples/%s", P2C_SOURCE_DIR, name);
  return test_read_file(path, len);
}

static const char *const normalize_sigs[] = {
    "partial_sums(float32[::1], float32[::1])",
    "total_sum(float32[::1], float32[::1])",
    "divide(float32[::1], float32[::1])",
};

static const P2cTranslateOptions normalize_opts = {
    .signatures = normalize_sigs,
    .signature_count = sizeof normalize_sigs / sizeof normalize_sigs[0],
};

static const char syntax_error_src[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def k(a):\n"
    "    a[0] = (1 +\n"
    "    a[1] = 2\n";

static const char one_kernel_src[] =
    "from numba import cuda\n"
    "@cuda.jit(\"void(float32[::1])\")\n"
    "def k(a):\n"
    "    a[0] = 1\n";

/* ---- handles and small things -------------------------------------------------------------- */

static void null_handles_are_harmless(void **state) {
  (void)state;
  p2c_compiler_delete(NULL);
  p2c_module_delete(NULL);
  assert_string_equal(p2c_compiler_last_error(NULL), "");
  assert_int_equal(p2c_module_diagnostic_count(NULL), 0);
  assert_null(p2c_module_diagnostic(NULL, 0).message);
  size_t len = 99;
  assert_null(p2c_module_cuda(NULL, &len));
  assert_int_equal(len, 0);
  assert_null(p2c_module_dump(NULL, "ast"));
  assert_int_equal(p2c_module_kernel_count(NULL), 0);
  assert_null(p2c_module_kernel(NULL, 0).symbol);
  assert_string_equal(p2c_module_nvrtc_log(NULL), "");
  assert_null(p2c_module_image(NULL, &len));
  assert_false(p2c_compiler_get_sanitize(NULL));
}

/* The checker's switch starts from $PYK2CUDA_SANITIZE and reads back what was set. */
static void sanitize_switch_reads_back(void **state) {
  (void)state;
  const char *was = getenv("PYK2CUDA_SANITIZE");
  char saved[64] = "";
  if (was) snprintf(saved, sizeof saved, "%s", was);
  static const char *const values[] = {"1", "0", "", "yes"};
  static const bool expect[] = {true, false, false, true};
  for (size_t i = 0; i < 4; i++) {
    setenv("PYK2CUDA_SANITIZE", values[i], 1);
    P2cCompiler *c = p2c_compiler_new(NULL);
    assert_non_null(c);
    assert_int_equal(p2c_compiler_get_sanitize(c), expect[i]);
    p2c_compiler_set_sanitize(c, !expect[i]);
    assert_int_equal(p2c_compiler_get_sanitize(c), !expect[i]);
    p2c_compiler_delete(c);
  }
  if (was) setenv("PYK2CUDA_SANITIZE", saved, 1);
  else unsetenv("PYK2CUDA_SANITIZE");
}

/* Each phase's dump is there once that phase completed, also when a later one failed. */
static void dumps_after_each_phase(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  static const char ok_src[] = "from numba import cuda\n"
                               "@cuda.jit('void(float32[::1])')\n"
                               "def k(a):\n"
                               "    i = cuda.grid(1)\n"
                               "    a[i] = 1.0\n";
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "ok.py", ok_src, strlen(ok_src), NULL, &m), P2C_OK);
  assert_non_null(strstr(p2c_module_dump(m, "ast"), "Kernel k @"));
  assert_null(strstr(p2c_module_dump(m, "ast"), " : "));        /* not typed yet */
  assert_non_null(strstr(p2c_module_dump(m, "types"), " : float32"));
  assert_non_null(strstr(p2c_module_dump(m, "analysis"), "nonneg: i"));
  assert_ptr_equal(p2c_module_dump(m, "cuda"), p2c_module_cuda(m, NULL));
  p2c_module_delete(m);
  static const char bad_src[] = "from numba import cuda\n"
                                "@cuda.jit('void(float32[::1])')\n"
                                "def k(a):\n"
                                "    a[0] = a\n";
  assert_int_equal(p2c_translate(c, "bad.py", bad_src, strlen(bad_src), NULL, &m), P2C_ERR_SOURCE);
  assert_non_null(strstr(p2c_module_dump(m, "ast"), "Kernel k @"));   /* typeinfer failed */
  assert_null(p2c_module_dump(m, "types"));
  assert_null(p2c_module_dump(m, "analysis"));
  assert_null(p2c_module_dump(m, "cuda"));
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* A kernel whose launches must read the bounds record says so (the package's fast GPU launch asks
 * it): its decorator's boundscheck= or debug= (read by the frontend), or the compiler's switch. */
static void kernel_info_says_whether_it_checks_bounds(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  static const char *const srcs[] = {"@cuda.jit('void(float32[::1])')\n",
                                     "@cuda.jit('void(float32[::1])', boundscheck=True)\n",
                                     "@cuda.jit('void(float32[::1])', debug=True)\n",
                                     "@cuda.jit('void(float32[::1])', boundscheck=False)\n"};
  static const bool checks[] = {false, true, true, false};
  for (size_t i = 0; i < 4; i++) {
    char src[256];
    snprintf(src, sizeof src, "from numba import cuda\n%sdef k(a):\n    a[0] = 1.0\n", srcs[i]);
    P2cModule *m = NULL;
    assert_int_equal(p2c_translate(c, "b.py", src, strlen(src), NULL, &m), P2C_OK);
    assert_int_equal(p2c_module_kernel(m, 0).checks_bounds, checks[i]);
    p2c_module_delete(m);
  }
  p2c_compiler_set_check_bounds(c, true);
  P2cModule *m = NULL;
  static const char plain[] = "from numba import cuda\n@cuda.jit('void(float32[::1])')\ndef k(a):\n    a[0] = 1.0\n";
  assert_int_equal(p2c_translate(c, "b.py", plain, strlen(plain), NULL, &m), P2C_OK);
  assert_true(p2c_module_kernel(m, 0).checks_bounds);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* Checks are options of each translation (P2cChecks), not switches on the compiler: a translation
 * with bounds checks leaves the next one without; sanitizing implies bounds checking and the
 * simulator only; the deprecated switches still add their checks, except to exact ones; a launch's
 * own translation takes its options' checks. */
static void checks_are_options_of_each_translation(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  p2c_compiler_set_sanitize(c, false);   /* whatever $PYK2CUDA_SANITIZE says here */
  static const char src[] = "from numba import cuda\n@cuda.jit('void(float32[::1])')\ndef k(a):\n    a[5] = 1.0\n";
  static const struct { P2cChecks asked; bool deprecated_bounds, bounds, sim_only; } cases[] = {
      {{true, false, false}, false, true, false},  {{false, false, false}, false, false, false},
      {{false, true, false}, false, true, true},   {{false, false, false}, false, false, false},
      {{false, false, false}, true, true, false},  {{false, false, true}, true, false, false},
      {{true, false, true}, true, true, false},    {{false, true, true}, false, true, true}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    p2c_compiler_set_check_bounds(c, cases[i].deprecated_bounds);
    P2cTranslateOptions o = {.checks = cases[i].asked};
    P2cModule *m = NULL;
    assert_int_equal(p2c_translate(c, "k.py", src, strlen(src), &o, &m), P2C_OK);
    if (p2c_module_kernel(m, 0).checks_bounds != cases[i].bounds) fail_msg("case %zu: checks_bounds is not %d", i, cases[i].bounds);
    P2cStatus s = p2c_module_compile(c, m, "sm_90", P2C_TARGET_PTX);
    if ((s == P2C_ERR_USAGE) != cases[i].sim_only) fail_msg("case %zu: compile gave status %d", i, (int)s);
    assert_false(p2c_compiler_get_sanitize(c));
    p2c_module_delete(m);
  }
  p2c_compiler_set_check_bounds(c, false);
  float data[1] = {0};
  P2cValue arg = {.is_array = true, .type = P2C_FLOAT32,
                  .array = {.dtype = P2C_FLOAT32, .ndim = 1, .shape = {1}, .strides = {4}, .data = data}};
  P2cLaunchOptions lo = {.device = P2C_DEVICE_SIM, .grid = {1, 1, 1}, .block = {1, 1, 1}, .checks = {true, false, false}};
  assert_int_equal(p2c_launch(c, "k.py", src, strlen(src), "k", &arg, 1, &lo, NULL, NULL), P2C_ERR_BOUNDS);
  assert_non_null(strstr(p2c_compiler_last_error(c), "out of bounds"));
  p2c_compiler_delete(c);
}

/* A sanitized launch's findings as data (p2c_compiler_last_findings, p2c_compiler_finding): the
 * same finding as the last error's line, with both accesses, the array, the index and the
 * threads; none after a failure of another kind. */
static void sanitize_findings_are_data(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  static const char src[] = "from numba import cuda\nimport numpy as np\n\n\n@cuda.jit('void(float32[::1])')\n"
                            "def k(out):\n    c = cuda.shared.array(1, dtype=np.float32)\n"
                            "    if cuda.threadIdx.x == 0:\n        c[0] = 1.0\n    out[cuda.threadIdx.x] = c[0]\n";
  float data[4] = {0};
  P2cValue arg = {.is_array = true, .type = P2C_FLOAT32,
                  .array = {.dtype = P2C_FLOAT32, .ndim = 1, .shape = {4}, .strides = {4}, .data = data}};
  P2cLaunchOptions lo = {.device = P2C_DEVICE_SIM, .grid = {1, 1, 1}, .block = {4, 1, 1}, .checks = {false, true, false}};
  P2cFindings all;
  P2cFinding f;
  assert_false(p2c_compiler_last_findings(c, &all));
  assert_int_equal(p2c_launch(c, "racy.py", src, strlen(src), "k", &arg, 1, &lo, NULL, NULL), P2C_ERR_SANITIZE);
  assert_true(p2c_compiler_last_findings(c, &all));
  assert_int_equal(all.count, 1);
  assert_int_equal(all.total, 1);
  assert_false(all.out_of_memory);
  assert_true(p2c_compiler_finding(c, 0, &f));
  assert_true(p2c_compiler_finding(c, 0, &f));
  assert_string_equal(f.kind, "shared-race");
  assert_string_equal(f.file, "racy.py");
  assert_string_equal(f.kernel, "k");
  assert_int_equal(f.line, 10);
  assert_int_equal(f.column, 29);
  assert_int_equal(f.other_line, 9);
  assert_int_equal(f.other_column, 9);
  assert_string_equal(f.access, "read");
  assert_string_equal(f.other_access, "write");
  assert_string_equal(f.space, "shared");
  assert_string_equal(f.array, "c");
  assert_int_equal(f.ndim, 1);
  assert_int_equal(f.index[0], 0);
  assert_int_equal(f.thread[0], 1);
  assert_int_equal(f.other_thread[0], 0);
  assert_int_equal(f.block[0] + f.other_block[0], 0);
  char line[1400];
  snprintf(line, sizeof line, "racy.py:10:29: error: %s (kernel 'k')\nsanitize: 1 error", f.message);
  assert_true(strncmp(p2c_compiler_last_error(c), line, strlen(line)) == 0);
  assert_non_null(strstr(f.message, "at racy.py:9:9 by thread (0,0,0)"));
  P2cFinding none;
  assert_false(p2c_compiler_finding(c, 1, &none));
  assert_false(p2c_compiler_finding(NULL, 0, &none));
  /* Another failure clears them. */
  lo.checks = (P2cChecks){true, false, false};
  arg.array.shape[0] = 1;
  assert_int_equal(p2c_launch(c, "racy.py", src, strlen(src), "k", &arg, 1, &lo, NULL, NULL), P2C_ERR_BOUNDS);
  assert_false(p2c_compiler_last_findings(c, &all));
  assert_false(p2c_compiler_finding(c, 0, &f));
  p2c_compiler_delete(c);
}

/* NumPy's character-sequence spellings have one parser (p2c_dtype_parse_charseq): every kind,
 * byte order and length round-trips through the dtype, and every other text is refused. */
static void charseq_spellings_round_trip(void **state) {
  (void)state;
  static const char *const orders[] = {"", "|", "<", ">", "="};
  static const long long lengths[] = {1, 2, 9, 10, 12, 99, 1000, P2C_MAX_CHARS};
  for (size_t o = 0; o < 5; o++)
    for (size_t k = 0; k < 3; k++)
      for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
        char text[32];
        int len = snprintf(text, sizeof text, "%s%c%lld", orders[o], "SUa"[k], lengths[l]);
        P2cScalarType t;
        bool unicode;
        int64_t chars;
        assert_true(p2c_dtype_parse_charseq(text, (size_t)len, &t));
        assert_true(p2c_dtype_charseq(t, &unicode, &chars));
        assert_int_equal(unicode, k == 1);
        assert_int_equal(chars, lengths[l]);
        assert_int_equal(p2c_dtype_size(t, NULL), (size_t)chars * (unicode ? 4 : 1));
      }
  static const char *const bad[] = {"", "S", "U", "S0", "U00", "S-1", "S12x", "Sx", "S 1", "S1048577",
                                    "U99999999999999999999999", "<", "<<S1", "b12", "s12", "12S", "|", "S+1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    P2cScalarType t = P2C_INT8;
    assert_false(p2c_dtype_parse_charseq(bad[i], strlen(bad[i]), &t));
    assert_int_equal(t, P2C_INT8);
  }
  P2cScalarType t;
  assert_true(p2c_dtype_parse_charseq("S12", 2, &t) && t == P2C_CHARSEQ(1));   /* len bounds the text */
  assert_false(p2c_dtype_parse_charseq(NULL, 0, &t));
}

/* A gufunc layout as @guvectorize reads it: names by offset, spaces and a trailing comma in a
 * group, '()' groups; the refusals with where they point. */
static void gufunc_layouts(void **state) {
  (void)state;
  P2cGufuncLayout g;
  const char *text = " (m, n),(n,p,) -> (m,p)";
  assert_true(p2c_gufunc_layout(text, strlen(text), &g));
  assert_int_equal(g.nargs, 3);
  assert_int_equal(g.ninputs, 2);
  assert_int_equal(g.ndims[0], 2);
  assert_int_equal(g.ndims[2], 2);
  assert_int_equal(g.name_at[1][1], 11);   /* the p of (n,p,) */
  assert_int_equal(g.name_len[1][1], 1);
  assert_true(p2c_gufunc_layout("(),(t)->()", 10, &g) && g.ndims[0] == 0 && g.ndims[1] == 1 && g.ndims[2] == 0);
  assert_true(p2c_gufunc_layout("(nx1,ny_2)->(ny_2)", 18, &g) && g.name_len[0][0] == 3);
  assert_true(p2c_gufunc_layout("(m),(m)->(m),()", 15, &g) && g.nargs == 4 && g.ninputs == 2 && g.ndims[3] == 0);
  static const struct { const char *text; size_t at; const char *why; } bad[] = {
      {"(n)->(n", 7, "expected ',' or ')'"},
      {"(n)->(m)", 6, "output dimension 'm' is not a dimension of any input"},
      {"(n)->(n),(m)", 10, "output dimension 'm' is not a dimension of any input"},
      {"(1)->(n)", 1, "expected a dimension name"},
      {"(n)", 3, "expected '->'"},
      {"(n)->(n)x", 8, "unexpected text"},
      {"n->n", 0, "expected '('"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_false(p2c_gufunc_layout(bad[i].text, strlen(bad[i].text), &g));
    assert_int_equal(g.error_at, bad[i].at);
    assert_non_null(strstr(g.error, bad[i].why));
  }
}

/* Array layouts: the one printer of dimensions reads back through the signature parser (a
 * translation of that text gives the layout it was printed from), Numba's slice rule, and
 * NumPy's flags for strides (an array without elements is C, as Numba's typeof says). */
static void array_layout_texts(void **state) {
  (void)state;
  char buf[64];
  static const struct { int ndim; char layout; const char *text; } dims[] = {
      {1, 'C', "[::1]"}, {1, 'A', "[:]"}, {2, 'C', "[:, ::1]"}, {2, 'F', "[::1, :]"}, {3, 'A', "[:, :, :]"},
      {0, 'C', "[()]"}};   /* 0-d: pyk2cuda's spelling */
  for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
    assert_int_equal(p2c_array_dims(dims[i].ndim, dims[i].layout, buf, sizeof buf), strlen(dims[i].text));
    assert_string_equal(buf, dims[i].text);
  }
  assert_int_equal(p2c_array_dims(-1, 'C', buf, sizeof buf), 0);
  assert_int_equal(p2c_array_dims(P2C_MAX_NDIM + 1, 'C', buf, sizeof buf), 0);
  assert_int_equal(p2c_array_dims(2, 'K', buf, sizeof buf), 0);
  assert_int_equal(p2c_array_dims(2, 'C', buf, 4), 8);   /* truncated, the length it needs */
  assert_string_equal(buf, "[:,");
  assert_int_equal(p2c_slices_layout(1, true, true), 'C');
  assert_int_equal(p2c_slices_layout(2, true, true), 'F');
  assert_int_equal(p2c_slices_layout(2, false, true), 'C');
  assert_int_equal(p2c_slices_layout(3, false, false), 'A');
  int64_t shape[2] = {3, 4}, c[2] = {16, 4}, f[2] = {4, 12}, strided[2] = {32, 8}, empty[2] = {0, 4};
  assert_int_equal(p2c_array_layout(4, 2, shape, c), 'C');
  assert_int_equal(p2c_array_layout(4, 2, shape, f), 'F');
  assert_int_equal(p2c_array_layout(4, 2, shape, strided), 'A');
  assert_int_equal(p2c_array_layout(4, 2, empty, strided), 'C');
}

static void compiler_new_and_delete(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  assert_string_equal(p2c_compiler_last_error(c), "");
  p2c_compiler_delete(c);
}

static void compiler_new_fails_cleanly_without_memory(void **state) {
  (void)state;
  CountingAlloc ca = {.fail_at = 1};
  P2cAllocator a = counting_allocator(&ca);
  assert_null(p2c_compiler_new(&a));
  assert_int_equal(ca.live_blocks, 0);
}

static void version_and_status_strings(void **state) {
  (void)state;
  assert_string_equal(p2c_version(), PYK2CUDA_VERSION_STRING);
  for (int s = P2C_OK; s <= P2C_ERR_INTERNAL; s++) {
    const char *text = p2c_status_string((P2cStatus)s);
    assert_non_null(text);
    assert_string_not_equal(text, "unknown status");
  }
  assert_string_equal(p2c_status_string((P2cStatus)999), "unknown status");
  assert_string_equal(p2c_status_string(P2C_ERR_NOMEM), "out of memory");
}

static void scalar_helpers(void **state) {
  (void)state;
  assert_int_equal(p2c_scalar_size(P2C_FLOAT64), 8);
  assert_int_equal(p2c_scalar_size(P2C_BOOL), 1);
  assert_int_equal(p2c_scalar_size(P2C_SCALAR_TYPE_COUNT), 0);
  assert_string_equal(p2c_scalar_name(P2C_UINT16), "uint16");
  assert_null(p2c_scalar_name((P2cScalarType)-1));
  assert_int_equal(p2c_array_arg_size(2), 40);
}

/* Character sequences: the dtype carries the length (P2C_CHARSEQ(n), P2C_UNICHARSEQ(n)), read
 * back by p2c_dtype_charseq; no scalar name or size; itemsize n or 4n; record names spell them
 * as Numba does; kernel parameters describe them. */
static void charseq_dtypes(void **state) {
  (void)state;
  bool unicode = false;
  int64_t chars = 0;
  assert_true(p2c_dtype_charseq(P2C_UNICHARSEQ(12), &unicode, &chars));
  assert_true(unicode);
  assert_int_equal(chars, 12);
  assert_true(p2c_dtype_charseq(P2C_CHARSEQ(P2C_MAX_CHARS), &unicode, &chars));
  assert_false(unicode);
  assert_int_equal(chars, P2C_MAX_CHARS);
  assert_true(p2c_dtype_charseq(P2C_CHARSEQ(1), NULL, NULL));
  assert_false(p2c_dtype_charseq(P2C_CHARSEQ(0), NULL, NULL));
  assert_false(p2c_dtype_charseq(P2C_CHARSEQ(P2C_MAX_CHARS + 1), NULL, NULL));
  assert_false(p2c_dtype_charseq(P2C_FLOAT64, NULL, NULL));
  assert_false(p2c_dtype_charseq(P2C_RECORD, NULL, NULL));
  assert_int_equal(p2c_dtype_size(P2C_CHARSEQ(5), NULL), 5);
  assert_int_equal(p2c_dtype_size(P2C_UNICHARSEQ(5), NULL), 20);
  assert_int_equal(p2c_scalar_size(P2C_CHARSEQ(5)), 0);
  assert_null(p2c_scalar_name(P2C_UNICHARSEQ(5)));
  P2cRecordField f[2] = {{.name = "x", .type = P2C_INT32, .offset = 0},
                         {.name = "y", .type = P2C_UNICHARSEQ(12), .offset = 4}};
  P2cRecord r = {.itemsize = 52, .field_count = 2, .fields = f};
  char name[160];
  p2c_record_name(&r, name, sizeof name);
  assert_string_equal(name, "Record(x[type=int32;offset=0],y[type=[unichr x 12];offset=4];52;False)");
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit('void([unichr x 12][::1], [char x 3][:, :], " 
      "Record(x[type=int32;offset=0],y[type=[unichr x 12];offset=4];52;False)[::1])')\n"
      "def k(u, s, r):\n"
      "    u[0] = 'XYZ'\n"
      "    r[0].y = u[1]\n";
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "cs.py", src, sizeof src - 1, NULL, &m), P2C_OK);
  P2cKernelInfo k = p2c_module_kernel(m, 0);
  assert_int_equal(k.param_count, 3);
  assert_int_equal(k.params[0].type, P2C_UNICHARSEQ(12));
  assert_true(k.params[0].written);
  assert_int_equal(k.params[1].type, P2C_CHARSEQ(3));
  assert_false(k.params[1].written);
  assert_int_equal(k.params[2].type, P2C_RECORD);
  assert_int_equal(k.params[2].record->fields[1].type, P2C_UNICHARSEQ(12));
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* float16 scalars are passed as the nearest float16's bits: ties to even, subnormals, the
 * largest finite value, overflow to infinity; every non-NaN bit pattern round-trips. */
static void float16_conversions(void **state) {
  (void)state;
  assert_int_equal(p2c_float16_bits(1.0), 0x3c00);
  assert_int_equal(p2c_float16_bits(-0.0), 0x8000);
  assert_int_equal(p2c_float16_bits(1.0 + ldexp(1, -11)), 0x3c00);       /* tie: to even */
  assert_int_equal(p2c_float16_bits(1.0 + 3 * ldexp(1, -11)), 0x3c02);   /* tie: to even */
  assert_int_equal(p2c_float16_bits(ldexp(1, -24)), 0x0001);
  assert_int_equal(p2c_float16_bits(ldexp(1, -26)), 0x0000);
  assert_int_equal(p2c_float16_bits(65504.0), 0x7bff);
  assert_int_equal(p2c_float16_bits(65519.0), 0x7bff);
  assert_int_equal(p2c_float16_bits(-65520.0), 0xfc00);
  assert_int_equal(p2c_float16_bits(NAN) & 0x7e00, 0x7e00);
  assert_true(p2c_float16_value(0x3555) == 0.333251953125);
  assert_true(isinf(p2c_float16_value(0x7c00)) && isnan(p2c_float16_value(0x7e01)));
  for (unsigned b = 0; b < 0x10000; b++)
    if ((b & 0x7c00) != 0x7c00 || (b & 0x3ff) == 0)
      assert_int_equal(p2c_float16_bits(p2c_float16_value((uint16_t)b)), b);
}

/* ---- errors -------------------------------------------------------------------------------- */

static void syntax_error_gives_source_status_and_diagnostics(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  P2cStatus s = p2c_translate(c, "bad.py", syntax_error_src, strlen(syntax_error_src), NULL, &m);
  assert_int_equal(s, P2C_ERR_SOURCE);
  assert_non_null(m);
  assert_true(p2c_module_diagnostic_count(m) >= 1);
  P2cDiagnostic d = p2c_module_diagnostic(m, 0);
  assert_int_equal(d.severity, P2C_SEVERITY_ERROR);
  assert_string_equal(d.file, "bad.py");
  assert_string_equal(d.code, "E-syntax");
  assert_true(d.line >= 5 && d.line <= 6);
  assert_true(d.column >= 1);
  assert_non_null(d.message);
  assert_null(p2c_module_cuda(m, NULL));
  assert_null(p2c_module_dump(m, "ast"));
  assert_int_equal(p2c_module_kernel_count(m), 0);
  assert_null(p2c_module_diagnostic(m, p2c_module_diagnostic_count(m)).message);
  assert_non_null(strstr(p2c_compiler_last_error(c), "bad.py"));
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

static void type_error_diagnostic_has_position_and_code(void **state) {
  (void)state;
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit(\"void(float32[::1], int64)\")\n"
      "def k(a, n):\n"
      "    x = a\n"
      "    if n > 0:\n"
      "        x = n\n"
      "    a[0] = x\n";   /* reads both: one variable (webs.c) */
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "t.py", src, strlen(src), NULL, &m), P2C_ERR_SOURCE);
  P2cDiagnostic d = p2c_module_diagnostic(m, 0);
  assert_string_equal(d.code, "E-unify");
  assert_int_equal(d.line, 6);
  assert_int_equal(d.column, 9);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

static void unknown_kernel_is_a_usage_error(void **state) {
  (void)state;
  const char *const only[] = {"nope"};
  P2cTranslateOptions o = {.kernels = only, .kernel_count = 1};
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = (P2cModule *)&o;   /* must be overwritten with NULL */
  assert_int_equal(p2c_translate(c, "t.py", one_kernel_src, strlen(one_kernel_src), &o, &m), P2C_ERR_USAGE);
  assert_null(m);
  assert_non_null(strstr(p2c_compiler_last_error(c), "'nope'"));
  p2c_compiler_delete(c);
}

static void selected_kernel_only_is_emitted(void **state) {
  (void)state;
  size_t len;
  char *src = read_sample("normalize.py", &len);
  const char *const only[] = {"divide"};
  P2cTranslateOptions o = normalize_opts;
  o.kernels = only;
  o.kernel_count = 1;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "normalize.py", src, len, &o, &m), P2C_OK);
  assert_int_equal(p2c_module_kernel_count(m), 1);
  assert_string_equal(p2c_module_kernel(m, 0).python_name, "divide");
  assert_null(strstr(p2c_module_cuda(m, NULL), "partial_sums("));
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(src);
}

static void malformed_sig_is_a_usage_error(void **state) {
  (void)state;
  static const char *const bad[] = {"k", "(float32[::1])", ":void(float32[::1])", ""};
  P2cCompiler *c = p2c_compiler_new(NULL);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    P2cTranslateOptions o = {.signatures = &bad[i], .signature_count = 1};
    P2cModule *m = NULL;
    assert_int_equal(p2c_translate(c, "t.py", one_kernel_src, strlen(one_kernel_src), &o, &m), P2C_ERR_USAGE);
    assert_null(m);
    assert_non_null(strstr(p2c_compiler_last_error(c), "malformed --sig"));
  }
  p2c_compiler_delete(c);
}

static void bad_types_in_sig_are_diagnostics(void **state) {
  (void)state;
  const char *const sig[] = {"k(flot32[::1])"};
  P2cTranslateOptions o = {.signatures = sig, .signature_count = 1};
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  P2cStatus s = p2c_translate(c, "t.py", one_kernel_src, strlen(one_kernel_src), &o, &m);
  assert_true(s == P2C_ERR_SOURCE || s == P2C_ERR_USAGE);
  if (s == P2C_ERR_SOURCE) {
    assert_true(p2c_module_diagnostic_count(m) >= 1);
    assert_string_equal(p2c_module_diagnostic(m, 0).code, "E-signature");
  }
  assert_string_not_equal(p2c_compiler_last_error(c), "");
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

static void bad_arguments_are_refused(void **state) {
  (void)state;
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(NULL, "t.py", "", 0, NULL, &m), P2C_ERR_USAGE);
  assert_null(m);
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_int_equal(p2c_translate(c, "t.py", "x", 1, NULL, NULL), P2C_ERR_USAGE);
  assert_int_equal(p2c_translate(c, "t.py", NULL, 5, NULL, &m), P2C_ERR_USAGE);
  assert_null(m);
  assert_string_not_equal(p2c_compiler_last_error(c), "");
  /* An empty source is a valid, empty module. */
  assert_int_equal(p2c_translate(c, NULL, NULL, 0, NULL, &m), P2C_OK);
  assert_int_equal(p2c_module_kernel_count(m), 0);
  assert_null(p2c_module_dump(m, "no-such-stage"));
  p2c_module_delete(m);
  assert_int_equal(p2c_module_compile(c, NULL, NULL, P2C_TARGET_PTX), P2C_ERR_USAGE);
  p2c_compiler_delete(c);
}

static void last_error_is_cleared_by_a_success(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  p2c_translate(c, "bad.py", syntax_error_src, strlen(syntax_error_src), NULL, &m);
  p2c_module_delete(m);
  assert_string_not_equal(p2c_compiler_last_error(c), "");
  assert_int_equal(p2c_translate(c, "t.py", one_kernel_src, strlen(one_kernel_src), NULL, &m), P2C_OK);
  assert_string_equal(p2c_compiler_last_error(c), "");
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

static void source_need_not_be_nul_terminated(void **state) {
  (void)state;
  size_t n = strlen(one_kernel_src);
  char *copy = malloc(n + 8);
  memcpy(copy, one_kernel_src, n);
  memcpy(copy + n, "@@@@@@@@", 8);   /* not part of the source: would be a syntax error */
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "t.py", copy, n, NULL, &m), P2C_OK);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(copy);
}

/* ---- threads ------------------------------------------------------------------------------- */

typedef struct ThreadJob {
  const char *src;
  size_t len;
  const char *expected;
  int rounds;
  int mismatches;
  P2cStatus status;
  CountingAlloc alloc;
} ThreadJob;

static void *translate_rounds(void *arg) {
  ThreadJob *j = arg;
  P2cAllocator a = counting_allocator(&j->alloc);
  P2cCompiler *c = p2c_compiler_new(&a);
  for (int r = 0; r < j->rounds && c; r++) {
    P2cModule *m = NULL;
    j->status = p2c_translate(c, "normalize.py", j->src, j->len, &normalize_opts, &m);
    const char *text = p2c_module_cuda(m, NULL);
    if (j->status != P2C_OK || !text || strcmp(text, j->expected) != 0) j->mismatches++;
    const char *dump = p2c_module_dump(m, "types");
    if (!dump || !strstr(dump, "partial_sums")) j->mismatches++;
    p2c_module_delete(m);
  }
  p2c_compiler_delete(c);
  return NULL;
}

static void two_threads_translate_identically(void **state) {
  (void)state;
  size_t len;
  char *src = read_sample("normalize.py", &len);
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "normalize.py", src, len, &normalize_opts, &m), P2C_OK);
  const char *expected = p2c_module_cuda(m, NULL);
  ThreadJob jobs[2] = {{src, len, expected, 40, 0, P2C_OK, {0}}, {src, len, expected, 40, 0, P2C_OK, {0}}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, translate_rounds, &jobs[i]), 0);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(jobs[i].status, P2C_OK);
    assert_int_equal(jobs[i].mismatches, 0);
    assert_int_equal(jobs[i].alloc.live_blocks, 0);
    assert_int_equal(jobs[i].alloc.live_bytes, 0);
    assert_int_equal(jobs[i].alloc.size_mismatches, 0);
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(src);
}

/* ---- allocation failure injection ---------------------------------------------------------- */

typedef struct OomResult {
  P2cStatus status;
  long ts_leaked_blocks;
} OomResult;

/* One translation with allocation `fail_at` (1-based, counted after the compiler exists)
 * failing; checks that nothing of ours is left allocated afterwards. */
static OomResult translate_failing_at(const char *src, size_t len, const P2cTranslateOptions *o,
                                      P2cStatus success, size_t fail_at, bool fail_after,
                                      size_t *calls) {
  CountingAlloc ca = {0};
  P2cAllocator a = counting_allocator(&ca);
  P2cCompiler *c = p2c_compiler_new(&a);
  assert_non_null(c);
  ca.calls = 0;
  ca.fail_at = fail_at;
  ca.fail_after = fail_after;
  P2cModule *m = NULL;
  OomResult r = {p2c_translate(c, "normalize.py", src, len, o, &m), 0};
  /* Counted before the dump below, whose own allocations may fail without failing anything. */
  if (calls) *calls = ca.calls;
  r.ts_leaked_blocks = ts_reclaim();
  if (r.status == success) {
    assert_non_null(m);
    p2c_module_dump(m, "ast");   /* may fail for want of memory: NULL, no crash */
  } else if (r.status == P2C_ERR_NOMEM) {
    assert_null(m);
    assert_string_equal(p2c_compiler_last_error(c), "out of memory");
  } else {
    fail_msg("allocation %zu failing gave %s (%s)", fail_at, p2c_status_string(r.status),
             p2c_compiler_last_error(c));
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  if (ca.live_blocks != 0 || ca.live_bytes != 0)
    fail_msg("allocation %zu failing: %ld blocks, %lld bytes left allocated", fail_at, ca.live_blocks,
             ca.live_bytes);
  if (ca.size_mismatches)
    fail_msg("allocation %zu failing: %zu frees with a wrong old_size", fail_at, ca.size_mismatches);
  if (ca.overlapped) fail_msg("allocation %zu failing: the allocator was called from two threads at once", fail_at);
  return r;
}

static int install_ts_tracking(void **state) {
  (void)state;
  ts_set_allocator(ts_tracked_malloc, ts_tracked_calloc, ts_tracked_realloc, ts_tracked_free);
  return 0;
}

static int remove_ts_tracking(void **state) {
  (void)state;
  ts_reclaim();
  ts_set_allocator(NULL, NULL, NULL, NULL);
  return 0;
}

/* Runs every failure point for `src`; returns the tree-sitter blocks leaked in all. */
static long run_every_failure_point(const char *src, size_t len, const P2cTranslateOptions *o,
                                    P2cStatus success, bool fail_after) {
  size_t total = 0;
  OomResult r = translate_failing_at(src, len, o, success, 0, false, &total);
  assert_int_equal(r.status, success);
  assert_int_equal(r.ts_leaked_blocks, 0);
  assert_true(total > 0);
  long ts_leaks = 0;
  size_t nomem = 0;
  for (size_t n = 1; n <= total + 1; n++) {
    r = translate_failing_at(src, len, o, success, n, fail_after, NULL);
    if (n <= total && r.status != P2C_ERR_NOMEM)
      fail_msg("allocation %zu of %zu failing gave %s", n, total, p2c_status_string(r.status));
    if (n > total) assert_int_equal(r.status, success);
    nomem += r.status == P2C_ERR_NOMEM;
    ts_leaks += r.ts_leaked_blocks;
    if (r.ts_leaked_blocks)
      print_message("note: allocation %zu of %zu failing left %ld tree-sitter blocks allocated\n", n, total,
                    r.ts_leaked_blocks);
  }
  print_message("%zu allocations per translation; %zu injected failures gave P2C_ERR_NOMEM\n", total, nomem);
  return ts_leaks;
}

static void every_single_allocation_failure_is_nomem(void **state) {
  (void)state;
  size_t len;
  char *src = read_sample("normalize.py", &len);
  run_every_failure_point(src, len, &normalize_opts, P2C_OK, false);
  free(src);
}

static void every_allocation_from_n_on_failing_is_nomem(void **state) {
  (void)state;
  size_t len;
  char *src = read_sample("normalize.py", &len);
  run_every_failure_point(src, len, &normalize_opts, P2C_OK, true);
  free(src);
}

/* A module large enough that the arena grows during every phase (about 2 MB of arena). */
static char *many_kernels_source(int n, size_t *len) {
  size_t cap = 256 + (size_t)n * 512;
  char *s = malloc(cap);
  assert_non_null(s);
  int k = snprintf(s, cap, "from numba import cuda\nimport math\nTPB = 128\n");
  for (int i = 0; i < n; i++)
    k += snprintf(s + k, cap - (size_t)k,
                  "@cuda.jit(device=True)\n"
                  "def dev%d(x, y):\n"
                  "    return math.sqrt(x * x + y * y) // 2\n"
                  "@cuda.jit([\"void(float32[::1], int64)\", \"void(float64[:, ::1], int32)\"])\n"
                  "def kern%d(a, n):\n"
                  "    i = cuda.grid(1)\n"
                  "    for j in range(n):\n"
                  "        if i < a.size and j %% 3 == 1:\n"
                  "            print(\"value\", i, j)\n"
                  "    b = dev%d(n, i - TPB)\n",
                  i, i, i);
  *len = (size_t)k;
  return s;
}

static void allocation_failures_in_a_large_module(void **state) {
  (void)state;
  size_t len;
  char *src = many_kernels_source(150, &len);
  run_every_failure_point(src, len, NULL, P2C_OK, false);
  free(src);
}

/* A module of 128 KiB or more is parsed and lowered on two threads, both allocating: every
 * translation must still call the allocator one call at a time, and a failure at any point,
 * on either thread, must give P2C_ERR_NOMEM with nothing left allocated. tree-sitter's own
 * allocations are not tracked here (the tracking is not thread-safe); AddressSanitizer's leak
 * check covers them. */
static void allocation_failures_in_a_module_lowered_on_two_threads(void **state) {
  (void)state;
  size_t len;
  char *src = many_kernels_source(700, &len);
  assert_true(len >= 128 * 1024);
  size_t total = 0;
  slow_allocator = true;
  OomResult r = translate_failing_at(src, len, NULL, P2C_OK, 0, false, &total);
  assert_int_equal(r.status, P2C_OK);
  print_message("%zu allocations per translation\n", total);
  /* The arena grows in blocks: a few dozen allocations, each of them failed in turn. */
  for (size_t n = 1; n <= total; n++) {
    r = translate_failing_at(src, len, NULL, P2C_OK, n, false, NULL);
    if (r.status != P2C_ERR_NOMEM)
      fail_msg("allocation %zu of %zu failing gave %s", n, total, p2c_status_string(r.status));
  }
  r = translate_failing_at(src, len, NULL, P2C_OK, 1, true, NULL);   /* nothing succeeds */
  assert_int_equal(r.status, P2C_ERR_NOMEM);
  slow_allocator = false;
  free(src);
}

static void allocation_failures_with_source_errors(void **state) {
  (void)state;
  /* The diagnostics path: errors reported, module returned with P2C_ERR_SOURCE. */
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit(\"void(float32[::1], int64)\")\n"
      "def k(a, n):\n"
      "    x = a\n"
      "    x = n\n"
      "    a[0] = undefined\n";
  run_every_failure_point(src, sizeof src - 1, NULL, P2C_ERR_SOURCE, false);
  run_every_failure_point(syntax_error_src, sizeof syntax_error_src - 1, NULL, P2C_ERR_SOURCE, false);
}

static void allocation_failure_in_nvrtc_output(void **state) {
  (void)state;
  CountingAlloc ca = {0};
  P2cAllocator a = counting_allocator(&ca);
  P2cCompiler *c = p2c_compiler_new(&a);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "t.py", one_kernel_src, strlen(one_kernel_src), NULL, &m), P2C_OK);
  P2cStatus s = p2c_module_compile(c, m, "sm_90", P2C_TARGET_PTX);
  if (s == P2C_ERR_NO_CUDA) {
    print_message("NVRTC not available: skipped (%s)\n", p2c_compiler_last_error(c));
  } else {
    assert_int_equal(s, P2C_OK);
    size_t before = ca.calls;
    ca.calls = 0;
    for (size_t n = 1; n <= before + 2; n++) {
      ca.calls = 0;
      ca.fail_at = n;
      s = p2c_module_compile(c, m, "sm_90", P2C_TARGET_PTX);
      assert_true(s == P2C_OK || s == P2C_ERR_NOMEM);
      ca.fail_at = 0;
      if (s == P2C_OK) break;
      assert_null(p2c_module_image(m, NULL));
    }
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  assert_int_equal(ca.live_blocks, 0);
  assert_int_equal(ca.live_bytes, 0);
  assert_int_equal(ca.size_mismatches, 0);
}

/* p2c_cache_folder names the compile cache's folder by the environment's rule ($PYK2CUDA_CACHE_DIR,
 * else $XDG_CACHE_HOME/pyk2cuda), and refuses a buffer too small for it. */
static void cache_folder_follows_the_environment(void **state) {
  (void)state;
  char saved[1024] = "", saved_xdg[1024] = "", out[64];
  if (getenv("PYK2CUDA_CACHE_DIR")) snprintf(saved, sizeof saved, "%s", getenv("PYK2CUDA_CACHE_DIR"));
  if (getenv("XDG_CACHE_HOME")) snprintf(saved_xdg, sizeof saved_xdg, "%s", getenv("XDG_CACHE_HOME"));
  setenv("PYK2CUDA_CACHE_DIR", "/tmp/p2c-folder", 1);
  assert_true(p2c_cache_folder(out, sizeof out));
  assert_string_equal(out, "/tmp/p2c-folder");
  assert_false(p2c_cache_folder(out, strlen("/tmp/p2c-folder")));   /* no room for the NUL */
  assert_false(p2c_cache_folder(NULL, 0));
  unsetenv("PYK2CUDA_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  assert_true(p2c_cache_folder(out, sizeof out));
  assert_string_equal(out, "/tmp/xdg/pyk2cuda");
  if (saved[0]) setenv("PYK2CUDA_CACHE_DIR", saved, 1);
  if (saved_xdg[0]) setenv("XDG_CACHE_HOME", saved_xdg, 1);
  else unsetenv("XDG_CACHE_HOME");
}

/* p2c_module_compile goes through the compile cache: a second compile of the same module is a
 * hit with the same image, a compiler with the cache turned off runs NVRTC every time. */
static void module_compile_uses_the_cache(void **state) {
  (void)state;
  char dir[] = "/tmp/p2c-api-cache-XXXXXX", saved[1024] = "";
  assert_non_null(mkdtemp(dir));
  if (getenv("PYK2CUDA_CACHE_DIR")) snprintf(saved, sizeof saved, "%s", getenv("PYK2CUDA_CACHE_DIR"));
  setenv("PYK2CUDA_CACHE_DIR", dir, 1);
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "t.py", one_kernel_src, strlen(one_kernel_src), NULL, &m), P2C_OK);
  P2cStatus s = p2c_module_compile(c, m, "sm_90", P2C_TARGET_CUBIN);
  if (s == P2C_ERR_NO_CUDA) {
    print_message("NVRTC not available: skipped (%s)\n", p2c_compiler_last_error(c));
  } else {
    assert_int_equal(s, P2C_OK);
    assert_false(p2c_module_image_from_cache(m));
    size_t size, size2;
    const void *image = p2c_module_image(m, &size);
    void *first = malloc(size);
    memcpy(first, image, size);
    for (int target = P2C_TARGET_PTX; target <= P2C_TARGET_CUBIN; target++) {
      assert_int_equal(p2c_module_compile(c, m, "sm_90", (P2cTarget)target), P2C_OK);
      assert_true(p2c_module_image_from_cache(m) == (target == P2C_TARGET_CUBIN));
      if (p2c_module_image_from_cache(m)) assert_string_equal(p2c_module_nvrtc_log(m), "");
    }
    image = p2c_module_image(m, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(image, first, size);
    free(first);
    p2c_compiler_set_cache(c, false);
    assert_int_equal(p2c_module_compile(c, m, "sm_90", P2C_TARGET_CUBIN), P2C_OK);
    assert_false(p2c_module_image_from_cache(m));
    p2c_compiler_set_cache(c, true);
    assert_int_equal(p2c_module_compile(c, m, "sm_90", P2C_TARGET_PTX), P2C_OK);
    assert_true(p2c_module_image_from_cache(m));
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  if (saved[0]) setenv("PYK2CUDA_CACHE_DIR", saved, 1);
  else unsetenv("PYK2CUDA_CACHE_DIR");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* ---- KNOWN BUGS (skipped unless P2C_RUN_KNOWN_BUGS=1) -------------------------------------- */

/* frontend/lower.c frontend_run: an allocation failure while lowering longjmps to the driver
 * (arena_oom) past ts_tree_delete and ts_parser_delete, so tree-sitter's parser and tree
 * (malloc'd by tree-sitter, not by the host allocator) leak on every out-of-memory exit from
 * the frontend. */
static void regression_tree_sitter_freed_on_oom(void **state) {
  size_t len;
  char *src = read_sample("normalize.py", &len);
  long leaks = run_every_failure_point(src, len, &normalize_opts, P2C_OK, false);
  free(src);
  assert_int_equal(leaks, 0);
}

/* ---- ufuncs through the C API ---- */

static const char ufunc_src[] =
    "import numba\n"
    "from numba import vectorize\n"
    "@vectorize(['int64(int64, int64)', 'float64(float64, float64)'], target='cuda')\n"
    "def axpy(x, y):\n"
    "    return 2 * x + y\n";

static P2cValue host_value(P2cHostArray a) { return (P2cValue){.is_array = true, .type = a.dtype, .array = a}; }

static const char tuple_src[] =
    "from numba import cuda\n"
    "@cuda.jit(['void(float64[::1], UniTuple(float32, 2))', 'void(float64[::1], UniTuple(int64, 2))'])\n"
    "def pair(r, t):\n"
    "    r[0] = t[0] + t[1]\n"
    "@cuda.jit('void(float64[::1], Tuple((float64, int32)))')\n"
    "def mixed(r, t):\n"
    "    r[0] = t[0] + t[1]\n"
    "@cuda.jit('void(float64[::1], int32)')\n"
    "def number(r, t):\n"
    "    r[0] = t\n";

/* r[0] of kernel pair, mixed or number after a launch with value t, or NAN with the message in *why when the
 * launch is refused. */
static double tuple_launch(P2cCompiler *c, const char *kernel, P2cValue t, const char **why) {
  P2cHostArray r;
  int64_t n = 1;
  assert_int_equal(p2c_host_array_new(c, P2C_FLOAT64, 1, &n, &r), P2C_OK);
  P2cValue args[2] = {host_value(r), t};
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM};
  P2cStatus s = p2c_launch(c, "t.py", tuple_src, sizeof tuple_src - 1, kernel, args, 2, &o, NULL, NULL);
  double got = s == P2C_OK ? ((double *)r.data)[0] : NAN;
  *why = s == P2C_OK ? NULL : p2c_compiler_last_error(c);
  if (s != P2C_OK && s != P2C_ERR_USAGE) fail_msg("%s: %s", p2c_status_string(s), *why);
  p2c_host_array_free(c, &r);
  return got;
}

/* Tuples against signatures through the C API, converted element by element: the values and
 * results of tests/python/tuple_choice.py, which test_overload_choice.py checks against Numba's
 * dispatcher (numba.njit with the same signatures). */
static void tuple_arguments_convert_element_by_element(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  const char *why;
#define I64(x) {.type = P2C_INT64, .scalar.i = (x)}
  P2cValue big[2] = {I64(16777217), I64(1)}, three[3] = {I64(1), I64(2), I64(3)};
  P2cValue small[2] = {{.type = P2C_INT8, .scalar.i = 1}, {.type = P2C_INT8, .scalar.i = 2}};
  P2cValue f32[2] = {{.type = P2C_FLOAT32, .scalar.f = 16777216}, {.type = P2C_FLOAT32, .scalar.f = 1}};
  P2cValue mixed[2] = {{.type = P2C_FLOAT32, .scalar.f = (float)0.1}, I64(((int64_t)1 << 33) + 5)};
  P2cValue complex_first[2] = {{.type = P2C_COMPLEX128, .scalar.c = {0, 1}}, I64(2)};
#undef I64
  static const char *const fields[2] = {"x", "y"};
  /* an int64 pair takes UniTuple(int64, 2) exactly, though UniTuple(float32, 2) comes first */
  assert_true(tuple_launch(c, "pair", (P2cValue){.type = P2C_TUPLE, .elems = big, .elem_count = 2}, &why) == 16777218.0);
  /* int8 -> int64 is a promotion, int8 -> float32 safe: the int64 signature */
  assert_true(tuple_launch(c, "pair", (P2cValue){.type = P2C_TUPLE, .elems = small, .elem_count = 2}, &why) == 3.0);
  /* float32 elements: the float32 signature, its sum rounded to float32 */
  assert_true(tuple_launch(c, "pair", (P2cValue){.type = P2C_TUPLE, .elems = f32, .elem_count = 2}, &why) == 16777216.0);
  /* each element converts to its own type: 0.1f as a float64, 2**33 + 5 wrapped to an int32 */
  assert_true(tuple_launch(c, "mixed", (P2cValue){.type = P2C_TUPLE, .elems = mixed, .elem_count = 2}, &why) ==
              (double)(float)0.1 + 5);
  /* refused: a namedtuple (it converts to no plain tuple), three elements, a complex for a float */
  P2cValue point = {.type = P2C_TUPLE, .elems = big, .elem_count = 2, .tuple_class = "Point", .field_names = fields};
  assert_true(isnan(tuple_launch(c, "pair", point, &why)));
  assert_string_equal(why, "No matching definition of kernel 'pair' for argument type(s) (float64[::1], NamedTuple(Point, x=int64, "
                      "y=int64)): void(float64[::1], UniTuple(float32 x 2)): argument 't' is NamedTuple(Point, "
                      "x=int64, y=int64), where it takes UniTuple(float32 x 2); void(float64[::1], UniTuple(int64 "
                      "x 2)): argument 't' is NamedTuple(Point, x=int64, y=int64), where it takes UniTuple(int64 x 2)");
  assert_true(isnan(tuple_launch(c, "pair", (P2cValue){.type = P2C_TUPLE, .elems = three, .elem_count = 3}, &why)));
  assert_non_null(strstr(why, "argument 't' is UniTuple(int64 x 3), where it takes UniTuple(float32 x 2)"));
  assert_true(isnan(tuple_launch(c, "mixed", (P2cValue){.type = P2C_TUPLE, .elems = complex_first, .elem_count = 2},
                                 &why)));
  assert_string_equal(why, "argument 't': cannot convert complex128 to float64");
  /* an IntEnum member given to an integer parameter is its int (Numba passes it so), wrapped */
  P2cValue member = {.type = P2C_INT64, .scalar.i = ((int64_t)1 << 32) + 7, .enum_class = "Shape", .enum_is_int = true};
  assert_true(tuple_launch(c, "number", member, &why) == 7.0);
  member.enum_is_int = false;   /* a plain Enum member converts to no number */
  assert_true(isnan(tuple_launch(c, "number", member, &why)));
  assert_string_equal(why, "No matching definition of kernel 'number' for argument type(s) (float64[::1], Enum<int64>(Shape)): "
                      "void(float64[::1], int32): argument 't' is Enum<int64>(Shape), where it takes int32");
  p2c_compiler_delete(c);
}

/* A [2,3] array and a [3] row broadcast to [2,3]; the float64 signature is chosen. */
static void ufunc_broadcasts_through_the_c_api(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  P2cHostArray x, y, out = {0};
  int64_t sx[2] = {2, 3}, sy[1] = {3};
  assert_int_equal(p2c_host_array_new(c, P2C_FLOAT64, 2, sx, &x), P2C_OK);
  assert_int_equal(p2c_host_array_new(c, P2C_FLOAT64, 1, sy, &y), P2C_OK);
  for (int i = 0; i < 6; i++) ((double *)x.data)[i] = i;
  for (int i = 0; i < 3; i++) ((double *)y.data)[i] = 0.5 * i;
  P2cValue args[2] = {host_value(x), host_value(y)};
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM};
  P2cStatus s = p2c_ufunc_launch(c, "u.py", ufunc_src, sizeof ufunc_src - 1, "axpy", args, 2, &o,
                                 NULL, NULL, &out);
  if (s != P2C_OK) fail_msg("%s: %s", p2c_status_string(s), p2c_compiler_last_error(c));
  assert_int_equal(out.dtype, P2C_FLOAT64);
  assert_int_equal(out.ndim, 2);
  assert_int_equal(out.shape[0], 2);
  assert_int_equal(out.shape[1], 3);
  for (int i = 0; i < 6; i++)
    if (((double *)out.data)[i] != 2.0 * i + 0.5 * (i % 3))
      fail_msg("out[%d] = %g, want %g", i, ((double *)out.data)[i], 2.0 * i + 0.5 * (i % 3));
  p2c_host_array_free(c, &out);
  /* An int64 array with an int64 scalar takes the int64 signature. */
  P2cValue iargs[2] = {{.is_array = false, .type = P2C_INT64, .scalar.i = -7}, host_value(x)};
  P2cHostArray xi;
  assert_int_equal(p2c_host_array_new(c, P2C_INT64, 1, sy, &xi), P2C_OK);
  for (int i = 0; i < 3; i++) ((int64_t *)xi.data)[i] = 10 * i;
  iargs[1] = host_value(xi);
  s = p2c_ufunc_launch(c, "u.py", ufunc_src, sizeof ufunc_src - 1, "axpy", iargs, 2, &o, NULL, NULL, &out);
  if (s != P2C_OK) fail_msg("%s: %s", p2c_status_string(s), p2c_compiler_last_error(c));
  assert_int_equal(out.dtype, P2C_INT64);
  for (int i = 0; i < 3; i++) assert_int_equal(((int64_t *)out.data)[i], -14 + 10 * i);
  p2c_host_array_free(c, &out);
  /* Shapes that do not broadcast are a usage error. */
  int64_t s2[1] = {2};
  P2cHostArray bad;
  assert_int_equal(p2c_host_array_new(c, P2C_FLOAT64, 1, s2, &bad), P2C_OK);
  P2cValue bargs[2] = {host_value(x), host_value(bad)};
  assert_int_equal(p2c_ufunc_launch(c, "u.py", ufunc_src, sizeof ufunc_src - 1, "axpy", bargs, 2, &o,
                                    NULL, NULL, &out),
                   P2C_ERR_USAGE);
  p2c_host_array_free(c, &bad);
  p2c_host_array_free(c, &xi);
  p2c_host_array_free(c, &x);
  p2c_host_array_free(c, &y);
  p2c_compiler_delete(c);
}

/* p2c_module_ufunc_choose: Numba's CUDA ufunc rule (arrays of exactly a signature's types;
 * scalars of their own type first, then any; one signature must remain), with its reasons.
 * tests/python/test_vectorize.py checks the rule against Numba's own UFuncMechanism. */
static void ufunc_signature_choice_is_numbas(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  P2cModule *m = NULL;
  const char *names[1] = {"axpy"};
  P2cTranslateOptions to = {names, 1, NULL, 0, false, false, {0}};
  assert_int_equal(p2c_translate(c, "u.py", ufunc_src, sizeof ufunc_src - 1, &to, &m), P2C_OK);
  long i64 = -1, f64 = -1;
  for (size_t i = 0; i < p2c_module_kernel_count(m); i++) {
    P2cKernelInfo k = p2c_module_kernel(m, i);
    if (k.is_ufunc) *(k.params[0].type == P2C_INT64 ? &i64 : &f64) = (long)i;
  }
  assert_true(i64 >= 0 && f64 >= 0);
  int64_t n = 3;
  P2cHostArray a64, a32;
  assert_int_equal(p2c_host_array_new(c, P2C_FLOAT64, 1, &n, &a64), P2C_OK);
  assert_int_equal(p2c_host_array_new(c, P2C_INT32, 1, &n, &a32), P2C_OK);
  P2cValue int_scalar = {.type = P2C_INT64, .scalar.i = 2}, f32_scalar = {.type = P2C_FLOAT32, .scalar.f = 2};
  char why[1024];
  /* a float64 array and an int scalar: no exact match, the array decides */
  P2cValue arr_int[2] = {host_value(a64), int_scalar};
  assert_int_equal(p2c_module_ufunc_choose(m, "axpy", arr_int, 2, why, sizeof why), f64);
  /* two int scalars: their own type, exactly */
  P2cValue ints[2] = {int_scalar, int_scalar};
  assert_int_equal(p2c_module_ufunc_choose(m, "axpy", ints, 2, why, sizeof why), i64);
  /* two float32 scalars: either signature takes them, which is ambiguous */
  P2cValue f32s[2] = {f32_scalar, f32_scalar};
  assert_int_equal(p2c_module_ufunc_choose(m, "axpy", f32s, 2, why, sizeof why), -1);
  assert_non_null(strstr(why, "more than one signature of ufunc 'axpy' takes (float32, float32)"));
  /* an int32 array: no array is converted */
  P2cValue arr32[2] = {host_value(a32), int_scalar};
  assert_int_equal(p2c_module_ufunc_choose(m, "axpy", arr32, 2, why, sizeof why), -1);
  assert_non_null(strstr(why, "no signature of ufunc 'axpy' takes (int32[::1], int64)"));
  assert_non_null(strstr(why, "int64(int64, int64): argument 'x' is int32, where it takes int64"));
  /* the launch refuses with the same words */
  P2cHostArray out;
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM};
  assert_int_equal(p2c_module_ufunc_launch(c, m, "axpy", arr32, 2, &o, NULL, &out), P2C_ERR_USAGE);
  assert_string_equal(p2c_compiler_last_error(c), why);
  /* a scalar converts to the chosen type: 2.75 into the int64 signature truncates, as NumPy */
  P2cHostArray ai;
  assert_int_equal(p2c_host_array_new(c, P2C_INT64, 1, &n, &ai), P2C_OK);
  for (int i = 0; i < 3; i++) ((int64_t *)ai.data)[i] = i;
  P2cValue trunc_args[2] = {host_value(ai), {.type = P2C_FLOAT64, .scalar.f = 2.75}};
  assert_int_equal(p2c_module_ufunc_launch(c, m, "axpy", trunc_args, 2, &o, NULL, &out), P2C_OK);
  for (int i = 0; i < 3; i++) assert_int_equal(((int64_t *)out.data)[i], 2 * i + 2);
  p2c_host_array_free(c, &out);
  trunc_args[1].scalar.f = NAN;   /* NumPy's result would be the machine's: refused */
  assert_int_equal(p2c_module_ufunc_launch(c, m, "axpy", trunc_args, 2, &o, NULL, &out), P2C_ERR_USAGE);
  assert_non_null(strstr(p2c_compiler_last_error(c), "argument 2: nan cannot be converted to int64"));
  p2c_host_array_free(c, &ai);
  p2c_host_array_free(c, &a64);
  p2c_host_array_free(c, &a32);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* P2cParam.written: stores, atomics, stores with a cache hint (cuda.stcg) and device functions
 * that store write a parameter; reads, views read from, len(), loads with a cache hint
 * (cuda.ldca) and device functions that only read do not; an array bound to another
 * name counts as written (the analysis does not follow names). Ufuncs write only out. */
static void params_say_which_arrays_are_written(void **state) {
  (void)state;
  static const char src[] =
      "from numba import cuda, vectorize\n"
      "@cuda.jit(device=True)\n"
      "def load(a, i):\n"
      "    return a[i]\n"
      "@cuda.jit(device=True)\n"
      "def store(a, i):\n"
      "    a[i] = 1.0\n"
      "@cuda.jit('void(float32[:], float32[:, :], float32[:], float32[:], int32[:], float32[:], float32[:], "
      "float32[:], float32[:], int64)')\n"
      "def k(r, m, w, dev, at, alias, view, hs, hl, n):\n"
      "    i = cuda.grid(1)\n"
      "    x = r[i] + m[i][0] + load(r, i) + len(m) + r[1:][0] + cuda.ldca(hl, i)\n"
      "    cuda.stcg(hs, i, x)\n"
      "    w[i] = x\n"
      "    store(dev, i)\n"
      "    cuda.atomic.add(at, 0, 1)\n"
      "    b = alias\n"
      "    view[1:][0] = x\n"
      "@vectorize(['float32(float32, float32)'], target='cuda')\n"
      "def add(x, y):\n"
      "    return x + y\n";
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "w.py", src, sizeof src - 1, NULL, &m), P2C_OK);
  static const bool want_k[] = {false, false, true, true, true, true, true, true, false, false};
  static const bool want_add[] = {false, false, true};
  bool seen_k = false, seen_add = false;
  for (size_t i = 0; i < p2c_module_kernel_count(m); i++) {
    P2cKernelInfo k = p2c_module_kernel(m, i);
    bool is_k = strcmp(k.python_name, "k") == 0;
    const bool *want = is_k ? want_k : want_add;
    assert_int_equal(k.param_count, is_k ? 10 : 3);
    for (size_t p = 0; p < k.param_count; p++)
      if (k.params[p].written != want[p])
        fail_msg("%s: parameter %s written = %d", k.python_name, k.params[p].name, k.params[p].written);
    seen_k |= is_k;
    seen_add |= !is_k;
  }
  assert_true(seen_k && seen_add);
  assert_non_null(strstr(p2c_module_dump(m, "analysis"), "written: w dev at alias view hs\n"));
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* Enum members as arguments: typed as their class (Enum<T>(Cls), IntEnum<int64>(Cls)), described
 * as their value in the parameters; malformed members are usage errors. */
static void enum_members_are_arguments(void **state) {
  (void)state;
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit\n"
      "def k(a, b, c, out):\n"
      "    out[0] = a == b\n"
      "    out[1] = a is not b\n"
      "    out[2] = c is None\n";
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  const P2cValue pair[2] = {{.type = P2C_FLOAT64, .scalar.f = 1.0}, {.type = P2C_FLOAT64, .scalar.f = 2.0}};
  bool out[3];
  P2cValue args[4] = {
      {.type = P2C_TUPLE, .elems = pair, .elem_count = 2, .enum_class = "Planet"},
      {.type = P2C_TUPLE, .elems = pair, .elem_count = 2, .enum_class = "Planet"},
      {.type = P2C_INT64, .scalar.i = 2, .enum_class = "Shape", .enum_is_int = true},
      {.is_array = true, .type = P2C_BOOL, .array = {.dtype = P2C_BOOL, .ndim = 1, .shape = {3}, .strides = {1}, .data = out}},
  };
  assert_int_equal(p2c_specialize(c, "e.py", src, sizeof src - 1, "k", args, 4, &m), P2C_OK);
  P2cKernelInfo k = p2c_module_kernel(m, 0);
  assert_string_equal(k.signature, "void(Enum<UniTuple(float64 x 2)>(Planet), Enum<UniTuple(float64 x 2)>(Planet), "
                      "IntEnum<int64>(Shape), bool[::1])");
  assert_string_equal(k.params[0].enum_class, "Planet");
  assert_int_equal(k.params[0].type, P2C_TUPLE);
  assert_int_equal(k.params[0].size, 16);
  assert_true(k.params[2].enum_is_int && k.params[2].type == P2C_INT64);
  assert_null(k.params[3].enum_class);
  p2c_module_delete(m);

  P2cValue bad = args[2];
  bad.enum_class = "not a name";
  args[2] = bad;
  assert_int_equal(p2c_specialize(c, "e.py", src, sizeof src - 1, "k", args, 4, &m), P2C_ERR_USAGE);
  assert_non_null(strstr(p2c_compiler_last_error(c), "class name must be an ASCII identifier"));
  args[2] = (P2cValue){.type = P2C_FLOAT64, .scalar.f = 2.0, .enum_class = "Shape", .enum_is_int = true};
  assert_int_equal(p2c_specialize(c, "e.py", src, sizeof src - 1, "k", args, 4, &m), P2C_ERR_USAGE);
  assert_non_null(strstr(p2c_compiler_last_error(c), "an IntEnum member's value must be an int64"));
  args[2] = args[3];
  args[2].enum_class = "Arrays";
  assert_int_equal(p2c_specialize(c, "e.py", src, sizeof src - 1, "k", args, 4, &m), P2C_ERR_USAGE);
  assert_non_null(strstr(p2c_compiler_last_error(c), "must be a number or a tuple of numbers"));
  p2c_compiler_delete(c);
}

#define REC "Record(a[type=int32;offset=0],b[type=float64;offset=8],v[type=nestedarray(float32, (2,));offset=16];24;True)"

/* P2cParam.written of record arrays: fields read (a[i].b, a[i]['b'], a[i].v[k]) are reads;
 * a field or a nested array element assigned, a record bound to a name, passed to a device
 * function or iterated over, are stores (a record is a reference into its array). */
static void record_params_say_which_are_written(void **state) {
  (void)state;
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit(device=True)\n"
      "def get(r):\n"
      "    return r.a\n"
      "@cuda.jit('void(" REC "[:], " REC "[:], " REC "[:], " REC "[:], " REC "[:], " REC "[:], " REC "[:])')\n"
      "def k(rd, field, nested, named, dev, loop, same):\n"
      "    i = cuda.grid(1)\n"
      "    x = rd[i].a + rd[i]['b'] + rd[i].v[0]\n"
      "    field[i].a = x\n"
      "    nested[i].v[1] = x\n"
      "    r = named[i]\n"
      "    x += get(dev[i])\n"
      "    for q in loop:\n"
      "        x += 1\n"
      "    same[i] = same[0]\n";
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "r.py", src, sizeof src - 1, NULL, &m), P2C_OK);
  static const bool want[] = {false, true, true, true, true, true, true};
  P2cKernelInfo k = p2c_module_kernel(m, 0);
  assert_int_equal(k.param_count, 7);
  for (size_t p = 0; p < k.param_count; p++) {
    assert_int_equal(k.params[p].type, P2C_RECORD);
    if (k.params[p].written != want[p]) fail_msg("parameter %s written = %d", k.params[p].name, k.params[p].written);
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* p2c_module_ufunc_launch: one translation, calls of both signatures on it give what
 * p2c_ufunc_launch gives, and the simulator's code is loaded by the first call only. */
static void ufunc_calls_on_one_translated_module(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  const char *kernels[1] = {"axpy"};
  P2cTranslateOptions to = {kernels, 1, NULL, 0, false, false, {0}};
  P2cModule *m = NULL;
  assert_int_equal(p2c_translate(c, "u.py", ufunc_src, sizeof ufunc_src - 1, &to, &m), P2C_OK);
  int64_t n = 4;
  P2cHostArray x, xi, out = {0};
  assert_int_equal(p2c_host_array_new(c, P2C_FLOAT64, 1, &n, &x), P2C_OK);
  assert_int_equal(p2c_host_array_new(c, P2C_INT64, 1, &n, &xi), P2C_OK);
  for (int i = 0; i < 4; i++) ((double *)x.data)[i] = 0.25 * i, ((int64_t *)xi.data)[i] = 3 * i;
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM};
  for (int call = 0; call < 3; call++) {
    P2cValue args[2] = {host_value(x), {.is_array = false, .type = P2C_FLOAT64, .scalar.f = 1.5}};
    P2cLaunchReport r = {0};
    P2cStatus s = p2c_module_ufunc_launch(c, m, "axpy", args, 2, &o, &r, &out);
    if (s != P2C_OK) fail_msg("%s: %s", p2c_status_string(s), p2c_compiler_last_error(c));
    assert_int_equal(out.dtype, P2C_FLOAT64);
    for (int i = 0; i < 4; i++) assert_true(((double *)out.data)[i] == 0.5 * i + 1.5);
    if (call > 0) assert_true(r.compile_ms == 0.0);  /* loaded by the first call */
    p2c_host_array_free(c, &out);
    P2cValue iargs[2] = {host_value(xi), host_value(xi)};
    s = p2c_module_ufunc_launch(c, m, "axpy", iargs, 2, &o, NULL, &out);
    if (s != P2C_OK) fail_msg("%s: %s", p2c_status_string(s), p2c_compiler_last_error(c));
    assert_int_equal(out.dtype, P2C_INT64);
    for (int i = 0; i < 4; i++) assert_int_equal(((int64_t *)out.data)[i], 9 * i);
    p2c_host_array_free(c, &out);
  }
  /* A name that is not a ufunc of the module, and a wrong arity, are usage errors. */
  P2cValue one[1] = {host_value(x)};
  assert_int_equal(p2c_module_ufunc_launch(c, m, "nope", one, 1, &o, NULL, &out), P2C_ERR_USAGE);
  assert_int_equal(p2c_module_ufunc_launch(c, m, "axpy", one, 1, &o, NULL, &out), P2C_ERR_USAGE);
  assert_non_null(strstr(p2c_compiler_last_error(c), "takes 2 arguments, 1 given"));
  assert_int_equal(p2c_module_ufunc_launch(c, NULL, "axpy", one, 1, &o, NULL, &out), P2C_ERR_USAGE);
  p2c_host_array_free(c, &x);
  p2c_host_array_free(c, &xi);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* p2c_scalar_pack writes a scalar argument as the kernel takes it: its C type's bytes, a
 * float16 as binary16 bits, a complex number as its two parts (a complex64's as floats). */
static void scalar_pack_writes_the_kernel_parameter_bytes(void **state) {
  (void)state;
  unsigned char out[16];
  P2cValue c128 = {.type = P2C_COMPLEX128, .scalar.c = {1.5, -2.0}};
  double d[2];
  assert_int_equal(p2c_scalar_pack(&c128, out), 16);
  memcpy(d, out, sizeof d);
  assert_true(d[0] == 1.5 && d[1] == -2.0);
  P2cValue c64 = {.type = P2C_COMPLEX64, .scalar.c = {0.25, 3.0}};
  float f[2];
  assert_int_equal(p2c_scalar_pack(&c64, out), 8);
  memcpy(f, out, sizeof f);
  assert_true(f[0] == 0.25f && f[1] == 3.0f);
  P2cValue h = {.type = P2C_FLOAT16, .scalar.f = 1.0};
  uint16_t bits;
  assert_int_equal(p2c_scalar_pack(&h, out), 2);
  memcpy(&bits, out, 2);
  assert_int_equal(bits, 0x3c00);
  P2cValue i8 = {.type = P2C_INT8, .scalar.i = -3};
  assert_int_equal(p2c_scalar_pack(&i8, out), 1);
  assert_int_equal((int8_t)out[0], -3);
  P2cValue arr = {.is_array = true, .type = P2C_FLOAT32};
  P2cValue tuple = {.type = P2C_TUPLE};
  assert_int_equal(p2c_scalar_pack(&arr, out), 0);
  assert_int_equal(p2c_scalar_pack(&tuple, out), 0);
  assert_int_equal(p2c_scalar_pack(NULL, out), 0);
}

/* A @njit function called through p2c_module_call (issue 33): lazily specialized by
 * p2c_specialize, its result read back, an array updated in place; a declared signature converts
 * an int argument; a kernel is refused by p2c_module_call and a host entry by a launch's count. */
static void jit_functions_are_called_on_the_cpu(void **state) {
  (void)state;
  static const char src[] =
      "import numba\n"
      "@numba.njit\n"
      "def total(a):\n"
      "    s = 0.0\n"
      "    for i in range(a.shape[0]):\n"
      "        s += a[i]\n"
      "        a[i] = -a[i]\n"
      "    return s\n"
      "@numba.jit('float32(float32, float32)', nopython=True)\n"
      "def half_sum(x, y):\n"
      "    return (x + y) / 2\n";
  P2cCompiler *c = p2c_compiler_new(NULL);
  double data[4] = {1, 2, 3, 4.5};
  P2cValue args[2] = {{.is_array = true, .type = P2C_FLOAT64,
                       .array = {.dtype = P2C_FLOAT64, .ndim = 1, .shape = {4}, .strides = {8}, .data = data}}};
  P2cModule *m = NULL;
  assert_int_equal(p2c_specialize(c, "j.py", src, sizeof src - 1, "total", args, 1, &m), P2C_OK);
  P2cKernelInfo k = p2c_module_kernel(m, 0);
  assert_true(k.host);
  assert_string_equal(k.signature, "float64(float64[::1])");
  assert_int_equal(k.param_count, 1);
  assert_non_null(k.result);
  assert_int_equal(k.result->type, P2C_FLOAT64);
  assert_int_equal(k.result->size, 8);
  double bytes[2];
  P2cValue r;
  assert_int_equal(p2c_module_call(c, m, 0, args, 1, NULL, bytes, sizeof bytes), P2C_OK);
  assert_int_equal(p2c_scalar_unpack(k.result->type, bytes, &r), 8);
  assert_int_equal(r.type, P2C_FLOAT64);
  assert_true(r.scalar.f == 10.5 && data[0] == -1 && data[3] == -4.5);
  assert_int_equal(p2c_module_call(c, m, 0, args, 0, NULL, bytes, sizeof bytes), P2C_ERR_USAGE);
  assert_int_equal(p2c_module_call(c, m, 0, args, 1, NULL, bytes, 4), P2C_ERR_USAGE);   /* too small */
  p2c_module_delete(m);

  P2cTranslateOptions o = {0};
  assert_int_equal(p2c_translate(c, "j.py", src, sizeof src - 1, &o, &m), P2C_OK);
  assert_int_equal(p2c_module_kernel_count(m), 1);   /* half_sum's declared signature */
  k = p2c_module_kernel(m, 0);
  assert_true(k.host && k.declared);
  assert_string_equal(k.signature, "float32(float32, float32)");
  P2cValue xy[2] = {{.type = P2C_INT64, .scalar.i = 3}, {.type = P2C_FLOAT64, .scalar.f = 0.5}};
  assert_int_equal(p2c_module_call(c, m, 0, xy, 2, NULL, bytes, sizeof bytes), P2C_OK);
  assert_int_equal(p2c_scalar_unpack(k.result->type, bytes, &r), 4);
  assert_int_equal(r.type, P2C_FLOAT32);
  assert_true(r.scalar.f == 1.75);
  p2c_module_delete(m);

  static const char kern[] = "from numba import cuda\n@cuda.jit('void(float64[::1])')\ndef k(a):\n    a[0] = 1\n";
  assert_int_equal(p2c_translate(c, "k.py", kern, sizeof kern - 1, &o, &m), P2C_OK);
  assert_int_equal(p2c_module_call(c, m, 0, args, 1, NULL, NULL, 0), P2C_ERR_USAGE);
  assert_non_null(strstr(p2c_compiler_last_error(c), "'k' is a kernel, not a @jit function"));
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* The two tiers of a @jit function (issue 33; src/api/host_tier.c): with libtcc here, the first
 * call runs the C form's code while the optimized build is made; after p2c_module_host_settle the
 * optimized code runs, with the same results (a float sum: the same bits); a complex function
 * refuses the C form and says why; p2c_module_dump gives the C form. The source carries a nonce,
 * so that no earlier run's optimized build is in the cache. Without libtcc the first call is the
 * optimized tier's and the test says so. */
static void jit_functions_run_on_two_tiers(void **state) {
  (void)state;
  char src[600];
  int n = snprintf(src, sizeof src,
                   "# %ld %d\n"
                   "import numba\n"
                   "@numba.njit\n"
                   "def total(a, k):\n"
                   "    s = 0.0\n"
                   "    for i in range(a.shape[0]):\n"
                   "        s += a[i] * 0.1 + (i // k) %% 3\n"
                   "    return s, min(k, 3)\n"
                   "@numba.njit\n"
                   "def mag(z):\n"
                   "    return abs(z)\n", (long)time(NULL), (int)getpid());
  P2cCompiler *c = p2c_compiler_new(NULL);
  double data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i * 0.37;
  P2cValue args[2] = {{.is_array = true, .type = P2C_FLOAT64,
                       .array = {.dtype = P2C_FLOAT64, .ndim = 1, .shape = {1000}, .strides = {8}, .data = data}},
                      {.type = P2C_INT64, .scalar.i = 7}};
  P2cModule *m = NULL;
  assert_int_equal(p2c_specialize(c, "t.py", src, (size_t)n, "total", args, 2, &m), P2C_OK);
  const char *why = NULL;
  assert_int_equal(p2c_module_host_tier(m, &why), P2C_HOST_TIER_NONE);
  const char *cform = p2c_module_dump(m, "c");
  assert_non_null(cform);
  assert_non_null(strstr(cform, "void total_host(void **p2c_args) {"));
  assert_null(strstr(cform, "template"));
  unsigned char first[32], second[32];
  assert_int_equal(p2c_module_call(c, m, 0, args, 2, NULL, first, sizeof first), P2C_OK);
  P2cHostTier tier = p2c_module_host_tier(m, &why);
  if (tier == P2C_HOST_TIER_OPTIMIZED) print_message("no first tier here: %s\n", why);
  else assert_int_equal(tier, P2C_HOST_TIER_FIRST);
  assert_int_equal(p2c_module_host_settle(m), P2C_OK);
  assert_int_equal(p2c_module_call(c, m, 0, args, 2, NULL, second, sizeof second), P2C_OK);
  assert_int_equal(p2c_module_host_tier(m, &why), P2C_HOST_TIER_OPTIMIZED);
  assert_memory_equal(first, second, 16);
  int64_t k;
  memcpy(&k, second + 8, 8);
  assert_int_equal(k, 3);
  p2c_module_delete(m);

  P2cValue z = {.type = P2C_COMPLEX128, .scalar.c = {3, 4}};
  assert_int_equal(p2c_specialize(c, "t.py", src, (size_t)n, "mag", &z, 1, &m), P2C_OK);
  assert_int_equal(p2c_module_call(c, m, 0, &z, 1, NULL, first, sizeof first), P2C_OK);
  assert_int_equal(p2c_module_host_tier(m, &why), P2C_HOST_TIER_OPTIMIZED);
  if (tier == P2C_HOST_TIER_FIRST) assert_non_null(strstr(why, "complex numbers"));
  p2c_module_delete(m);

  /* deleted while its optimized build runs: the build is stopped and joined */
  assert_int_equal(p2c_specialize(c, "t.py", src, (size_t)n, "total", args, 2, &m), P2C_OK);
  args[1].scalar.i = 5;
  assert_int_equal(p2c_module_call(c, m, 0, args, 2, NULL, first, sizeof first), P2C_OK);
  p2c_module_delete(m);
  p2c_module_delete(NULL);
  assert_int_equal(p2c_module_host_settle(NULL), P2C_ERR_USAGE);
  assert_int_equal(p2c_module_host_tier(NULL, NULL), P2C_HOST_TIER_NONE);
  p2c_compiler_delete(c);
}

/* A @njit function that creates arrays (issue 33): the arrays in its result come back as
 * P2cArrayArg bytes, each followed (at result_owners) by the heap block holding it, which the
 * caller frees; a view of an argument names no block; temporaries are freed by the call (under
 * ASan, a leak either way fails the test). */
static void jit_functions_hand_over_their_arrays(void **state) {
  (void)state;
  static const char src[] =
      "import numpy as np\n"
      "from numba import njit\n"
      "@njit\n"
      "def make(x, n):\n"
      "    t = np.ones((n, 2))\n"
      "    a = np.arange(n)\n"
      "    return a[1:], x[::2], t[0, 1] + n, a\n";
  P2cCompiler *c = p2c_compiler_new(NULL);
  double data[5] = {1, 2, 3, 4, 5};
  P2cValue args[2] = {{.is_array = true, .type = P2C_FLOAT64,
                       .array = {.dtype = P2C_FLOAT64, .ndim = 1, .shape = {5}, .strides = {8}, .data = data}},
                      {.type = P2C_INT64, .scalar.i = 4}};
  P2cModule *m = NULL;
  assert_int_equal(p2c_specialize(c, "h.py", src, sizeof src - 1, "make", args, 2, &m), P2C_OK);
  P2cKernelInfo k = p2c_module_kernel(m, 0);
  assert_int_equal(k.result_arrays, 3);
  assert_true(k.result_owners >= k.result->size && k.result_owners % 8 == 0);
  assert_int_equal(k.result_size, k.result_owners + 3 * 8);
  unsigned char bytes[256] __attribute__((aligned(16)));
  assert_true(k.result_size <= sizeof bytes);
  assert_int_equal(p2c_module_call(c, m, 0, args, 2, NULL, bytes, k.result_owners), P2C_ERR_USAGE);
  assert_int_equal(p2c_module_call(c, m, 0, args, 2, NULL, bytes, sizeof bytes), P2C_OK);
  void *owners[3];
  memcpy(owners, bytes + k.result_owners, sizeof owners);
  assert_non_null(owners[0]);
  assert_ptr_equal(owners[0], owners[2]);   /* a[1:] and a: one block */
  assert_null(owners[1]);                   /* x[::2]: the argument's memory */
  int64_t *tail, shape[2];
  memcpy(&tail, bytes + k.result->elems[0].offset, sizeof tail);
  memcpy(shape, bytes + k.result->elems[0].offset + 8, 16);
  assert_true(shape[0] == 3 && tail[0] == 1 && tail[2] == 3);
  double *view, third;
  memcpy(&view, bytes + k.result->elems[1].offset, sizeof view);
  memcpy(&third, bytes + k.result->elems[2].offset, sizeof third);
  assert_true(view == data && third == 5.0);
  p2c_host_block_free(owners[0]);
  p2c_host_block_free(NULL);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(jit_functions_hand_over_their_arrays),
      cmocka_unit_test(scalar_pack_writes_the_kernel_parameter_bytes),
      cmocka_unit_test(ufunc_broadcasts_through_the_c_api),
      cmocka_unit_test(ufunc_calls_on_one_translated_module),
      cmocka_unit_test(ufunc_signature_choice_is_numbas),
      cmocka_unit_test(params_say_which_arrays_are_written),
      cmocka_unit_test(enum_members_are_arguments),
      cmocka_unit_test(jit_functions_are_called_on_the_cpu),
      cmocka_unit_test(jit_functions_run_on_two_tiers),
      cmocka_unit_test(record_params_say_which_are_written),
      cmocka_unit_test(null_handles_are_harmless),
      cmocka_unit_test(sanitize_switch_reads_back),
      cmocka_unit_test(compiler_new_and_delete),
      cmocka_unit_test(dumps_after_each_phase),
      cmocka_unit_test(kernel_info_says_whether_it_checks_bounds),
      cmocka_unit_test(checks_are_options_of_each_translation),
      cmocka_unit_test(sanitize_findings_are_data),
      cmocka_unit_test(charseq_spellings_round_trip),
      cmocka_unit_test(array_layout_texts),
      cmocka_unit_test(tuple_arguments_convert_element_by_element),
      cmocka_unit_test(compiler_new_fails_cleanly_without_memory),
      cmocka_unit_test(version_and_status_strings),
      cmocka_unit_test(scalar_helpers),
      cmocka_unit_test(charseq_dtypes),
      cmocka_unit_test(float16_conversions),
      cmocka_unit_test(syntax_error_gives_source_status_and_diagnostics),
      cmocka_unit_test(type_error_diagnostic_has_position_and_code),
      cmocka_unit_test(unknown_kernel_is_a_usage_error),
      cmocka_unit_test(selected_kernel_only_is_emitted),
      cmocka_unit_test(malformed_sig_is_a_usage_error),
      cmocka_unit_test(bad_types_in_sig_are_diagnostics),
      cmocka_unit_test(bad_arguments_are_refused),
      cmocka_unit_test(last_error_is_cleared_by_a_success),
      cmocka_unit_test(source_need_not_be_nul_terminated),
      cmocka_unit_test(two_threads_translate_identically),
      cmocka_unit_test_setup_teardown(every_single_allocation_failure_is_nomem, install_ts_tracking,
                                      remove_ts_tracking),
      cmocka_unit_test_setup_teardown(every_allocation_from_n_on_failing_is_nomem, install_ts_tracking,
                                      remove_ts_tracking),
      cmocka_unit_test_setup_teardown(allocation_failures_with_source_errors, install_ts_tracking,
                                      remove_ts_tracking),
      cmocka_unit_test_setup_teardown(allocation_failures_in_a_large_module, install_ts_tracking,
                                      remove_ts_tracking),
      cmocka_unit_test(allocation_failures_in_a_module_lowered_on_two_threads),
      cmocka_unit_test(allocation_failure_in_nvrtc_output),
      cmocka_unit_test(module_compile_uses_the_cache),
      cmocka_unit_test(cache_folder_follows_the_environment),
      cmocka_unit_test(gufunc_layouts),
      cmocka_unit_test_setup_teardown(regression_tree_sitter_freed_on_oom, install_ts_tracking,
                                      remove_ts_tracking),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
