/* The GPU runtime's manners towards its host, judged on the driver stand-in (standin suite,
 * `standin-runtime`; issue 25's review): the public API (include/pyk2cuda.h) on the stand-in,
 * watched through a second table of the same driver (cudrv_open on the same library hands back
 * the same process-wide driver state).
 *
 * - Every call that works in the device's context gives the calling thread its own current
 *   context back: a host with its own context (a C program, CuPy, PyTorch) finds it current
 *   after a pyk2cuda alloc, copy, stream, event, module load, launch or free, and a thread with
 *   none has none. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pyk2cuda.h"
#include "runtime/cuda/cudrv.h"

static CuDriver drv;

/* A Python kernel, launched through the dispatcher with a host array. */
static const char PY[] = "from numba import cuda\n\n"
                         "@cuda.jit\n"
                         "def add1(a):\n"
                         "    i = cuda.grid(1)\n"
                         "    if i < a.size:\n"
                         "        a[i] += 1\n";

/* The same as hand-written CUDA C. */
static const char CUDA_C[] = "extern \"C\" __global__ void add1(int *p, int n) {\n"
                             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "  if (i < n) p[i] += 1;\n"
                             "}\n";

static CuContext current(void) {
  CuContext c = (CuContext)(uintptr_t)1;
  assert_int_equal(drv.cuCtxGetCurrent(&c), CUDRV_SUCCESS);
  return c;
}

/* The call succeeds and leaves `want` current. */
#define KEEPS(want, call)                                    \
  do {                                                       \
    P2cStatus keeps_s_ = (call);                             \
    if (keeps_s_ != P2C_OK) fail_msg("%s: %d", #call, keeps_s_); \
    assert_ptr_equal(current(), (want));                     \
  } while (0)

/* Every kind of runtime call, each checked to leave `want` (the caller's context) current. */
static void every_call_keeps(CuContext want) {
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cDevice *d = NULL;
  int count = 0;
  KEEPS(want, p2c_device_count(c, &count));
  KEEPS(want, p2c_device_open(c, 0, &d));
  P2cBuffer *b = NULL;
  int host[256];
  for (int i = 0; i < 256; i++) host[i] = i;
  KEEPS(want, p2c_buffer_new(d, sizeof host, &b));
  KEEPS(want, p2c_buffer_write(b, 0, host, sizeof host, NULL));
  P2cStream *s = NULL;
  P2cEvent *e0 = NULL, *e1 = NULL;
  KEEPS(want, p2c_stream_new(d, &s));
  KEEPS(want, p2c_event_new(d, &e0));
  KEEPS(want, p2c_event_new(d, &e1));
  KEEPS(want, p2c_event_record(e0, s));
  P2cGpuModule *m = NULL;
  P2cGpuKernel *k = NULL;
  KEEPS(want, p2c_gpu_module_from_source(d, CUDA_C, NULL, &m));
  KEEPS(want, p2c_gpu_module_kernel(m, "add1", &k));
  uint64_t p = p2c_buffer_address(b);
  int n = 256;
  P2cGpuLaunch cfg = {.grid = {1, 1, 1}, .block = {256, 1, 1}, .stream = s};
  KEEPS(want, p2c_gpu_kernel_launch(k, &cfg, (void *[]){&p, &n}));
  KEEPS(want, p2c_event_record(e1, s));
  KEEPS(want, p2c_buffer_read(b, 0, host, sizeof host, s));
  KEEPS(want, p2c_stream_synchronize(s));
  float ms = 0;
  KEEPS(want, p2c_event_elapsed_ms(e0, e1, &ms));
  assert_int_equal(host[7], 8);
  KEEPS(want, p2c_buffer_zero(b, NULL));
  KEEPS(want, p2c_device_synchronize(d));
  P2cDeviceArray a;
  int64_t shape[1] = {16};
  KEEPS(want, p2c_device_array_new(d, P2C_INT32, 1, shape, &a));
  void *pinned = NULL;
  KEEPS(want, p2c_pinned_new(d, 4096, &pinned));
  /* the dispatcher: a host array copied in, launched, copied back */
  int64_t xs[32];
  for (int i = 0; i < 32; i++) xs[i] = i;
  P2cValue arg = {.is_array = true, .type = P2C_INT64,
                  .array = {.dtype = P2C_INT64, .ndim = 1, .shape = {32}, .strides = {8}, .data = xs}};
  P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {1, 1, 1}, .block = {32, 1, 1}, .gpu = d};
  P2cLaunchReport r;
  KEEPS(want, p2c_launch(c, "add1.py", PY, strlen(PY), "add1", &arg, 1, &o, &r, NULL));
  assert_int_equal(xs[31], 32);
  /* destructors too */
  p2c_pinned_delete(d, pinned);
  assert_ptr_equal(current(), want);
  p2c_device_array_free(&a);
  assert_ptr_equal(current(), want);
  p2c_event_delete(e0);
  p2c_event_delete(e1);
  p2c_stream_delete(s);
  assert_ptr_equal(current(), want);
  p2c_buffer_delete(b);
  assert_ptr_equal(current(), want);
  p2c_gpu_module_delete(m);
  assert_ptr_equal(current(), want);
  p2c_device_delete(d);
  assert_ptr_equal(current(), want);
  p2c_compiler_delete(c);
}

/* A host with its own context current (here one it created on device 1, as a library might)
 * finds it current after every pyk2cuda call on device 0. */
static void caller_context_restored(void **state) {
  (void)state;
  CuContext mine = NULL;
  assert_int_equal(drv.cuCtxCreate(&mine, 0, 1), CUDRV_SUCCESS);
  assert_ptr_equal(current(), mine);
  every_call_keeps(mine);
  assert_int_equal(drv.cuCtxDestroy(mine), CUDRV_SUCCESS);
}

/* A thread with no current context has none after pyk2cuda's calls. */
static void no_context_left_current(void **state) {
  (void)state;
  assert_null(current());
  every_call_keeps(NULL);
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: test_runtime LIBCUDA\n"), 2;
  char err[512];
  setenv("PYK2CUDA_LIBCUDA", argv[1], 1);
  if (cudrv_open(&drv, argv[1], err, sizeof err) != P2C_OK || !drv.p2cStandinAttachSource)
    return fprintf(stderr, "not the stand-in: %s\n", err), 1;
  if (!drv.cuCtxCreate || !drv.cuCtxDestroy || !drv.cuCtxGetCurrent)
    return fprintf(stderr, "the stand-in lacks cuCtxCreate/Destroy/GetCurrent\n"), 1;
  int count = 0;
  if (cudrv_init(&drv, &count, err, sizeof err) != P2C_OK || count != 2)
    return fprintf(stderr, "cuInit: %s (%d devices)\n", err, count), 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_context_left_current),
      cmocka_unit_test(caller_context_restored),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
