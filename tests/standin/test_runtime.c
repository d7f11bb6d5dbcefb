/* The GPU runtime's manners towards its host, judged on the driver stand-in (standin suite,
 * `standin-runtime`; issue 25's review): the public API (include/pyk2cuda.h) on the stand-in,
 * watched through a second table of the same driver (cudrv_open on the same library hands back
 * the same process-wide driver state).
 *
 * - Every call that works in the device's context gives the calling thread its own current
 *   context back: a host with its own context (a C program, CuPy, PyTorch) finds it current
 *   after a pyk2cuda alloc, copy, stream, event, module load, launch or free, and a thread with
 *   none has none.
 * - A new device array's zeros are not written on the legacy default stream (which would first
 *   run every blocking stream's queued work): other streams' work stays queued.
 * - A launch with host arrays copies them and runs its kernel on the launch's stream, and tells
 *   the host (P2cLaunchOptions.wait) around each wait for the device.
 * - Freeing device memory while other streams have work queued leaves that work queued (a
 *   stream-ordered free, after the work queued before it; cuMemFree would run everything).
 * - A device without memory pools gets its memory from cuMemAlloc, zeroed in stream order.
 * - A child forked after CUDA was initialized is told so by every failing call.
 * The stand-in's test hook p2cStandinQueued counts a stream's queued work without running it. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/gpu_api.h"
#include "pyk2cuda.h"
#include "runtime/cuda/cudrv.h"

static CuDriver drv;
static CuContext primary; /* device 0's, retained for the test's queries */
static CuResult (*queued_hook)(CuStream stream, unsigned long long *count);

/* Pieces of work queued on `stream` of device 0 (NULL: the legacy default stream), none run. */
static unsigned long long queued(CuStream stream) {
  unsigned long long n = 0;
  CuContext was = NULL;
  assert_int_equal(drv.cuCtxGetCurrent(&was), CUDRV_SUCCESS);
  assert_int_equal(drv.cuCtxSetCurrent(primary), CUDRV_SUCCESS);
  assert_int_equal(queued_hook(stream, &n), CUDRV_SUCCESS);
  assert_int_equal(drv.cuCtxSetCurrent(was), CUDRV_SUCCESS);
  return n;
}

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

/* Device 0 with hand-written CUDA C's add1 loaded, for the stream tests. */
typedef struct Setup {
  P2cCompiler *c;
  P2cDevice *d;
  P2cGpuModule *m;
  P2cGpuKernel *k;
  P2cBuffer *b;
} Setup;

static Setup setup(void) {
  Setup t = {.c = p2c_compiler_new(NULL)};
  assert_int_equal(p2c_device_open(t.c, 0, &t.d), P2C_OK);
  assert_int_equal(p2c_gpu_module_from_source(t.d, CUDA_C, NULL, &t.m), P2C_OK);
  assert_int_equal(p2c_gpu_module_kernel(t.m, "add1", &t.k), P2C_OK);
  assert_int_equal(p2c_buffer_new(t.d, 1024 * sizeof(int), &t.b), P2C_OK);
  assert_int_equal(p2c_buffer_zero(t.b, NULL), P2C_OK);
  return t;
}

static void teardown(Setup *t) {
  p2c_buffer_delete(t->b);
  p2c_gpu_module_delete(t->m);
  p2c_device_delete(t->d);
  p2c_compiler_delete(t->c);
}

/* Queues add1 over the setup's buffer on s (not run yet: the stand-in runs work when waited for). */
static void queue_add1(Setup *t, P2cStream *s) {
  uint64_t p = p2c_buffer_address(t->b);
  int n = 1024;
  P2cGpuLaunch cfg = {.grid = {4, 1, 1}, .block = {256, 1, 1}, .stream = s};
  assert_int_equal(p2c_gpu_kernel_launch(t->k, &cfg, (void *[]){&p, &n}), P2C_OK);
}

static void assert_zeros(P2cDevice *d, P2cDeviceArray *a, int n) {
  int back[64];
  P2cHostArray h = {.dtype = P2C_INT32, .ndim = 1, .shape = {n}, .strides = {4}, .data = back};
  memset(back, 0x5a, sizeof back);
  assert_int_equal(p2c_device_array_download(d, a, &h, NULL), P2C_OK);
  for (int i = 0; i < n; i++) assert_int_equal(back[i], 0);
}

/* A new array's zeros leave a blocking stream's queued kernel queued (the legacy default
 * stream's memset would run it first); with a stream, they are queued on it. */
