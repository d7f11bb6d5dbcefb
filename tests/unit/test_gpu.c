/* Unit tests of the GPU runtime (src/runtime/cuda/gpu.c, src/api/gpu*.c, src/api/launch_gpu.c)
 * on the fake driver, tests/fakecuda/fakecuda.c: libcuda's entry points over host memory, which
 * runs C versions of a few kernels, checks that copies stay inside allocations and that the
 * context is current, tells time on a fake clock, and fails any call on request. Through it these
 * tests drive the real code paths of the public API: device selection, memory, streams, events,
 * module loading with the JIT log, NVRTC through the compile cache, launch-limit checks, argument
 * packing for every layout, the dispatcher's copies in and out, and the messages of failed
 * CUresults, with a leak check of every driver object after each test.
 *
 * The first group runs before any driver is loaded (the process's table is loaded once, and a
 * failed load is retried): it checks what happens with no driver at all. */
#include <dirent.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/gpu_api.h"
#include "runtime/cache/cache.h"

/* ---- The fake driver's controls ------------------------------------------------------------- */

typedef struct FakeStats { /* as in fakecuda.c */
  int device_allocs, pinned_allocs, modules, streams, events, functions, retained_contexts;
  int launches;
  unsigned grid[3], block[3], shared_bytes;
  void *stream;
  int param_count;
  unsigned char params[16][128];
  size_t param_sizes[16];
  int set_attribute_calls, last_dynamic_shared;
  char last_function[128];
  int registered_ranges;
  int cooperative_launches;
} FakeStats;

static void (*fake_control)(const char *cmd, int a, int b);
static void (*fake_fail)(const char *name, int nth, int code);
static const FakeStats *(*fake_stats)(void);

static char cache_dir[512];
static char *kernels_src;
static size_t kernels_len;

static void *symbol(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) fail_msg("libfakecuda lacks %s", name);
  return p;
}

static void load_fake_controls(void) {
  void *h = dlopen(P2C_FAKECUDA, RTLD_NOW | RTLD_LOCAL);
  if (!h) fail_msg("cannot load %s: %s", P2C_FAKECUDA, dlerror());
  void *p = symbol(h, "fakecuda_control");
  memcpy(&fake_control, &p, sizeof p);
  p = symbol(h, "fakecuda_fail");
  memcpy(&fake_fail, &p, sizeof p);
  p = symbol(h, "fakecuda_stats");
  memcpy(&fake_stats, &p, sizeof p);
}

/* Every driver object made during a test is gone after it. */
static void assert_no_leaks(void) {
  const FakeStats *s = fake_stats();
  assert_int_equal(s->device_allocs, 0);
  assert_int_equal(s->pinned_allocs, 0);
  assert_int_equal(s->modules, 0);
  assert_int_equal(s->streams, 0);
  assert_int_equal(s->events, 0);
  assert_int_equal(s->functions, 0);
  assert_int_equal(s->retained_contexts, 0);
  assert_int_equal(s->registered_ranges, 0);
}

static void assert_contains(const char *text, const char *part) {
  if (!text) fail_msg("expected \"%s\", got no text", part);
  else if (!strstr(text, part)) fail_msg("expected \"%s\" in:\n%s", part, text);
}

/* One compiler and one device per test. */
typedef struct Fixture {
  P2cCompiler *c;
  P2cDevice *d;
} Fixture;

static int setup(void **state) {
  static Fixture f;
  fake_control("reset", 0, 0);
  f.c = p2c_compiler_new(NULL);
  assert_non_null(f.c);
  assert_int_equal(p2c_device_open(f.c, 0, &f.d), P2C_OK);
  *state = &f;
  return 0;
}

static int teardown(void **state) {
  Fixture *f = *state;
  p2c_device_delete(f->d);
  p2c_compiler_delete(f->c);
  fake_control("clear-fault", 0, 0);
  assert_no_leaks();
  return 0;
}

/* ---- No driver at all (runs first) ---------------------------------------------------------- */

static P2cValue host_value(P2cHostArray a) {
  P2cValue v = {.is_array = true, .type = a.dtype, .array = a};
  return v;
}

static void no_driver(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cDevice *d = (P2cDevice *)1;
  int count = -1;
  setenv("PYK2CUDA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  assert_int_equal(p2c_device_count(c, &count), P2C_ERR_NO_CUDA);
  assert_int_equal(count, 0);
  assert_int_equal(p2c_device_open(c, 0, &d), P2C_ERR_NO_CUDA);
  assert_null(d);
  assert_contains(p2c_compiler_last_error(c), "no CUDA driver found");

  /* The dispatcher: GPU fails plainly, AUTO falls back to the simulator and says why. */
  int64_t shape[1] = {8};
  P2cHostArray x, y;
  assert_int_equal(p2c_host_array_new(c, P2C_INT64, 1, shape, &x), P2C_OK);
  assert_int_equal(p2c_host_array_new(c, P2C_INT64, 1, shape, &y), P2C_OK);
  for (int i = 0; i < 8; i++) ((int64_t *)x.data)[i] = ((int64_t *)y.data)[i] = i;
  P2cValue args[2] = {host_value(x), host_value(y)};
  P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {1, 1, 1}, .block = {8, 1, 1}};
  P2cLaunchReport r;
  assert_int_equal(p2c_launch(c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2, &o,
                              &r, NULL),
                   P2C_ERR_NO_CUDA);
  assert_contains(p2c_compiler_last_error(c), "no CUDA driver found");
  o.device = P2C_DEVICE_AUTO;
  assert_int_equal(p2c_launch(c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2, &o,
                              &r, NULL),
                   P2C_OK);
  assert_int_equal(r.device, P2C_DEVICE_SIM);
  assert_contains(r.message, "no CUDA driver found");
  assert_contains(r.message, "running on the simulator");
  assert_int_equal(((int64_t *)x.data)[7], 14);
  p2c_host_array_free(c, &x);
  p2c_host_array_free(c, &y);
  p2c_compiler_delete(c);
}

/* ---- Devices -------------------------------------------------------------------------------- */

static void device_info_and_close(void **state) {
  Fixture *f = *state;
  P2cDeviceInfo info = p2c_device_info(f->d);
  assert_string_equal(info.name, "Fake GPU 0");
  assert_string_equal(info.arch, "sm_90");
  assert_int_equal(info.compute_major, 9);
  assert_int_equal(info.multiprocessors, 132);
  assert_int_equal(info.max_threads_per_block, 1024);
  assert_int_equal(info.max_block[2], 64);
  assert_int_equal(info.max_grid[1], 65535);
  assert_int_equal(info.max_shared_optin, 232448);
  assert_int_equal(fake_stats()->retained_contexts, 1);
  int count = 0;
  assert_int_equal(p2c_device_count(f->c, &count), P2C_OK);
  assert_int_equal(count, 1);
  assert_int_equal(p2c_device_synchronize(f->d), P2C_OK);
}

