/* The GPU runtime on a real device (the gpu suite): what the fake driver of the unit tests
 * cannot show. Device facts, memory and streams, hand-written CUDA C through NVRTC and the cache,
 * the JIT's log for bad PTX, launch limits and opted-in shared memory, the dispatcher with
 * every array layout, shared memory between aliased arguments, device arrays, --check-bounds's
 * record, and a faulting kernel's message. Results are compared with the same computation on the CPU.
 *
 * Exits 77 (skipped) when there is no CUDA driver or device. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pyk2cuda.h"

static P2cCompiler *compiler;
static P2cDevice *device;
static char kernels_src[1 << 16];
static size_t kernels_len;

static void assert_contains(const char *text, const char *part) {
  if (!text) fail_msg("expected \"%s\", got no text", part);
  else if (!strstr(text, part)) fail_msg("expected \"%s\" in:\n%s", part, text);
}

#define OK(call)                                                                             \
  do {                                                                                       \
    P2cStatus ok_status_ = (call);                                                           \
    if (ok_status_ != P2C_OK)                                                                \
      fail_msg("%s: %s: %s", #call, p2c_status_string(ok_status_),                           \
               device ? p2c_device_last_error(device) : p2c_compiler_last_error(compiler)); \
  } while (0)

static void device_facts(void **state) {
  (void)state;
  P2cDeviceInfo info = p2c_device_info(device);
  print_message("device %d: %s, %s, %d SMs, %.1f GiB\n", info.ordinal, info.name, info.arch,
                info.multiprocessors, (double)info.total_memory / (1 << 30));
  assert_true(info.name[0] != '\0');
  assert_true(info.compute_major * 10 + info.compute_minor >= 75);
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d%d", info.compute_major, info.compute_minor);
  assert_string_equal(info.arch, arch);
  assert_true(info.total_memory > ((uint64_t)1 << 30));
  assert_int_equal(info.max_threads_per_block, 1024);
  assert_int_equal(info.warp_size, 32);
  assert_true(info.max_shared_optin >= info.max_shared_per_block);
}

static void memory_streams_events(void **state) {
  (void)state;
  enum { N = 16 << 20 }; /* 64 MiB of int32 */
  int32_t *host = NULL, *back = malloc(N * sizeof *back);
  P2cBuffer *a = NULL, *b = NULL;
  P2cStream *s = NULL;
  P2cEvent *e0 = NULL, *e1 = NULL;
  OK(p2c_pinned_new(device, N * sizeof *host, (void **)&host));
  for (int i = 0; i < N; i++) host[i] = i ^ 0x5a5a;
  OK(p2c_buffer_new(device, N * sizeof *host, &a));
  OK(p2c_buffer_new(device, N * sizeof *host, &b));
  OK(p2c_stream_new(device, &s));
  OK(p2c_event_new(device, &e0));
  OK(p2c_event_new(device, &e1));
  OK(p2c_event_record(e0, s));
  OK(p2c_buffer_write(a, 0, host, N * sizeof *host, s));
  OK(p2c_buffer_copy(b, 0, a, 0, N * sizeof *host, s));
  OK(p2c_event_record(e1, s));
  OK(p2c_stream_synchronize(s));
  OK(p2c_buffer_read(b, 0, back, N * sizeof *back, NULL));
  assert_memory_equal(host, back, N * sizeof *back);
  float ms = 0;
  OK(p2c_event_elapsed_ms(e0, e1, &ms));
  print_message("64 MiB pinned H2D + D2D: %.3f ms\n", ms);
  assert_true(ms > 0);
  OK(p2c_buffer_zero(b, NULL));
  OK(p2c_buffer_read(b, N * sizeof *back - 8, back, 8, NULL));
  assert_int_equal(back[0] | back[1], 0);
  p2c_event_delete(e0);
  p2c_event_delete(e1);
  p2c_stream_delete(s);
  p2c_buffer_delete(a);
  p2c_buffer_delete(b);
  p2c_pinned_delete(device, host);
  free(back);
}

