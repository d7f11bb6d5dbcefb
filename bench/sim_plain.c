/* The simulator against plain C loops doing the same work, for the sample kernels without
 * barriers (the target: within 3 times of the plain loop compiled with -O2).
 *
 * Each sample kernel is translated by the public API (a sample's .py with a signature), compiled
 * and loaded by the simulator (sim_module_load: the cache is used, the compile is not timed),
 * and launched with sim_launch on one worker and on every CPU. Next to it, in the same process
 * and on the same arrays, a loop written here in C computes the same result the obvious way, as
 * a C programmer would write the kernel's work for one core: one iteration per simulated
 * thread, the same arithmetic (Python's floor division where the kernel has //, the same libm
 * calls per element), no hoisting the kernel does not do. This file is compiled with the
 * project's flags (-O2 in the default debugoptimized build). Both results are compared bit for
 * bit before anything is timed, so that both sides did the work.
 *
 * Times are the median of --repeat runs (default 11) of each, interleaved (plain, sim 1 worker,
 * sim all workers), after one warm-up. Output is Markdown for bench/RESULTS.md.
 *
 * Usage: build/bench/sim_plain [--repeat N] [--scale K] [--only NAME]
 *   --scale K divides the sizes by K (smooth and great_circle: each side by K / 2). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pyk2cuda.h"
#include "bench_util.h"
#include "runtime/sim/sim.h"

#ifndef P2C_SOURCE_ROOT
#define P2C_SOURCE_ROOT "."
#endif

/* ---- the kernels' arguments, as cuLaunchKernel's parameter array wants them ---- */

typedef struct ArrayArg {
  _Alignas(8) unsigned char bytes[8 + 16 * P2C_MAX_NDIM];
} ArrayArg;

static ArrayArg pack(void *data, size_t elem, int ndim, const int64_t *shape) {
  ArrayArg a;
  memset(&a, 0, sizeof a);
  memcpy(a.bytes, &data, sizeof data);
  int64_t stride = (int64_t)elem;
  for (int d = ndim - 1; d >= 0; d--) {
    memcpy(a.bytes + 8 + 8 * d, &shape[d], 8);
    memcpy(a.bytes + 8 + 8 * ndim + 8 * d, &stride, 8);
    stride *= shape[d];
  }
  return a;
}

/* ---- the plain loops ---- */

static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static void __attribute__((noinline)) plain_vecadd(const int32_t *a, const int32_t *b, double *c,
                                                   int64_t n) {
  for (int64_t i = 0; i < n; i++) c[i] = (double)((int64_t)a[i] + (int64_t)b[i]);
}

static void __attribute__((noinline)) plain_smooth(const int32_t *x, int32_t *out, int64_t n,
                                                   int64_t m) {
  for (int64_t i = 1; i < n - 1; i++)
    for (int64_t j = 1; j < m - 1; j++) {
      int64_t total = 0;
      for (int64_t di = -1; di < 2; di++)
        for (int64_t dj = -1; dj < 2; dj++) total += x[(i + di) * m + (j + dj)];
      out[i * m + j] = (int32_t)floordiv(total, 9);
    }
}

static const double EARTH_RADIUS_KM = 6371.0, DEG_TO_RAD = 0.017453292519943295;

static double haversine(double lat1, double lon1, double lat2, double lon2) {
  double phi1 = lat1 * DEG_TO_RAD, phi2 = lat2 * DEG_TO_RAD;
  double dphi = (lat2 - lat1) * DEG_TO_RAD, dlam = (lon2 - lon1) * DEG_TO_RAD;
  double s1 = sin(dphi / 2), s2 = sin(dlam / 2);
  double a = s1 * s1 + cos(phi1) * cos(phi2) * (s2 * s2);
  return 2.0 * EARTH_RADIUS_KM * asin(sqrt(a));
}

static void __attribute__((noinline)) plain_great_circle(double *dist, int64_t n, int64_t m,
                                                         double lat0, double lon0) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++) {
      double lat = -90.0 + 180.0 * (double)i / (double)(n - 1);
      double lon = -180.0 + 360.0 * (double)j / (double)(m - 1);
      dist[i * m + j] = haversine(lat0, lon0, lat, lon);
    }
}

static void __attribute__((noinline)) plain_divide(float *x, const float *total, int64_t n) {
  for (int64_t k = 0; k < n; k++) x[k] /= total[0];
}

