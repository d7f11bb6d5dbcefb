/* bench/aot_launch.c: the cost of one launch through an ahead-of-time bundle (docs/aot.md)
 * against the same launch through raw cuLaunchKernel from C and through pyk2cuda's C API, for
 * bench/launch_kernels.py's add3 (three float32 arrays of 32 elements, grid 1, block 32).
 * bench/aot_launch.sh builds the bundle (bl: add3(float32[::1] x3), --with-sim), compiles this
 * file with it and libpyk2cuda, and runs it; results in bench/RESULTS.md.
 *
 *   aot_launch gpu [PATH COUNT]   on the driver PYK2CUDA_LIBCUDA names (the stand-in here)
 *     bundle  bl_add3__f32c1_f32c1_f32c1: its checks of the arrays and the launch, then
 *             cuLaunchKernel in the primary context
 *     raw     cuLaunchKernel from C on a CUfunction this file loaded itself (the module's PTX
 *             through cuModuleLoadDataEx), its parameters packed once
 *     p2c     p2c_device_array_pack of the three arrays and p2c_gpu_kernel_launch, as
 *             bench/launch_c.c (the Python package's asynchronous path)
 *   aot_launch sim [PATH COUNT]   (run with PYK2CUDA_DEVICE=sim: the bundle's simulator part)
 *     bundle  the launcher on the simulator part (the kernel runs on the calling thread)
 *     p2c     p2c_module_launch on pyk2cuda's simulator, of a specialization already loaded
 *
 * Without PATH: each path's median over 21 batches of 2,000 launches (the device synchronized
 * after each batch), in microseconds per launch. With PATH and COUNT: that path alone, COUNT
 * launches between CALLGRIND_START_INSTRUMENTATION and _STOP, for callgrind's instruction
 * counts (bench/aot_launch.sh takes the difference of two COUNTs, so setup cancels). */
#define _GNU_SOURCE   /* dlopen, clock_gettime */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "bench_util.h"
#include "bl.h"
#include "pyk2cuda.h"

enum { N = 32, BATCHES = 21, PER_BATCH = 2000 };

/* The driver functions the raw path calls, bound by hand as a C host without CUDA headers would. */
typedef struct Raw {
  int (*cuInit)(unsigned);
  int (*cuDeviceGet)(int *, int);
  int (*cuDevicePrimaryCtxRetain)(void **, int);
  int (*cuCtxSetCurrent)(void *);
  int (*cuModuleLoadDataEx)(void **, const void *, unsigned, int *, void **);
  int (*cuModuleGetFunction)(void **, void *, const char *);
  int (*cuMemAlloc)(unsigned long long *, size_t);
  int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                        void **, void **);
  int (*cuCtxSynchronize)(void);
  int (*p2cStandinAttachSource)(void *, const char *, size_t);
  void *fn;
  uint64_t slots[3][3];   /* each array: data, extent, stride (pyk2cuda's array parameter) */
  void *params[3];
} Raw;

/* What every path launches: the module (pyk2cuda's C API), the bundle's arrays, the raw path. */
typedef struct Bench {
  P2cCompiler *c;
  P2cModule *m;
  P2cDevice *d;
  P2cGpuKernel *k;
  P2cDeviceArray arr[3];
  P2cValue host[3];
  bl_array bundle_arrays[3];
  Raw raw;
} Bench;

typedef int (*LaunchFn)(Bench *b);
typedef struct Path {
  const char *name;
  LaunchFn f;
} Path;

static void die(const char *what, const char *why) {
  fprintf(stderr, "aot_launch: %s: %s\n", what, why);
  exit(1);
}

static void bind(void *lib, const char *name, void *slot) {
  void *p = dlsym(lib, name);
  memcpy(slot, &p, sizeof p);
}

/* ---- The launches ---- */

static int launch_bundle(Bench *b) {
  return bl_add3__f32c1_f32c1_f32c1(NULL, bl_dim3_of(1, 1, 1), bl_dim3_of(N, 1, 1), 0, b->bundle_arrays[0],
                                    b->bundle_arrays[1], b->bundle_arrays[2]);
}

