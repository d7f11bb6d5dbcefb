/* Interrupting a call through the public API, as an embedder does (p2c_compiler_set_interrupt):
 * the library installs no signal handlers, so a host's Ctrl-C or time limit reaches it only
 * through the check it is given. A check that says stop while the simulator's host compiler
 * runs ends the compiler's whole process group (its worker too) and leaves no work folder; one
 * that says stop during a launch of 2^31 - 1 blocks, or while a kernel's threads spin for ever,
 * ends it within seconds, and the module launches again afterwards. The check runs on the
 * calling thread. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pyk2cuda.h"

static const char src[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def put(a, v):\n"
    "    a[cuda.blockIdx.x % a.shape[0]] = v\n";

static char tmp[256];

static int setup(void **state) {
  (void)state;
  snprintf(tmp, sizeof tmp, "/tmp/p2c-interrupt-XXXXXX");
  if (!mkdtemp(tmp)) return -1;
  char cache[300];
  snprintf(cache, sizeof cache, "%s/cache", tmp);
  setenv("PYK2CUDA_CACHE_DIR", cache, 1);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  return system(cmd) == 0 ? 0 : -1;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* What the check saw, and when it says stop. */
typedef struct Check {
  pthread_t caller;
  int calls;
  int stop_after;            /* say stop at this call (0: never) */
  const char *pid_file;      /* or: once this file names a process */
  bool other_thread;         /* called on a thread other than the caller's */
} Check;

static long read_pid(const char *path) {
  FILE *f = fopen(path, "r");
  long pid = 0;
  if (f && fscanf(f, "%ld", &pid) != 1) pid = 0;
  if (f) fclose(f);
  return pid;
}

static bool check(void *userdata) {
  Check *k = userdata;
  if (!pthread_equal(pthread_self(), k->caller)) k->other_thread = true;
  k->calls++;
  if (k->pid_file) return read_pid(k->pid_file) > 0;
  return k->stop_after > 0 && k->calls >= k->stop_after;
}

/* Whether process pid runs (a zombie does not: nothing reaps an orphan in some containers). */
static bool alive(long pid) {
  char path[64], stat[256];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = fread(stat, 1, sizeof stat - 1, f);
  fclose(f);
  stat[n] = '\0';
  const char *close = strrchr(stat, ')');
  return close && close[1] == ' ' && close[2] != 'Z';
}

static P2cStatus launch(P2cCompiler *c, uint32_t grid, double *a, size_t n) {
  P2cHostArray arr = {.dtype = P2C_FLOAT64, .ndim = 1, .shape = {(int64_t)n}, .strides = {8}, .data = a};
  P2cValue args[2] = {{.is_array = true, .type = P2C_FLOAT64, .array = arr},
                      {.type = P2C_FLOAT64, .scalar.f = 7.0}};
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM, .grid = {grid, 1, 1}, .block = {1, 1, 1}};
  P2cModule *diags = NULL;
  P2cStatus s = p2c_launch(c, "put.py", src, sizeof src - 1, "put", args, 2, &o, NULL, &diags);
  p2c_module_delete(diags);
  return s;
}

static void interrupt_ends_the_host_compiler(void **state) {
  (void)state;
  char pids[300], cxx[1024];
  snprintf(pids, sizeof pids, "%s/pids", tmp);
  snprintf(cxx, sizeof cxx, "%s/tests/sim/slow_cxx.sh", P2C_SOURCE_DIR);
  setenv("PYK2CUDA_CXX", cxx, 1);
  setenv("SLOW_CXX_PIDS", pids, 1);
  P2cCompiler *c = p2c_compiler_new(NULL);
  Check k = {.caller = pthread_self(), .pid_file = pids};
  p2c_compiler_set_interrupt(c, check, &k);
  double a[1] = {0};
  double t0 = now_s();
  P2cStatus s = launch(c, 1, a, 1);
  double secs = now_s() - t0;
  unsetenv("PYK2CUDA_CXX");
  assert_int_equal(s, P2C_ERR_INTERRUPTED);
  assert_non_null(strstr(p2c_compiler_last_error(c), "interrupted while the host C++ compiler"));
  assert_true(secs < 60);   /* the fake compiler sleeps 300 s */
  assert_false(k.other_thread);
  assert_true(a[0] == 0);
  long worker = read_pid(pids);
  assert_true(worker > 0);
  for (int i = 0; i < 100 && alive(worker); i++) usleep(10000);
  if (alive(worker)) {
    kill((pid_t)worker, SIGKILL);
    fail_msg("the compiler's worker %ld runs on", worker);
  }
  char sim[320];
  snprintf(sim, sizeof sim, "%s/cache/sim", tmp);
  DIR *d = opendir(sim);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') fail_msg("the cache holds %s after the interrupt", e->d_name);
  if (d) closedir(d);
  p2c_compiler_delete(c);
}