static const char SOURCE[] =
    "extern \"C\" __global__ void saxpy(float *y, const float *x, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" __global__ void big_shared(float *out) {\n"
    "  extern __shared__ float s[];\n"
    "  s[threadIdx.x * 64] = threadIdx.x;\n"
    "  __syncthreads();\n"
    "  out[threadIdx.x] = s[(blockDim.x - 1 - threadIdx.x) * 64];\n"
    "}\n"
    "extern \"C\" __global__ void crash(int *p) { *(volatile int *)(p + ((size_t)1 << 40)) = 1; }\n";

static void source_module(void **state) {
  (void)state;
  enum { N = 1 << 20 };
  P2cGpuModule *m = NULL;
  P2cGpuKernel *k = NULL;
  OK(p2c_gpu_module_from_source(device, SOURCE, NULL, &m));
  OK(p2c_gpu_module_kernel(m, "saxpy", &k));
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (int i = 0; i < N; i++) x[i] = (float)i / N, y[i] = 1.0f - (float)i / N;
  P2cBuffer *bx = NULL, *by = NULL;
  OK(p2c_buffer_new(device, N * sizeof *x, &bx));
  OK(p2c_buffer_new(device, N * sizeof *y, &by));
  OK(p2c_buffer_write(bx, 0, x, N * sizeof *x, NULL));
  OK(p2c_buffer_write(by, 0, y, N * sizeof *y, NULL));
  uint64_t px = p2c_buffer_address(bx), py = p2c_buffer_address(by);
  float a = 3.0f;
  int n = N;
  void *args[] = {&py, &px, &a, &n};
  P2cGpuLaunch cfg = {.grid = {N / 256}, .block = {256}};
  OK(p2c_gpu_kernel_launch(k, &cfg, args));
  float *got = malloc(N * sizeof *got);
  OK(p2c_buffer_read(by, 0, got, N * sizeof *got, NULL));
  for (int i = 0; i < N; i++)
    if (fabsf(got[i] - (3.0f * x[i] + y[i])) > 1e-6f) fail_msg("saxpy[%d] = %g", i, got[i]);
  p2c_gpu_module_delete(m);
  OK(p2c_gpu_module_from_source(device, SOURCE, NULL, &m));
  assert_true(p2c_gpu_module_cache_hit(m));

  /* 64 KiB of dynamic shared memory: more than the default 48 KiB, allowed on demand. */
  OK(p2c_gpu_module_kernel(m, "big_shared", &k));
  void *args2[] = {&py};
  P2cGpuLaunch wide = {.grid = {1}, .block = {256}, .shared_bytes = 256 * 64 * 4};
  OK(p2c_gpu_kernel_launch(k, &wide, args2));
  OK(p2c_buffer_read(by, 0, got, 256 * sizeof *got, NULL));
  for (int i = 0; i < 256; i++) assert_true(got[i] == (float)(255 - i));
  P2cGpuLaunch over = {.grid = {1}, .block = {2048}};
  assert_int_equal(p2c_gpu_kernel_launch(k, &over, args2), P2C_ERR_USAGE);
  assert_contains(p2c_device_last_error(device), "block (2048,1,1) exceeds the limits of");
  p2c_gpu_module_delete(m);
  p2c_buffer_delete(bx);
  p2c_buffer_delete(by);
  free(x);
  free(y);
  free(got);
}

static void jit_log(void **state) {
  (void)state;
  P2cDeviceInfo info = p2c_device_info(device);
  /* The driver stand-in reads a PTX module's entries but assembles nothing, so it has no ptxas
   * to refuse an instruction (docs/runtime.md, what the stand-in does not model). */
  if (strstr(info.name, "CUDA stand-in")) {
    print_message("skipped on the driver stand-in: it has no PTX assembler\n");
    skip();
  }
  char ptx[512];
  snprintf(ptx, sizeof ptx,
           ".version 8.0\n.target %s\n.address_size 64\n.visible .entry bad()\n{\n"
           "  not_an_instruction %%r1;\n  ret;\n}\n",
           info.arch);
  P2cGpuModule *m = NULL;
  assert_int_equal(p2c_gpu_module_load(device, ptx, strlen(ptx), &m), P2C_ERR_CUDA);
  const char *msg = p2c_device_last_error(device);
  print_message("%s\n", msg);
  assert_contains(msg, "cuModuleLoadDataEx(");
  assert_contains(msg, "CUDA_ERROR_INVALID_PTX");
  assert_contains(msg, "JIT log:");
  assert_contains(msg, "ptxas");
}

static P2cValue host_value(P2cHostArray a) {
  P2cValue v = {.is_array = true, .type = a.dtype, .array = a};
  return v;
}

static double f64_at(const P2cHostArray *a, int64_t i, int64_t j) {
  return *(const double *)((const char *)a->data + i * a->strides[0] + j * a->strides[1]);
}

static void dispatcher_layouts(void **state) {
  (void)state;
  enum { R = 300, C = 200 };
  double *storage = malloc(4 * R * C * sizeof *storage), *out_storage = malloc(R * C * sizeof *out_storage);
  for (int i = 0; i < 4 * R * C; i++) storage[i] = i * 0.25 - 1000;
  const struct {
    const char *what;
    P2cHostArray x;
  } cases[] = {
      {"C", {P2C_FLOAT64, 2, {R, C}, {C * 8, 8}, storage, NULL}},
      {"F", {P2C_FLOAT64, 2, {R, C}, {8, R * 8}, storage, NULL}},
      {"strided", {P2C_FLOAT64, 2, {R, C}, {4 * C * 8, 16}, storage, NULL}},
      {"reversed", {P2C_FLOAT64, 2, {R, C}, {-C * 8, 8}, storage + (R - 1) * C, NULL}},
  };
  for (size_t t = 0; t < 4; t++) {
    memset(out_storage, 0, R * C * sizeof *out_storage);
    P2cHostArray out = {P2C_FLOAT64, 2, {R, C}, {C * 8, 8}, out_storage, NULL};
    P2cValue args[3] = {host_value(out), host_value(cases[t].x),
                        {.type = P2C_FLOAT64, .scalar.f = -2.0}};
    P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {19, 13, 1}, .block = {16, 16, 1},
                          .gpu = device};
    OK(p2c_launch(compiler, "kernels.py", kernels_src, kernels_len, "scale2d", args, 3, &o, NULL,
                  NULL));
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++)
        if (f64_at(&out, i, j) != -2.0 * f64_at(&cases[t].x, i, j))
          fail_msg("%s: out[%d, %d] = %g", cases[t].what, i, j, f64_at(&out, i, j));
  }
  free(storage);
  free(out_storage);
}

