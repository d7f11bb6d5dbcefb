/* Compile-time benchmark: how long each phase of the compiler takes, next to NVRTC.
 *
 * For every golden case (tests/golden/cases.txt: NAME FILE [--sig 'name(types)']...) and for a
 * generated module of many kernels (built as Python text right here: grid-stride loops, 2-D
 * stencils, device-function calls, shared-memory reductions and tiles, integer kernels; each
 * kernel typed by its decorator's signature string), it times the phases of the pipeline by
 * calling them directly, as run_pipeline in src/api/compiler.c does:
 *
 *   prep    source_prepare (BOM, newlines, UTF-8 check, line table)
 *   parse   tree-sitter alone as frontend_run runs it (parse_source: two parts on two threads
 *           for modules of 128 KiB or more, see src/frontend/parse.h) and the cleanup, timed
 *           separately just before the pipeline (frontend_run parses and lowers in one call)
 *   lower   frontend_run minus the parse above, per repetition (CST -> AST, names resolved)
 *   infer   types_init + typeinfer_run
 *   emit    analysis_run + codegen_run (CUDA C text), then frontend_finish (waiting, if need be, for the parse
 *           trees of a split module, freed on another thread while infer and emit ran)
 *   NVRTC   rtc_compile of the emitted CUDA C to PTX for sm_90 with the default options
 *   API     p2c_translate + p2c_module_compile: the whole .py -> PTX path of the public API
 *
 * Each measurement is repeated N times after a warm-up (the first NVRTC compile in a process
 * pays NVRTC's one-time setup) and reported as the median, in milliseconds, with clock_gettime
 * (CLOCK_MONOTONIC). The totals are also given in process CPU time, which load from other work
 * on a shared machine does not inflate, with the translation's minor page faults. A scaling
 * table translates the generated module at N/4, N/2, N and 2N kernels. Output is Markdown,
 * ready for bench/RESULTS.md.
 *
 * Usage: compile [--repeat N (default 21)] [--warmup N (default 1)] [--kernels N] [--only NAME]... [--no-nvrtc]
 *                [--big-nvrtc-repeat N] [--no-scaling] [--root DIR] [--arch sm_XY]
 *                [--dump-generated FILE]
 *   --only NAME   a golden case's name, or "generated" for the generated module (repeatable)
 *   --kernels N   kernels in the generated module (default 1000)
 *   --big-nvrtc-repeat N   NVRTC repetitions for the generated module (default 3; 0 skips it)
 *   --root DIR    the source tree holding tests/golden/cases.txt (default: this build's)
 * Profiling the translation of the generated module alone (results in bench/RESULTS.md):
 *   valgrind --tool=callgrind --toggle-collect=bench_translate build/bench/compile \
 *       --only generated --no-nvrtc --no-scaling --repeat 1 --warmup 0
 * Respects PYK2CUDA_NVRTC like the library does. Exit status 1 when anything fails to
 * translate or compile (the diagnostics are printed). */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <tree_sitter/api.h>

#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "frontend/parse.h"
#include "pyk2cuda.h"
#include "runtime/cuda/nvrtc.h"
#include "typeinfer/typeinfer.h"

#ifndef P2C_SOURCE_ROOT
#define P2C_SOURCE_ROOT "."
#endif


/* ---- small utilities ---- */

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Wall time, the measurement this benchmark reports. */
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

/* CPU time of the process (all threads): a second view that other load on the machine does not
 * inflate, since a descheduled process accumulates none. */
static double cpu_ms(void) { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }

/* Minor page faults of the process so far: fresh memory touched for the first time. */
static double minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_minflt;
}

static _Noreturn void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("compile: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

static char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

/* A growable malloc'd string, for the generated Python and for reading files. */
typedef struct Text {
  char *data;
  size_t len, cap;
} Text;

static void text_reserve(Text *t, size_t extra) {
  if (t->len + extra + 1 <= t->cap) return;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + extra + 1) cap *= 2;
  char *p = realloc(t->data, cap);
  if (!p) die("out of memory");
  t->data = p;
  t->cap = cap;
}