static void interrupt_ends_a_long_launch(void **state) {
  (void)state;
  P2cCompiler *c = p2c_compiler_new(NULL);
  double a[4] = {0};
  /* compiled (and cached) by a launch that ends by itself */
  assert_int_equal(launch(c, 4, a, 4), P2C_OK);
  assert_true(a[0] == 7 && a[3] == 7);
  Check k = {.caller = pthread_self(), .stop_after = 3};
  p2c_compiler_set_interrupt(c, check, &k);
  double t0 = now_s();
  P2cStatus s = launch(c, 2147483647u, a, 4);   /* minutes of blocks on a loaded machine */
  double secs = now_s() - t0;
  assert_int_equal(s, P2C_ERR_INTERRUPTED);
  assert_non_null(strstr(p2c_compiler_last_error(c), "interrupted after"));
  assert_int_equal(k.calls, 3);
  assert_false(k.other_thread);
  assert_true(secs < 30);
  /* a launch that the check lets run finishes, and one without a check too */
  k = (Check){.caller = pthread_self()};
  a[0] = a[3] = 0;
  assert_int_equal(launch(c, 4, a, 4), P2C_OK);
  assert_true(a[0] == 7 && a[3] == 7);
  p2c_compiler_set_interrupt(c, NULL, NULL);
  assert_int_equal(launch(c, 4, a, 4), P2C_OK);
  assert_string_equal(p2c_status_string(P2C_ERR_INTERRUPTED), "interrupted");
  p2c_compiler_delete(c);
}

/* A kernel that never ends: no barrier (plain blocks) and with one (fibers). */
static const char spin_src[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def spin(a):\n"
    "    while a[0] == 0:\n"
    "        pass\n"
    "    a[1] = 7\n"
    "\n"
    "@cuda.jit\n"
    "def spin_fibers(a):\n"
    "    cuda.syncthreads()\n"
    "    while a[0] == 0:\n"
    "        pass\n"
    "    a[1] = 7\n";

static P2cStatus launch_spin(P2cCompiler *c, const char *kernel, int64_t *a) {
  P2cHostArray arr = {.dtype = P2C_INT64, .ndim = 1, .shape = {2}, .strides = {8}, .data = a};
  P2cValue args[1] = {{.is_array = true, .type = P2C_INT64, .array = arr}};
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM, .grid = {2, 1, 1}, .block = {32, 1, 1}};
  P2cModule *diags = NULL;
  P2cStatus s = p2c_launch(c, "spin.py", spin_src, sizeof spin_src - 1, kernel, args, 1, &o, NULL, &diags);
  p2c_module_delete(diags);
  return s;
}

/* A check that says stop while the kernel's threads spin for ever ends the launch: the
 * kernel's loops poll it (P2C_SIM_POLL, docs/simulator.md "Stopping a launch"); before, the
 * call never came back. The check still runs on the calling thread only, and the kernel
 * launches again. */
static void interrupt_ends_a_kernel_that_never_ends(void **state) {
  (void)state;
  const char *kernels[] = {"spin", "spin_fibers"};
  for (int i = 0; i < 2; i++) {
    P2cCompiler *c = p2c_compiler_new(NULL);
    int64_t a[2] = {1, 0};
    assert_int_equal(launch_spin(c, kernels[i], a), P2C_OK);   /* compiled first */
    Check k = {.caller = pthread_self(), .stop_after = 3};
    p2c_compiler_set_interrupt(c, check, &k);
    a[0] = a[1] = 0;
    double t0 = now_s();
    P2cStatus s = launch_spin(c, kernels[i], a);
    double secs = now_s() - t0;
    assert_int_equal(s, P2C_ERR_INTERRUPTED);
    assert_int_equal(k.calls, 3);
    assert_false(k.other_thread);
    assert_true(secs < 30);
    assert_true(a[1] == 0);
    a[0] = 1;
    assert_int_equal(launch_spin(c, kernels[i], a), P2C_OK);
    assert_true(a[1] == 7);
    p2c_compiler_delete(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(interrupt_ends_the_host_compiler, setup, teardown),
      cmocka_unit_test_setup_teardown(interrupt_ends_a_long_launch, setup, teardown),
      cmocka_unit_test_setup_teardown(interrupt_ends_a_kernel_that_never_ends, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