static void device_errors(void **state) {
  Fixture *f = *state;
  P2cDevice *d = NULL;
  assert_int_equal(p2c_device_open(f->c, 3, &d), P2C_ERR_USAGE);
  assert_null(d);
  assert_string_equal(p2c_compiler_last_error(f->c),
                      "no CUDA device 3: this machine has 1 (devices 0 to 0)");
  /* A failing query while opening names the call and leaves nothing retained. */
  fake_fail("cuDeviceGetAttribute", 4, 2);
  assert_int_equal(p2c_device_open(f->c, 0, &d), P2C_ERR_CUDA);
  assert_null(d);
  assert_contains(p2c_compiler_last_error(f->c), "opening CUDA device 0: cuDeviceGetAttribute(");
  assert_contains(p2c_compiler_last_error(f->c), "CUDA_ERROR_OUT_OF_MEMORY");
  assert_int_equal(fake_stats()->retained_contexts, 1); /* only the fixture's */
  fake_fail("cuDevicePrimaryCtxRetain", 1, 201);
  assert_int_equal(p2c_device_open(f->c, 0, &d), P2C_ERR_CUDA);
  assert_contains(p2c_compiler_last_error(f->c), "CUDA_ERROR_INVALID_CONTEXT");
  assert_int_equal(fake_stats()->retained_contexts, 1);
  /* Making the context current for a call is checked too, and names the call. */
  fake_fail("cuCtxSetCurrent", 1, 201);
  assert_int_equal(p2c_device_synchronize(f->d), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d), "cuCtxSetCurrent(");
}

static void no_device(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cDevice *d = NULL;
  int count = -1;
  fake_control("reset", 0, 0);
  fake_control("devices", 0, 0);
  assert_int_equal(p2c_device_count(c, &count), P2C_ERR_NO_CUDA);
  assert_int_equal(count, 0);
  assert_string_equal(p2c_compiler_last_error(c), "no CUDA device found");
  assert_int_equal(p2c_device_open(c, 0, &d), P2C_ERR_NO_CUDA);
  assert_null(d);
  p2c_compiler_delete(c);
  fake_control("reset", 0, 0);
  assert_no_leaks();
}

/* ---- Memory, streams, events ---------------------------------------------------------------- */

static void buffers(void **state) {
  Fixture *f = *state;
  P2cBuffer *a = NULL, *b = NULL;
  int src[64], dst[64];
  for (int i = 0; i < 64; i++) src[i] = i * 3 - 7;
  assert_int_equal(p2c_buffer_new(f->d, sizeof src, &a), P2C_OK);
  assert_int_equal(p2c_buffer_new(f->d, sizeof src, &b), P2C_OK);
  assert_int_equal(p2c_buffer_size(a), sizeof src);
  assert_true(p2c_buffer_address(a) != 0);
  assert_int_equal(p2c_buffer_write(a, 0, src, sizeof src, NULL), P2C_OK);
  assert_int_equal(p2c_buffer_copy(b, 8, a, 0, sizeof src - 8, NULL), P2C_OK);
  memset(dst, 0, sizeof dst);
  assert_int_equal(p2c_buffer_read(b, 8, dst, sizeof src - 8, NULL), P2C_OK);
  assert_memory_equal(dst, src, sizeof src - 8);
  assert_int_equal(p2c_buffer_zero(b, NULL), P2C_OK);
  assert_int_equal(p2c_buffer_read(b, 0, dst, sizeof dst, NULL), P2C_OK);
  assert_int_equal(dst[0] | dst[63], 0);

  /* Ranges outside the buffer never reach the driver. */
  assert_int_equal(p2c_buffer_write(a, 8, src, sizeof src, NULL), P2C_ERR_USAGE);
  assert_string_equal(p2c_device_last_error(f->d),
                      "copy to the device: bytes [8, 264) are outside the 256-byte buffer");
  assert_int_equal(p2c_buffer_read(a, SIZE_MAX, dst, 2, NULL), P2C_ERR_USAGE);
  assert_int_equal(p2c_buffer_copy(a, 0, b, 200, 100, NULL), P2C_ERR_USAGE);
  P2cBuffer *none = (P2cBuffer *)1;
  assert_int_equal(p2c_buffer_new(f->d, 0, &none), P2C_ERR_USAGE);
  assert_null(none);
  p2c_buffer_delete(a);
  p2c_buffer_delete(b);
  p2c_buffer_delete(NULL);
}

static void failed_calls_name_call_and_error(void **state) {
  Fixture *f = *state;
  P2cBuffer *a = NULL;
  char host[16] = "0123456789abcde";
  fake_fail("cuMemAlloc_v2", 1, 2);
  assert_int_equal(p2c_buffer_new(f->d, 100, &a), P2C_ERR_CUDA);
  assert_null(a);
  const char *msg = p2c_device_last_error(f->d);
  assert_contains(msg, "allocating 100 bytes on CUDA device 0: cuMemAlloc(&b->ptr, bytes) failed: "
                       "CUDA_ERROR_OUT_OF_MEMORY: out of memory (");
  assert_contains(msg, "gpu.c:");
  assert_int_equal(p2c_buffer_new(f->d, 16, &a), P2C_OK);
  fake_fail("cuMemcpyHtoD_v2", 1, 700);
  assert_int_equal(p2c_buffer_write(a, 0, host, 16, NULL), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d), "cuMemcpyHtoD(");
  assert_contains(p2c_device_last_error(f->d), "CUDA_ERROR_ILLEGAL_ADDRESS");
  /* An error code the driver cannot name is still reported, by number. */
  fake_fail("cuMemcpyDtoH_v2", 1, 9999);
  assert_int_equal(p2c_buffer_read(a, 0, host, 16, NULL), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d), "failed: CUresult 9999 (");
  p2c_buffer_delete(a);
}