static int launch_raw(Bench *b) {
  return b->raw.cuLaunchKernel(b->raw.fn, 1, 1, 1, N, 1, 1, 0, NULL, b->raw.params, NULL);
}

static int launch_p2c_gpu(Bench *b) {
  static unsigned char slots[3][8 + 16 * P2C_MAX_NDIM];
  void *params[3] = {slots[0], slots[1], slots[2]};
  P2cGpuLaunch cfg = {{1, 1, 1}, {N, 1, 1}, 0, NULL, false};
  for (int j = 0; j < 3; j++) p2c_device_array_pack(&b->arr[j], slots[j]);
  return p2c_gpu_kernel_launch(b->k, &cfg, params);
}

static int launch_p2c_sim(Bench *b) {
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM, .grid = {1, 1, 1}, .block = {N, 1, 1}};
  return p2c_module_launch(b->c, b->m, 0, b->host, 3, &o, NULL);
}

/* ---- Setting up ---- */

/* The module of add3 for three float32 arrays, through pyk2cuda's C API. */
static void translate(Bench *b) {
  static float a[N], x[N], out[N];
  float *data[3] = {a, x, out};
  size_t len;
  char *src = bench_read_file(P2C_SOURCE_ROOT "/bench/launch_kernels.py", &len);
  b->c = p2c_compiler_new(NULL);
  for (int j = 0; j < 3; j++) {
    P2cValue v = {.is_array = true, .type = P2C_FLOAT32};
    v.array = (P2cHostArray){.dtype = P2C_FLOAT32, .ndim = 1, .data = data[j]};
    v.array.shape[0] = N, v.array.strides[0] = sizeof(float);
    b->host[j] = v;
  }
  if (!src || !b->c || p2c_specialize(b->c, "bench/launch_kernels.py", src, len, "add3", b->host, 3, &b->m) != P2C_OK)
    die("translate", b->c ? p2c_compiler_last_error(b->c) : "out of memory");
  free(src);
}

/* The raw path: the driver opened and the module loaded from its PTX, by hand. */
static void setup_raw(Bench *b) {
  const char *path = getenv("PYK2CUDA_LIBCUDA");
  void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW);
  if (!lib) die("dlopen", dlerror());
  Raw *r = &b->raw;
  bind(lib, "cuInit", &r->cuInit), bind(lib, "cuDeviceGet", &r->cuDeviceGet);
  bind(lib, "cuDevicePrimaryCtxRetain", &r->cuDevicePrimaryCtxRetain), bind(lib, "cuCtxSetCurrent", &r->cuCtxSetCurrent);
  bind(lib, "cuModuleLoadDataEx", &r->cuModuleLoadDataEx), bind(lib, "cuModuleGetFunction", &r->cuModuleGetFunction);
  bind(lib, "cuMemAlloc_v2", &r->cuMemAlloc), bind(lib, "cuLaunchKernel", &r->cuLaunchKernel);
  bind(lib, "cuCtxSynchronize", &r->cuCtxSynchronize), bind(lib, "p2cStandinAttachSource", &r->p2cStandinAttachSource);
  if (p2c_module_compile(b->c, b->m, "sm_80", P2C_TARGET_PTX) != P2C_OK) die("PTX", p2c_compiler_last_error(b->c));
  size_t size, cuda_len;
  const void *ptx = p2c_module_image(b->m, &size);
  const char *cuda = p2c_module_cuda(b->m, &cuda_len);
  void *ctx, *mod;
  int dev;
  if (r->cuInit(0) || r->cuDeviceGet(&dev, 0) || r->cuDevicePrimaryCtxRetain(&ctx, dev) || r->cuCtxSetCurrent(ctx) ||
      r->cuModuleLoadDataEx(&mod, ptx, 0, NULL, NULL))
    die("raw", "the driver did not load the PTX");
  if (r->p2cStandinAttachSource) r->p2cStandinAttachSource(mod, cuda, cuda_len);
  if (r->cuModuleGetFunction(&r->fn, mod, p2c_module_kernel(b->m, 0).symbol)) die("raw", "cuModuleGetFunction");
  for (int j = 0; j < 3; j++) {
    unsigned long long p;
    if (r->cuMemAlloc(&p, N * sizeof(float))) die("raw", "cuMemAlloc");
    r->slots[j][0] = p, r->slots[j][1] = N, r->slots[j][2] = sizeof(float);
    r->params[j] = r->slots[j];
  }
}

