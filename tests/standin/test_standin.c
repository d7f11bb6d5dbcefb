/* The driver stand-in's own behaviour (standin suite, `standin-driver`), through pyk2cuda's
 * driver table (cudrv_open on the stand-in): a module from PTX with its CUDA C attached runs on
 * the simulator; queued work runs only when the host waits (a pinned result read before a sync
 * is stale, queries answer NOT_READY until done, events until reached); the legacy default
 * stream orders other streams' work; a kernel's access outside every allocation is
 * CUDA_ERROR_ILLEGAL_ADDRESS, sticky until the primary context is reset; launch limits and the
 * driver version's refusal of newer PTX; the leak report; a forked child refused; seeded orders
 * of independent streams. */
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

#include "runtime/cuda/cudrv.h"

static CuDriver drv;
static CuContext ctx;

/* A kernel adding 1 to p[0..n), as NVRTC would declare it, and the CUDA C it came from. */
static const char PTX[] = ".version 9.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry add1(\n\t.param .u64 add1_param_0,\n"
                          "\t.param .u32 add1_param_1\n)\n{\n\tret;\n}\n";
static const char SOURCE[] =
    "extern \"C\" __global__ void add1(int *p, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) p[i] += 1;\n"
    "}\n";

#define CU(call) assert_int_equal(drv.call, CUDRV_SUCCESS)

static CuFunction load_add1(CuModule *m) {
  CuFunction f = NULL;
  CU(cuModuleLoadDataEx(m, PTX, 0, NULL, NULL));
  CU(p2cStandinAttachSource(*m, SOURCE, strlen(SOURCE)));
  CU(cuModuleGetFunction(&f, *m, "add1"));
  return f;
}

static CuResult launch(CuFunction f, unsigned grid, unsigned block, CuStream s, CuDevicePtr p, int n) {
  void *args[] = {&p, &n};
  return drv.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, args, NULL);
}

/* Work runs when the host waits: a pinned result is stale until the stream is synchronized. */
static void queued_work_runs_when_waited_for(void **state) {
  (void)state;
  CuModule m;
  CuFunction f = load_add1(&m);
  CuStream s;
  CuEvent e;
  CuDevicePtr d;
  int *pinned = NULL, n = 1000;
  CU(cuStreamCreate(&s, CUDRV_STREAM_NON_BLOCKING));
  CU(cuEventCreate(&e, 0));
  CU(cuMemAlloc(&d, n * sizeof(int)));
  CU(cuMemHostAlloc((void **)&pinned, n * sizeof(int), 0));
  for (int i = 0; i < n; i++) pinned[i] = i;
  CU(cuMemcpyHtoDAsync(d, pinned, n * sizeof(int), s));
  CU(cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, s, (void *[]){&d, &n}, NULL));
  CU(cuMemcpyDtoHAsync(pinned, d, n * sizeof(int), s));
  CU(cuEventRecord(e, s));
  assert_int_equal(pinned[5], 5); /* nothing ran yet */
  /* cuStreamQuery (not in the runtime's table): NOT_READY while work is queued, each call
   * running one piece, then done. */
  void *sym = dlsym(drv.dl.handle, "cuStreamQuery");
  CuResult (*query)(CuStream);
  memcpy(&query, &sym, sizeof query);
  assert_non_null(sym);
  int polls = 0;
  CuResult q;
  while ((q = query(s)) == 600 /* CUDA_ERROR_NOT_READY */) polls++;
  assert_int_equal(q, CUDRV_SUCCESS);
  assert_int_equal(polls, 4); /* the copy in, the kernel, the copy out, the record */
  CU(cuEventSynchronize(e));
  for (int i = 0; i < n; i++) assert_int_equal(pinned[i], i + 1);
  CU(cuMemFreeHost(pinned));
  CU(cuMemFree(d));
  CU(cuEventDestroy(e));
  CU(cuStreamDestroy(s));
  CU(cuModuleUnload(m));
}

/* The legacy default stream waits for a blocking stream's earlier work. */
static void legacy_default_stream_orders_streams(void **state) {
  (void)state;
  CuModule m;
  CuFunction f = load_add1(&m);
  CuStream s;
  CuDevicePtr d;
  int host[64] = {0}, n = 64;
  CU(cuStreamCreate(&s, CUDRV_STREAM_DEFAULT));
  CU(cuMemAlloc(&d, sizeof host));
  CU(cuMemsetD8(d, 0, sizeof host));
  assert_int_equal(launch(f, 1, 64, s, d, n), CUDRV_SUCCESS);
  assert_int_equal(launch(f, 1, 64, s, d, n), CUDRV_SUCCESS);
  CU(cuMemcpyDtoH(host, d, sizeof host)); /* on the default stream: after both launches */
  for (int i = 0; i < n; i++) assert_int_equal(host[i], 2);
  CU(cuMemFree(d));
  CU(cuStreamDestroy(s));
  CU(cuModuleUnload(m));
}