static void pinned_streams_events(void **state) {
  Fixture *f = *state;
  void *pinned = NULL;
  P2cStream *s = NULL;
  P2cEvent *e0 = NULL, *e1 = NULL;
  P2cBuffer *b = NULL;
  assert_int_equal(p2c_pinned_new(f->d, 4096, &pinned), P2C_OK);
  assert_int_equal(fake_stats()->pinned_allocs, 1);
  assert_int_equal(p2c_stream_new(f->d, &s), P2C_OK);
  assert_int_equal(p2c_event_new(f->d, &e0), P2C_OK);
  assert_int_equal(p2c_event_new(f->d, &e1), P2C_OK);
  assert_int_equal(p2c_buffer_new(f->d, 4096, &b), P2C_OK);
  memset(pinned, 7, 4096);
  assert_int_equal(p2c_event_record(e0, s), P2C_OK);
  assert_int_equal(p2c_buffer_write(b, 0, pinned, 4096, s), P2C_OK);
  memset(pinned, 0, 4096);
  assert_int_equal(p2c_buffer_read(b, 0, pinned, 4096, s), P2C_OK);
  assert_int_equal(p2c_event_record(e1, s), P2C_OK);
  assert_int_equal(p2c_stream_synchronize(s), P2C_OK);
  assert_int_equal(((unsigned char *)pinned)[4095], 7);
  float ms = -1;
  assert_int_equal(p2c_event_elapsed_ms(e0, e1, &ms), P2C_OK);
  /* The fake clock: record e0, two copies of one tick each, record e1 = 3 ticks of 0.25 ms. */
  assert_true(ms == 0.75f);
  /* An event never recorded cannot be timed. */
  P2cEvent *e2 = NULL;
  assert_int_equal(p2c_event_new(f->d, &e2), P2C_OK);
  assert_int_equal(p2c_event_elapsed_ms(e0, e2, &ms), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d), "an event was never recorded");
  assert_contains(p2c_device_last_error(f->d), "CUDA_ERROR_INVALID_HANDLE");
  void *none = (void *)1;
  assert_int_equal(p2c_pinned_new(f->d, 0, &none), P2C_ERR_USAGE);
  assert_null(none);
  p2c_event_delete(e2);
  p2c_buffer_delete(b);
  p2c_event_delete(e0);
  p2c_event_delete(e1);
  p2c_stream_delete(s);
  p2c_pinned_delete(f->d, pinned);
  p2c_pinned_delete(f->d, NULL);
}

/* p2c_pinned_new's memory is released by p2c_pinned_delete (the fixture checks for leaks). */
static void pinned_release(void **state) {
  Fixture *f = *state;
  void *p = NULL;
  assert_int_equal(p2c_pinned_new(f->d, 64, &p), P2C_OK);
  assert_non_null(p);
  p2c_pinned_delete(f->d, p);
  assert_int_equal(fake_stats()->pinned_allocs, 0);
  fake_fail("cuMemHostAlloc", 1, 2);
  assert_int_equal(p2c_pinned_new(f->d, 64, &p), P2C_ERR_CUDA);
  assert_null(p);
  assert_contains(p2c_device_last_error(f->d), "allocating 64 bytes of pinned host memory");
}

/* p2c_pinned_register page-locks memory the caller has until p2c_pinned_unregister; memory that
 * is already page-locked is left alone and reported as not registered by this call. */
static void pinned_register(void **state) {
  Fixture *f = *state;
  static unsigned char host[4096];
  bool registered = false;
  assert_int_equal(p2c_pinned_register(f->d, host, sizeof host, false, &registered), P2C_OK);
  assert_true(registered);
  assert_int_equal(fake_stats()->registered_ranges, 1);
  /* a second registration of part of it: already page-locked, nothing to undo */
  registered = true;
  assert_int_equal(p2c_pinned_register(f->d, host + 100, 10, false, &registered), P2C_OK);
  assert_false(registered);
  assert_int_equal(fake_stats()->registered_ranges, 1);
  assert_int_equal(p2c_pinned_unregister(f->d, host), P2C_OK);
  assert_int_equal(fake_stats()->registered_ranges, 0);

  void *pinned = NULL;
  assert_int_equal(p2c_pinned_new(f->d, 64, &pinned), P2C_OK);
  assert_int_equal(p2c_pinned_register(f->d, pinned, 64, false, &registered), P2C_OK);
  assert_false(registered);
  p2c_pinned_delete(f->d, pinned);

  assert_int_equal(p2c_pinned_register(f->d, host, 0, false, NULL), P2C_ERR_USAGE);
  assert_int_equal(p2c_pinned_unregister(f->d, host), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d), "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED");
  fake_fail("cuMemHostRegister_v2", 1, 2);
  assert_int_equal(p2c_pinned_register(f->d, host, 16, false, &registered), P2C_ERR_CUDA);
  assert_false(registered);
  assert_contains(p2c_device_last_error(f->d), "page-locking 16 bytes of host memory");
}

/* ---- Modules -------------------------------------------------------------------------------- */

static const char PTX_OK[] = "//\n.version 8.0\n.target sm_90\n.address_size 64\n"
                             ".visible .entry saxpy()\n{\nret;\n}\n";

static void module_load_and_jit_log(void **state) {
  Fixture *f = *state;
  P2cGpuModule *m = NULL;
  const char bad_ptx[] = ".version 8.0\n.target sm_90\nFAKE_JIT_ERROR;\n";
  assert_int_equal(p2c_gpu_module_load(f->d, bad_ptx, sizeof bad_ptx, &m), P2C_ERR_CUDA);
  assert_null(m);
  const char *msg = p2c_device_last_error(f->d);
  assert_contains(msg, "loading the module of the image: cuModuleLoadDataEx(");
  assert_contains(msg, "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed");
  assert_contains(msg, "\nJIT log:\nptxas application ptx input, line 7; error   : Unknown symbol "
                       "'FAKE_JIT_ERROR'\nptxas fatal");
  const char junk[] = "\x01\x02not an image";
  assert_int_equal(p2c_gpu_module_load(f->d, junk, sizeof junk, &m), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d), "CUDA_ERROR_INVALID_IMAGE");
  assert_contains(p2c_device_last_error(f->d), "JIT log:\nfake JIT: the image is neither PTX nor CUBIN");

  /* PTX without its NUL (the size excludes it) is copied and terminated before loading: the
   * fake reads it with strlen, which the address sanitizer would catch running past it. */
  char *exact = malloc(sizeof PTX_OK - 1);
  memcpy(exact, PTX_OK, sizeof PTX_OK - 1);
  assert_int_equal(p2c_gpu_module_load(f->d, exact, sizeof PTX_OK - 1, &m), P2C_OK);
  free(exact);
  assert_string_equal(p2c_gpu_module_log(m), "fake JIT: loaded");
  assert_false(p2c_gpu_module_cache_hit(m));
  P2cGpuKernel *k = NULL, *k2 = NULL;
  assert_int_equal(p2c_gpu_module_kernel(m, "saxpy", &k), P2C_OK);
  assert_int_equal(p2c_gpu_module_kernel(m, "saxpy", &k2), P2C_OK);
  assert_ptr_equal(k, k2); /* looked up once, owned by the module */
  assert_int_equal(p2c_gpu_module_kernel(m, "sax", &k), P2C_ERR_USAGE);
  assert_null(k);
  assert_contains(p2c_device_last_error(f->d), "no kernel 'sax' in the image");
  fake_fail("cuModuleGetFunction", 1, 2);
  assert_int_equal(p2c_gpu_module_kernel(m, "other", &k), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d), "looking up kernel 'other' in the image");
  uint64_t addr = 0;
  size_t bytes = 0;
  assert_int_equal(p2c_gpu_module_global(m, "nothing_here", &addr, &bytes), P2C_ERR_USAGE);
  assert_contains(p2c_device_last_error(f->d), "no __device__ variable 'nothing_here'");
  p2c_gpu_module_delete(m);
}