/* The same work in the kernel's order: thread after thread, each its grid-stride loop. */
static void __attribute__((noinline)) plain_divide_kernel_order(float *x, const float *total,
                                                                int64_t n, int64_t threads) {
  for (int64_t t = 0; t < threads; t++)
    for (int64_t k = t; k < n; k += threads) x[k] /= total[0];
}

static void __attribute__((noinline)) plain_total_sum(const float *p, float *total, int64_t n) {
  float acc = 0.0f;
  for (int64_t k = 0; k < n; k++) acc += p[k];
  total[0] = acc;
}

/* ---- one case ---- */

typedef struct Case {
  const char *name, *file, *kernel, *sig;
  SimDim3 grid, block;
  const char *what;                   /* the size, for the table */
  void (*setup)(struct Case *c);      /* makes the inputs and the arguments */
  void (*reset)(struct Case *c, void *out); /* restores an in-place output before a run */
  void (*plain)(struct Case *c);
  void *sim_out, *plain_out;          /* compared after the first runs */
  size_t out_bytes;
  void *args[8];
  ArrayArg packs[8];
  void *buf[8];
  int64_t n, m;
  double scalar[2];
} Case;

static int64_t scale = 1;

static void setup_vecadd(Case *c) {
  c->n = ((int64_t)1 << 24) / scale;
  int32_t *a = malloc(c->n * 4), *b = malloc(c->n * 4);
  double *out = malloc(c->n * 8), *ref = malloc(c->n * 8);
  for (int64_t i = 0; i < c->n; i++) a[i] = (int32_t)i, b[i] = (int32_t)(i * 7 % 1000 - 500);
  c->buf[0] = a, c->buf[1] = b, c->sim_out = out, c->plain_out = ref, c->out_bytes = c->n * 8;
  c->packs[0] = pack(a, 4, 1, &c->n), c->packs[1] = pack(b, 4, 1, &c->n);
  c->packs[2] = pack(out, 8, 1, &c->n);
  for (int i = 0; i < 3; i++) c->args[i] = &c->packs[i];
  c->grid = (SimDim3){(uint32_t)((c->n + 255) / 256), 1, 1};
}
static void plain_vecadd_case(Case *c) { plain_vecadd(c->buf[0], c->buf[1], c->plain_out, c->n); }

static void setup_smooth(Case *c) {
  c->n = c->m = 4096 / (scale >= 4 ? scale / 2 : 1);
  int64_t shape[2] = {c->n, c->m}, cells = c->n * c->m;
  int32_t *x = malloc(cells * 4), *out = calloc(cells, 4), *ref = calloc(cells, 4);
  for (int64_t i = 0; i < cells; i++) x[i] = (int32_t)((i * 2654435761u) % 2001) - 1000;
  c->buf[0] = x, c->sim_out = out, c->plain_out = ref, c->out_bytes = cells * 4;
  c->packs[0] = pack(x, 4, 2, shape), c->packs[1] = pack(out, 4, 2, shape);
  c->args[0] = &c->packs[0], c->args[1] = &c->packs[1];
  c->grid = (SimDim3){(uint32_t)((c->n + 15) / 16), (uint32_t)((c->m + 15) / 16), 1};
}
static void plain_smooth_case(Case *c) { plain_smooth(c->buf[0], c->plain_out, c->n, c->m); }

static void setup_great_circle(Case *c) {
  c->n = c->m = 2048 / (scale >= 4 ? scale / 2 : 1);
  int64_t shape[2] = {c->n, c->m}, cells = c->n * c->m;
  double *out = calloc(cells, 8), *ref = calloc(cells, 8);
  c->sim_out = out, c->plain_out = ref, c->out_bytes = cells * 8;
  c->scalar[0] = 48.8566, c->scalar[1] = 2.3522;
  c->packs[0] = pack(out, 8, 2, shape);
  c->args[0] = &c->packs[0], c->args[1] = &c->scalar[0], c->args[2] = &c->scalar[1];
  c->grid = (SimDim3){(uint32_t)((c->n + 15) / 16), (uint32_t)((c->m + 15) / 16), 1};
}
static void plain_great_circle_case(Case *c) {
  plain_great_circle(c->plain_out, c->n, c->m, c->scalar[0], c->scalar[1]);
}