static void dispatcher_aliasing_and_device_arrays(void **state) {
  (void)state;
  enum { N = 100000 };
  int64_t *x = malloc(N * sizeof *x);
  for (int i = 0; i < N; i++) x[i] = i;
  P2cHostArray hx = {P2C_INT64, 1, {N}, {8}, x, NULL};
  P2cValue same[2] = {host_value(hx), host_value(hx)};
  P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {(N + 255) / 256, 1, 1},
                        .block = {256, 1, 1}, .gpu = device};
  OK(p2c_launch(compiler, "kernels.py", kernels_src, kernels_len, "accumulate", same, 2, &o, NULL,
                NULL));
  for (int i = 0; i < N; i++)
    if (x[i] != 2 * (int64_t)i) fail_msg("x[%d] = %lld", i, (long long)x[i]);

  P2cDeviceArray dx;
  OK(p2c_device_array_like(device, &hx, &dx));
  OK(p2c_device_array_upload(device, &dx, &hx, NULL));
  P2cValue args[2] = {{.is_array = true, .type = P2C_INT64, .device_array = &dx}, host_value(hx)};
  OK(p2c_launch(compiler, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2, &o, NULL,
                NULL));
  OK(p2c_device_array_download(device, &dx, &hx, NULL));
  for (int i = 0; i < N; i++)
    if (x[i] != 4 * (int64_t)i) fail_msg("x[%d] = %lld after the device-array launch", i, (long long)x[i]);
  p2c_device_array_free(&dx);
  free(x);
}

