/* bench/launch_c.c: the C API's own cost of one launch of bench/launch_kernels.py's add3 (three
 * float32 arrays of 32 elements, grid 1, block 32), the figure the Python package's launch is
 * measured against (bench/python_launch.py). Public API only.
 *
 *   sim  p2c_module_launch on the simulator, of a specialization loaded by a first launch
 *   gpu  p2c_device_array_pack of the three arrays and p2c_gpu_kernel_launch, as the package's
 *        asynchronous path does (only with a CUDA device; the device is synchronized after each
 *        batch)
 * Prints the median over 21 batches of the time per launch, in microseconds.
 * Usage: build/bench/launch_c [sim|gpu] [LAUNCHES_PER_BATCH] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pyk2cuda.h"

enum { BATCHES = 21, N = 32 };

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 16);
  *len = buf ? fread(buf, 1, 1 << 16, f) : 0;
  fclose(f);
  return buf;
}

static P2cValue array_value(float *data) {
  P2cValue v = {.is_array = true, .type = P2C_FLOAT32};
  v.array = (P2cHostArray){.dtype = P2C_FLOAT32, .ndim = 1, .data = data};
  v.array.shape[0] = N;
  v.array.strides[0] = sizeof(float);
  return v;
}

static double median(double *t) {
  qsort(t, BATCHES, sizeof *t, cmp);
  return t[BATCHES / 2];
}

static int bench_sim(P2cCompiler *c, P2cModule *m, P2cValue *args, int per_batch) {
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM, .grid = {1, 1, 1}, .block = {N, 1, 1}};
  if (p2c_module_launch(c, m, 0, args, 3, &o, NULL) != P2C_OK) return 1;
  double t[BATCHES];
  for (int b = 0; b < BATCHES; b++) {
    double t0 = now_us();
    for (int i = 0; i < per_batch; i++) p2c_module_launch(c, m, 0, args, 3, &o, NULL);
    t[b] = (now_us() - t0) / per_batch;
  }
  printf("sim: p2c_module_launch  %.3f us per launch (median of %d batches of %d)\n", median(t),
         BATCHES, per_batch);
  return 0;
}

static int bench_gpu(P2cCompiler *c, P2cModule *m, int per_batch) {
  P2cDevice *d = NULL;
  if (p2c_device_open(c, 0, &d) != P2C_OK) {
    fprintf(stderr, "launch_c: %s\n", p2c_compiler_last_error(c));
    return 77;
  }
  P2cGpuModule *gm = NULL;
  P2cGpuKernel *k = NULL;
  P2cDeviceArray arr[3];
  int64_t shape[1] = {N};
  int rc = 1;
  for (int i = 0; i < 3; i++) p2c_device_array_new(d, P2C_FLOAT32, 1, shape, &arr[i]);
  if (p2c_gpu_module_from_python(d, m, false, &gm) != P2C_OK ||
      p2c_gpu_module_kernel(gm, p2c_module_kernel(m, 0).symbol, &k) != P2C_OK) {
    fprintf(stderr, "launch_c: %s\n", p2c_device_last_error(d));
    goto done;
  }
  unsigned char slots[3][8 + 16 * P2C_MAX_NDIM];
  void *params[3] = {slots[0], slots[1], slots[2]};
  P2cGpuLaunch cfg = {{1, 1, 1}, {N, 1, 1}, 0, NULL, false};
  double t[BATCHES];
  for (int b = 0; b < BATCHES; b++) {
    double t0 = now_us();
    for (int i = 0; i < per_batch; i++) {
      for (int j = 0; j < 3; j++) p2c_device_array_pack(&arr[j], slots[j]);
      p2c_gpu_kernel_launch(k, &cfg, params);
    }
    t[b] = (now_us() - t0) / per_batch;
    p2c_device_synchronize(d);
  }
  printf("gpu: pack + p2c_gpu_kernel_launch  %.3f us per launch (median of %d batches of %d)\n",
         median(t), BATCHES, per_batch);
  rc = 0;
done:
  for (int i = 0; i < 3; i++) p2c_device_array_free(&arr[i]);
  p2c_gpu_module_delete(gm);
  p2c_device_delete(d);
  return rc;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "sim";
  int per_batch = argc > 2 ? atoi(argv[2]) : 2000;
  size_t len;
  char *src = read_file(P2C_SOURCE_ROOT "/bench/launch_kernels.py", &len);
  P2cCompiler *c = p2c_compiler_new(NULL);
  static float a[N], b[N], out[N];
  P2cValue args[3] = {array_value(a), array_value(b), array_value(out)};
  P2cModule *m = NULL;
  if (!src || !c || p2c_specialize(c, "bench/launch_kernels.py", src, len, "add3", args, 3, &m) != P2C_OK) {
    fprintf(stderr, "launch_c: %s\n", c ? p2c_compiler_last_error(c) : "out of memory");
    return 1;
  }
  int rc = strcmp(mode, "gpu") == 0 ? bench_gpu(c, m, per_batch) : bench_sim(c, m, args, per_batch);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(src);
  return rc;
}
