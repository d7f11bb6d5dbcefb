/* streams.c -- normalize ten arrays on ten CUDA streams, with pinned host memory, timed with
 * CUDA events, against the same work on one stream. Uses only the public API (pyk2cuda.h).
 *
 * The kernels are samples/normalize.py's, translated from Python in this process: for each
 * array, on its own stream, the input is copied to the device, partial_sums, total_sum and
 * divide run, and the result is copied back. With pinned memory and several streams, one
 * array's copies overlap another's kernels; on one stream everything runs in sequence.
 *
 *   build:  cc streams.c $(pkg-config --cflags --libs pyk2cuda) -o streams
 *           (meson builds it as build/tools/streams)
 *   run:    streams [samples/normalize.py] [ELEMENTS_PER_ARRAY]
 *
 * Prints both times and checks every result against a computation on the CPU. Exit status:
 * 0 success, 1 wrong results, 3 a runtime error, 77 no CUDA device (nothing to do here). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyk2cuda.h"

enum { ARRAYS = 10, TPB = 256, BLOCKS = 264, DEFAULT_N = 1 << 22 };

static const char *const signatures[] = {
    "partial_sums(float32[::1], float32[::1])",
    "total_sum(float32[::1], float32[::1])",
    "divide(float32[::1], float32[::1])",
};

/* What each stream works on: pinned input and output, device arrays, and their kernel-argument
 * forms (p2c_array<float, 1>: address, extent, stride). */
typedef struct Job {
  float *in, *out;
  P2cDeviceArray x, partials, total;
  unsigned char x_arg[24], partials_arg[24], total_arg[24];
  P2cStream *stream;
} Job;

typedef struct App {
  P2cCompiler *c;
  P2cDevice *d;
  P2cModule *py;
  P2cGpuModule *gm;
  P2cGpuKernel *partial_sums, *total_sum, *divide;
  Job jobs[ARRAYS];
  int64_t n;
} App;

static int fail(App *a, const char *what) {
  fprintf(stderr, "streams: %s: %s\n", what,
          a->d ? p2c_device_last_error(a->d) : p2c_compiler_last_error(a->c));
  return 3;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  char *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
  *len = buf ? fread(buf, 1, (size_t)size, f) : 0;
  fclose(f);
  return buf;
}

/* Translates normalize.py for float32 arrays, compiles it for the device, finds the kernels. */
static int load_kernels(App *a, const char *path) {
  size_t len;
  char *src = read_file(path, &len);
  if (!src) return fprintf(stderr, "streams: cannot read %s\n", path), 3;
  P2cTranslateOptions o = {.signatures = signatures, .signature_count = 3};
  P2cStatus s = p2c_translate(a->c, path, src, len, &o, &a->py);
  free(src);
  if (s != P2C_OK) return fail(a, "translating normalize.py");
  if (p2c_gpu_module_from_python(a->d, a->py, false, &a->gm) != P2C_OK)
    return fail(a, "compiling normalize.py");
  P2cGpuKernel **slots[] = {&a->partial_sums, &a->total_sum, &a->divide};
  for (size_t i = 0; i < p2c_module_kernel_count(a->py) && i < 3; i++) {
    P2cKernelInfo k = p2c_module_kernel(a->py, i);
    if (p2c_gpu_module_kernel(a->gm, k.symbol, slots[i]) != P2C_OK) return fail(a, k.symbol);
  }
  return 0;
}

static int make_job(App *a, Job *j, unsigned seed) {
  size_t bytes = (size_t)a->n * sizeof(float);
  int64_t n = a->n, blocks = BLOCKS, one = 1;
  if (p2c_pinned_new(a->d, bytes, (void **)&j->in) != P2C_OK ||
      p2c_pinned_new(a->d, bytes, (void **)&j->out) != P2C_OK ||
      p2c_device_array_new(a->d, P2C_FLOAT32, 1, &n, &j->x) != P2C_OK ||
      p2c_device_array_new(a->d, P2C_FLOAT32, 1, &blocks, &j->partials) != P2C_OK ||
      p2c_device_array_new(a->d, P2C_FLOAT32, 1, &one, &j->total) != P2C_OK ||
      p2c_stream_new(a->d, &j->stream) != P2C_OK)
    return fail(a, "allocating");
  for (int64_t k = 0; k < n; k++) {
    seed = seed * 1664525u + 1013904223u;
    j->in[k] = (float)(seed >> 8) / (float)(1u << 24); /* uniform in [0, 1) */
  }
  p2c_device_array_pack(&j->x, j->x_arg);
  p2c_device_array_pack(&j->partials, j->partials_arg);
  p2c_device_array_pack(&j->total, j->total_arg);
  return 0;
}

static void free_job(App *a, Job *j) {
  p2c_stream_delete(j->stream);
  p2c_device_array_free(&j->x);
  p2c_device_array_free(&j->partials);
  p2c_device_array_free(&j->total);
  p2c_pinned_delete(a->d, j->in);
  p2c_pinned_delete(a->d, j->out);
}