static const char SAXPY[] =
    "extern \"C\" __global__ void saxpy(float *y, const float *x, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

/* Hand-written CUDA C through NVRTC and the cache, launched with device pointers. */
static void source_module(void **state) {
  Fixture *f = *state;
  P2cGpuModule *m = NULL;
  P2cSourceOptions so = {.name = "saxpy.cu"};
  assert_int_equal(p2c_gpu_module_from_source(f->d, SAXPY, &so, &m), P2C_OK);
  assert_false(p2c_gpu_module_cache_hit(m));
  P2cGpuKernel *k = NULL;
  assert_int_equal(p2c_gpu_module_kernel(m, "saxpy", &k), P2C_OK);
  enum { N = 1000 };
  float x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 1.0f;
  P2cBuffer *bx = NULL, *by = NULL;
  assert_int_equal(p2c_buffer_new(f->d, sizeof x, &bx), P2C_OK);
  assert_int_equal(p2c_buffer_new(f->d, sizeof y, &by), P2C_OK);
  assert_int_equal(p2c_buffer_write(bx, 0, x, sizeof x, NULL), P2C_OK);
  assert_int_equal(p2c_buffer_write(by, 0, y, sizeof y, NULL), P2C_OK);
  uint64_t px = p2c_buffer_address(bx), py = p2c_buffer_address(by);
  float a = 2.0f;
  int n = N;
  void *args[] = {&py, &px, &a, &n};
  P2cGpuLaunch cfg = {.grid = {4}, .block = {256}};
  assert_int_equal(p2c_gpu_kernel_launch(k, &cfg, args), P2C_OK);
  assert_int_equal(p2c_buffer_read(by, 0, y, sizeof y, NULL), P2C_OK);
  for (int i = 0; i < N; i++) assert_true(y[i] == 2.0f * (float)i + 1.0f);
  const FakeStats *st = fake_stats();
  assert_int_equal(st->grid[0], 4);
  assert_int_equal(st->grid[1], 1); /* 0 is taken as 1 */
  assert_int_equal(st->block[0], 256);
  assert_int_equal(st->block[2], 1);
  assert_memory_equal(st->params[0], &py, 8);
  assert_memory_equal(st->params[2], &a, 4);
  assert_memory_equal(st->params[3], &n, 4);
  p2c_gpu_module_delete(m);

  /* The same text again: the CUBIN comes from the cache, NVRTC does not run. */
  assert_int_equal(p2c_gpu_module_from_source(f->d, SAXPY, &so, &m), P2C_OK);
  assert_true(p2c_gpu_module_cache_hit(m));
  p2c_gpu_module_delete(m);
  /* Another option is another entry. */
  const char *opts[] = {"-DUNUSED=1"};
  so.nvrtc_options = opts;
  so.nvrtc_option_count = 1;
  assert_int_equal(p2c_gpu_module_from_source(f->d, SAXPY, &so, &m), P2C_OK);
  assert_false(p2c_gpu_module_cache_hit(m));
  p2c_gpu_module_delete(m);

  /* NVRTC's rejection: no module, the log in the message. */
  assert_int_equal(p2c_gpu_module_from_source(f->d, "__global__ void k() { undefined_name; }", NULL, &m),
                   P2C_ERR_NVRTC);
  assert_null(m);
  assert_contains(p2c_device_last_error(f->d), "NVRTC could not compile source.cu for sm_90");
  assert_contains(p2c_device_last_error(f->d), "NVRTC log:\n");
  assert_contains(p2c_device_last_error(f->d), "undefined_name");
  p2c_buffer_delete(bx);
  p2c_buffer_delete(by);
}

/* Finds the one entry of the image cache: its hash. */
static bool only_entry(char hash[17]) {
  char dir[700];
  snprintf(dir, sizeof dir, "%s/nvrtc", cache_dir);
  DIR *d = opendir(dir);
  struct dirent *e;
  int found = 0;
  while (d && (e = readdir(d)))
    if (strlen(e->d_name) == 20 && strcmp(e->d_name + 16, ".key") == 0) {
      snprintf(hash, 17, "%.16s", e->d_name);
      found++;
    }
  if (d) closedir(d);
  return found == 1;
}

/* A cached CUBIN the driver refuses is dropped and compiled again; a corrupt one likewise. */
static void cache_recovers(void **state) {
  Fixture *f = *state;
  char dir[700], hash[17], path[800];
  const char source[] = "extern \"C\" __global__ void saxpy(float *y) { y[0] = 1; }\n";
  /* A cache folder of its own, so that the one entry is easy to find. */
  size_t root_len = strlen(cache_dir);
  snprintf(cache_dir + root_len, sizeof cache_dir - root_len, "/recover");
  snprintf(dir, sizeof dir, "%s/nvrtc", cache_dir);
  setenv("PYK2CUDA_CACHE_DIR", cache_dir, 1);
  P2cGpuModule *m = NULL;
  assert_int_equal(p2c_gpu_module_from_source(f->d, source, NULL, &m), P2C_OK);
  assert_false(p2c_gpu_module_cache_hit(m));
  p2c_gpu_module_delete(m);
  assert_true(only_entry(hash));

  /* The key stays, the image becomes something the driver refuses (a valid blob of junk). */
  char *key = NULL;
  size_t key_len = 0, key_size = 0;
  snprintf(path, sizeof path, "%s/%s.key", dir, hash);
  assert_int_equal(cache_read_file(mem_default(), path, 1 << 20, &key,
                                   &key_len, &key_size),
                   P2C_OK);
  assert_true(cache_store_blob(dir, hash, "bin", "junk", 4, key, key_len));
  assert_int_equal(p2c_gpu_module_from_source(f->d, source, NULL, &m), P2C_OK);
  assert_false(p2c_gpu_module_cache_hit(m));
  p2c_gpu_module_delete(m);
  assert_int_equal(p2c_gpu_module_from_source(f->d, source, NULL, &m), P2C_OK);
  assert_true(p2c_gpu_module_cache_hit(m)); /* repaired */
  p2c_gpu_module_delete(m);

  /* A truncated image file is detected by its header, rebuilt, and then hit again. */
  snprintf(path, sizeof path, "%s/%s.bin", dir, hash);
  assert_int_equal(truncate(path, 40), 0);
  assert_int_equal(p2c_gpu_module_from_source(f->d, source, NULL, &m), P2C_OK);
  assert_false(p2c_gpu_module_cache_hit(m));
  p2c_gpu_module_delete(m);
  assert_int_equal(p2c_gpu_module_from_source(f->d, source, NULL, &m), P2C_OK);
  assert_true(p2c_gpu_module_cache_hit(m));
  p2c_gpu_module_delete(m);
  mem_free(mem_default(), key, key_size);
  cache_dir[root_len] = '\0';
  setenv("PYK2CUDA_CACHE_DIR", cache_dir, 1);
}

