/* bench/gpu.c: the GPU runtime's benchmarks (results in bench/RESULTS.md). Needs a CUDA device;
 * exits 77 without one. Run all of them with bench/run_gpu.sh.
 *
 *   launch     100,000 launches of an empty kernel through p2c_gpu_kernel_launch against raw
 *              cuLaunchKernel on the same CUfunction, in the same process (target: ratio <= 1.1)
 *   bandwidth  memory-bound kernels translated from Python (a copy, samples/vecadd.py, the
 *              divide of samples/normalize.py): bytes moved per second against a device-to-device
 *              cuMemcpy in the same run (target: >= 90 %)
 *   samples    each sample kernel against a hand-written CUDA C version of the same algorithm
 *              (bench/handwritten.cu) compiled by the same NVRTC with the same options; outputs
 *              compared too (target: hand-written time / generated time >= 0.95)
 *
 * Kernel times are medians over --reps launches (default 20, after 3 warm-ups), each between two
 * CUDA events. The warm-start benchmark (compile time of a cached kernel in `pyk2cuda run`) is
 * in run_gpu.sh, since it needs a fresh process per run.
 *
 * Usage: build/bench/gpu [--reps N] [--only launch|bandwidth|samples] [--small]
 * (--small: sizes divided by 256 and 1,000 launches, to check the program on the fake driver). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/gpu_api.h"
#include "bench_util.h"

enum { MAX_MODULES = 16 };

typedef struct Bench {
  P2cCompiler *c;
  P2cDevice *d;
  P2cGpuModule *hw; /* bench/handwritten.cu */
  P2cModule *py[MAX_MODULES];
  P2cGpuModule *gpy[MAX_MODULES];
  int module_count;
  P2cEvent *e0, *e1;
  int reps;
  bool small; /* --small: tiny sizes, a smoke test of the program itself (the fake driver) */
} Bench;

static void die(Bench *b, const char *what) {
  fprintf(stderr, "bench/gpu: %s: %s\n", what,
          b->d ? p2c_device_last_error(b->d) : p2c_compiler_last_error(b->c));
  exit(3);
}

#define CHECK(b, call, what)                  \
  do {                                        \
    if ((call) != P2C_OK) die((b), (what));   \
  } while (0)

/* Kernel `sig` ("name(types)") of a Python file of the source tree, compiled for the device. */
static P2cGpuKernel *python_kernel(Bench *b, const char *file, const char *sig) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", P2C_SOURCE_ROOT, file);
  char *src = bench_read_file(path, NULL);
  if (!src || b->module_count == MAX_MODULES) die(b, path);
  const char *kernels[1] = {NULL}, *sigs[1] = {sig};
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(sig, "("), sig);
  kernels[0] = name;
  P2cTranslateOptions o = {kernels, 1, sigs, 1, false, true, {0}};
  P2cModule **m = &b->py[b->module_count];
  P2cGpuModule **gm = &b->gpy[b->module_count++];
  CHECK(b, p2c_translate(b->c, path, src, strlen(src), &o, m), sig);
  free(src);
  CHECK(b, p2c_gpu_module_from_python(b->d, *m, false, gm), sig);
  P2cGpuKernel *k = NULL;
  CHECK(b, p2c_gpu_module_kernel(*gm, p2c_module_kernel(*m, 0).symbol, &k), sig);
  return k;
}

static P2cGpuKernel *hand_kernel(Bench *b, const char *name) {
  P2cGpuKernel *k = NULL;
  CHECK(b, p2c_gpu_module_kernel(b->hw, name, &k), name);
  return k;
}

/* Median time of one launch in ms, from events around each launch. */
static double time_kernel(Bench *b, P2cGpuKernel *k, const P2cGpuLaunch *cfg, void **args) {
  double *t = malloc(sizeof *t * (size_t)b->reps);
  for (int i = 0; i < 3; i++) CHECK(b, p2c_gpu_kernel_launch(k, cfg, args), "warm-up");
  for (int i = 0; i < b->reps; i++) {
    float ms;
    CHECK(b, p2c_event_record(b->e0, NULL), "event");
    CHECK(b, p2c_gpu_kernel_launch(k, cfg, args), "launch");
    CHECK(b, p2c_event_record(b->e1, NULL), "event");
    CHECK(b, p2c_event_elapsed_ms(b->e0, b->e1, &ms), "kernel");
    t[i] = ms;
  }
  double median = bench_median(t, b->reps);
  free(t);
  return median;
}