/* Queues one array's whole normalization on `stream`. */
static int enqueue(App *a, Job *j, P2cStream *stream) {
  size_t bytes = (size_t)a->n * sizeof(float);
  void *sums[] = {j->x_arg, j->partials_arg};
  void *total[] = {j->partials_arg, j->total_arg};
  void *divide[] = {j->x_arg, j->total_arg};
  P2cGpuLaunch wide = {.grid = {BLOCKS}, .block = {TPB}, .stream = stream};
  P2cGpuLaunch single = {.grid = {1}, .block = {1}, .stream = stream};
  if (p2c_buffer_write(j->x.buffer, 0, j->in, bytes, stream) != P2C_OK ||
      p2c_gpu_kernel_launch(a->partial_sums, &wide, sums) != P2C_OK ||
      p2c_gpu_kernel_launch(a->total_sum, &single, total) != P2C_OK ||
      p2c_gpu_kernel_launch(a->divide, &wide, divide) != P2C_OK ||
      p2c_buffer_read(j->x.buffer, 0, j->out, bytes, stream) != P2C_OK)
    return fail(a, "queueing the work");
  return 0;
}

/* Runs every job, each on its own stream or all on the first one; *ms from events recorded on
 * the default stream, which waits for the other streams' earlier work. */
static int run_all(App *a, bool many, float *ms) {
  P2cEvent *start = NULL, *stop = NULL;
  int rc = p2c_event_new(a->d, &start) || p2c_event_new(a->d, &stop) ? fail(a, "events") : 0;
  if (!rc && p2c_event_record(start, NULL) != P2C_OK) rc = fail(a, "recording");
  for (int i = 0; !rc && i < ARRAYS; i++)
    rc = enqueue(a, &a->jobs[i], many ? a->jobs[i].stream : a->jobs[0].stream);
  if (!rc && p2c_event_record(stop, NULL) != P2C_OK) rc = fail(a, "recording");
  if (!rc && p2c_event_elapsed_ms(start, stop, ms) != P2C_OK) rc = fail(a, "running the work");
  p2c_event_delete(start);
  p2c_event_delete(stop);
  return rc;
}

/* Each output must be its input divided by the input's sum. */
static int check(const App *a) {
  for (int i = 0; i < ARRAYS; i++) {
    const Job *j = &a->jobs[i];
    double sum = 0, out_sum = 0;
    for (int64_t k = 0; k < a->n; k++) sum += j->in[k], out_sum += j->out[k];
    for (int64_t k = 0; k < a->n; k++) {
      double want = j->in[k] / sum;
      if (fabs(j->out[k] - want) > 1e-4 * want + 1e-12) {
        fprintf(stderr, "streams: array %d, element %lld: %.9g, expected %.9g\n", i,
                (long long)k, j->out[k], want);
        return 1;
      }
    }
    if (fabs(out_sum - 1.0) > 1e-3) {
      fprintf(stderr, "streams: array %d sums to %.9g after normalizing\n", i, out_sum);
      return 1;
    }
  }
  return 0;
}

static int run(App *a, const char *path) {
  int rc = load_kernels(a, path);
  for (int i = 0; !rc && i < ARRAYS; i++) rc = make_job(a, &a->jobs[i], 1234567u + 7919u * (unsigned)i);
  float warm, many, one;
  if (!rc) rc = run_all(a, true, &warm); /* first use: lazy loading, clocks ramping up */
  if (!rc) rc = run_all(a, true, &many);
  if (!rc) rc = check(a);
  for (int i = 0; !rc && i < ARRAYS; i++) memset(a->jobs[i].out, 0, (size_t)a->n * sizeof(float));
  if (!rc) rc = run_all(a, false, &one);
  if (!rc) rc = check(a);
  if (!rc) {
    P2cDeviceInfo info = p2c_device_info(a->d);
    printf("%s: %d arrays of %lld float32, normalized (copy in, 3 kernels, copy out)\n",
           info.name, ARRAYS, (long long)a->n);
    printf("  %2d streams: %8.3f ms\n", ARRAYS, many);
    printf("   1 stream:  %8.3f ms\n", one);
    printf("  speed-up:   %8.2fx\n", one / many);
    printf("streams: ok\n");
  }
  return rc;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/normalize.py";
  App a = {.n = argc > 2 ? atoll(argv[2]) : DEFAULT_N};
  if (a.n <= 0) return fprintf(stderr, "streams: bad element count\n"), 2;
  a.c = p2c_compiler_new(NULL);
  if (!a.c) return 3;
  P2cStatus s = p2c_device_open(a.c, 0, &a.d);
  int rc;
  if (s == P2C_ERR_NO_CUDA) {
    printf("streams: skipped: %s\n", p2c_compiler_last_error(a.c));
    rc = 77;
  } else if (s != P2C_OK) {
    rc = fail(&a, "opening the device");
  } else {
    rc = run(&a, path);
  }
  for (int i = 0; i < ARRAYS && a.d; i++) free_job(&a, &a.jobs[i]);
  p2c_gpu_module_delete(a.gm);
  p2c_device_delete(a.d);
  p2c_module_delete(a.py);
  p2c_compiler_delete(a.c);
  return rc;
}