/* divide works in place: both sides start each run from the same copy of x. */
static void setup_divide(Case *c) {
  c->n = ((int64_t)1 << 24) / scale;
  float *x0 = malloc(c->n * 4), *x = malloc(c->n * 4), *ref = malloc(c->n * 4);
  float *total = malloc(4);
  for (int64_t i = 0; i < c->n; i++) x0[i] = (float)(i % 1000) * 0.25f;
  total[0] = 3.0f;
  int64_t one = 1;
  c->buf[0] = x0, c->buf[1] = total, c->sim_out = x, c->plain_out = ref, c->out_bytes = c->n * 4;
  c->packs[0] = pack(x, 4, 1, &c->n), c->packs[1] = pack(total, 4, 1, &one);
  c->args[0] = &c->packs[0], c->args[1] = &c->packs[1];
  c->grid = (SimDim3){4096, 1, 1};   /* a grid-stride loop: 16 elements per thread at 2^24 */
}
static void reset_divide(Case *c, void *out) { memcpy(out, c->buf[0], c->out_bytes); }
static void plain_divide_case(Case *c) { plain_divide(c->plain_out, c->buf[1], c->n); }
static void plain_divide_kernel_order_case(Case *c) {
  plain_divide_kernel_order(c->plain_out, c->buf[1], c->n, (int64_t)c->grid.x * c->block.x);
}
/* The same launch with one block more: a grid-stride that is not a power of two. */
static void setup_divide_odd(Case *c) {
  setup_divide(c);
  c->grid.x = 4097;
}

static void setup_total_sum(Case *c) {
  c->n = ((int64_t)1 << 24) / scale;
  float *p = malloc(c->n * 4), *out = malloc(4), *ref = malloc(4);
  for (int64_t i = 0; i < c->n; i++) p[i] = (float)(i % 977) * 0.001f;
  int64_t one = 1;
  c->buf[0] = p, c->sim_out = out, c->plain_out = ref, c->out_bytes = 4;
  c->packs[0] = pack(p, 4, 1, &c->n), c->packs[1] = pack(out, 4, 1, &one);
  c->args[0] = &c->packs[0], c->args[1] = &c->packs[1];
  c->grid = (SimDim3){1, 1, 1};
}
static void plain_total_sum_case(Case *c) { plain_total_sum(c->buf[0], c->plain_out, c->n); }

static Case cases[] = {
    {.name = "vecadd", .file = "samples/vecadd.py", .kernel = "vecadd",
     .sig = "vecadd(int32[::1], int32[::1], float64[::1])", .block = {256, 1, 1},
     .what = "2^24 elements", .setup = setup_vecadd, .plain = plain_vecadd_case},
    {.name = "smooth_gpu", .file = "samples/smooth.py", .kernel = "smooth_gpu",
     .sig = "smooth_gpu(int32[:, ::1], int32[:, ::1])", .block = {16, 16, 1},
     .what = "4096 x 4096", .setup = setup_smooth, .plain = plain_smooth_case},
    {.name = "great_circle", .file = "samples/great_circle.py", .kernel = "great_circle",
     .sig = "great_circle(float64[:, ::1], float64, float64)", .block = {16, 16, 1},
     .what = "2048 x 2048", .setup = setup_great_circle, .plain = plain_great_circle_case},
    {.name = "divide", .file = "samples/normalize.py", .kernel = "divide",
     .sig = "divide(float32[::1], float32[::1])", .block = {256, 1, 1},
     .what = "2^24 elements, 4096 x 256 threads", .setup = setup_divide, .reset = reset_divide,
     .plain = plain_divide_case},
    {.name = "divide", .file = "samples/normalize.py", .kernel = "divide",
     .sig = "divide(float32[::1], float32[::1])", .block = {256, 1, 1},
     .what = "same; plain loop in the kernel's order", .setup = setup_divide,
     .reset = reset_divide, .plain = plain_divide_kernel_order_case},
    {.name = "divide", .file = "samples/normalize.py", .kernel = "divide",
     .sig = "divide(float32[::1], float32[::1])", .block = {256, 1, 1},
     .what = "2^24 elements, 4097 x 256 threads", .setup = setup_divide_odd,
     .reset = reset_divide, .plain = plain_divide_case},
    {.name = "total_sum", .file = "samples/normalize.py", .kernel = "total_sum",
     .sig = "total_sum(float32[::1], float32[::1])", .block = {1, 1, 1},
     .what = "2^24 elements, 1 thread", .setup = setup_total_sum, .plain = plain_total_sum_case},
};