/* A device array filled from `host` (NULL: zeros). */
static P2cDeviceArray darray(Bench *b, P2cScalarType t, int ndim, const int64_t *shape,
                             const void *host) {
  P2cDeviceArray a;
  CHECK(b, p2c_device_array_new(b->d, t, ndim, shape, &a), "device array");
  if (host) CHECK(b, p2c_buffer_write(a.buffer, 0, host, p2c_buffer_size(a.buffer), NULL), "upload");
  return a;
}

typedef struct Arg {
  unsigned char bytes[8 + 16 * 2];
} Arg;

static Arg pack(const P2cDeviceArray *a) {
  Arg g;
  p2c_device_array_pack(a, g.bytes);
  return g;
}

/* ---- launch overhead ----------------------------------------------------------------------- */

static double launches_us(Bench *b, P2cGpuKernel *k, bool raw, int n) {
  const CuDriver *drv = b->d->gpu.drv;
  P2cGpuLaunch cfg = {.grid = {1}, .block = {1}};
  CHECK(b, p2c_device_synchronize(b->d), "sync");
  /* A raw host makes the context current itself; pyk2cuda's calls leave the thread's current
   * context as they found it (none here), so each of its launches switches in and back. */
  if (raw && drv->cuCtxSetCurrent(b->d->gpu.ctx) != 0) die(b, "raw: cuCtxSetCurrent");
  double t0 = bench_now_ms();
  for (int i = 0; i < n; i++) {
    if (raw) {
      if (drv->cuLaunchKernel(k->fn.fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL) != 0) die(b, "raw");
    } else if (p2c_gpu_kernel_launch(k, &cfg, NULL) != P2C_OK) {
      die(b, "launch");
    }
  }
  CHECK(b, p2c_device_synchronize(b->d), "sync");
  double us = (bench_now_ms() - t0) * 1000.0 / n;
  if (raw) drv->cuCtxSetCurrent(NULL);
  return us;
}

static void bench_launch(Bench *b) {
  enum { ROUNDS = 5 };
  int N = b->small ? 1000 : 100000;
  P2cGpuKernel *k = python_kernel(b, "bench/kernels.py", "empty()");
  double ours[ROUNDS], raw[ROUNDS];
  launches_us(b, k, false, 1000); /* warm-up */
  for (int r = 0; r < ROUNDS; r++) { /* alternating, so that drift hits both */
    ours[r] = launches_us(b, k, false, N);
    raw[r] = launches_us(b, k, true, N);
  }
  qsort(ours, ROUNDS, sizeof *ours, bench_cmp_double);
  qsort(raw, ROUNDS, sizeof *raw, bench_cmp_double);
  printf("\n### Launch overhead: %d launches of an empty kernel, median of %d rounds\n\n", N, ROUNDS);
  printf("| path | us per launch | ratio to raw |\n|---|---:|---:|\n");
  printf("| raw cuLaunchKernel | %.3f | 1.000 |\n", raw[ROUNDS / 2]);
  printf("| p2c_gpu_kernel_launch | %.3f | %.3f |\n", ours[ROUNDS / 2],
         ours[ROUNDS / 2] / raw[ROUNDS / 2]);
}

/* ---- bandwidth ----------------------------------------------------------------------------- */

static double gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