/* The C API's path: device 0, the module loaded through the API, three device arrays. */
static void setup_p2c_gpu(Bench *b) {
  P2cGpuModule *gm = NULL;
  int64_t shape[1] = {N};
  if (p2c_device_open(b->c, 0, &b->d) != P2C_OK) die("p2c_device_open", p2c_compiler_last_error(b->c));
  for (int j = 0; j < 3; j++) p2c_device_array_new(b->d, P2C_FLOAT32, 1, shape, &b->arr[j]);
  if (p2c_gpu_module_from_python(b->d, b->m, false, &gm) != P2C_OK ||
      p2c_gpu_module_kernel(gm, p2c_module_kernel(b->m, 0).symbol, &b->k) != P2C_OK)
    die("p2c", p2c_device_last_error(b->d));
}

static void setup_bundle(Bench *b) {
  int64_t n = N;
  for (int j = 0; j < 3; j++) {
    void *p;
    if (bl_malloc(&p, N * sizeof(float)) != bl_OK) die("bundle", bl_last_error());
    b->bundle_arrays[j] = bl_array_c(p, bl_FLOAT32, 1, &n);
  }
}

/* ---- Measuring ---- */

static void synchronize(Bench *b, bool gpu) {
  if (gpu && bl_synchronize(NULL) != bl_OK) die("synchronize", bl_last_error());
  (void)b;
}

/* The median over BATCHES of the time per launch, in microseconds. */
static double time_path(Bench *b, LaunchFn f, bool gpu) {
  double t[BATCHES];
  if (f(b) != 0) die("first launch", bl_last_error());
  synchronize(b, gpu);
  for (int k = 0; k < BATCHES; k++) {
    double t0 = bench_now_ms();
    for (int i = 0; i < PER_BATCH; i++) f(b);
    t[k] = (bench_now_ms() - t0) * 1e3 / PER_BATCH;
    synchronize(b, gpu);
  }
  return bench_median(t, BATCHES);
}

/* COUNT launches inside callgrind's instrumentation (after one outside it). */
static void count_path(Bench *b, LaunchFn f, bool gpu, long count) {
  if (f(b) != 0) die("first launch", bl_last_error());
  synchronize(b, gpu);
  CALLGRIND_START_INSTRUMENTATION;
  for (long i = 0; i < count; i++) f(b);
  CALLGRIND_STOP_INSTRUMENTATION;
  synchronize(b, gpu);
}

int main(int argc, char **argv) {
  bool gpu = argc > 1 && !strcmp(argv[1], "gpu");
  const char *only = argc > 3 ? argv[2] : NULL;
  Bench b;
  memset(&b, 0, sizeof b);
  translate(&b);
  setup_bundle(&b);
  if (strcmp(bl_backend(), gpu ? "gpu" : "sim")) die("bundle", "not on the backend asked for (PYK2CUDA_DEVICE?)");
  Path paths[3] = {{"bundle", launch_bundle}, {"p2c", gpu ? launch_p2c_gpu : launch_p2c_sim}, {"raw", launch_raw}};
  int n = gpu ? 3 : 2;
  if (gpu) setup_raw(&b), setup_p2c_gpu(&b);
  for (int i = 0; i < n; i++) {
    if (only && strcmp(only, paths[i].name)) continue;
    if (only) count_path(&b, paths[i].f, gpu, atol(argv[3]));
    else printf("%s %s %.3f us per launch (median of %d batches of %d)\n", argv[1], paths[i].name,
                time_path(&b, paths[i].f, gpu), BATCHES, PER_BATCH);
  }
  return 0;
}