static void new_arrays_zeroed_off_the_legacy_stream(void **state) {
  (void)state;
  Setup t = setup();
  P2cStream *s = NULL, *s2 = NULL;
  assert_int_equal(p2c_stream_new(t.d, &s), P2C_OK);
  assert_int_equal(p2c_stream_new(t.d, &s2), P2C_OK);
  queue_add1(&t, s);
  assert_int_equal(queued(s->stream), 1);
  P2cDeviceArray a, a2;
  int64_t shape[1] = {64};
  assert_int_equal(p2c_device_array_new(t.d, P2C_INT32, 1, shape, &a), P2C_OK);
  assert_int_equal(queued(s->stream), 1);
  assert_int_equal(p2c_device_array_new_on(t.d, P2C_INT32, 1, shape, s2, &a2), P2C_OK);
  assert_int_equal(queued(s->stream), 1);
  assert_int_equal(queued(s2->stream), 1); /* the zeros, queued on s2 */
  assert_int_equal(p2c_stream_synchronize(s2), P2C_OK);
  assert_int_equal(queued(s->stream), 1);
  assert_zeros(t.d, &a, 64);  /* the stand-in fills new memory with 0xAB: the zeros were written */
  assert_zeros(t.d, &a2, 64);
  p2c_device_array_free(&a);
  p2c_device_array_free(&a2);
  p2c_stream_delete(s);
  p2c_stream_delete(s2);
  teardown(&t);
}

/* A buffer freed while a stream has work queued: the work stays queued, the memory is freed
 * when the legacy default stream gets there, after the work queued before. */
static void frees_wait_for_no_stream(void **state) {
  (void)state;
  Setup t = setup();
  P2cStream *s = NULL;
  assert_int_equal(p2c_stream_new(t.d, &s), P2C_OK);
  P2cBuffer *b = NULL;
  assert_int_equal(p2c_buffer_new(t.d, 4096, &b), P2C_OK);
  queue_add1(&t, s);
  assert_int_equal(queued(s->stream), 1);
  p2c_buffer_delete(b);
  assert_int_equal(queued(s->stream), 1);
  assert_int_equal(queued(NULL), 1); /* the free, after s's kernel */
  P2cDeviceArray a;
  int64_t shape[1] = {64};
  assert_int_equal(p2c_device_array_new(t.d, P2C_INT32, 1, shape, &a), P2C_OK);
  p2c_device_array_free(&a);
  assert_int_equal(queued(s->stream), 1);
  assert_int_equal(p2c_device_synchronize(t.d), P2C_OK);
  assert_int_equal(queued(s->stream), 0);
  assert_int_equal(queued(NULL), 0);
  int host[4];
  assert_int_equal(p2c_buffer_read(t.b, 0, host, sizeof host, NULL), P2C_OK);
  assert_int_equal(host[3], 1); /* the kernel ran, before the free */
  p2c_stream_delete(s);
  teardown(&t);
}

/* A device without memory pools (main makes device 1 one: PYK2CUDA_STANDIN_NO_MEMORY_POOLS=1,
 * MEMORY_POOLS_SUPPORTED 0 and cuMemAllocAsync refused with CUDA_ERROR_NOT_SUPPORTED): buffers
 * and arrays come from cuMemAlloc, their zeros written in stream order; also where the
 * attribute said yes and the allocator then refused. Device 0 keeps its pools. */
static void arrays_without_memory_pools(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cDevice *d = NULL, *d0 = NULL;
  assert_int_equal(p2c_device_open(c, 1, &d), P2C_OK);
  assert_false(d->gpu.limits.memory_pools);
  int64_t shape[1] = {64};
  P2cDeviceArray a;
  for (int refused = 0; refused < 2; refused++) {
    d->gpu.limits.memory_pools = refused; /* the second round: the allocator's refusal */
    assert_int_equal(p2c_device_array_new(d, P2C_INT32, 1, shape, &a), P2C_OK);
    assert_false(a.buffer->stream_ordered);
    assert_zeros(d, &a, 64); /* over the stand-in's 0xAB fill */
    p2c_device_array_free(&a);
  }
  P2cStream *s = NULL;
  assert_int_equal(p2c_stream_new(d, &s), P2C_OK);
  assert_int_equal(p2c_device_array_new_on(d, P2C_INT32, 1, shape, s, &a), P2C_OK);
  assert_int_equal(p2c_stream_synchronize(s), P2C_OK);
  assert_zeros(d, &a, 64);
  p2c_device_array_free(&a);
  p2c_stream_delete(s);
  assert_int_equal(p2c_device_open(c, 0, &d0), P2C_OK);
  assert_true(d0->gpu.limits.memory_pools);
  assert_int_equal(p2c_device_array_new(d0, P2C_INT32, 1, shape, &a), P2C_OK);
  assert_true(a.buffer->stream_ordered);
  p2c_device_array_free(&a);
  p2c_device_delete(d0);
  p2c_device_delete(d);
  p2c_compiler_delete(c);
}

/* A child forked after its parent initialized CUDA: the stand-in refuses every call, as Linux
 * drivers do, and pyk2cuda's message says why (the fork, both pids, what to do), for a call on
 * a device the parent opened and for a device the child opens. */