static void bench_bandwidth(Bench *b) {
  const int64_t n = (int64_t)1 << (b->small ? 18 : 26);
  int64_t one = 1;
  P2cDeviceArray f1 = darray(b, P2C_FLOAT32, 1, &n, NULL), f2 = darray(b, P2C_FLOAT32, 1, &n, NULL);
  P2cDeviceArray i1 = darray(b, P2C_INT32, 1, &n, NULL), i2 = darray(b, P2C_INT32, 1, &n, NULL);
  P2cDeviceArray d1 = darray(b, P2C_FLOAT64, 1, &n, NULL);
  float unit = 1.0f;
  P2cDeviceArray total = darray(b, P2C_FLOAT32, 1, &one, &unit);

  /* cuMemcpyDtoD of 256 MiB: read and written, 512 MiB moved. */
  double *t = malloc(sizeof *t * (size_t)b->reps);
  for (int i = 0; i < b->reps; i++) {
    float ms;
    CHECK(b, p2c_event_record(b->e0, NULL), "event");
    CHECK(b, p2c_buffer_copy(f2.buffer, 0, f1.buffer, 0, (size_t)n * 4, NULL), "memcpy");
    CHECK(b, p2c_event_record(b->e1, NULL), "event");
    CHECK(b, p2c_event_elapsed_ms(b->e0, b->e1, &ms), "memcpy");
    t[i] = ms;
  }
  double memcpy_gbps = gbps(8.0 * (double)n, bench_median(t, b->reps));
  free(t);

  P2cGpuLaunch cfg = {.grid = {(uint32_t)(n / 256)}, .block = {256}};
  Arg af1 = pack(&f1), af2 = pack(&f2), ai1 = pack(&i1), ai2 = pack(&i2), ad1 = pack(&d1),
      at = pack(&total);
  void *copy_args[] = {af2.bytes, af1.bytes};
  void *vecadd_args[] = {ai1.bytes, ai2.bytes, ad1.bytes};
  void *divide_args[] = {af1.bytes, at.bytes};
  struct {
    const char *name;
    P2cGpuKernel *k;
    void **args;
    double bytes_per_element;
  } rows[] = {
      {"copy (bench/kernels.py)",
       python_kernel(b, "bench/kernels.py", "copy(float32[::1], float32[::1])"), copy_args, 8},
      {"vecadd (samples/vecadd.py)",
       python_kernel(b, "samples/vecadd.py", "vecadd(int32[::1], int32[::1], float64[::1])"),
       vecadd_args, 16},
      {"divide (samples/normalize.py)",
       python_kernel(b, "samples/normalize.py", "divide(float32[::1], float32[::1])"),
       divide_args, 8},
  };
  printf("\n### Bandwidth: %lld elements per array, median of %d launches\n\n", (long long)n, b->reps);
  printf("| kernel | ms | GB/s | of cuMemcpyDtoD |\n|---|---:|---:|---:|\n");
  printf("| cuMemcpyDtoD, %lld MiB | - | %.1f | 100.0 %% |\n", (long long)(n * 4 >> 20), memcpy_gbps);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    double ms = time_kernel(b, rows[i].k, &cfg, rows[i].args);
    double g = gbps(rows[i].bytes_per_element * (double)n, ms);
    printf("| %s | %.3f | %.1f | %.1f %% |\n", rows[i].name, ms, g, 100.0 * g / memcpy_gbps);
  }
  P2cDeviceArray *all[] = {&f1, &f2, &i1, &i2, &d1, &total};
  for (size_t i = 0; i < 6; i++) p2c_device_array_free(all[i]);
}

/* ---- samples against hand-written CUDA C --------------------------------------------------- */

/* Largest relative difference between two float arrays read back from the device. */
static double compare(Bench *b, const P2cDeviceArray *x, const P2cDeviceArray *y, P2cScalarType t) {
  size_t bytes = p2c_buffer_size(x->buffer), n = bytes / p2c_scalar_size(t);
  unsigned char *hx = malloc(bytes), *hy = malloc(bytes);
  CHECK(b, p2c_buffer_read(x->buffer, 0, hx, bytes, NULL), "read");
  CHECK(b, p2c_buffer_read(y->buffer, 0, hy, bytes, NULL), "read");
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double u, v;
    if (t == P2C_FLOAT32) u = ((float *)hx)[i], v = ((float *)hy)[i];
    else if (t == P2C_FLOAT64) u = ((double *)hx)[i], v = ((double *)hy)[i];
    else u = ((int32_t *)hx)[i], v = ((int32_t *)hy)[i];
    double d = fabs(u - v) / (fabs(v) > 1e-30 ? fabs(v) : 1.0);
    if (d > worst || u != u) worst = u != u ? INFINITY : d;
  }
  free(hx);
  free(hy);
  return worst;
}

static void row(const char *name, double gen, double hand, double diff) {
  printf("| %s | %.3f | %.3f | %.3f | %.2g |\n", name, gen, hand, hand / gen, diff);
}

static void fill_random(void *p, size_t n, P2cScalarType t, unsigned seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    double u = (double)(seed >> 8) / (double)(1u << 24);
    if (t == P2C_FLOAT32) ((float *)p)[i] = (float)(2 * u - 1);
    else ((int32_t *)p)[i] = (int32_t)(u * 2000) - 1000;
  }
}