/* Launches past the device's limits fail at the call, and leave the context usable. */
static void launch_limits(void **state) {
  (void)state;
  CuModule m;
  CuFunction f = load_add1(&m);
  CuDevicePtr d;
  CU(cuMemAlloc(&d, 64));
  assert_int_equal(launch(f, 1, 2048, NULL, d, 1), CUDRV_ERROR_INVALID_VALUE);
  assert_int_equal(drv.cuLaunchKernel(f, 1, 70000, 1, 1, 1, 1, 0, NULL, (void *[]){&d, &d}, NULL),
                   CUDRV_ERROR_INVALID_VALUE);
  assert_int_equal(drv.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 64 * 1024, NULL, (void *[]){&d, &d}, NULL),
                   CUDRV_ERROR_INVALID_VALUE);
  CU(cuFuncSetAttribute(f, CUDRV_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
  assert_int_not_equal(drv.cuFuncSetAttribute(f, CUDRV_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, 228 * 1024),
                       CUDRV_SUCCESS);
  CuFunction none;
  assert_int_equal(drv.cuModuleGetFunction(&none, m, "add1_param_0"), CUDRV_ERROR_NOT_FOUND);
  CU(cuCtxSynchronize());
  CU(cuMemFree(d));
  CU(cuModuleUnload(m));
}

/* A kernel's launch bounds (.maxntid in its PTX) are its thread limit, as a real driver reads
 * them: cuFuncGetAttribute answers it and a launch over it is CUDA_ERROR_INVALID_VALUE. */
static void launch_bounds_limit_blocks(void **state) {
  (void)state;
  static const char bounded[] = ".version 9.0\n.target sm_90\n.address_size 64\n"
                                ".visible .entry add1(\n\t.param .u64 add1_param_0,\n"
                                "\t.param .u32 add1_param_1\n)\n.maxntid 32, 2, 1\n"
                                ".minnctapersm 2\n{\n\tret;\n}\n";
  CuModule m, plain;
  CuFunction f = NULL;
  CU(cuModuleLoadDataEx(&m, bounded, 0, NULL, NULL));
  CU(p2cStandinAttachSource(m, SOURCE, strlen(SOURCE)));
  CU(cuModuleGetFunction(&f, m, "add1"));
  int most = 0;
  CU(cuFuncGetAttribute(&most, CUDRV_FUNC_MAX_THREADS_PER_BLOCK, f));
  assert_int_equal(most, 64);
  CuDevicePtr d;
  CU(cuMemAlloc(&d, 128 * sizeof(int)));
  CU(cuMemsetD8(d, 0, 128 * sizeof(int)));
  assert_int_equal(launch(f, 1, 65, NULL, d, 128), CUDRV_ERROR_INVALID_VALUE);
  assert_int_equal(launch(f, 2, 64, NULL, d, 128), CUDRV_SUCCESS);
  CU(cuCtxSynchronize());
  CuFunction g = load_add1(&plain);   /* no .maxntid: the device's 1024 */
  CU(cuFuncGetAttribute(&most, CUDRV_FUNC_MAX_THREADS_PER_BLOCK, g));
  assert_int_equal(most, 1024);
  CU(cuMemFree(d));
  CU(cuModuleUnload(m));
  CU(cuModuleUnload(plain));
}

/* A kernel writing past its allocation: CUDA_ERROR_ILLEGAL_ADDRESS at the next wait, and every
 * call after it, until the primary context is reset. */
static void illegal_address_is_sticky(void **state) {
  (void)state;
  CuModule m;
  CuFunction f = load_add1(&m);
  CuDevicePtr d, other;
  CU(cuMemAlloc(&d, 64 * sizeof(int)));
  assert_int_equal(launch(f, 4, 256, NULL, d, 1024), CUDRV_SUCCESS); /* 1024 > 64 elements */
  assert_int_equal(drv.cuCtxSynchronize(), CUDRV_ERROR_ILLEGAL_ADDRESS);
  assert_int_equal(drv.cuMemAlloc(&other, 64), CUDRV_ERROR_ILLEGAL_ADDRESS);
  assert_int_equal(launch(f, 1, 1, NULL, d, 1), CUDRV_ERROR_ILLEGAL_ADDRESS);
  int dev = 0;
  drv.cuCtxSetCurrent(NULL);
  /* Released to zero: destroyed, with what it still held in the leak report. */
  char leaks[] = "/tmp/standin-leaks-XXXXXX";
  int fd = mkstemp(leaks);
  assert_true(fd >= 0);
  close(fd);
  setenv("PYK2CUDA_STANDIN_LEAKS", leaks, 1);
  CU(cuDevicePrimaryCtxRelease(dev));
  unsetenv("PYK2CUDA_STANDIN_LEAKS");
  char report[1024] = "";
  FILE *lf = fopen(leaks, "r");
  assert_non_null(lf);
  size_t got = fread(report, 1, sizeof report - 1, lf);
  report[got] = '\0';
  fclose(lf);
  unlink(leaks);
  assert_non_null(strstr(report, "leak: device 0: cuMemAlloc of 256 bytes"));
  assert_non_null(strstr(report, "leak: device 0: 1 modules"));
  CU(cuDevicePrimaryCtxRetain(&ctx, dev)); /* destroyed and made again: usable */
  CU(cuCtxSetCurrent(ctx));
  CU(cuMemAlloc(&other, 64));
  CU(cuMemFree(other));
}

/* PTX of a newer ISA than the driver's version: refused with the driver's code. */
static void newer_ptx_refused(void **state) {
  (void)state;
  CuModule m;
  char ptx[sizeof PTX + 8];
  snprintf(ptx, sizeof ptx, "%s", PTX);
  memcpy(strstr(ptx, "9.0"), "9.9", 3);
  assert_int_equal(drv.cuModuleLoadDataEx(&m, ptx, 0, NULL, NULL), CUDRV_ERROR_UNSUPPORTED_PTX_VERSION);
}

/* Two non-blocking streams writing one buffer race: with PYK2CUDA_STANDIN_SEED the context's
 * synchronize runs their work in seeded orders, so both writers win under some seed; without a
 * seed, in the order it was queued. Run in children, since the seed is read at cuInit. */
/* The race, in a process of its own (the test runs it as `test_standin LIB --race SEED`): what the
 * buffer holds after the context's synchronize, 100 when a call failed. */
static int race(const char *lib, const char *seed) {
  if (*seed) setenv("PYK2CUDA_STANDIN_SEED", seed, 1);
  CuDriver d2;
  char err[256];
  CuContext c;
  CuStream a, b;
  CuDevicePtr p;
  unsigned char got = 0;
  if (cudrv_open(&d2, lib, err, sizeof err) || d2.cuInit(0) || d2.cuDevicePrimaryCtxRetain(&c, 0) ||
      d2.cuCtxSetCurrent(c) || d2.cuStreamCreate(&a, CUDRV_STREAM_NON_BLOCKING) ||
      d2.cuStreamCreate(&b, CUDRV_STREAM_NON_BLOCKING) || d2.cuMemAlloc(&p, 1) ||
      d2.cuMemsetD8Async(p, 1, 1, a) || d2.cuMemsetD8Async(p, 2, 1, b) || d2.cuCtxSynchronize() ||
      d2.cuMemcpyDtoH(&got, p, 1))
    return 100;
  return got;
}

static int race_in_child(const char *lib, const char *seed) {
  pid_t pid = fork();
  if (pid == 0) {
    execl("/proc/self/exe", "test_standin", lib, "--race", seed ? seed : "", (char *)NULL);
    _exit(101);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *standin_path;

static void seeded_stream_order(void **state) {
  (void)state;
  assert_int_equal(race_in_child(standin_path, NULL), 2);
  int wins[3] = {0};
  char seed[16];
  for (int i = 1; i <= 16; i++) {
    snprintf(seed, sizeof seed, "%d", i);
    int got = race_in_child(standin_path, seed);
    assert_true(got == 1 || got == 2);
    wins[got]++;
  }
  assert_true(wins[1] > 0 && wins[2] > 0);
}

/* A child forked after cuInit cannot use the driver. */
static void fork_child_refused(void **state) {
  (void)state;
  pid_t pid = fork();
  if (pid == 0) {
    CuDevicePtr d;
    _exit(drv.cuMemAlloc(&d, 64) == CUDRV_ERROR_NOT_INITIALIZED ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[2], "--race")) return race(argv[1], argv[3]);
  if (argc != 2) return fprintf(stderr, "usage: test_standin LIBCUDA\n"), 2;
  char err[512];
  standin_path = argv[1];
  if (cudrv_open(&drv, argv[1], err, sizeof err) != P2C_OK || !drv.p2cStandinAttachSource)
    return fprintf(stderr, "not the stand-in: %s\n", err), 1;
  int count = 0;
  if (cudrv_init(&drv, &count, err, sizeof err) != P2C_OK || count != 2)
    return fprintf(stderr, "cuInit: %s (%d devices)\n", err, count), 1;
  if (drv.cuDevicePrimaryCtxRetain(&ctx, 0) || drv.cuCtxSetCurrent(ctx)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(queued_work_runs_when_waited_for),
      cmocka_unit_test(legacy_default_stream_orders_streams),
      cmocka_unit_test(launch_limits),
      cmocka_unit_test(launch_bounds_limit_blocks),
      cmocka_unit_test(newer_ptx_refused),
      cmocka_unit_test(illegal_address_is_sticky),
      cmocka_unit_test(fork_child_refused),
      cmocka_unit_test(seeded_stream_order),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  drv.cuDevicePrimaryCtxRelease(0);
  return failed;
}