static void text_printf(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(Text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  text_reserve(t, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

static Text read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot read %s", path);
  Text t = {0};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    text_reserve(&t, n);
    memcpy(t.data + t.len, buf, n);
    t.len += n;
  }
  fclose(f);
  text_reserve(&t, 0);
  t.data[t.len] = '\0';
  return t;
}

static size_t count_lines(const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) n += s[i] == '\n';
  return n;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile (0..1) of n values, by linear interpolation; sorts a copy. */
static double quantile(const double *v, int n, double q) {
  if (n <= 0) return 0.0;
  double *s = xmalloc(sizeof *s * (size_t)n);
  memcpy(s, v, sizeof *s * (size_t)n);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double pos = q * (n - 1);
  int lo = (int)pos;
  double r = lo + 1 < n ? s[lo] + (pos - lo) * (s[lo + 1] - s[lo]) : s[lo];
  free(s);
  return r;
}

static double median(const double *v, int n) { return quantile(v, n, 0.5); }

/* Interquartile range as a percentage of the median: how noisy a measurement was. */
static double iqr_percent(const double *v, int n) {
  double m = median(v, n);
  return m > 0 ? 100.0 * (quantile(v, n, 0.75) - quantile(v, n, 0.25)) / m : 0.0;
}

/* ---- the cases ---- */

typedef struct Case {
  char *name;
  char *file;                /* path as written in cases.txt (relative to the source root) */
  char **sigs;               /* "name(types)" strings, as given to --sig */
  size_t nsigs;
  char **kernels;            /* -k NAME: only these kernels (none: all) */
  size_t nkernels;
  bool check_bounds;         /* --check-bounds */
  Text source;
} Case;

typedef struct CaseList {
  Case *items;
  size_t len;
} CaseList;

/* Splits one line of cases.txt into words, honouring '...' and "..." quoting. */
static size_t split_words(const char *line, char **words, size_t cap) {
  size_t n = 0;
  const char *p = line;
  while (*p) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p || *p == '#') break;
    Text w = {0};
    text_reserve(&w, 0);
    while (*p && !isspace((unsigned char)*p)) {
      if (*p == '\'' || *p == '"') {
        char q = *p++;
        const char *end = strchr(p, q);
        if (!end) die("unterminated quote in cases.txt: %s", line);
        text_printf(&w, "%.*s", (int)(end - p), p);
        p = end + 1;
      } else {
        text_printf(&w, "%c", *p++);
      }
    }
    if (n == cap) die("too many words in cases.txt line: %s", line);
    words[n++] = w.data;
  }
  return n;
}