/* ---- Launch limits -------------------------------------------------------------------------- */

static void launch_limits(void **state) {
  Fixture *f = *state;
  P2cGpuModule *m = NULL;
  P2cGpuKernel *k = NULL;
  assert_int_equal(p2c_gpu_module_load(f->d, PTX_OK, sizeof PTX_OK, &m), P2C_OK);
  assert_int_equal(p2c_gpu_module_kernel(m, "saxpy", &k), P2C_OK);
  uint64_t p = 0;
  float a = 0;
  int n = 0;
  void *args[] = {&p, &p, &a, &n};
  int launches = fake_stats()->launches;
  const struct {
    P2cGpuLaunch cfg;
    const char *message;
  } bad[] = {
      {{.grid = {1}, .block = {2048}},
       "cannot launch kernel 'saxpy': block (2048,1,1) exceeds the limits of Fake GPU 0: "
       "(1024,1024,64)"},
      {{.grid = {1}, .block = {32, 32, 2}},
       "cannot launch kernel 'saxpy': block (32,32,2) has 2048 threads; Fake GPU 0 allows at most "
       "1024 per block"},
      {{.grid = {1, 70000}, .block = {32}},
       "cannot launch kernel 'saxpy': grid (1,70000,1) exceeds the limits of Fake GPU 0: "
       "(2147483647,65535,65535)"},
      {{.grid = {1}, .block = {32}, .shared_bytes = 300000},
       "cannot launch kernel 'saxpy': kernel 'saxpy' needs 0 bytes of static and 300000 of dynamic "
       "shared memory per block; Fake GPU 0 allows at most 232448"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(p2c_gpu_kernel_launch(k, &bad[i].cfg, args), P2C_ERR_USAGE);
    assert_string_equal(p2c_device_last_error(f->d), bad[i].message);
  }
  assert_int_equal(fake_stats()->launches, launches); /* none reached the driver */

  /* More than 48 KiB of dynamic shared memory: the kernel is allowed it first, once. */
  P2cGpuLaunch big = {.grid = {1}, .block = {32}, .shared_bytes = 100000};
  assert_int_equal(p2c_gpu_kernel_launch(k, &big, args), P2C_OK);
  assert_int_equal(p2c_gpu_kernel_launch(k, &big, args), P2C_OK);
  assert_int_equal(fake_stats()->set_attribute_calls, 1);
  assert_int_equal(fake_stats()->last_dynamic_shared, 100000);
  assert_int_equal(fake_stats()->shared_bytes, 100000);
  p2c_gpu_module_delete(m);

  /* A kernel whose registers allow fewer threads than the device. */
  fake_control("func-max-threads", 256, 0);
  fake_control("func-static-shared", 40000, 0);
  assert_int_equal(p2c_gpu_module_load(f->d, PTX_OK, sizeof PTX_OK, &m), P2C_OK);
  assert_int_equal(p2c_gpu_module_kernel(m, "saxpy", &k), P2C_OK);
  uint32_t most = 0;   /* what get_max_threads_per_block answers: the driver's figure */
  assert_int_equal(p2c_gpu_kernel_max_threads(k, &most), P2C_OK);
  assert_int_equal(most, 256);
  assert_int_equal(p2c_gpu_kernel_max_threads(k, NULL), P2C_ERR_USAGE);
  assert_int_equal(p2c_sim_max_block_threads(), 1024);
  P2cGpuLaunch wide = {.grid = {1}, .block = {512}};
  assert_int_equal(p2c_gpu_kernel_launch(k, &wide, args), P2C_ERR_CUDA);   /* as the driver */
  assert_string_equal(p2c_device_last_error(f->d),
                      "cannot launch kernel 'saxpy': block (512,1,1) has 512 threads; kernel "
                      "'saxpy' can run at most 256 per block on Fake GPU 0 (its launch bounds or "
                      "register use limit it): CUDA_ERROR_INVALID_VALUE");
  P2cGpuLaunch over = {.grid = {1}, .block = {32}, .shared_bytes = 200000};
  assert_int_equal(p2c_gpu_kernel_launch(k, &over, args), P2C_ERR_USAGE);
  assert_contains(p2c_device_last_error(f->d), "needs 40000 bytes of static and 200000 of dynamic");

  /* A launch the driver refuses names the kernel, the call and the error. */
  P2cGpuLaunch ok = {.grid = {1}, .block = {32}};
  fake_fail("cuLaunchKernel", 1, 719);
  assert_int_equal(p2c_gpu_kernel_launch(k, &ok, args), P2C_ERR_CUDA);
  assert_contains(p2c_device_last_error(f->d),
                  "launching kernel 'saxpy' of the image with grid (1,1,1), block (32,1,1): "
                  "cuLaunchKernel(");
  assert_contains(p2c_device_last_error(f->d),
                  "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure (");
  p2c_gpu_module_delete(m);
}

/* ---- The dispatcher on the GPU -------------------------------------------------------------- */

/* A float64 host array of `rows` x `cols` with the given strides in elements, inside `storage`
 * (its first element at `first`). */
static P2cHostArray f64_view(double *storage, ptrdiff_t first, int64_t rows, int64_t cols,
                             int64_t stride_r, int64_t stride_c) {
  P2cHostArray a = {.dtype = P2C_FLOAT64, .ndim = 2, .shape = {rows, cols},
                    .strides = {stride_r * 8, stride_c * 8}, .data = storage + first};
  return a;
}

static double f64_at(const P2cHostArray *a, int64_t i, int64_t j) {
  return *(const double *)((const char *)a->data + i * a->strides[0] + j * a->strides[1]);
}

static P2cLaunchOptions gpu_options(Fixture *f, uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by) {
  P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {gx, gy, 1}, .block = {bx, by, 1},
                        .gpu = f->d};
  return o;
}

/* scale2d(out, x, a) with x in C order, Fortran order, a strided view and a reversed view: the
 * kernel gets each array's own strides, and its device data sits where its strides expect. */