/* Translates and loads the case's kernel; NULL (after a message) on failure. */
static SimModule *load_case(P2cCompiler *pc, const Case *c, const char **symbol, P2cModule **pm) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", P2C_SOURCE_ROOT, c->file);
  size_t len;
  char *src = bench_read_file(path, &len);
  if (!src) return fprintf(stderr, "cannot read %s\n", path), NULL;
  const char *kernels[] = {c->kernel}, *sigs[] = {c->sig};
  P2cTranslateOptions o = {kernels, 1, sigs, 1, false, true, {0}};
  P2cStatus st = p2c_translate(pc, path, src, len, &o, pm);
  free(src);
  if (st != P2C_OK) return fprintf(stderr, "%s: %s\n", c->name, p2c_compiler_last_error(pc)), NULL;
  *symbol = p2c_module_kernel(*pm, 0).symbol;
  size_t n;
  const char *text = p2c_module_cuda(*pm, &n);
  SimLoadRequest req = {.source = text, .source_len = n};
  SimModule *m = NULL;
  if (sim_module_load(&req, &m) != P2C_OK) {
    fprintf(stderr, "%s: %s\n%s\n", c->name, sim_module_error(m), sim_module_log(m));
    sim_module_delete(m);
    return NULL;
  }
  return m;
}

static double time_sim(SimModule *m, Case *c, const char *symbol, unsigned threads) {
  if (c->reset) c->reset(c, c->sim_out);
  char err[512];
  SimLaunch l = {.symbol = symbol, .grid = c->grid, .block = c->block, .args = c->args,
                 .threads = threads, .errbuf = err, .errbuf_size = sizeof err};
  double t0 = bench_now_ms();
  if (sim_launch(m, &l) != P2C_OK) {
    fprintf(stderr, "%s: %s\n", c->name, err);
    exit(2);
  }
  return bench_now_ms() - t0;
}

static double time_plain(Case *c) {
  if (c->reset) c->reset(c, c->plain_out);
  double t0 = bench_now_ms();
  c->plain(c);
  return bench_now_ms() - t0;
}

int main(int argc, char **argv) {
  int repeat = 11;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--scale") && i + 1 < argc) scale = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else return fprintf(stderr, "usage: sim_plain [--repeat N] [--scale K] [--only NAME]\n"), 2;
  }
  if (repeat < 1 || scale < 1) return 2;
  P2cCompiler *pc = p2c_compiler_new(NULL);
  unsigned cpus = sim_cpu_count();
  printf("| kernel | size | plain C -O2, ms | sim, 1 worker, ms | ratio | sim, %u workers, ms | "
         "ratio |\n|---|---|---:|---:|---:|---:|---:|\n", cpus);
  int status = 0;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    Case *c = &cases[k];
    if (only && strcmp(only, c->name)) continue;
    c->setup(c);
    const char *symbol;
    P2cModule *pm = NULL;
    SimModule *m = load_case(pc, c, &symbol, &pm);
    if (!m) return 2;
    time_plain(c);
    time_sim(m, c, symbol, 1);
    if (memcmp(c->sim_out, c->plain_out, c->out_bytes) != 0) {
      fprintf(stderr, "%s: the simulator and the plain loop disagree\n", c->name);
      return 2;
    }
    double *tp = malloc(sizeof(double) * repeat), *t1 = malloc(sizeof(double) * repeat),
           *tn = malloc(sizeof(double) * repeat);
    for (int r = 0; r < repeat; r++) {
      tp[r] = time_plain(c);
      t1[r] = time_sim(m, c, symbol, 1);
      tn[r] = time_sim(m, c, symbol, 0);
    }
    double p = bench_median(tp, repeat), s1 = bench_median(t1, repeat), sn = bench_median(tn, repeat);
    printf("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", c->name, c->what, p, s1, s1 / p,
           sn, sn / p);
    fflush(stdout);
    if (s1 / p > 3.0) status = 1;
    free(tp), free(t1), free(tn);
    sim_module_delete(m);
    p2c_module_delete(pm);
  }
  p2c_compiler_delete(pc);
  return status;
}