static Case parse_case_line(const char *root, char **w, size_t n) {
  if (n < 2) die("malformed cases.txt line starting '%s'", w[0]);
  Case c = {.name = w[0], .file = w[1], .sigs = xmalloc(sizeof(char *) * n),
            .kernels = xmalloc(sizeof(char *) * n)};
  for (size_t i = 2; i < n; i += 2) {
    if (strcmp(w[i], "--check-bounds") == 0) {
      c.check_bounds = true;
      i--;   /* a flag without a value */
      continue;
    }
    bool sig = strcmp(w[i], "--sig") == 0, kernel = strcmp(w[i], "-k") == 0;
    if ((!sig && !kernel) || i + 1 >= n)
      die("case %s: only --sig 'name(types)', -k NAME and --check-bounds are understood here, found '%s'",
          c.name, w[i]);
    if (sig) c.sigs[c.nsigs++] = w[i + 1];
    else c.kernels[c.nkernels++] = w[i + 1];
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", root, c.file);
  c.source = read_file(path);
  return c;
}

static CaseList load_cases(const char *root) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/golden/cases.txt", root);
  Text all = read_file(path);
  CaseList list = {xmalloc(sizeof(Case) * (count_lines(all.data, all.len) + 1)), 0};
  char *save = NULL;
  for (char *line = strtok_r(all.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *w[64];
    size_t n = split_words(line, w, 64);
    if (n) list.items[list.len++] = parse_case_line(root, w, n);
  }
  return list;
}

/* ---- the generated module ---- */

/* Kernels of the generated module call these device functions; typing specializes each once
 * per argument-type tuple (float32 and float64 callers). */
enum { HELPER_COUNT = 40 };

static void gen_header(Text *t, int nkernels) {
  text_printf(t,
              "# Generated by bench/compile.c: %d kernels for the compile-time benchmark.\n"
              "import math\n\n"
              "from numba import cuda, float32, float64\n"
              "import numpy as np\n\n"
              "TPB = 128\nTILE = 16\nSCALE = 0.5\nOFFSET = SCALE * 3.0\n\n",
              nkernels);
}

/* A device function: a clamp or a smooth step, with a branch and a math call. */
static void gen_helper(Text *t, int h) {
  text_printf(t,
              "\n@cuda.jit(device=True)\n"
              "def helper_%d(a, b):\n"
              "    # helper %d: a shifted, rectified product\n"
              "    t = a * b + %d.25\n"
              "    if t < 0:\n"
              "        t = -t\n"
              "    elif t > %d.0:\n"
              "        t = %d.0\n"
              "    return math.sqrt(t) + math.sin(a) * SCALE\n",
              h, h, h % 7, 10 + h, 10 + h);
}

static const char *ftype(int i) { return i % 2 ? "float64" : "float32"; }

/* A grid-stride loop: y = a*x + c*y. */
static void gen_axpy(Text *t, int i) {
  const char *ty = ftype(i / 8);
  text_printf(t,
              "\n@cuda.jit(\"void(%s[::1], %s[::1], %s)\")\n"
              "def axpy_%d(x, y, a):\n"
              "    start = cuda.grid(1)\n"
              "    stride = cuda.gridsize(1)\n"
              "    for k in range(start, x.size, stride):\n"
              "        y[k] = a * x[k] + y[k] * %d.5\n",
              ty, ty, ty, i, i % 5);
}

/* A 2-D five-point stencil (one explicit diffusion step). */
static void gen_stencil(Text *t, int i) {
  const char *ty = ftype(i / 8);
  text_printf(t,
              "\n@cuda.jit(\"void(%s[:, ::1], %s[:, ::1], %s)\")\n"
              "def stencil_%d(u, out, w):\n"
              "    n, m = u.shape\n"
              "    i, j = cuda.grid(2)\n"
              "    if 1 <= i < n - 1 and 1 <= j < m - 1:\n"
              "        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]\n"
              "        out[i, j] = u[i, j] + w * lap\n",
              ty, ty, ty, i);
}

/* Two device-function calls per element. */
static void gen_calls(Text *t, int i) {
  const char *ty = ftype(i / 8);
  int h1 = i % HELPER_COUNT, h2 = (i * 7 + 3) % HELPER_COUNT;
  text_printf(t,
              "\n@cuda.jit(\"void(%s[::1], %s[::1], %s)\")\n"
              "def calls_%d(x, out, s):\n"
              "    i = cuda.grid(1)\n"
              "    if i < x.size:\n"
              "        out[i] = helper_%d(x[i], s) + helper_%d(x[i], s * OFFSET)\n",
              ty, ty, ty, i, h1, h2);
}

/* A block reduction in shared memory after a grid-stride accumulation. */
static void gen_reduce(Text *t, int i) {
  const char *ty = ftype(i / 8);
  text_printf(t,
              "\n@cuda.jit(\"void(%s[::1], %s[::1])\")\n"
              "def reduce_%d(x, partials):\n"
              "    buf = cuda.shared.array(TPB, dtype=np.%s)\n"
              "    tid = cuda.threadIdx.x\n"
              "    acc = np.%s(0.0)\n"
              "    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n"
              "        acc += x[k]\n"
              "    buf[tid] = acc\n"
              "    cuda.syncthreads()\n"
              "    s = TPB // 2\n"
              "    while s > 0:\n"
              "        if tid < s:\n"
              "            buf[tid] += buf[tid + s]\n"
              "        cuda.syncthreads()\n"
              "        s //= 2\n"
              "    if tid == 0:\n"
              "        partials[cuda.blockIdx.x] = buf[0]\n",
              ty, ty, i, ty, ty);
}

/* A tiled matrix multiply with two 2-D shared tiles. */
static void gen_matmul(Text *t, int i) {
  const char *ty = ftype(i / 8);
  text_printf(t,
              "\n@cuda.jit(\"void(%s[:, ::1], %s[:, ::1], %s[:, ::1])\")\n"
              "def matmul_%d(A, B, C):\n"
              "    sA = cuda.shared.array((TILE, TILE), dtype=%s)\n"
              "    sB = cuda.shared.array((TILE, TILE), dtype=%s)\n"
              "    col, row = cuda.grid(2)\n"
              "    tx = cuda.threadIdx.x\n"
              "    ty = cuda.threadIdx.y\n"
              "    M, K = A.shape\n"
              "    N = B.shape[1]\n"
              "    acc = %s(0.0)\n"
              "    for t in range((K + TILE - 1) // TILE):\n"
              "        k = t * TILE + tx\n"
              "        sA[ty, tx] = A[row, k] if row < M and k < K else 0.0\n"
              "        k = t * TILE + ty\n"
              "        sB[ty, tx] = B[k, col] if k < K and col < N else 0.0\n"
              "        cuda.syncthreads()\n"
              "        for kk in range(TILE):\n"
              "            acc += sA[ty, kk] * sB[kk, tx]\n"
              "        cuda.syncthreads()\n"
              "    if row < M and col < N:\n"
              "        C[row, col] = acc\n",
              ty, ty, ty, i, ty, ty, ty);
}

/* Integer binning with floor division, modulo, bit operations and an if/elif/else. */
static void gen_bins(Text *t, int i) {
  text_printf(t,
              "\n@cuda.jit(\"void(int32[::1], int32[::1], int64)\")\n"
              "def bins_%d(x, out, nbins):\n"
              "    i = cuda.grid(1)\n"
              "    if i < x.size:\n"
              "        v = x[i]\n"
              "        b = v %% nbins\n"
              "        if v > %d:\n"
              "            out[i] = b * 2 + v // %d\n"
              "        elif v < -%d:\n"
              "            out[i] = -b\n"
              "        else:\n"
              "            out[i] = (v ^ %d) & 255\n",
              i, 100 + i, 3 + i % 9, 50 + i, i * 37 % 1024);
}

/* An elementwise activation in float32 with math, abs, min and max. */
static void gen_activation(Text *t, int i) {
  text_printf(t,
              "\n@cuda.jit(\"void(float32[::1], float32[::1], float32)\")\n"
              "def act_%d(x, y, alpha):\n"
              "    i = cuda.grid(1)\n"
              "    if i < x.size:\n"
              "        v = x[i]\n"
              "        e = math.exp(-abs(v))\n"
              "        y[i] = max(v, alpha * v) + min(e, np.float32(%d.125))\n",
              i, i % 4);
}

/* A box blur of radius 1 or 2 over a 2-D array of any layout, with nested range loops. */
static void gen_blur(Text *t, int i) {
  int r = 1 + i / 8 % 2, w = 2 * r + 1;
  text_printf(t,
              "\n@cuda.jit(\"void(float64[:, :], float64[:, :])\")\n"
              "def blur_%d(x, out):\n"
              "    n, m = x.shape\n"
              "    i, j = cuda.grid(2)\n"
              "    if %d <= i < n - %d and %d <= j < m - %d:\n"
              "        total = 0.0\n"
              "        for di in range(-%d, %d):\n"
              "            for dj in range(-%d, %d):\n"
              "                total += x[i + di, j + dj]\n"
              "        out[i, j] = total / %d\n",
              i, r, r, r, r, r, r + 1, r, r + 1, w * w);
}

typedef void (*GenKernel)(Text *t, int i);
static const GenKernel generators[] = {gen_axpy, gen_stencil,    gen_calls, gen_reduce,
                                       gen_matmul, gen_bins, gen_activation, gen_blur};
enum { KIND_COUNT = sizeof generators / sizeof generators[0] };

/* The generated module's Python text: helpers first, then kernels of every kind in turn. */
static Text generate_module(int nkernels) {
  Text t = {0};
  gen_header(&t, nkernels);
  for (int h = 0; h < HELPER_COUNT; h++) gen_helper(&t, h);
  for (int i = 0; i < nkernels; i++) generators[i % KIND_COUNT](&t, i);
  return t;
}

/* ---- one translation, phase by phase ---- */

enum {
  PH_PREP, PH_PARSE, PH_LOWER, PH_INFER, PH_EMIT, PH_TRANSLATE, PH_NVRTC, PH_API,
  PH_TRANSLATE_CPU, PH_NVRTC_CPU, PH_API_CPU,   /* the same spans in CPU time */
  PH_PREP_FAULTS, PH_TRANSLATE_FAULTS,          /* minor page faults */
  PH_COUNT
};

typedef struct Input {
  const char *name;          /* file name, for diagnostics */
  const char *source;
  size_t len;
  const char *prepared;      /* the source after source_prepare, for the separate parse */
  size_t prepared_len;
  ExtraSig *sigs;
  size_t nsigs;
  P2cTranslateOptions options;
  bool check_bounds;
} Input;

/* What run_pipeline keeps in a P2cModule: one compilation's state. */
typedef struct Work {
  Compilation comp;
  Module mod;
  TypeTable types;
  CodegenResult cg;
} Work;

static void print_diagnostics(const Compilation *c) {
  for (size_t i = 0; i < c->diags.len; i++) {
    const P2cDiagnostic *d = &c->diags.items[i];
    fprintf(stderr, "%s:%u:%u: %s [%s]\n", d->file, d->line, d->column, d->message, d->code);
  }
}

/* tree-sitter alone, as frontend_run runs it: parse_source (parsers, the parse, on two threads
 * for a module of P2C_PARSE_SPLIT_MIN bytes or more) and parse_release. The source is prepared
 * again outside the timing, since parse_source reads the line table.
 * glibc's malloc defers merging the many small blocks the tree's deletion frees until the next
 * request of 1 KiB or more; without the untimed request below, that work (about 6 ms for the
 * 1,000-kernel module) would be charged to source_prepare's first arena block and counted in
 * the translation, which has its own parse to clean up after. */
static double time_parse(const Input *in) {
  Compilation c = {0};
  arena_init(&c.arena, mem_default());
  c.file = in->name;
  if (!source_prepare(&c, in->source, in->len)) die("%s: source_prepare failed", in->name);
  double t0 = now_ms();
  ParseState ps = {0};
  if (!parse_source(&c, &ps, 0)) die("grammar ABI mismatch");
  parse_release(&ps);
  double dt = now_ms() - t0;
  arena_free(&c.arena);
  free(xmalloc(4096));
  return dt;
}

/* The pipeline of run_pipeline, each phase timed: prep, frontend (parse + lower), infer, emit.
 * w->comp.arena must be initialized and its oom handler set. Returns false on diagnostics. */
static bool run_phases(const Input *in, Work *w, double *t) {
  Compilation *c = &w->comp;
  c->file = in->name;
  c->opts = &in->options;
  double f0 = minor_faults(), c0 = cpu_ms(), t0 = now_ms();
  bool ok = source_prepare(c, in->source, in->len);
  double t1 = now_ms(), f1 = minor_faults();
  ok = ok && frontend_run(c, &w->mod);
  double t2 = now_ms();
  types_init(&w->types, &c->arena);
  TypeinferOptions tio = {in->sigs, in->nsigs, false, in->options.kernels, in->options.kernel_count};
  ok = ok && typeinfer_run(c, &w->mod, &w->types, &tio);
  double t3 = now_ms();
  /* every kernel, as before the analysis phase was split out; checked as the case asks, like the
   * API path */
  AnalysisOptions ao = {.check_bounds = in->check_bounds};
  Analysis an;
  if (ok) analysis_run(c, &w->mod, &ao, &an);
  CodegenOptions cgo = {0};
  ok = ok && codegen_run(c, &w->mod, &an, &cgo, &w->cg);
  frontend_finish(c);   /* the parse trees' release, if it ran in the background */
  double t4 = now_ms(), c4 = cpu_ms();
  t[PH_TRANSLATE_CPU] = c4 - c0;
  t[PH_PREP_FAULTS] = f1 - f0;
  t[PH_TRANSLATE_FAULTS] = minor_faults() - f0;
  t[PH_PREP] = t1 - t0;
  t[PH_LOWER] = t2 - t1;     /* parse + lower for now; the caller subtracts the parse */
  t[PH_INFER] = t3 - t2;
  t[PH_EMIT] = t4 - t3;
  return ok;
}

/* One translation in its own arena, with the arena's out-of-memory jump set up as p2c_translate
 * does. Keeps the CUDA C in *cuda (malloc'd) when cuda is not NULL. Not inlined, so that
 * callgrind's --toggle-collect=bench_translate can select it. */
__attribute__((noinline)) static bool bench_translate(const Input *in, double *t, char **cuda) {
  Work *w = xmalloc(sizeof *w);
  memset(w, 0, sizeof *w);
  arena_init(&w->comp.arena, mem_default());
  jmp_buf oom;
  w->comp.arena.oom = &oom;
  if (setjmp(oom)) {
    frontend_finish(&w->comp);
    arena_free(&w->comp.arena);
    free(w);
    die("%s: out of memory", in->name);
  }
  bool ok = run_phases(in, w, t);
  if (!ok) print_diagnostics(&w->comp);
  if (ok && cuda) *cuda = xstrndup(w->cg.text, w->cg.len);
  w->comp.arena.oom = NULL;
  arena_free(&w->comp.arena);
  free(w);
  return ok;
}

/* The prepared text of a source (for the separate parse), outside any timing. */
static void prepare_input(Input *in) {
  Compilation c = {0};
  arena_init(&c.arena, mem_default());
  c.file = in->name;
  if (!source_prepare(&c, in->source, in->len)) {
    print_diagnostics(&c);
    die("%s: source_prepare failed", in->name);
  }
  in->prepared = xstrndup(c.text, c.len);
  in->prepared_len = c.len;
  arena_free(&c.arena);
}

/* "name(types)" as --sig gives it, split as split_sigs in compiler.c does. */
static ExtraSig split_sig(const char *s) {
  const char *colon = strchr(s, ':'), *paren = strchr(s, '(');
  const char *end = colon && (!paren || colon < paren) ? colon : paren;
  if (!end || end == s) die("malformed signature '%s'", s);
  const char *text = end == colon ? colon + 1 : paren;
  return (ExtraSig){xstrndup(s, (size_t)(end - s)), text, strlen(text)};
}

static Input make_input(const char *name, const char *source, size_t len, char **sigs,
                        size_t nsigs, char **kernels, size_t nkernels) {
  Input in = {.name = name, .source = source, .len = len, .nsigs = nsigs};
  in.options.kernels = (const char *const *)kernels;
  in.options.kernel_count = nkernels;
  in.sigs = xmalloc(sizeof *in.sigs * (nsigs ? nsigs : 1));
  for (size_t i = 0; i < nsigs; i++) in.sigs[i] = split_sig(sigs[i]);
  in.options.signatures = (const char *const *)sigs;
  in.options.signature_count = nsigs;
  prepare_input(&in);
  return in;
}

/* ---- NVRTC and the public API ---- */

typedef struct Config {
  int repeat, warmup, kernels, big_nvrtc_repeat;
  bool nvrtc, scaling;
  const char *root, *arch, *dump_generated;
  const char *only[32];
  int nonly;
} Config;

/* One rtc_compile of the CUDA C to PTX; returns its wall time in ms (and its CPU time in
 * *cpu), or dies. */
static double time_nvrtc(const Config *cfg, const char *name, const char *cuda, double *cpu) {
  RtcRequest req = {.source = cuda, .program_name = name, .arch = cfg->arch,
                    .target = P2C_TARGET_PTX};
  RtcResult res;
  double c0 = cpu_ms(), t0 = now_ms();
  P2cStatus s = rtc_compile(&req, &res);
  double dt = now_ms() - t0;
  *cpu = cpu_ms() - c0;
  if (s != P2C_OK) die("%s: NVRTC: %s\n%s", name, res.error, res.log ? res.log : "");
  rtc_result_free(&res);
  return dt;
}

/* The public API's .py -> PTX: p2c_translate then p2c_module_compile. */
static double time_api(const Config *cfg, const Input *in, double *cpu) {
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  double c0 = cpu_ms(), t0 = now_ms();
  p2c_compiler_set_check_bounds(c, in->check_bounds);
  P2cStatus s = p2c_translate(c, in->name, in->source, in->len, &in->options, &m);
  if (s == P2C_OK) s = p2c_module_compile(c, m, cfg->arch, P2C_TARGET_PTX);
  double dt = now_ms() - t0;
  *cpu = cpu_ms() - c0;
  if (s != P2C_OK) die("%s: API: %s", in->name, p2c_compiler_last_error(c));
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  return dt;
}

/* ---- measuring ---- */

typedef struct Measure {
  const char *name;
  int kernels;
  size_t py_lines, cuda_bytes;
  int n;                     /* repetitions of the translation */
  int n_nvrtc;               /* repetitions of NVRTC and the API path (0: not measured) */
  double *t[PH_COUNT];       /* per repetition */
} Measure;

static int count_kernels(const char *cuda) {
  int n = 0;
  for (const char *p = cuda; (p = strstr(p, "__global__")) != NULL; p++) n++;
  return n;
}

static Measure measure_new(const char *name, int n) {
  Measure m = {.name = name, .n = n};
  for (int p = 0; p < PH_COUNT; p++) {
    m.t[p] = xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    memset(m.t[p], 0, sizeof(double) * (size_t)(n ? n : 1));
  }
  return m;
}

/* One repetition of the translation phases into row r. An untimed parse first puts the
 * grammar's tables in cache (NVRTC, run between repetitions, evicts them), so that the timed
 * standalone parse and the parse inside frontend_run start alike and their difference is the
 * lowering. */
static void translate_rep(const Input *in, Measure *m, int r, char **cuda) {
  double t[PH_COUNT] = {0};
  time_parse(in);
  double parse = time_parse(in);
  if (!bench_translate(in, t, cuda)) die("%s does not translate", in->name);
  m->t[PH_PREP][r] = t[PH_PREP];
  m->t[PH_PARSE][r] = parse;
  m->t[PH_LOWER][r] = t[PH_LOWER] - parse;
  m->t[PH_INFER][r] = t[PH_INFER];
  m->t[PH_EMIT][r] = t[PH_EMIT];
  m->t[PH_TRANSLATE][r] = t[PH_PREP] + t[PH_LOWER] + t[PH_INFER] + t[PH_EMIT];
  m->t[PH_TRANSLATE_CPU][r] = t[PH_TRANSLATE_CPU];
  m->t[PH_PREP_FAULTS][r] = t[PH_PREP_FAULTS];
  m->t[PH_TRANSLATE_FAULTS][r] = t[PH_TRANSLATE_FAULTS];
}

/* Translation, NVRTC and the API path, interleaved per repetition so that load from elsewhere
 * falls on all of them alike. nvrtc_reps limits NVRTC's repetitions (the big module). */
static Measure measure_input(const Config *cfg, const Input *in, int nvrtc_reps) {
  Measure m = measure_new(in->name, cfg->repeat);
  char *cuda = NULL;
  for (int r = 0; r < cfg->warmup; r++) {
    free(cuda);
    cuda = NULL;
    translate_rep(in, &m, 0, &cuda);
    double cpu;
    if (cfg->nvrtc && nvrtc_reps > 0) time_nvrtc(cfg, in->name, cuda, &cpu);
  }
  m.n_nvrtc = cfg->nvrtc ? (nvrtc_reps < cfg->repeat ? nvrtc_reps : cfg->repeat) : 0;
  for (int r = 0; r < cfg->repeat; r++) {
    translate_rep(in, &m, r, cuda ? NULL : &cuda);
    if (r >= m.n_nvrtc) continue;
    m.t[PH_NVRTC][r] = time_nvrtc(cfg, in->name, cuda, &m.t[PH_NVRTC_CPU][r]);
    m.t[PH_API][r] = time_api(cfg, in, &m.t[PH_API_CPU][r]);
  }
  m.py_lines = count_lines(in->prepared, in->prepared_len);
  m.cuda_bytes = strlen(cuda);
  m.kernels = count_kernels(cuda);
  free(cuda);
  return m;
}

static double med(const Measure *m, int phase) {
  bool rtc = phase == PH_NVRTC || phase == PH_API || phase == PH_NVRTC_CPU || phase == PH_API_CPU;
  return median(m->t[phase], rtc ? m->n_nvrtc : m->n);
}

/* ---- reporting ---- */

static void print_phase_header(void) {
  printf("| case | kernels | .py lines | CUDA C bytes | prep | parse | lower | infer | emit | "
         "translate | NVRTC | translate / NVRTC | (translate + NVRTC) / NVRTC | API .py->PTX | "
         "API / NVRTC |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

static void print_phase_row(const Measure *m) {
  printf("| %s | %d | %zu | %zu |", m->name, m->kernels, m->py_lines, m->cuda_bytes);
  for (int p = PH_PREP; p <= PH_TRANSLATE; p++) printf(" %.3f |", med(m, p));
  if (!m->n_nvrtc) {
    printf(" - | - | - | - | - |\n");
    return;
  }
  double tr = med(m, PH_TRANSLATE), rtc = med(m, PH_NVRTC), api = med(m, PH_API);
  printf(" %.1f | %.2f %% | %.3fx | %.1f | %.3fx |\n", rtc, 100.0 * tr / rtc, (tr + rtc) / rtc,
         api, api / rtc);
}

static void print_spread_header(void) {
  printf("| case | runs (translate / NVRTC) | translate min-max ms | translate IQR | "
         "NVRTC min-max ms | NVRTC IQR | API IQR |\n");
  printf("|---|---|---|---:|---|---:|---:|\n");
}

static void print_spread_row(const Measure *m) {
  const double *tr = m->t[PH_TRANSLATE];
  printf("| %s | %d / %d | %.3f-%.3f | %.1f %% |", m->name, m->n, m->n_nvrtc,
         quantile(tr, m->n, 0), quantile(tr, m->n, 1), iqr_percent(tr, m->n));
  if (!m->n_nvrtc) {
    printf(" - | - | - |\n");
    return;
  }
  const double *rtc = m->t[PH_NVRTC];
  printf(" %.1f-%.1f | %.1f %% | %.1f %% |\n", quantile(rtc, m->n_nvrtc, 0),
         quantile(rtc, m->n_nvrtc, 1), iqr_percent(rtc, m->n_nvrtc),
         iqr_percent(m->t[PH_API], m->n_nvrtc));
}

/* The same totals in CPU time: what the work costs when the machine is shared. */
static void print_cpu_header(void) {
  printf("| case | page faults (prep / translate) | translate CPU ms | NVRTC CPU ms | "
         "translate / NVRTC | (translate + NVRTC) / NVRTC | API CPU ms | API / NVRTC |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
}

static void print_cpu_row(const Measure *m) {
  double tr = med(m, PH_TRANSLATE_CPU);
  printf("| %s | %.0f / %.0f | %.3f |", m->name, med(m, PH_PREP_FAULTS),
         med(m, PH_TRANSLATE_FAULTS), tr);
  if (!m->n_nvrtc) {
    printf(" - | - | - | - | - |\n");
    return;
  }
  double rtc = med(m, PH_NVRTC_CPU), api = med(m, PH_API_CPU);
  printf(" %.1f | %.2f %% | %.3fx | %.1f | %.3fx |\n", rtc, 100.0 * tr / rtc, (tr + rtc) / rtc,
         api, api / rtc);
}

static void print_tables(const Measure *ms, int n) {
  printf("\nMedians in ms. parse = tree-sitter alone (timed separately on the same text); "
         "lower = frontend_run - parse.\n\n");
  print_phase_header();
  for (int i = 0; i < n; i++) print_phase_row(&ms[i]);
  printf("\nSpread (IQR = interquartile range as %% of the median):\n\n");
  print_spread_header();
  for (int i = 0; i < n; i++) print_spread_row(&ms[i]);
  printf("\nCPU time of the process (CLOCK_PROCESS_CPUTIME_ID), medians:\n\n");
  print_cpu_header();
  for (int i = 0; i < n; i++) print_cpu_row(&ms[i]);
}

/* ---- the generated module, and how its translation time scales ---- */

static Measure measure_generated(const Config *cfg, int nkernels, int nvrtc_reps,
                                 const char *dump) {
  Text py = generate_module(nkernels);
  if (dump) {
    FILE *f = fopen(dump, "wb");
    if (!f || fwrite(py.data, 1, py.len, f) != py.len || fclose(f)) die("cannot write %s", dump);
  }
  char name[64];
  snprintf(name, sizeof name, "generated_%d.py", nkernels);
  Input in = make_input(xstrndup(name, strlen(name)), py.data, py.len, NULL, 0, NULL, 0);
  return measure_input(cfg, &in, nvrtc_reps);
}

static void print_scaling(const Config *cfg) {
  printf("\nScaling of the translation with the number of kernels (medians, ms):\n\n");
  printf("| kernels | .py lines | prep | parse | lower | infer | emit | translate | "
         "us per kernel |\n");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int k = cfg->kernels / 4; k <= cfg->kernels * 2; k *= 2) {
    Measure m = measure_generated(cfg, k, 0, NULL);
    printf("| %d | %zu |", k, m.py_lines);
    for (int p = PH_PREP; p <= PH_TRANSLATE; p++) printf(" %.3f |", med(&m, p));
    printf(" %.1f |\n", 1000.0 * med(&m, PH_TRANSLATE) / k);
    fflush(stdout);
  }
}

/* ---- main ---- */

static bool selected(const Config *cfg, const char *name) {
  if (!cfg->nonly) return true;
  for (int i = 0; i < cfg->nonly; i++)
    if (strcmp(cfg->only[i], name) == 0) return true;
  return false;
}

static int int_arg(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) die("%s needs a number", argv[*i]);
  char *end;
  long v = strtol(argv[++*i], &end, 10);
  if (*end || v < 0 || v > 1000000) die("bad number for %s: %s", argv[*i - 1], argv[*i]);
  return (int)v;
}

static const char *str_arg(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) die("%s needs a value", argv[*i]);
  return argv[++*i];
}

static Config parse_args(int argc, char **argv) {
  Config cfg = {.repeat = 21, .warmup = 1, .kernels = 1000, .big_nvrtc_repeat = 3,
                .nvrtc = true, .scaling = true, .root = P2C_SOURCE_ROOT, .arch = "sm_90"};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--repeat")) cfg.repeat = int_arg(argc, argv, &i);
    else if (!strcmp(a, "--warmup")) cfg.warmup = int_arg(argc, argv, &i);
    else if (!strcmp(a, "--kernels")) cfg.kernels = int_arg(argc, argv, &i);
    else if (!strcmp(a, "--big-nvrtc-repeat")) cfg.big_nvrtc_repeat = int_arg(argc, argv, &i);
    else if (!strcmp(a, "--no-nvrtc")) cfg.nvrtc = false;
    else if (!strcmp(a, "--no-scaling")) cfg.scaling = false;
    else if (!strcmp(a, "--root")) cfg.root = str_arg(argc, argv, &i);
    else if (!strcmp(a, "--arch")) cfg.arch = str_arg(argc, argv, &i);
    else if (!strcmp(a, "--dump-generated")) cfg.dump_generated = str_arg(argc, argv, &i);
    else if (!strcmp(a, "--only") && cfg.nonly < 32) cfg.only[cfg.nonly++] = str_arg(argc, argv, &i);
    else die("unknown argument '%s' (see the comment at the top of bench/compile.c)", a);
  }
  if (cfg.repeat < 1) die("--repeat must be at least 1");
  if (cfg.kernels < 4) die("--kernels must be at least 4");
  return cfg;
}