static void dispatcher_layouts(void **state) {
  Fixture *f = *state;
  enum { R = 5, C = 7 };
  static double storage[4 * R * C], out_storage[R * C];
  for (int i = 0; i < 4 * R * C; i++) storage[i] = i * 0.5 - 3;
  const struct {
    const char *what;
    P2cHostArray x;
  } cases[] = {
      {"C order", f64_view(storage, 0, R, C, C, 1)},
      {"Fortran order", f64_view(storage, 0, R, C, 1, R)},
      {"every other row and column", f64_view(storage, 0, R, C, 4 * C, 2)},
      {"rows reversed", f64_view(storage, (R - 1) * C, R, C, -C, 1)},
  };
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
    memset(out_storage, 0, sizeof out_storage);
    P2cHostArray out = f64_view(out_storage, 0, R, C, C, 1);
    P2cValue args[3] = {host_value(out), host_value(cases[t].x),
                        {.type = P2C_FLOAT64, .scalar.f = 1.5}};
    P2cLaunchOptions o = gpu_options(f, 1, 1, 8, 8);
    P2cLaunchReport r;
    P2cStatus s = p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "scale2d", args, 3, &o,
                             &r, NULL);
    if (s != P2C_OK) fail_msg("%s: %s", cases[t].what, p2c_compiler_last_error(f->c));
    assert_int_equal(r.device, P2C_DEVICE_GPU);
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++)
        if (f64_at(&out, i, j) != 1.5 * f64_at(&cases[t].x, i, j))
          fail_msg("%s: out[%d, %d] = %g, expected %g", cases[t].what, i, j, f64_at(&out, i, j),
                   1.5 * f64_at(&cases[t].x, i, j));
    /* The packed p2c_array<double, 2> of x: a device address, then the host's extents and
     * strides; the scalar is 8 bytes of double. */
    const FakeStats *st = fake_stats();
    assert_string_equal(st->last_function, "scale2d");
    assert_int_equal(st->param_count, 3);
    uint64_t data;
    int64_t shape[2], strides[2];
    double a;
    memcpy(&data, st->params[1], 8);
    memcpy(shape, st->params[1] + 8, 16);
    memcpy(strides, st->params[1] + 24, 16);
    memcpy(&a, st->params[2], 8);
    assert_true(data != (uint64_t)(uintptr_t)cases[t].x.data);
    assert_memory_equal(shape, cases[t].x.shape, 16);
    assert_memory_equal(strides, cases[t].x.strides, 16);
    assert_true(a == 1.5);
    assert_int_equal(st->device_allocs, 0); /* everything staged was freed */
  }
}

static P2cHostArray i64_array(P2cCompiler *c, int64_t n) {
  P2cHostArray a;
  int64_t shape[1] = {n};
  assert_int_equal(p2c_host_array_new(c, P2C_INT64, 1, shape, &a), P2C_OK);
  for (int64_t i = 0; i < n; i++) ((int64_t *)a.data)[i] = i;
  return a;
}

/* Arrays that share host memory share one device buffer: writes through one are not undone by
 * the copy back of the other. */
static void dispatcher_aliasing(void **state) {
  Fixture *f = *state;
  P2cHostArray x = i64_array(f->c, 10);
  P2cValue same[2] = {host_value(x), host_value(x)};
  P2cLaunchOptions o = gpu_options(f, 1, 1, 16, 1);
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", same, 2,
                              &o, NULL, NULL),
                   P2C_OK);
  for (int i = 0; i < 10; i++) assert_int_equal(((int64_t *)x.data)[i], 2 * i);
  assert_int_equal(fake_stats()->device_allocs, 0);

  /* Even and odd elements: disjoint elements, overlapping spans. */
  for (int i = 0; i < 10; i++) ((int64_t *)x.data)[i] = i;
  P2cHostArray even = {.dtype = P2C_INT64, .ndim = 1, .shape = {5}, .strides = {16}, .data = x.data};
  P2cHostArray odd = even;
  odd.data = (int64_t *)x.data + 1;
  P2cValue interleaved[2] = {host_value(even), host_value(odd)};
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate",
                              interleaved, 2, &o, NULL, NULL),
                   P2C_OK);
  for (int i = 0; i < 10; i++)
    assert_int_equal(((int64_t *)x.data)[i], i % 2 ? i : i + (i + 1));
  p2c_host_array_free(f->c, &x);
}

/* A tuple argument (a, x, y): one parameter, the struct of a float64 and two p2c_arrays at
 * offsets 0, 8 and 32; the host array in it is copied in and back, the device array passed as
 * it is. */
static void dispatcher_tuples(void **state) {
  Fixture *f = *state;
  enum { N = 40 };
  int64_t shape[1] = {N};
  P2cHostArray x, y;
  assert_int_equal(p2c_host_array_new(f->c, P2C_FLOAT64, 1, shape, &x), P2C_OK);
  assert_int_equal(p2c_host_array_new(f->c, P2C_FLOAT64, 1, shape, &y), P2C_OK);
  for (int i = 0; i < N; i++) ((double *)x.data)[i] = i, ((double *)y.data)[i] = 1;
  P2cDeviceArray dx;
  assert_int_equal(p2c_device_array_like(f->d, &x, &dx), P2C_OK);
  assert_int_equal(p2c_device_array_upload(f->d, &dx, &x, NULL), P2C_OK);
  P2cValue elems[3] = {{.type = P2C_FLOAT64, .scalar.f = 2.0},
                       {.is_array = true, .type = P2C_FLOAT64, .device_array = &dx}, host_value(y)};
  P2cValue args[1] = {{.type = P2C_TUPLE, .elems = elems, .elem_count = 3}};
  P2cLaunchOptions o = gpu_options(f, 2, 1, 32, 1);
  if (p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "tuple_axpy", args, 1, &o, NULL, NULL) != P2C_OK)
    fail_msg("%s", p2c_compiler_last_error(f->c));
  for (int i = 0; i < N; i++) assert_true(((double *)y.data)[i] == 1 + 2.0 * i);
  const FakeStats *st = fake_stats();
  double a;
  uint64_t xdata, ydata;
  int64_t yshape;
  memcpy(&a, st->params[0], 8);
  memcpy(&xdata, st->params[0] + 8, 8);
  memcpy(&ydata, st->params[0] + 32, 8);
  memcpy(&yshape, st->params[0] + 40, 8);
  assert_true(a == 2.0);
  assert_true(xdata == dx.data);
  assert_true(ydata != (uint64_t)(uintptr_t)y.data);
  assert_int_equal(yshape, N);
  assert_int_equal(st->device_allocs, 1);   /* dx only: the copy of y was freed */
  p2c_device_array_free(&dx);
  p2c_host_array_free(f->c, &x);
  p2c_host_array_free(f->c, &y);
}