static void bench_samples(Bench *b) {
  printf("\n### Samples: generated vs hand-written CUDA C, median of %d launches\n\n", b->reps);
  printf("| kernel | generated ms | hand-written ms | hand / generated | max rel. diff |\n");
  printf("|---|---:|---:|---:|---:|\n");

  /* vecadd, 2^24 elements */
  int64_t n = (int64_t)1 << (b->small ? 16 : 24);
  int32_t *ha = malloc((size_t)n * 4);
  fill_random(ha, (size_t)n, P2C_INT32, 1);
  P2cDeviceArray a = darray(b, P2C_INT32, 1, &n, ha), c1 = darray(b, P2C_FLOAT64, 1, &n, NULL),
                 c2 = darray(b, P2C_FLOAT64, 1, &n, NULL);
  Arg pa = pack(&a), pc1 = pack(&c1);
  void *gargs[] = {pa.bytes, pa.bytes, pc1.bytes};
  void *hargs[] = {&a.data, &a.data, &c2.data, &n};
  P2cGpuLaunch cfg = {.grid = {(uint32_t)(n / 256)}, .block = {256}};
  double g = time_kernel(b, python_kernel(b, "samples/vecadd.py", "vecadd(int32[::1], int32[::1], float64[::1])"), &cfg, gargs);
  double h = time_kernel(b, hand_kernel(b, "vecadd_hw"), &cfg, hargs);
  row(b->small ? "vecadd, 2^16" : "vecadd, 2^24", g, h, compare(b, &c1, &c2, P2C_FLOAT64));
  p2c_device_array_free(&c1);
  p2c_device_array_free(&c2);
  free(ha);

  /* normalize: partial_sums and divide over the same 2^24 floats */
  float *hx = malloc((size_t)n * 4);
  fill_random(hx, (size_t)n, P2C_FLOAT32, 2);
  int64_t blocks = 1024, one = 1;
  float unit = 1.0f;
  P2cDeviceArray x = darray(b, P2C_FLOAT32, 1, &n, hx), p1 = darray(b, P2C_FLOAT32, 1, &blocks, NULL),
                 p2 = darray(b, P2C_FLOAT32, 1, &blocks, NULL), tot = darray(b, P2C_FLOAT32, 1, &one, &unit);
  Arg px = pack(&x), pp1 = pack(&p1), pt = pack(&tot);
  P2cGpuLaunch red = {.grid = {(uint32_t)blocks}, .block = {256}};
  void *gs[] = {px.bytes, pp1.bytes}, *hs[] = {&x.data, &p2.data, &n};
  g = time_kernel(b, python_kernel(b, "samples/normalize.py", "partial_sums(float32[::1], float32[::1])"), &red, gs);
  h = time_kernel(b, hand_kernel(b, "partial_sums_hw"), &red, hs);
  row(b->small ? "partial_sums, 2^16" : "partial_sums, 2^24", g, h, compare(b, &p1, &p2, P2C_FLOAT32));
  void *gd[] = {px.bytes, pt.bytes}, *hd[] = {&x.data, &tot.data, &n};
  g = time_kernel(b, python_kernel(b, "samples/normalize.py", "divide(float32[::1], float32[::1])"), &red, gd);
  h = time_kernel(b, hand_kernel(b, "divide_hw"), &red, hd);
  row(b->small ? "divide, 2^16" : "divide, 2^24", g, h, 0.0);
  P2cDeviceArray *free1[] = {&a, &x, &p1, &p2, &tot};
  for (int i = 0; i < 5; i++) p2c_device_array_free(free1[i]);
  free(hx);

  /* smooth, 4096 x 4096 int32 */
  int64_t side = b->small ? 256 : 4096, sq[2] = {side, side}, rows_ = side, cols = side;
  int32_t *hs2 = malloc((size_t)(side * side * 4));
  fill_random(hs2, (size_t)(side * side), P2C_INT32, 3);
  P2cDeviceArray sx = darray(b, P2C_INT32, 2, sq, hs2), so1 = darray(b, P2C_INT32, 2, sq, NULL),
                 so2 = darray(b, P2C_INT32, 2, sq, NULL);
  Arg psx = pack(&sx), pso1 = pack(&so1);
  P2cGpuLaunch tile = {.grid = {(uint32_t)(side / 32), (uint32_t)(side / 32)}, .block = {32, 32}};
  void *gsm[] = {psx.bytes, pso1.bytes}, *hsm[] = {&sx.data, &so2.data, &rows_, &cols};
  g = time_kernel(b, python_kernel(b, "samples/smooth.py", "smooth_gpu(int32[:, ::1], int32[:, ::1])"), &tile, gsm);
  h = time_kernel(b, hand_kernel(b, "smooth_hw"), &tile, hsm);
  row(b->small ? "smooth_gpu, 256x256" : "smooth_gpu, 4096x4096", g, h, compare(b, &so1, &so2, P2C_INT32));
  p2c_device_array_free(&sx);
  p2c_device_array_free(&so1);
  p2c_device_array_free(&so2);
  free(hs2);

  /* great_circle, 4096 x 4096 float64 */
  P2cDeviceArray gd1 = darray(b, P2C_FLOAT64, 2, sq, NULL), gd2 = darray(b, P2C_FLOAT64, 2, sq, NULL);
  Arg pg = pack(&gd1);
  double lat0 = 48.8566, lon0 = 2.3522;
  P2cGpuLaunch g16 = {.grid = {(uint32_t)(side / 16), (uint32_t)(side / 16)}, .block = {16, 16}};
  void *gg[] = {pg.bytes, &lat0, &lon0}, *hg[] = {&gd2.data, &rows_, &cols, &lat0, &lon0};
  g = time_kernel(b, python_kernel(b, "samples/great_circle.py", "great_circle(float64[:, ::1], float64, float64)"), &g16, gg);
  h = time_kernel(b, hand_kernel(b, "great_circle_hw"), &g16, hg);
  row(b->small ? "great_circle, 256x256" : "great_circle, 4096x4096", g, h, compare(b, &gd1, &gd2, P2C_FLOAT64));
  p2c_device_array_free(&gd1);
  p2c_device_array_free(&gd2);

  /* matmul, 2048 x 2048 float32 */
  int dim = b->small ? 128 : 2048;
  int64_t mm[2] = {dim, dim};
  float *hm = malloc((size_t)dim * dim * 4);
  fill_random(hm, (size_t)dim * dim, P2C_FLOAT32, 4);
  P2cDeviceArray A = darray(b, P2C_FLOAT32, 2, mm, hm), C1 = darray(b, P2C_FLOAT32, 2, mm, NULL),
                 C2 = darray(b, P2C_FLOAT32, 2, mm, NULL);
  Arg pA = pack(&A), pC = pack(&C1);
  P2cGpuLaunch mt = {.grid = {(uint32_t)dim / 16, (uint32_t)dim / 16}, .block = {16, 16}};
  void *gm[] = {pA.bytes, pA.bytes, pC.bytes}, *hm2[] = {&A.data, &A.data, &C2.data, &dim, &dim, &dim};
  g = time_kernel(b, python_kernel(b, "samples/matmul.py", "matmul(float32[:, ::1], float32[:, ::1], float32[:, ::1])"), &mt, gm);
  h = time_kernel(b, hand_kernel(b, "matmul_hw"), &mt, hm2);
  row(b->small ? "matmul, 128x128" : "matmul, 2048x2048", g, h, compare(b, &C1, &C2, P2C_FLOAT32));
  p2c_device_array_free(&A);
  p2c_device_array_free(&C1);
  p2c_device_array_free(&C2);
  free(hm);
}