static void print_environment(const Config *cfg) {
  int major = 0, minor = 0;
  char err[256] = "";
  bool rtc = cfg->nvrtc && rtc_version(&major, &minor, err, sizeof err) == P2C_OK;
  printf("bench/compile: %d repetitions after %d warm-up, medians of wall time (CLOCK_MONOTONIC)\n",
         cfg->repeat, cfg->warmup);
  if (rtc)
    printf("NVRTC %d.%d: PTX for %s, options '-arch=%s %s'\n", major, minor, cfg->arch, cfg->arch,
           rtc_default_options());
  if (cfg->nvrtc && !rtc) die("NVRTC not available: %s (use --no-nvrtc)", err);
}

int main(int argc, char **argv) {
  Config cfg = parse_args(argc, argv);
  print_environment(&cfg);
  CaseList cases = load_cases(cfg.root);
  Measure *ms = xmalloc(sizeof *ms * (cases.len + 1));
  int n = 0;
  for (size_t i = 0; i < cases.len; i++) {
    Case *c = &cases.items[i];
    if (!selected(&cfg, c->name)) continue;
    Input in = make_input(c->file, c->source.data, c->source.len, c->sigs, c->nsigs, c->kernels, c->nkernels);
    in.check_bounds = c->check_bounds;
    ms[n] = measure_input(&cfg, &in, cfg.repeat);
    ms[n++].name = c->name;
    fprintf(stderr, "%s done\n", c->name);
  }
  if (selected(&cfg, "generated")) {
    ms[n++] = measure_generated(&cfg, cfg.kernels, cfg.big_nvrtc_repeat, cfg.dump_generated);
    fprintf(stderr, "generated module done\n");
  }
  print_tables(ms, n);
  if (cfg.scaling && selected(&cfg, "generated")) print_scaling(&cfg);
  return 0;
}