/* Device arrays are passed as they are; host arrays next to them are copied. */
static void dispatcher_device_arrays(void **state) {
  Fixture *f = *state;
  P2cHostArray x = i64_array(f->c, 32), y = i64_array(f->c, 32);
  P2cDeviceArray dx;
  assert_int_equal(p2c_device_array_like(f->d, &x, &dx), P2C_OK);
  assert_int_equal(p2c_device_array_upload(f->d, &dx, &x, NULL), P2C_OK);
  P2cValue args[2] = {{.is_array = true, .type = P2C_INT64, .device_array = &dx}, host_value(y)};
  P2cLaunchOptions o = gpu_options(f, 1, 1, 32, 1);
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2,
                              &o, NULL, NULL),
                   P2C_OK);
  int64_t packed;
  memcpy(&packed, fake_stats()->params[0], 8);
  assert_true((uint64_t)packed == dx.data);
  memset(x.data, 0, 32 * 8);
  assert_int_equal(p2c_device_array_download(f->d, &dx, &x, NULL), P2C_OK);
  for (int i = 0; i < 32; i++) assert_int_equal(((int64_t *)x.data)[i], 2 * i);

  /* A shape that differs is refused before any copy. */
  P2cHostArray shorter = x;
  shorter.shape[0] = 31;
  assert_int_equal(p2c_device_array_download(f->d, &dx, &shorter, NULL), P2C_ERR_USAGE);
  assert_contains(p2c_device_last_error(f->d), "differ in dtype, shape or strides");
  /* The simulator cannot take device memory. */
  o.device = P2C_DEVICE_SIM;
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2,
                              &o, NULL, NULL),
                   P2C_ERR_USAGE);
  assert_contains(p2c_compiler_last_error(f->c), "argument 'x' is a device array: it needs the GPU");

  /* p2c_device_array_new: zero-filled, C order. */
  P2cDeviceArray z;
  int64_t shape[2] = {3, 4};
  assert_int_equal(p2c_device_array_new(f->d, P2C_INT32, 2, shape, &z), P2C_OK);
  assert_int_equal(z.strides[0], 16);
  assert_int_equal(z.strides[1], 4);
  int32_t back[12];
  memset(back, 0x55, sizeof back);
  assert_int_equal(p2c_buffer_read(z.buffer, 0, back, sizeof back, NULL), P2C_OK);
  for (int i = 0; i < 12; i++) assert_int_equal(back[i], 0);
  p2c_device_array_free(&z);
  p2c_device_array_free(&dx);
  p2c_host_array_free(f->c, &x);
  p2c_host_array_free(f->c, &y);
}

/* Hostile array descriptions are refused before anything is copied. */
static void dispatcher_bad_arrays(void **state) {
  Fixture *f = *state;
  P2cHostArray x = i64_array(f->c, 8);
  P2cHostArray no_data = x, negative = x;
  no_data.data = NULL;
  negative.shape[0] = -3;
  P2cLaunchOptions o = gpu_options(f, 1, 1, 8, 1);
  P2cValue a1[2] = {host_value(no_data), host_value(x)};
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", a1, 2,
                              &o, NULL, NULL),
                   P2C_ERR_USAGE);
  assert_contains(p2c_compiler_last_error(f->c), "argument 1: an array with a negative extent, or "
                                                 "with elements and no data");
  P2cValue a2[2] = {host_value(x), host_value(negative)};
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", a2, 2,
                              &o, NULL, NULL),
                   P2C_ERR_USAGE);
  assert_contains(p2c_compiler_last_error(f->c), "argument 2:");
  /* Strides so large that the span overflows. */
  P2cHostArray huge = x;
  huge.shape[0] = (int64_t)1 << 40;
  huge.strides[0] = (int64_t)1 << 40;
  P2cValue a3[2] = {host_value(huge), host_value(x)};
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", a3, 2,
                              &o, NULL, NULL),
                   P2C_ERR_USAGE);
  assert_contains(p2c_compiler_last_error(f->c), "argument 'x': the array's size overflows");
  assert_int_equal(fake_stats()->launches, 0);
  p2c_host_array_free(f->c, &x);
}

/* --check-bounds on the GPU: the record is cleared before each launch (the fake leaves module
 * globals uninitialized, as cuMemAlloc does) and read after it; a failure is the diagnostic,
 * and nothing is copied back. */
static void dispatcher_bounds(void **state) {
  Fixture *f = *state;
  int64_t shape[1] = {8};
  P2cHostArray x;
  assert_int_equal(p2c_host_array_new(f->c, P2C_INT32, 1, shape, &x), P2C_OK);
  for (int i = 0; i < 8; i++) ((int32_t *)x.data)[i] = -1;
  P2cValue args[1] = {host_value(x)};
  P2cLaunchOptions o = gpu_options(f, 2, 1, 8, 1);
  o.repeat = 2;
  p2c_compiler_set_check_bounds(f->c, true);
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "oob", args, 1, &o,
                              NULL, NULL),
                   P2C_ERR_BOUNDS);
  assert_string_equal(p2c_compiler_last_error(f->c),
                      "kernels.py:38:5: error: index 8 is out of bounds for axis 0 with size 8 "
                      "(array of shape (8,)) in kernel 'oob', thread (0,0,0) of block (1,0,0)");
  for (int i = 0; i < 8; i++) assert_int_equal(((int32_t *)x.data)[i], -1); /* not copied back */

  /* In bounds, checked: the record reads clear after every launch. */
  o = gpu_options(f, 1, 1, 8, 1);
  o.repeat = 3;
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "oob", args, 1, &o,
                              NULL, NULL),
                   P2C_OK);
  for (int i = 0; i < 8; i++) assert_int_equal(((int32_t *)x.data)[i], i);

  /* Unchecked, the same out-of-bounds launch is not caught (and the fake does not fault). */
  p2c_compiler_set_check_bounds(f->c, false);
  o = gpu_options(f, 2, 1, 8, 1);
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "oob", args, 1, &o,
                              NULL, NULL),
                   P2C_OK);
  p2c_host_array_free(f->c, &x);
}

/* A fault inside a kernel surfaces when its end event is waited for, naming the kernel. */
static void dispatcher_kernel_fault(void **state) {
  Fixture *f = *state;
  int64_t shape[1] = {4};
  P2cHostArray x;
  assert_int_equal(p2c_host_array_new(f->c, P2C_INT32, 1, shape, &x), P2C_OK);
  P2cValue args[1] = {host_value(x)};
  P2cLaunchOptions o = gpu_options(f, 1, 1, 4, 1);
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "fault", args, 1, &o,
                              NULL, NULL),
                   P2C_ERR_CUDA);
  const char *msg = p2c_compiler_last_error(f->c);
  assert_contains(msg, "kernel 'fault' failed on the device: cuEventSynchronize(");
  assert_contains(msg, "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered");
  p2c_host_array_free(f->c, &x);
}

/* A second launch of the same specialization on the same device reuses the loaded module; the
 * report's times come from the events. */
static void dispatcher_reuses_module(void **state) {
  Fixture *f = *state;
  P2cHostArray x = i64_array(f->c, 64), y = i64_array(f->c, 64);
  P2cValue args[2] = {host_value(x), host_value(y)};
  P2cLaunchOptions o = gpu_options(f, 2, 1, 32, 1);
  o.repeat = 3;
  P2cLaunchReport r;
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2,
                              &o, &r, NULL),
                   P2C_OK);
  assert_int_equal(fake_stats()->modules, 1);
  /* Fake clock: each launch is record, 4 ticks, record = 5 ticks = 1.25 ms; the copies are a
   * record, one tick per region, a record: two regions in = 0.75 ms, and only x's back (the
   * kernel does not write y, P2cParam.written) = 0.5 ms. */
  assert_true(r.kernel_ms_min == 1.25 && r.kernel_ms_median == 1.25);
  assert_true(r.h2d_ms == 0.75 && r.d2h_ms == 0.5);
  assert_int_equal(((int64_t *)x.data)[5], 5 + 3 * 5);
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2,
                              &o, &r, NULL),
                   P2C_OK);
  assert_true(r.cache_hit);
  assert_int_equal(fake_stats()->modules, 1);
  assert_int_equal(fake_stats()->launches, 6);
  p2c_host_array_free(f->c, &x);
  p2c_host_array_free(f->c, &y);
}