static void forked_child_is_told(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cDevice *d = NULL;
  assert_int_equal(p2c_device_open(c, 0, &d), P2C_OK);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    P2cBuffer *b = NULL;
    P2cDevice *d2 = NULL;
    bool told = p2c_buffer_new(d, 64, &b) != P2C_OK &&
                strstr(p2c_device_last_error(d), "was forked from one that had initialized CUDA");
    told = told && p2c_device_open(c, 0, &d2) != P2C_OK &&
           strstr(p2c_compiler_last_error(c), "'spawn' or 'forkserver'");
    if (!told) fprintf(stderr, "child: %s / %s\n", p2c_device_last_error(d), p2c_compiler_last_error(c));
    _exit(told ? 0 : 1);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  P2cBuffer *b = NULL;
  assert_int_equal(p2c_buffer_new(d, 64, &b), P2C_OK); /* the parent goes on */
  p2c_buffer_delete(b);
  p2c_device_delete(d);
  p2c_compiler_delete(c);
}

/* What the launch's wait callback saw of the queues. */
typedef struct WaitSeen {
  CuStream stream;
  int calls, open;
  unsigned long long most_on_stream, most_on_legacy;
} WaitSeen;

static void seen_wait(void *userdata, bool waiting) {
  WaitSeen *w = userdata;
  if (!waiting) {
    w->open--;
    return;
  }
  w->calls++;
  w->open++;
  unsigned long long on_stream = queued(w->stream), on_legacy = queued(NULL);
  if (on_stream > w->most_on_stream) w->most_on_stream = on_stream;
  if (on_legacy > w->most_on_legacy) w->most_on_legacy = on_legacy;
}

/* A launch with a host array copies it and runs the kernel on the options' stream, calling the
 * wait callback before and after each wait (copies in, kernel, copies out). */
static void host_array_launch_on_its_stream(void **state) {
  (void)state;
  Setup t = setup();
  P2cStream *s = NULL;
  assert_int_equal(p2c_stream_new(t.d, &s), P2C_OK);
  int64_t xs[32];
  for (int i = 0; i < 32; i++) xs[i] = i;
  P2cValue arg = {.is_array = true, .type = P2C_INT64,
                  .array = {.dtype = P2C_INT64, .ndim = 1, .shape = {32}, .strides = {8}, .data = xs}};
  WaitSeen seen = {.stream = s->stream};
  P2cLaunchOptions o = {.device = P2C_DEVICE_GPU, .grid = {1, 1, 1}, .block = {32, 1, 1}, .gpu = t.d,
                        .stream = s, .wait = seen_wait, .wait_userdata = &seen};
  P2cLaunchReport r;
  assert_int_equal(p2c_launch(t.c, "add1.py", PY, strlen(PY), "add1", &arg, 1, &o, &r, NULL), P2C_OK);
  assert_int_equal(xs[31], 32);
  assert_int_equal(seen.calls, 3);
  assert_int_equal(seen.open, 0);
  assert_true(seen.most_on_stream >= 2); /* the kernel and its end event */
  assert_int_equal(seen.most_on_legacy, 0);
  assert_int_equal(queued(s->stream), 0);  /* done when the launch returns */
  p2c_stream_delete(s);
  teardown(&t);
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: test_runtime LIBCUDA\n"), 2;
  char err[512];
  setenv("PYK2CUDA_LIBCUDA", argv[1], 1);
  setenv("PYK2CUDA_STANDIN_NO_MEMORY_POOLS", "1", 1); /* device 1 (arrays_without_memory_pools) */
  if (cudrv_open(&drv, argv[1], err, sizeof err) != P2C_OK || !drv.p2cStandinAttachSource)
    return fprintf(stderr, "not the stand-in: %s\n", err), 1;
  if (!drv.cuCtxCreate || !drv.cuCtxDestroy || !drv.cuCtxGetCurrent)
    return fprintf(stderr, "the stand-in lacks cuCtxCreate/Destroy/GetCurrent\n"), 1;
  int count = 0;
  if (cudrv_init(&drv, &count, err, sizeof err) != P2C_OK || count != 2)
    return fprintf(stderr, "cuInit: %s (%d devices)\n", err, count), 1;
  void *hook = dlsym(drv.dl.handle, "p2cStandinQueued");
  if (!hook) return fprintf(stderr, "the stand-in lacks p2cStandinQueued\n"), 1;
  memcpy(&queued_hook, &hook, sizeof hook);
  if (drv.cuDevicePrimaryCtxRetain(&primary, 0) != CUDRV_SUCCESS) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_context_left_current),
      cmocka_unit_test(caller_context_restored),
      cmocka_unit_test(new_arrays_zeroed_off_the_legacy_stream),
      cmocka_unit_test(host_array_launch_on_its_stream),
      cmocka_unit_test(frees_wait_for_no_stream),
      cmocka_unit_test(arrays_without_memory_pools),
      cmocka_unit_test(forked_child_is_told),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  drv.cuDevicePrimaryCtxRelease(0);
  return failed;
}