/* --check-bounds: the generated code's record, claimed by atomicCAS on the device, read back. */
static void check_bounds(void **state) {
  (void)state;
  int32_t x[8];
  for (int i = 0; i < 8; i++) x[i] = -1;
  P2cHostArray hx = {P2C_INT32, 1, {8}, {4}, x, NULL};
  P2cValue args[1] = {host_value(hx)};
  P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {2, 1, 1}, .block = {8, 1, 1},
                        .gpu = device, .repeat = 2};
  p2c_compiler_set_check_bounds(compiler, true);
  assert_int_equal(p2c_launch(compiler, "kernels.py", kernels_src, kernels_len, "oob", args, 1, &o,
                              NULL, NULL),
                   P2C_ERR_BOUNDS);
  const char *msg = p2c_compiler_last_error(compiler);
  print_message("%s\n", msg);
  /* Which of block 1's threads claims the record first is up to the GPU. */
  assert_contains(msg, "kernels.py:48:5: error: index ");
  assert_contains(msg, " is out of bounds for axis 0 with size 8 (array of shape (8,)) in kernel "
                       "'oob', thread (");
  assert_contains(msg, ") of block (1,0,0)");
  for (int i = 0; i < 8; i++) assert_int_equal(x[i], -1); /* nothing copied back */
  o.grid[0] = 1;
  OK(p2c_launch(compiler, "kernels.py", kernels_src, kernels_len, "oob", args, 1, &o, NULL, NULL));
  for (int i = 0; i < 8; i++) assert_int_equal(x[i], i);
  p2c_compiler_set_check_bounds(compiler, false);
}

/* Last: a fault leaves the context unusable until it is released. */
static void kernel_fault(void **state) {
  (void)state;
  P2cGpuModule *m = NULL;
  P2cGpuKernel *k = NULL;
  P2cBuffer *b = NULL;
  OK(p2c_gpu_module_from_source(device, SOURCE, NULL, &m));
  OK(p2c_gpu_module_kernel(m, "crash", &k));
  OK(p2c_buffer_new(device, 64, &b));
  uint64_t p = p2c_buffer_address(b);
  void *args[] = {&p};
  P2cGpuLaunch cfg = {.grid = {1}, .block = {1}};
  OK(p2c_gpu_kernel_launch(k, &cfg, args));
  assert_int_equal(p2c_device_synchronize(device), P2C_ERR_CUDA);
  print_message("%s\n", p2c_device_last_error(device));
  assert_contains(p2c_device_last_error(device), "CUDA_ERROR_ILLEGAL_ADDRESS");
  p2c_buffer_delete(b);
  p2c_gpu_module_delete(m);
}

int main(void) {
  compiler = p2c_compiler_new(NULL);
  P2cStatus s = p2c_device_open(compiler, 0, &device);
  if (s == P2C_ERR_NO_CUDA) {
    printf("skipped: %s\n", p2c_compiler_last_error(compiler));
    p2c_compiler_delete(compiler);
    return 77;
  }
  if (s != P2C_OK) {
    fprintf(stderr, "cannot open device 0: %s\n", p2c_compiler_last_error(compiler));
    return 1;
  }
  /* $P2C_SOURCE_DIR: the checkout, where the binary runs away from the one it was built in
   * (scripts/gpu_session.sh carries it to a GPU machine). */
  const char *root = getenv("P2C_SOURCE_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/fakecuda/kernels.py", root && *root ? root : P2C_SOURCE_DIR);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s (set P2C_SOURCE_DIR to the checkout)\n", path);
    return 1;
  }
  kernels_len = fread(kernels_src, 1, sizeof kernels_src - 1, f);
  fclose(f);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(device_facts),
      cmocka_unit_test(memory_streams_events),
      cmocka_unit_test(source_module),
      cmocka_unit_test(jit_log),
      cmocka_unit_test(dispatcher_layouts),
      cmocka_unit_test(dispatcher_aliasing_and_device_arrays),
      cmocka_unit_test(check_bounds),
      cmocka_unit_test(kernel_fault),
  };
  int failed = cmocka_run_group_tests_name("gpu: device 0", tests, NULL, NULL);
  p2c_device_delete(device);
  p2c_compiler_delete(compiler);
  return failed;
}