int main(int argc, char **argv) {
  Bench b = {.reps = 20};
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) b.reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--small")) b.small = true;
    else return fprintf(stderr, "usage: gpu [--reps N] [--only launch|bandwidth|samples] [--small]\n"), 2;
  }
  if (b.reps < 1) b.reps = 1;
  b.c = p2c_compiler_new(NULL);
  P2cStatus s = p2c_device_open(b.c, 0, &b.d);
  if (s == P2C_ERR_NO_CUDA) {
    printf("bench/gpu: skipped: %s\n", p2c_compiler_last_error(b.c));
    return 77;
  }
  if (s != P2C_OK) die(&b, "opening device 0");
  char path[1024];
  snprintf(path, sizeof path, "%s/bench/handwritten.cu", P2C_SOURCE_ROOT);
  char *hw = bench_read_file(path, NULL);
  if (!hw) die(&b, path);
  P2cSourceOptions so = {.name = "bench/handwritten.cu"};
  CHECK(&b, p2c_gpu_module_from_source(b.d, hw, &so, &b.hw), "bench/handwritten.cu");
  free(hw);
  CHECK(&b, p2c_event_new(b.d, &b.e0), "event");
  CHECK(&b, p2c_event_new(b.d, &b.e1), "event");
  P2cDeviceInfo info = p2c_device_info(b.d);
  printf("## GPU benchmarks: %s (%s, %d SMs), pyk2cuda %s\n", info.name, info.arch,
         info.multiprocessors, p2c_version());
  if (!only || !strcmp(only, "launch")) bench_launch(&b);
  if (!only || !strcmp(only, "bandwidth")) bench_bandwidth(&b);
  if (!only || !strcmp(only, "samples")) bench_samples(&b);
  p2c_event_delete(b.e0);
  p2c_event_delete(b.e1);
  for (int i = 0; i < b.module_count; i++) {
    p2c_gpu_module_delete(b.gpy[i]);
    p2c_module_delete(b.py[i]);
  }
  p2c_gpu_module_delete(b.hw);
  p2c_device_delete(b.d);
  p2c_compiler_delete(b.c);
  return 0;
}