/* A kernel with a grid sync (cuda.cg.this_grid) is launched with cuLaunchCooperativeKernel, and
 * only with a grid the device holds at once: the fake H100 holds 32 blocks of 32 threads per SM
 * (2048 threads, at most 32 blocks) on 132 SMs. A kernel without one is launched as before. */
static void dispatcher_cooperative(void **state) {
  Fixture *f = *state;
  P2cHostArray x = i64_array(f->c, 64), y = i64_array(f->c, 64);
  P2cValue args[2] = {host_value(x), host_value(y)};
  P2cLaunchOptions o = gpu_options(f, 2, 1, 32, 1);
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "grid_step", args, 1,
                              &o, NULL, NULL),
                   P2C_OK);
  assert_int_equal(fake_stats()->cooperative_launches, 1);
  assert_int_equal(fake_stats()->launches, 1);
  o.grid[0] = 132 * 32 + 1;
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "grid_step", args, 1,
                              &o, NULL, NULL),
                   P2C_ERR_USAGE);
  assert_contains(p2c_compiler_last_error(f->c), "launched cooperatively");
  assert_contains(p2c_compiler_last_error(f->c), "at most 4224 blocks of 32 threads, the grid has 4225");
  assert_int_equal(fake_stats()->launches, 1);   /* refused before the driver */
  o.grid[0] = 2;
  assert_int_equal(p2c_launch(f->c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2,
                              &o, NULL, NULL),
                   P2C_OK);
  assert_int_equal(fake_stats()->launches, 2);
  assert_int_equal(fake_stats()->cooperative_launches, 1);
  p2c_host_array_free(f->c, &x);
  p2c_host_array_free(f->c, &y);
}

/* Every driver call of a whole launch, failed in turn: a clear status, a message with the CUDA
 * error name, and nothing left behind. The device is opened by the launch itself. */
static void failure_sweep(void **state) {
  (void)state;
  static const char *const calls[] = {
      "cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName", "cuDeviceTotalMem_v2",
      "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuModuleLoadDataEx",
      "cuModuleGetFunction", "cuFuncGetAttribute", "cuEventCreate", "cuMemAlloc_v2",
      "cuEventRecord", "cuMemcpyHtoD_v2", "cuEventSynchronize", "cuEventElapsedTime_v2",
      "cuLaunchKernel", "cuMemcpyDtoH_v2",
  };
  P2cCompiler *c = p2c_compiler_new(NULL);
  int failures = 0;
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    for (int nth = 1; nth <= 4; nth++) {
      fake_control("reset", 0, 0);
      fake_fail(calls[i], nth, 2);
      P2cHostArray x = i64_array(c, 16), y = i64_array(c, 16);
      P2cValue args[2] = {host_value(x), host_value(y)};
      P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {1, 1, 1}, .block = {16, 1, 1}};
      P2cStatus s = p2c_launch(c, "kernels.py", kernels_src, kernels_len, "accumulate", args, 2,
                               &o, NULL, NULL);
      if (s != P2C_OK) {
        failures++;
        assert_true(s == P2C_ERR_CUDA || s == P2C_ERR_NO_CUDA);
        if (!strstr(p2c_compiler_last_error(c), "CUDA_ERROR_OUT_OF_MEMORY"))
          fail_msg("%s #%d: %s", calls[i], nth, p2c_compiler_last_error(c));
      } else {
        assert_int_equal(((int64_t *)x.data)[15], 30);
      }
      p2c_host_array_free(c, &x);
      p2c_host_array_free(c, &y);
      assert_no_leaks();
    }
  assert_true(failures >= (int)(sizeof calls / sizeof calls[0])); /* every call failed at least once */
  p2c_compiler_delete(c);
  fake_control("reset", 0, 0);
}

/* ---- main ----------------------------------------------------------------------------------- */

static char *read_text(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  static char buf[1 << 16];
  *len = fread(buf, 1, sizeof buf - 1, fp);
  buf[*len] = '\0';
  fclose(fp);
  return buf;
}

int main(void) {
  kernels_src = read_text(P2C_SOURCE_DIR "/tests/fakecuda/kernels.py", &kernels_len);
  if (!kernels_src) {
    fprintf(stderr, "cannot read tests/fakecuda/kernels.py\n");
    return 1;
  }
  /* A private cache, so that hits and misses are this run's. */
  snprintf(cache_dir, sizeof cache_dir, "%s/gpu-test-cache-XXXXXX", P2C_BUILD_DIR);
  if (!mkdtemp(cache_dir)) return 1;
  setenv("PYK2CUDA_CACHE_DIR", cache_dir, 1);

  const struct CMUnitTest before[] = {cmocka_unit_test(no_driver)};
  const struct CMUnitTest fake[] = {
      cmocka_unit_test_setup_teardown(device_info_and_close, setup, teardown),
      cmocka_unit_test_setup_teardown(device_errors, setup, teardown),
      cmocka_unit_test(no_device),
      cmocka_unit_test_setup_teardown(buffers, setup, teardown),
      cmocka_unit_test_setup_teardown(failed_calls_name_call_and_error, setup, teardown),
      cmocka_unit_test_setup_teardown(pinned_streams_events, setup, teardown),
      cmocka_unit_test_setup_teardown(pinned_release, setup, teardown),
      cmocka_unit_test_setup_teardown(pinned_register, setup, teardown),
      cmocka_unit_test_setup_teardown(module_load_and_jit_log, setup, teardown),
      cmocka_unit_test_setup_teardown(source_module, setup, teardown),
      cmocka_unit_test_setup_teardown(cache_recovers, setup, teardown),
      cmocka_unit_test_setup_teardown(launch_limits, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_layouts, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_aliasing, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_device_arrays, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_tuples, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_bad_arrays, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_bounds, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_kernel_fault, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_reuses_module, setup, teardown),
      cmocka_unit_test_setup_teardown(dispatcher_cooperative, setup, teardown),
      cmocka_unit_test(failure_sweep),
  };
  int failed = cmocka_run_group_tests_name("gpu: no driver", before, NULL, NULL);
  setenv("PYK2CUDA_LIBCUDA", P2C_FAKECUDA, 1);
  load_fake_controls();
  failed += cmocka_run_group_tests_name("gpu: fake driver", fake, NULL, NULL);
  return failed;
}
