/* Tests of the CPU simulator (src/runtime/sim): compile, cache, launch, barriers, atomics.
 *
 * The inputs are hand-written CUDA C in the generated format (tests/sim/NAME.cu). Arguments are
 * packed exactly as docs/generated-code.md says (data pointer, extents, byte strides). Every
 * test uses a private cache folder, removed at the end. With P2C_SIM_BENCH=1 in the
 * environment, test_bench prints the numbers quoted in docs/simulator.md. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"

#include "runtime/bounds.h"
#include "runtime/sim/fault.h"
#include "runtime/sim/lines.h"
#include "runtime/sim/module.h"   /* the module's line table, for the damaged-table test */
#include "runtime/sim/prelude.h" /* its C part: the math memory's layout and hash */
#include "runtime/sim/sim.h"

#ifndef P2C_SIM_TEST_DIR
#include "runtime/sim/sim_test_config.h"
#endif

static char cache_dir[256]; /* private cache for this run */

/* ---- Helpers ------------------------------------------------------------------------------- */

/* An array argument as the kernel receives it: data, ndim extents, ndim byte strides. */
typedef struct ArrayArg {
  _Alignas(8) unsigned char bytes[8 + 16 * P2C_MAX_NDIM];
} ArrayArg;

/* Packs a C-ordered array of `ndim` dimensions. */
static ArrayArg pack(void *data, size_t elem_size, int ndim, const int64_t *shape) {
  ArrayArg a;
  memset(&a, 0, sizeof a);
  memcpy(a.bytes, &data, sizeof data);
  int64_t stride = (int64_t)elem_size;
  for (int d = ndim - 1; d >= 0; d--) {
    memcpy(a.bytes + 8 + 8 * d, &shape[d], 8);
    memcpy(a.bytes + 8 + 8 * ndim + 8 * d, &stride, 8);
    stride *= shape[d];
  }
  return a;
}

static ArrayArg pack1(void *data, size_t elem_size, int64_t n) {
  return pack(data, elem_size, 1, &n);
}

static char *read_input(const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", P2C_SIM_TEST_DIR, name);
  return test_read_file(path, len);
}

/* Loads tests/sim/<name> with `req` as the base request (NULL: defaults, private cache). */
static P2cStatus load_with(const char *name, const SimLoadRequest *base, SimModule **out) {
  SimLoadRequest req = {0};
  if (base) req = *base;
  if (!req.cache_dir) req.cache_dir = cache_dir;
  size_t len;
  char *src = read_input(name, &len);
  req.source = src;
  req.source_len = len;
  P2cStatus st = sim_module_load(&req, out);
  free(src);
  return st;
}

static SimModule *load(const char *name) {
  SimModule *m = NULL;
  P2cStatus st = load_with(name, NULL, &m);
  if (st != P2C_OK)
    fprintf(stderr, "load %s: %s\n%s\n", name, sim_module_error(m), sim_module_log(m));
  assert_int_equal(st, P2C_OK);
  assert_non_null(m);
  return m;
}

static SimDim3 dim3(uint32_t x, uint32_t y, uint32_t z) { return (SimDim3){x, y, z}; }

static char errbuf[1024];

static SimLaunch launch_of(const char *symbol, SimDim3 grid, SimDim3 block, void **args,
                           bool uses_barrier) {
  SimLaunch l = {0};
  l.symbol = symbol;
  l.grid = grid;
  l.block = block;
  l.args = args;
  l.uses_barrier = uses_barrier;
  l.errbuf = errbuf;
  l.errbuf_size = sizeof errbuf;
  errbuf[0] = '\0';
  return l;
}

static void assert_launch_ok(SimModule *m, const SimLaunch *l) {
  P2cStatus st = sim_launch(m, l);
  if (st != P2C_OK) fprintf(stderr, "launch %s: %s\n", l->symbol, errbuf);
  assert_int_equal(st, P2C_OK);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Removes a folder and everything in it (two levels are enough here). */
static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char path[1024];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (unlink(path) != 0) remove_tree(path);
  }
  closedir(d);
  rmdir(dir);
}

/* The one file in `dir` ending in `suffix`; asserts there is exactly one. */
static void only_file(const char *dir, const char *suffix, char *out, size_t size) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int found = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name), k = strlen(suffix);
    if (n > k && !strcmp(e->d_name + n - k, suffix)) {
      snprintf(out, size, "%s/%s", dir, e->d_name);
      found++;
    }
  }
  closedir(d);
  assert_int_equal(found, 1);
}

static int group_setup(void **state) {
  (void)state;
  const char *tmp = getenv("TMPDIR");
  snprintf(cache_dir, sizeof cache_dir, "%s/p2c-test-sim-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  return mkdtemp(cache_dir) ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  char sim[300];
  snprintf(sim, sizeof sim, "%s/sim", cache_dir);
  remove_tree(sim);
  remove_tree(cache_dir);
  return 0;
}

/* ---- Launches ------------------------------------------------------------------------------ */

/* vecadd over an uneven grid: the last block is partly idle. Same result on 1, 3 and all CPUs. */
static void test_vecadd(void **state) {
  (void)state;
  SimModule *m = load("vecadd.cu");
  const int64_t n = 100003;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *out = malloc(n * sizeof *out);
  for (int64_t i = 0; i < n; i++) a[i] = (float)i * 0.5f, b[i] = (float)(n - i);
  ArrayArg pa = pack1(a, 4, n), pb = pack1(b, 4, n), po = pack1(out, 4, n);
  void *args[] = {&pa, &pb, &po};
  unsigned threads[] = {1, 3, 0};
  for (size_t t = 0; t < 3; t++) {
    memset(out, 0xff, n * sizeof *out);
    SimDim3 grid = dim3((uint32_t)((n + 255) / 256), 1, 1);
    SimLaunch l = launch_of("vecadd", grid, dim3(256, 1, 1), args, false);
    l.threads = threads[t];
    assert_launch_ok(m, &l);
    for (int64_t i = 0; i < n; i++) assert_true(out[i] == a[i] + b[i]);
  }
  free(a), free(b), free(out);
  sim_module_delete(m);
}

/* A 2-D grid of 2-D blocks: every cell knows who wrote it; then a 3-D launch that counts
 * every thread exactly once. */
static void test_grid_indices(void **state) {
  (void)state;
  SimModule *m = load("grid2d.cu");
  const int64_t rows = 37, cols = 53, shape[3] = {rows, cols, 4};
  int32_t *out = calloc(rows * cols * 4, sizeof *out);
  ArrayArg po = pack(out, 4, 3, shape);
  void *args[] = {&po};
  SimLaunch l = launch_of("grid2d", dim3(7, 10, 1), dim3(8, 4, 1), args, false);
  assert_launch_ok(m, &l);
  for (int64_t y = 0; y < rows; y++)
    for (int64_t x = 0; x < cols; x++) {
      const int32_t *c = out + (y * cols + x) * 4;
      assert_int_equal(c[0], (x / 8) * 1000 + y / 4);
      assert_int_equal(c[1], (x % 8) * 1000 + y % 4);
      assert_int_equal(c[2], 7 * 1000 + 10);
      assert_int_equal(c[3], 8 * 1000 + 4);
    }

  const SimDim3 g = {3, 2, 4}, b = {4, 3, 2};
  const int64_t total = 3 * 2 * 4 * 4 * 3 * 2;
  int32_t *seen = calloc(total, sizeof *seen), *where = calloc(total, sizeof *where);
  ArrayArg ps = pack1(seen, 4, total), pw = pack1(where, 4, total);
  void *args3[] = {&ps, &pw};
  l = launch_of("ids3d", g, b, args3, false);
  assert_launch_ok(m, &l);
  for (int64_t id = 0; id < total; id++) {
    int64_t thread = id % 24, block = id / 24;
    int64_t want = block % 3 + 10 * (block / 3 % 2) + 100 * (block / 6) + 1000 * (thread % 4) +
                   10000 * (thread / 4 % 3) + 100000 * (thread / 12);
    assert_int_equal(seen[id], 1);
    assert_int_equal(where[id], want);
  }
  free(out), free(seen), free(where);
  sim_module_delete(m);
}

/* A tree reduction in shared memory with a barrier per level, against a plain C sum. */
static void test_block_reduce(void **state) {
  (void)state;
  SimModule *m = load("reduce.cu");
  const int64_t n = 256 * 64 + 77, blocks = (n + 255) / 256;
  float *a = malloc(n * sizeof *a), *sums = malloc(blocks * sizeof *sums);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 17) * 0.25f;
  ArrayArg pa = pack1(a, 4, n), ps = pack1(sums, 4, blocks);
  void *args[] = {&pa, &ps};
  unsigned threads[] = {1, 4, 0};
  for (size_t t = 0; t < 3; t++) {
    memset(sums, 0, blocks * sizeof *sums);
    SimLaunch l = launch_of("block_sum", dim3((uint32_t)blocks, 1, 1), dim3(256, 1, 1), args, true);
    l.threads = threads[t];
    assert_launch_ok(m, &l);
    double total = 0, want_total = 0;
    for (int64_t blk = 0; blk < blocks; blk++) {
      float want = 0;
      for (int64_t i = blk * 256; i < n && i < (blk + 1) * 256; i++) want += a[i];
      assert_true(sums[blk] == want);  /* exact: quarters, block sums below 2^24 */
      total += sums[blk];
    }
    for (int64_t i = 0; i < n; i++) want_total += a[i];
    assert_true(total == want_total);
  }
  free(a), free(sums);
  sim_module_delete(m);
}

/* __syncthreads_count/_and/_or, and dynamic shared memory. */
static void test_barrier_variants(void **state) {
  (void)state;
  SimModule *m = load("reduce.cu");
  int32_t counts[7] = {0}, bad[1] = {0};
  ArrayArg pc = pack1(counts, 4, 7), pb = pack1(bad, 4, 1);
  void *args[] = {&pc, &pb};
  SimLaunch l = launch_of("count_threes", dim3(7, 1, 1), dim3(100, 1, 1), args, true);
  assert_launch_ok(m, &l);
  for (int i = 0; i < 7; i++) assert_int_equal(counts[i], 34);
  assert_int_equal(bad[0], 0);

  int32_t v[5 * 128];
  for (int i = 0; i < 5 * 128; i++) v[i] = i;
  ArrayArg pv = pack1(v, 4, 5 * 128);
  void *args2[] = {&pv};
  l = launch_of("reverse_blocks", dim3(5, 1, 1), dim3(128, 1, 1), args2, true);
  l.dynamic_shared_bytes = 128 * 4;
  assert_launch_ok(m, &l);
  for (int i = 0; i < 5 * 128; i++) assert_int_equal(v[i], (i / 128) * 128 + 127 - i % 128);
  sim_module_delete(m);
}

/* Half the block waits at a barrier, the other half has returned: an error naming the block. */
static void test_partial_barrier(void **state) {
  (void)state;
  SimModule *m = load("partial_barrier.cu");
  int64_t n = 64;
  void *args[] = {&n};
  SimLaunch l = launch_of("half_barrier", dim3(4, 1, 1), dim3(64, 1, 1), args, true);
  l.threads = 1;
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "half_barrier"));
  assert_non_null(strstr(errbuf, "only part of block (0,0,0)"));
  assert_non_null(strstr(errbuf, "32 threads arrived, 32 exited"));

  /* Many workers: still one clean error, and the module can launch again afterwards. */
  l.threads = 0;
  l.grid = dim3(64, 1, 1);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "32 threads arrived, 32 exited"));
  n = 200; /* every thread below n/2: the whole block reaches the barrier */
  l = launch_of("half_barrier", dim3(64, 1, 1), dim3(64, 1, 1), args, true);
  assert_launch_ok(m, &l);

  /* A barrier in a launch that said it has none. */
  l = launch_of("has_barrier", dim3(2, 1, 1), dim3(32, 1, 1), NULL, false);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "without barrier support"));
  sim_module_delete(m);
}

/* A thread that ends itself (p2c_sim_exit_thread, what --check-bounds does) stops the launch:
 * on one worker, every thread before it ran and none after it; with barriers, the rest of its
 * block is abandoned instead of waiting for it. The module launches normally afterwards. */
static void test_exit_thread(void **state) {
  (void)state;
  SimModule *m = load("exit_thread.cu");
  const int64_t blocks = 64, per = 128, n = blocks * per;
  int32_t *ran = malloc(n * sizeof *ran);
  ArrayArg pr = pack1(ran, 4, n);
  int64_t victim = 3 * per + 17;
  void *args[] = {&pr, &victim};
  const char *kernels[] = {"stop_one", "stop_before_barrier"};
  for (int k = 0; k < 2; k++) {
    bool barrier = k == 1;
    memset(ran, 0, n * sizeof *ran);
    SimLaunch l = launch_of(kernels[k], dim3(blocks, 1, 1), dim3(per, 1, 1), args, barrier);
    l.threads = 1;
    assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
    assert_non_null(strstr(errbuf, "stopped"));
    assert_non_null(strstr(errbuf, kernels[k]));
    /* Without barriers the threads before the victim ran; with, its whole block stopped. */
    int64_t first_idle = barrier ? 3 * per : victim;
    for (int64_t i = 0; i < n; i++) assert_int_equal(ran[i], i < first_idle);

    /* Every worker: one clean error, whoever runs what. */
    l.threads = 0;
    assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
    assert_int_equal(ran[victim], 0);

    victim = -1;
    l = launch_of(kernels[k], dim3(blocks, 1, 1), dim3(per, 1, 1), args, barrier);
    assert_launch_ok(m, &l);
    for (int64_t i = 0; i < n; i++) assert_int_equal(ran[i], 1);
    victim = 3 * per + 17;
  }
  free(ran);
  sim_module_delete(m);
}

/* ---- Faults (docs/simulator.md, "Faults") ------------------------------------------------- */

/* A page that faults when touched, as the address of a wild index does. */
static int32_t *no_access_page(void) {
  void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(p != MAP_FAILED);
  return p;
}

/* A kernel's wild store ends its launch with P2C_ERR_ILLEGAL_ADDRESS naming the kernel, the
 * thread, its block and the address, on one worker and on all, with and without barriers, and
 * reporting the source line of the store (SimLaunch.fault, from the module's line table). The
 * module then refuses every launch, even a correct one, as a CUDA context does after
 * CUDA_ERROR_ILLEGAL_ADDRESS; the same module loaded again runs. Before the handler, the
 * process (this test) died of SIGSEGV. */
static void test_fault_wild_store(void **state) {
  (void)state;
  int32_t *wild = no_access_page();
  const int64_t blocks = 64, per = 128, n = blocks * per;
  int32_t *ran = calloc((size_t)n, sizeof *ran);
  ArrayArg pr = pack1(ran, 4, n), pw = pack1(wild, 4, 1024);
  int64_t victim;
  void *args[] = {&pr, &victim, &pw};
  const char *kernels[] = {"wild_store", "wild_store_barrier"};
  char address[40];
  snprintf(address, sizeof address, "at address %p", (void *)wild);
  for (int k = 0; k < 2; k++) {
    for (unsigned threads = 1; threads != 2; threads = threads ? 0 : 2) {  /* 1, then all */
      SimModule *m = load("wild.cu");
      victim = 3 * per + 17;
      SimLaunch l = launch_of(kernels[k], dim3(blocks, 1, 1), dim3(per, 1, 1), args, k == 1);
      SimFaultReport at = {7, 7};
      l.threads = threads;
      l.fault = &at;
      assert_int_equal(sim_launch(m, &l), P2C_ERR_ILLEGAL_ADDRESS);
      assert_int_equal(at.source_line, k == 1 ? 26 : 18);   /* wild.cu's `wild.data[0] = 1;` */
      assert_int_equal(at.python_line, 0);                  /* no Python source given */
      assert_non_null(strstr(errbuf, kernels[k]));
      assert_non_null(strstr(errbuf, "an illegal memory access (SIGSEGV)"));
      assert_non_null(strstr(errbuf, address));
      /* Without barriers a worker knows the blocks of its chunk; a fiber is the thread. */
      assert_non_null(strstr(errbuf, k == 1 ? "by thread (17,0,0) of block (3,0,0)" : "(3,0,0)"));
      victim = -1;   /* a correct launch: refused all the same */
      assert_int_equal(sim_launch(m, &l), P2C_ERR_ILLEGAL_ADDRESS);
      assert_non_null(strstr(errbuf, "cannot launch: an earlier launch of this module faulted"));
      sim_module_delete(m);

      m = load("wild.cu");
      memset(ran, 0, (size_t)n * sizeof *ran);
      assert_launch_ok(m, &l);
      for (int64_t i = 0; i < n; i++) assert_int_equal(ran[i], 1);
      sim_module_delete(m);
    }
  }
  free(ran);
  munmap(wild, 4096);
}

/* A line table cut short or with bytes changed gives some lines or none, never a read outside
 * it (each copy has exactly its own size, so AddressSanitizer sees any overread). */
static void test_fault_lines_damaged(void **state) {
  (void)state;
  SimModule *m = load("wild.cu");
  const SimLines *whole = &m->lines;
  assert_true(whole->size > 0);
  uint32_t lines[4];
  uint64_t seed = 88172645463325252u;
  for (size_t cut = 0; cut <= whole->size; cut += cut < 256 ? 1 : 61) {
    for (int flip = 0; flip < 3; flip++) {
      SimLines copy = {malloc(cut ? cut : 1), cut};
      memcpy(copy.bytes, whole->bytes, cut);
      seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
      if (flip && cut) copy.bytes[seed % cut] ^= (unsigned char)(seed >> 32 | 1);
      for (uint64_t addr = 0; addr < 0x4000; addr += 0x3d)
        assert_true(sim_lines_find(&copy, SIM_SOURCE_FILE, addr, lines, 4) <= 4);
      free(copy.bytes);
    }
  }
  sim_module_delete(m);
}

/* A fiber whose locals outgrow its stack runs into the guard page below it: the launch fails
 * with a message saying so, and the same kernel with stacks large enough runs. */
static void test_fault_stack_overflow(void **state) {
  (void)state;
  int32_t ran[64];
  ArrayArg pr = pack1(ran, 4, 64), pw = pack1(ran, 4, 64);
  int64_t victim = 0;
  void *args[] = {&pr, &victim, &pw};
  SimModule *m = load("wild.cu");
  SimLaunch l = launch_of("big_local", dim3(2, 1, 1), dim3(32, 1, 1), args, true);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_ILLEGAL_ADDRESS);
  assert_non_null(strstr(errbuf, "kernel 'big_local': thread ("));
  assert_non_null(strstr(errbuf, "overflowed its 64 KiB simulator stack"));
  sim_module_delete(m);

  m = load("wild.cu");
  l.stack_bytes = 512 * 1024;
  memset(ran, 0, sizeof ran);
  assert_launch_ok(m, &l);
  for (int i = 0; i < 64; i++) assert_int_equal(ran[i], 1);
  sim_module_delete(m);
}

/* A kernel that declares its locals (P2C_SIM_STACK, as generated code does) gets fiber stacks
 * that hold them, with the launch's stack_bytes left at 0: the same 256 KiB of locals that
 * overflow a 64 KiB stack above run, on one worker and on all. */
static void test_stack_from_kernel(void **state) {
  (void)state;
  int32_t ran[64];
  ArrayArg pr = pack1(ran, 4, 64), pw = pack1(ran, 4, 64);
  int64_t victim = 0;
  void *args[] = {&pr, &victim, &pw};
  SimModule *m = load("wild.cu");
  SimLaunch l = launch_of("big_local_declared", dim3(2, 1, 1), dim3(32, 1, 1), args, true);
  for (unsigned threads = 1; threads != 2; threads = threads ? 0 : 2) {  /* 1, then all */
    l.threads = threads;
    memset(ran, 0, sizeof ran);
    assert_launch_ok(m, &l);
    for (int i = 0; i < 64; i++) assert_int_equal(ran[i], 1);
  }
  sim_module_delete(m);
}

/* Runs `what` in a child process; returns the signal that ended it, 0 when it exited. */
static int child_signal(void (*what)(void)) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);   /* no core file from the test */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    what();
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/* An address in the first page, never mapped (not NULL itself, which UBSan would report). */
static int *volatile low_pointer;

static void store_to_null(void) {
  sim_fault_install();
  low_pointer = (int *)(uintptr_t)64;
  *low_pointer = 1;
}

/* Armed as a worker is, but the faulting instruction is pyk2cuda's (this test is linked into the
 * same object as the library): not a kernel's fault, so not caught. */
static void store_to_null_armed(void) {
  sim_fault_install();
  sigjmp_buf jump;
  SimFaultCatch c = {.jump = &jump};
  if (sigsetjmp(jump, 0) != 0) _exit(7);   /* caught: wrong */
  sim_fault_arm(&c);
  low_pointer = (int *)(uintptr_t)64;
  *low_pointer = 1;
}

/* A fault outside a kernel is not the simulator's: the process still dies of SIGSEGV, as before
 * the handler was installed. */
static void test_fault_outside_kernel(void **state) {
  (void)state;
  assert_int_equal(child_signal(store_to_null), SIGSEGV);
  assert_int_equal(child_signal(store_to_null_armed), SIGSEGV);
}

/* The process's memory mappings (lines of /proc/self/maps). */
static int mapping_count(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  assert_non_null(f);
  int n = 0, c;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

/* A launch with barriers on 32 workers of 1024-thread blocks (a 32-core workstation) needed
 * 32,768 fiber stacks, two mappings each, more than the 65,530 Linux allows: the launch failed
 * ("cannot allocate fiber stacks") and the process could start no thread. Fibers are bounded
 * (SIM_MAX_FIBERS, 16,384): fewer workers take the blocks. */
static void test_fiber_mappings_bounded(void **state) {
  (void)state;
  const int64_t blocks = 32, per = 1024, n = blocks * per;
  int32_t *ran = calloc((size_t)n, sizeof *ran);
  ArrayArg pr = pack1(ran, 4, n), pw = pack1(ran, 4, n);
  int64_t victim = -1;
  void *args[] = {&pr, &victim, &pw};
  SimModule *m = load("wild.cu");
  int before = mapping_count();
  SimLaunch l = launch_of("wild_store_barrier", dim3(blocks, 1, 1), dim3(per, 1, 1), args, true);
  l.threads = 32;
  assert_launch_ok(m, &l);
  for (int64_t i = 0; i < n; i++) assert_int_equal(ran[i], 1);
  /* Beside the fibers' two mappings each: per worker thread its stack and guard, and the malloc
   * arena glibc may give a thread (a heap and its reserve), which came and went with the load
   * (the test failed now and then with 64 to spare for all of it). */
  int added = mapping_count() - before;
  if (added > 2 * 16384 + 4 * 32 + 64) fail_msg("the launch added %d mappings", added);
  sim_module_delete(m);
  free(ran);
}

/* A second thread's launch of a module whose launch is in a short interrupt check (the host's
 * check ends; it does not wait for that launch) waits for the lock and runs, as launches of one
 * module from two threads always have: only a check that stays (a signal handler waiting for the
 * launch it made) makes a launch fail (tests/python/test_reentrant_launch.py). */
typedef struct CheckMeet {
  SimModule *m;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  bool in_check;
  P2cStatus second;
  char err[512];
} CheckMeet;

static bool short_check(void *userdata) {
  CheckMeet *c = userdata;
  pthread_mutex_lock(&c->lock);
  bool first = !c->in_check;
  c->in_check = true;
  pthread_cond_broadcast(&c->wake);
  pthread_mutex_unlock(&c->lock);
  if (first) nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);   /* the other one arrives */
  return false;
}

static void *second_launch(void *arg) {
  CheckMeet *c = arg;
  pthread_mutex_lock(&c->lock);
  while (!c->in_check) pthread_cond_wait(&c->wake, &c->lock);
  pthread_mutex_unlock(&c->lock);
  int32_t ran[32];
  ArrayArg pr = pack1(ran, 4, 32);
  int64_t turns = 0;
  void *args[] = {&pr, &turns, &pr};
  SimLaunch l = launch_of("slow", dim3(1, 1, 1), dim3(32, 1, 1), args, false);
  l.errbuf = c->err;
  l.errbuf_size = sizeof c->err;
  c->second = sim_launch(c->m, &l);
  return NULL;
}

static void test_launch_waits_for_a_check(void **state) {
  (void)state;
  CheckMeet c = {.m = load("wild.cu"), .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, second_launch, &c), 0);
  const int64_t blocks = 64, per = 32, n = blocks * per;
  int32_t *ran = calloc((size_t)n, sizeof *ran);
  ArrayArg pr = pack1(ran, 4, n);
  int64_t turns = 200000;   /* about 0.1 ms a thread: the launch lasts past the first check */
  void *args[] = {&pr, &turns, &pr};
  SimLaunch l = launch_of("slow", dim3(blocks, 1, 1), dim3(per, 1, 1), args, false);
  l.threads = 1;
  l.interrupt = short_check;
  l.interrupt_userdata = &c;
  assert_launch_ok(c.m, &l);
  pthread_join(t, NULL);
  if (c.second != P2C_OK) fprintf(stderr, "second launch: %s\n", c.err);
  assert_true(c.in_check);
  assert_int_equal(c.second, P2C_OK);
  free(ran);
  sim_module_delete(c.m);
}

/* ---- Bounds checking (--check-bounds) ------------------------------------------------------ */

/* tests/sim/bounds.py translated with bounds checks for `sigs`, and loaded in the simulator. */
typedef struct Checked {
  P2cCompiler *c;
  P2cModule *pm;
  SimModule *m;
} Checked;

static Checked load_checked(const char *const *sigs, size_t nsigs) {
  Checked ck = {p2c_compiler_new(NULL), NULL, NULL};
  assert_non_null(ck.c);
  p2c_compiler_set_check_bounds(ck.c, true);
  size_t len;
  char *src = read_input("bounds.py", &len);
  P2cTranslateOptions o = {0};
  o.signatures = sigs;
  o.signature_count = nsigs;
  o.skip_unsigned_kernels = true;
  P2cStatus st = p2c_translate(ck.c, "bounds.py", src, len, &o, &ck.pm);
  free(src);
  if (st != P2C_OK) fprintf(stderr, "%s\n", p2c_compiler_last_error(ck.c));
  assert_int_equal(st, P2C_OK);
  size_t n;
  const char *text = p2c_module_cuda(ck.pm, &n);
  assert_non_null(strstr(text, "p2c_bounds_offset<"));
  SimLoadRequest req = {.source = text, .source_len = n, .cache_dir = cache_dir};
  st = sim_module_load(&req, &ck.m);
  if (st != P2C_OK) fprintf(stderr, "%s\n%s\n", sim_module_error(ck.m), sim_module_log(ck.m));
  assert_int_equal(st, P2C_OK);
  return ck;
}

static void unload_checked(Checked *ck) {
  sim_module_delete(ck->m);
  p2c_module_delete(ck->pm);
  p2c_compiler_delete(ck->c);
}

/* The symbol of the specialization of `kernel` whose signature contains `sig_part`. */
static const char *symbol_of(const Checked *ck, const char *kernel, const char *sig_part) {
  for (size_t i = 0; i < p2c_module_kernel_count(ck->pm); i++) {
    P2cKernelInfo k = p2c_module_kernel(ck->pm, i);
    if (!strcmp(k.python_name, kernel) && strstr(k.signature, sig_part)) return k.symbol;
  }
  fail_msg("no specialization of %s with %s", kernel, sig_part);
  return NULL;
}

/* An array argument with explicit byte strides. */
static ArrayArg pack_strided(void *data, int ndim, const int64_t *shape, const int64_t *strides) {
  ArrayArg a;
  memset(&a, 0, sizeof a);
  memcpy(a.bytes, &data, sizeof data);
  memcpy(a.bytes + 8, shape, 8 * (size_t)ndim);
  memcpy(a.bytes + 8 + 8 * ndim, strides, 8 * (size_t)ndim);
  return a;
}

/* Launches and expects P2C_ERR_BOUNDS; returns the record. */
static P2cBoundsRecord launch_expect_oob(SimModule *m, SimLaunch *l) {
  P2cBoundsRecord rec;
  memset(&rec, 0xab, sizeof rec);
  l->bounds = &rec;
  P2cStatus st = sim_launch(m, l);
  if (st != P2C_ERR_BOUNDS) fprintf(stderr, "launch %s: status %d: %s\n", l->symbol, st, errbuf);
  assert_int_equal(st, P2C_ERR_BOUNDS);
  assert_int_equal(rec.claimed, 1);
  assert_non_null(strstr(errbuf, "is out of bounds for axis"));
  return rec;
}

static void assert_thread(const P2cBoundsRecord *r, uint32_t block_x, uint32_t thread_x) {
  assert_int_equal(r->block[0], block_x);
  assert_int_equal(r->block[1], 0);
  assert_int_equal(r->block[2], 0);
  assert_int_equal(r->thread[0], thread_x);
  assert_int_equal(r->thread[1], 0);
  assert_int_equal(r->thread[2], 0);
}

/* One index of a 1-D array: in bounds, wrapped from the end, out of bounds at either end. The
 * record names the line and column of the subscript, the thread, the index as written and the
 * shape; the module launches normally afterwards (the record is zeroed per launch). */
static void test_bounds_1d(void **state) {
  (void)state;
  const char *sigs[] = {"pick(float32[::1], float32[::1], int64, int64)",
                        "pick_unsigned(float32[::1], float32[::1], uint64)"};
  Checked ck = load_checked(sigs, 2);
  float a[10], out[1];
  for (int i = 0; i < 10; i++) a[i] = (float)i + 0.5f;
  ArrayArg pa = pack1(a, 4, 10), po = pack1(out, 4, 1);
  int64_t who = 37, k = 0;
  void *args[] = {&pa, &po, &who, &k};
  for (k = -10; k < 10; k++) {
    out[0] = -1;
    SimLaunch l = launch_of("pick", dim3(2, 1, 1), dim3(32, 1, 1), args, false);
    assert_launch_ok(ck.m, &l);
    assert_true(out[0] == a[k < 0 ? k + 10 : k]);
  }
  const int64_t bad[] = {10, -11, 1000, INT64_MIN};
  for (size_t b = 0; b < 4; b++) {
    k = bad[b];
    SimLaunch l = launch_of("pick", dim3(2, 1, 1), dim3(32, 1, 1), args, false);
    l.threads = b % 2 ? 1 : 0;
    P2cBoundsRecord r = launch_expect_oob(ck.m, &l);
    assert_int_equal(r.line, 10);
    assert_int_equal(r.column, 18);
    assert_int_equal(r.ndim, 1);
    assert_int_equal(r.axis, 0);
    assert_int_equal(r.index[0], bad[b]);
    assert_int_equal(r.shape[0], 10);
    assert_thread(&r, 1, 5);
  }
  k = 10;
  SimLaunch l = launch_of("pick", dim3(2, 1, 1), dim3(32, 1, 1), args, false);
  launch_expect_oob(ck.m, &l);
  assert_string_equal(errbuf, "<source>:10:18: error: index 10 is out of bounds for axis 0 with "
                              "size 10 (array of shape (10,)) in kernel 'pick', thread (5,0,0) "
                              "of block (1,0,0)");
  k = 3;
  l = launch_of("pick", dim3(2, 1, 1), dim3(32, 1, 1), args, false);
  assert_launch_ok(ck.m, &l);
  assert_true(out[0] == 3.5f);

  /* A uint64 index is never wrapped; past INT64_MAX it is reported as INT64_MAX. */
  uint64_t u = 9;
  void *uargs[] = {&pa, &po, &u};
  l = launch_of("pick_unsigned", dim3(1, 1, 1), dim3(1, 1, 1), uargs, false);
  assert_launch_ok(ck.m, &l);
  assert_true(out[0] == 9.5f);
  const uint64_t ubad[] = {10, UINT64_MAX};
  for (int b = 0; b < 2; b++) {
    u = ubad[b];
    l = launch_of("pick_unsigned", dim3(1, 1, 1), dim3(1, 1, 1), uargs, false);
    P2cBoundsRecord r = launch_expect_oob(ck.m, &l);
    assert_int_equal(r.line, 55);
    assert_int_equal(r.index[0], b ? INT64_MAX : 10);
  }
  unload_checked(&ck);
}

/* A 3-D array in C order, Fortran order, and strided ('A'): every in-bounds index, negative
 * ones included, reads the right element through each layout's checked offset; each axis out
 * of bounds in turn, reading and writing, is caught and named. */
static void test_bounds_every_axis(void **state) {
  (void)state;
  const char *sigs[] = {
      "pick3(float64[:, :, ::1], float64[::1], int64, int64, int64, int64)",
      "pick3(float64[::1, :, :], float64[::1], int64, int64, int64, int64)",
      "pick3(float64[:, :, :], float64[::1], int64, int64, int64, int64)",
      "put3(float64[:, :, ::1], int64, int64, int64, int64)",
      "put3(float64[::1, :, :], int64, int64, int64, int64)",
      "put3(float64[:, :, :], int64, int64, int64, int64)",
  };
  Checked ck = load_checked(sigs, 6);
  const int64_t shape[3] = {2, 3, 4};
  const int64_t strides[3][3] = {{96, 32, 8}, {8, 16, 48}, {192, 64, 16}}; /* C, F, A */
  const char *layouts[3] = {"[:, :, ::1]", "[::1, :, :]", "[:, :, :]"};
  double *buf = calloc(2 * 3 * 8, sizeof *buf);
  double out[1];
  for (int lay = 0; lay < 3; lay++) {
    memset(buf, 0, 2 * 3 * 8 * sizeof *buf);
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 4; k++) {
          int64_t off = i * strides[lay][0] + j * strides[lay][1] + k * strides[lay][2];
          *(double *)((char *)buf + off) = i * 100 + j * 10 + k;
        }
    ArrayArg pa = pack_strided(buf, 3, shape, strides[lay]), po = pack1(out, 8, 1);
    int64_t who = 2, ix[3];
    void *args[] = {&pa, &po, &who, &ix[0], &ix[1], &ix[2]};
    const char *pick = symbol_of(&ck, "pick3", layouts[lay]);
    for (ix[0] = -2; ix[0] < 2; ix[0]++)
      for (ix[1] = -3; ix[1] < 3; ix[1] += 2)
        for (ix[2] = -4; ix[2] < 4; ix[2] += 3) {
          SimLaunch l = launch_of(pick, dim3(1, 1, 1), dim3(4, 1, 1), args, false);
          assert_launch_ok(ck.m, &l);
          int64_t i = (ix[0] + 2) % 2, j = (ix[1] + 3) % 3, k = (ix[2] + 4) % 4;
          assert_true(out[0] == (double)(i * 100 + j * 10 + k));
        }
    void *put_args[] = {&pa, &who, &ix[0], &ix[1], &ix[2]};
    const char *put = symbol_of(&ck, "put3", layouts[lay]);
    for (int axis = 0; axis < 3; axis++)
      for (int side = 0; side < 2; side++) {
        ix[0] = ix[1] = ix[2] = -1;
        ix[axis] = side ? -shape[axis] - 1 : shape[axis];
        for (int write = 0; write < 2; write++) {
          SimLaunch l = launch_of(write ? put : pick, dim3(1, 1, 1), dim3(4, 1, 1),
                                  write ? put_args : args, false);
          P2cBoundsRecord r = launch_expect_oob(ck.m, &l);
          assert_int_equal(r.line, write ? 22 : 16);
          assert_int_equal(r.column, write ? 9 : 18);
          assert_int_equal(r.ndim, 3);
          assert_int_equal(r.axis, axis);
          for (int d = 0; d < 3; d++) {
            assert_int_equal(r.index[d], ix[d]);
            assert_int_equal(r.shape[d], shape[d]);
          }
          assert_thread(&r, 0, 2);
        }
      }
    /* Nothing was written by the failed stores. */
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 4; k++) {
          int64_t off = i * strides[lay][0] + j * strides[lay][1] + k * strides[lay][2];
          assert_true(*(double *)((char *)buf + off) == i * 100 + j * 10 + k);
        }
  }
  free(buf);
  unload_checked(&ck);
}

/* Shared and local arrays, and a runtime index into a shape. In shared_bail, thread 3 fails
 * before the block's barrier, which the other threads of its block are waiting at: the launch
 * stops instead of waiting for it, on one worker and on all; as regions (the barrier ends the
 * first loop over the block's threads) and as fibers ($PYK2CUDA_SIM_FIBERS, read when the
 * compiler is made). */
static void bounds_shared_local(bool fibers) {
  const char *sigs[] = {"shared_bail(float32[::1], int64)", "local_pick(int32[::1], int64, int64, int64)",
                        "shape_pick(float32[:, ::1], int64[::1], int64)"};
  if (fibers) setenv("PYK2CUDA_SIM_FIBERS", "1", 1);
  Checked ck = load_checked(sigs, 3);
  unsetenv("PYK2CUDA_SIM_FIBERS");
  assert_true(sim_kernel_has_regions(ck.m, "shared_bail") == !fibers);
  float out[33];
  ArrayArg po = pack1(out, 4, 33);
  int64_t k = -4; /* sm[0, 3]: thread 3's own element, written before it reads */
  void *args[] = {&po, &k};
  SimLaunch l = launch_of("shared_bail", dim3(3, 1, 1), dim3(32, 1, 1), args, true);
  assert_launch_ok(ck.m, &l);
  assert_true(out[0] == 3.0f);
  for (int t = 0; t < 32; t++) assert_true(out[t + 1] == (float)(31 - t));
  const int64_t bad[] = {4, -5};
  for (int b = 0; b < 2; b++) {
    k = bad[b];
    l = launch_of("shared_bail", dim3(3, 1, 1), dim3(32, 1, 1), args, true);
    l.threads = b ? 0 : 1;
    P2cBoundsRecord r = launch_expect_oob(ck.m, &l);
    assert_int_equal(r.line, 31);
    assert_int_equal(r.column, 18);
    assert_int_equal(r.ndim, 2);
    assert_int_equal(r.axis, 0);
    assert_int_equal(r.index[0], bad[b]);
    assert_int_equal(r.index[1], 3);
    assert_int_equal(r.shape[0], 4);
    assert_int_equal(r.shape[1], 8);
    assert_int_equal(r.thread[0], 3);
    if (b == 0) assert_int_equal(r.block[0], 0); /* one worker: the first block fails first */
  }

  int32_t iout[1];
  ArrayArg pi = pack1(iout, 4, 1);
  int64_t who = 9, i = -1, j = -3;
  void *largs[] = {&pi, &who, &i, &j};
  l = launch_of("local_pick", dim3(1, 1, 1), dim3(16, 1, 1), largs, false);
  assert_launch_ok(ck.m, &l);
  assert_int_equal(iout[0], 30);
  j = 3;
  l = launch_of("local_pick", dim3(1, 1, 1), dim3(16, 1, 1), largs, false);
  P2cBoundsRecord r = launch_expect_oob(ck.m, &l);
  assert_int_equal(r.line, 43);
  assert_int_equal(r.axis, 1);
  assert_int_equal(r.index[0], -1);
  assert_int_equal(r.index[1], 3);
  assert_int_equal(r.shape[0], 2);
  assert_int_equal(r.shape[1], 3);
  assert_thread(&r, 0, 9);

  float a2[6];
  int64_t sh[1];
  const int64_t shape2[2] = {2, 3};
  ArrayArg pa = pack(a2, 4, 2, shape2), ps = pack1(sh, 8, 1);
  void *sargs[] = {&pa, &ps, &k};
  for (k = -2; k < 2; k++) {
    l = launch_of("shape_pick", dim3(1, 1, 1), dim3(1, 1, 1), sargs, false);
    assert_launch_ok(ck.m, &l);
    assert_int_equal(sh[0], shape2[k < 0 ? k + 2 : k]);
  }
  /* A tuple index out of range raises IndexError, as Numba's tuple getitem does: a raise
   * record (ndim 0) with Python's message. */
  k = 2;
  l = launch_of("shape_pick", dim3(1, 1, 1), dim3(1, 1, 1), sargs, false);
  memset(&r, 0xab, sizeof r);
  l.bounds = &r;
  assert_int_equal(sim_launch(ck.m, &l), P2C_ERR_BOUNDS);
  assert_int_equal(r.line, 49);
  assert_int_equal(r.ndim, 0);
  assert_non_null(strstr(errbuf, "error: IndexError: tuple index out of range in kernel"));
  unload_checked(&ck);
}

static void test_bounds_shared_local(void **state) {
  (void)state;
  bounds_shared_local(false);
  bounds_shared_local(true);
}

/* A view made by an integer index (m[2:, c] of a 2-D array) checks that index against the
 * extent it indexes: the record marks it as a view's and holds that index alone. The element
 * of the view is checked against the view's extent. */
static void test_bounds_views(void **state) {
  (void)state;
  const char *sigs[] = {"view_pick(float64[:, ::1], float64[::1], int64, int64)"};
  Checked ck = load_checked(sigs, 1);
  double m[5 * 4], out[1];
  for (int i = 0; i < 20; i++) m[i] = i;
  const int64_t shape[2] = {5, 4};
  ArrayArg pm = pack(m, 8, 2, shape), po = pack1(out, 8, 1);
  int64_t r = -1, c = -4;
  void *args[] = {&pm, &po, &r, &c};
  SimLaunch l = launch_of("view_pick", dim3(1, 1, 1), dim3(2, 1, 1), args, false);
  assert_launch_ok(ck.m, &l);
  assert_true(out[0] == 16.0); /* m[4, 0] */
  c = 4;
  l = launch_of("view_pick", dim3(1, 1, 1), dim3(2, 1, 1), args, false);
  P2cBoundsRecord rec = launch_expect_oob(ck.m, &l);
  assert_int_equal(rec.view, 1);
  assert_int_equal(rec.line, 74);
  assert_int_equal(rec.column, 18);
  assert_int_equal(rec.axis, 1);
  assert_int_equal(rec.ndim, 2);
  assert_int_equal(rec.index[1], 4);
  assert_int_equal(rec.shape[1], 4);
  assert_string_equal(errbuf, "<source>:74:18: error: index 4 is out of bounds for axis 1 with "
                              "size 4 in kernel 'view_pick', thread (0,0,0) of block (0,0,0)");
  c = 0;
  r = 3; /* the view m[2:, 0] has 3 elements */
  l = launch_of("view_pick", dim3(1, 1, 1), dim3(2, 1, 1), args, false);
  rec = launch_expect_oob(ck.m, &l);
  assert_int_equal(rec.view, 0);
  assert_int_equal(rec.ndim, 1);
  assert_int_equal(rec.index[0], 3);
  assert_int_equal(rec.shape[0], 3);
  unload_checked(&ck);
}

/* Python names spelled like the macros of the generated code and of the prelude
 * (P2C_EXIT_THREAD, P2C_SIM_ABI_VERSION) are renamed, never expanded. */
static void test_bounds_macro_names(void **state) {
  (void)state;
  const char *sigs[] = {"macro_names(int64[::1])"};
  Checked ck = load_checked(sigs, 1);
  int64_t out[40];
  ArrayArg po = pack1(out, 8, 40);
  void *args[] = {&po};
  SimLaunch l = launch_of("macro_names", dim3(2, 1, 1), dim3(32, 1, 1), args, false);
  assert_launch_ok(ck.m, &l);
  for (int i = 0; i < 40; i++) assert_int_equal(out[i], i + 1);
  unload_checked(&ck);
}

/* Through the public API: P2C_ERR_BOUNDS and a diagnostic naming the file; without bounds
 * checks the module has no record and the same in-bounds launch works. */
static void test_bounds_public_api(void **state) {
  (void)state;
  size_t len;
  char *src = read_input("bounds.py", &len);
  P2cCompiler *c = p2c_compiler_new(NULL);
  float a[10] = {0}, out[1] = {0};
  P2cValue args[4];
  memset(args, 0, sizeof args);
  float *datas[2] = {a, out};
  int64_t sizes[2] = {10, 1};
  for (int i = 0; i < 2; i++) {
    args[i].is_array = true;
    args[i].type = P2C_FLOAT32;
    args[i].array.dtype = P2C_FLOAT32;
    args[i].array.ndim = 1;
    args[i].array.shape[0] = sizes[i];
    args[i].array.strides[0] = 4;
    args[i].array.data = datas[i];
  }
  args[2].type = args[3].type = P2C_INT64;
  args[2].scalar.i = 0;
  args[3].scalar.i = -11;
  P2cLaunchOptions o = {0};
  o.device = P2C_DEVICE_SIM;
  o.grid[0] = 1;
  o.block[0] = 8;
  p2c_compiler_set_check_bounds(c, true);
  P2cStatus st = p2c_launch(c, "tests/sim/bounds.py", src, len, "pick", args, 4, &o, NULL, NULL);
  assert_int_equal(st, P2C_ERR_BOUNDS);
  assert_string_equal(p2c_compiler_last_error(c),
                      "tests/sim/bounds.py:10:18: error: index -11 is out of bounds for axis 0 "
                      "with size 10 (array of shape (10,)) in kernel 'pick', thread (0,0,0) of "
                      "block (0,0,0)");
  assert_string_equal(p2c_status_string(P2C_ERR_BOUNDS), "an array index was out of bounds");
  args[3].scalar.i = -10;
  a[0] = 42;
  assert_int_equal(p2c_launch(c, "bounds.py", src, len, "pick", args, 4, &o, NULL, NULL), P2C_OK);
  assert_true(out[0] == 42.0f);
  p2c_compiler_set_check_bounds(c, false);
  P2cModule *m = NULL;
  assert_int_equal(p2c_specialize(c, "bounds.py", src, len, "pick", args, 4, &m), P2C_OK);
  assert_null(strstr(p2c_module_cuda(m, NULL), "p2c_bounds"));
  out[0] = 0;
  assert_int_equal(p2c_module_launch(c, m, 0, args, 4, &o, NULL), P2C_OK);
  assert_true(out[0] == 42.0f);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(src);
}

/* A block over the kernel's launch_bounds is refused before it runs, as a GPU's driver refuses
 * it (P2C_ERR_CUDA, CUDA_ERROR_INVALID_VALUE); the bound is in the kernel's info. */
static void test_launch_bounds_refusal(void **state) {
  (void)state;
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit('void(int32[:])', launch_bounds=(64, 2))\n"
      "def k(out):\n"
      "    out[cuda.grid(1)] = 1\n";
  int32_t out[128] = {0};
  P2cValue arg;
  memset(&arg, 0, sizeof arg);
  arg.is_array = true;
  arg.type = arg.array.dtype = P2C_INT32;
  arg.array.ndim = 1;
  arg.array.shape[0] = 128;
  arg.array.strides[0] = 4;
  arg.array.data = out;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  assert_int_equal(p2c_specialize(c, "bounded.py", src, sizeof src - 1, "k", &arg, 1, &m), P2C_OK);
  assert_int_equal(p2c_module_kernel(m, 0).launch_bound_threads, 64);
  P2cLaunchOptions o = {.device = P2C_DEVICE_SIM, .grid = {1}, .block = {32, 4}};
  assert_int_equal(p2c_module_launch(c, m, 0, &arg, 1, &o, NULL), P2C_ERR_CUDA);
  assert_string_equal(p2c_compiler_last_error(c),
                      "cannot launch kernel 'k': block (32,4,1) has 128 threads; kernel 'k' can "
                      "run at most 64 per block (its launch bounds limit it): CUDA_ERROR_INVALID_VALUE");
  assert_int_equal(out[0], 0);
  o.block[0] = 64;   /* cuda.grid(1) counts x only */
  o.block[1] = 1;
  assert_int_equal(p2c_module_launch(c, m, 0, &arg, 1, &o, NULL), P2C_OK);
  assert_int_equal(out[63], 1);
  assert_int_equal(out[64], 0);
  p2c_module_delete(m);
  p2c_compiler_delete(c);
}

/* Character sequences through the public API on the simulator: a str literal into a U12 array
 * (UCS-4 code points, the rest zeros, a longer literal cut), a bytes literal into S4, and an
 * element copied; the host memory is updated in place. */
static void test_charseq_public_api(void **state) {
  (void)state;
  static const char src[] =
      "from numba import cuda\n"
      "@cuda.jit\n"
      "def k(u, s):\n"
      "    i = cuda.grid(1)\n"
      "    if i == 0:\n"
      "        u[0] = '\\u20acXYZ'\n"
      "        u[1] = 'abcdefghijklmnop'\n"
      "        s[0] = b'\\xffab'\n"
      "        s[1] = s[2]\n";
  uint32_t u[2][12];
  unsigned char s[3][4] = {{9, 9, 9, 9}, {9, 9, 9, 9}, {'q', 'r', 0, 't'}};
  memset(u, 0x55, sizeof u);
  P2cValue args[2];
  memset(args, 0, sizeof args);
  args[0].is_array = args[1].is_array = true;
  args[0].type = args[0].array.dtype = P2C_UNICHARSEQ(12);
  args[0].array.ndim = 1;
  args[0].array.shape[0] = 2;
  args[0].array.strides[0] = 48;
  args[0].array.data = u;
  args[1].type = args[1].array.dtype = P2C_CHARSEQ(4);
  args[1].array.ndim = 1;
  args[1].array.shape[0] = 3;
  args[1].array.strides[0] = 4;
  args[1].array.data = s;
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cLaunchOptions o = {0};
  o.device = P2C_DEVICE_SIM;
  o.grid[0] = 1;
  o.block[0] = 4;
  P2cStatus st = p2c_launch(c, "charseq.py", src, sizeof src - 1, "k", args, 2, &o, NULL, NULL);
  if (st != P2C_OK) fail_msg("%s", p2c_compiler_last_error(c));
  const uint32_t want0[12] = {0x20ac, 'X', 'Y', 'Z'};
  assert_memory_equal(u[0], want0, sizeof want0);
  for (int k = 0; k < 12; k++) assert_int_equal(u[1][k], 'a' + k);
  const unsigned char want_s[3][4] = {{0xff, 'a', 'b', 0}, {'q', 'r', 0, 't'}, {'q', 'r', 0, 't'}};
  assert_memory_equal(s, want_s, sizeof s);
  p2c_compiler_delete(c);
}

/* Atomics from every thread of many blocks give exact results. */
/* The warp rendezvous: results by call site, and the misuses CUDA leaves undefined. */
static void test_warp_operations(void **state) {
  (void)state;
  SimModule *m = load("warp_errors.cu");
  unsigned out[64];
  ArrayArg a = pack1(out, sizeof out[0], 64);
  void *args[] = {&a};
  SimLaunch l = launch_of("sites", dim3(1, 1, 1), dim3(64, 1, 1), args, true);
  assert_launch_ok(m, &l);
  for (int t = 0; t < 64; t++) assert_int_equal(out[t], t % 4 == 0 ? 0x11111111u : 0xeeeeeeeeu);

  l = launch_of("not_my_mask", dim3(1, 1, 1), dim3(32, 1, 1), NULL, true);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "lane 0 of warp 0 in block (0,0,0)"));
  assert_non_null(strstr(errbuf, "mask 0x00000002, which does not include the lane"));

  int64_t n = 40;
  void *nargs[] = {&n};
  l = launch_of("warp_vs_barrier", dim3(2, 1, 1), dim3(64, 1, 1), nargs, true);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "cannot complete in warp 1 of block"));
  assert_non_null(strstr(errbuf, "lane 8 waits at __syncthreads()"));
  n = 64;   /* every lane shuffles: no barrier is reached at all */
  l = launch_of("warp_vs_barrier", dim3(2, 1, 1), dim3(64, 1, 1), nargs, true);
  assert_launch_ok(m, &l);

  l = launch_of("other_masks", dim3(1, 1, 1), dim3(32, 1, 1), NULL, true);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "lane 0 waits with mask 0x00000003 but lane 1 waits at one with mask 0xffffffff"));

  /* A warp operation in a launch without fibers is reported, and nothing crashes. */
  l = launch_of("not_my_mask", dim3(2, 1, 1), dim3(32, 1, 1), NULL, false);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "without fiber support"));
  sim_module_delete(m);
}

static void test_atomics(void **state) {
  (void)state;
  SimModule *m = load("atomics.cu");
  const int32_t blocks = 97, per = 128, total = blocks * per;
  int32_t i32[8] = {0, INT32_MIN, INT32_MAX, -1, 0, 0, -7, 0};
  uint64_t u64[1] = {0};
  float f32[1] = {0};
  double f64[1] = {0};
  uint32_t u32[2] = {0, 0};
  ArrayArg a = pack1(i32, 4, 8), b = pack1(u64, 8, 1), c = pack1(f32, 4, 1),
           d = pack1(f64, 8, 1), e = pack1(u32, 4, 2);
  void *args[] = {&a, &b, &c, &d, &e};
  SimLaunch l = launch_of("count_all", dim3(blocks, 1, 1), dim3(per, 1, 1), args, false);
  assert_launch_ok(m, &l);
  assert_int_equal(i32[0], total);
  assert_int_equal(i32[1], total - 1);
  assert_int_equal(i32[2], 0);
  assert_int_equal(i32[3], INT32_MIN);
  assert_int_equal(i32[4], INT32_MAX);
  assert_true(i32[5] >= 1 && i32[5] <= total);
  assert_int_equal(i32[6], i32[5] - 1);
  assert_int_equal(i32[7], -2 * total);
  assert_int_equal(u64[0], 3u * (uint64_t)total);
  assert_true(f32[0] == (float)total);
  assert_true(f64[0] == 0.5 * total);
  assert_int_equal(u32[0], (uint32_t)total);
  assert_int_equal(u32[1], (uint32_t)total % 10);
  sim_module_delete(m);
}

/* Math names, bit casts, warpSize, and printf reaching stdout. */
static void test_prelude_and_printf(void **state) {
  (void)state;
  SimModule *m = load("atomics.cu");
  double out[5] = {0};
  int64_t flags[6] = {0};
  ArrayArg po = pack1(out, 8, 5), pf = pack1(flags, 8, 6);
  void *args[] = {&po, &pf};
  char path[400];
  snprintf(path, sizeof path, "%s/stdout.txt", cache_dir);
  fflush(stdout);
  int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(fd, 1);
  SimLaunch l = launch_of("prelude_tour", dim3(2, 1, 1), dim3(32, 1, 1), args, false);
  P2cStatus st = sim_launch(m, &l);
  fflush(stdout);
  dup2(saved, 1);
  close(saved), close(fd);
  assert_int_equal(st, P2C_OK);
  size_t len;
  char *text = test_read_file(path, &len);
  unlink(path);
  assert_string_equal(text, "tour: block 32 threads, 2.0 32\n");
  free(text);

  assert_true(out[0] == sqrt(2.0));
  assert_true(out[1] == (double)sqrtf(2.0f));
  assert_true(fabs(out[2] - (sin(2.0) + sinf(2.0f))) < 1e-6);
  assert_true(out[3] == 2.0 - 2.0 + 1.5 - 3.0);
  assert_true(fabs(out[4] - (exp(1.0) + log(2.0) + 1024.0 + 2.0 + atan2(1.0, 1.0))) < 1e-12);
  assert_int_equal(flags[0], 32);
  assert_int_equal(flags[1], 1);
  assert_int_equal(flags[2], 1);
  assert_int_equal(flags[3], 1);
  assert_int_equal(flags[4], 0x3f800000);
  assert_int_equal(flags[5], 0x3ff00000);
  sim_module_delete(m);
}

/* Runs `l` with stdout sent to a file; returns what the launch printed (malloc'd). */
static char *launch_capturing_stdout(SimModule *m, const SimLaunch *l, size_t *len) {
  char path[400];
  snprintf(path, sizeof path, "%s/stdout.txt", cache_dir);
  fflush(stdout);
  int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(fd, 1);
  P2cStatus st = sim_launch(m, l);
  fflush(stdout);
  dup2(saved, 1);
  close(saved), close(fd);
  assert_int_equal(st, P2C_OK);
  char *text = test_read_file(path, len);
  unlink(path);
  return text;
}

/* printf through the workers' buffers: every line exactly once and whole, in thread order on
 * one worker, 3 MiB in all (many writes); the vsnprintf fallback for other conversions. */
static void test_printf_buffer(void **state) {
  (void)state;
  SimModule *m = load("printing.cu");
  int64_t n = 40000;
  void *args[] = {&n};
  unsigned threads[] = {1, 0};
  for (int t = 0; t < 2; t++) {
    SimLaunch l = launch_of("print_lines", dim3(157, 1, 1), dim3(256, 1, 1), args, false);
    l.threads = threads[t];
    size_t len;
    char *text = launch_capturing_stdout(m, &l, &len);
    char *seen = calloc((size_t)n, 1), *line = text;
    int64_t count = 0, previous = -1;
    bool in_order = true;
    while (*line) {
      char *end = strchr(line, '\n');
      assert_non_null(end);
      *end = '\0';
      long long i;
      int used = 0;
      assert_int_equal(sscanf(line, "line %lld of 40000: 100%% %*s %*s%n", &i, &used), 1);
      assert_int_equal(used, (int)strlen(line));
      assert_true(i >= 0 && i < n && !seen[i]);
      char want[200];
      snprintf(want, sizeof want, "line %lld of 40000: 100%% %lld %llu", i,
               i % 3 == 0 ? (long long)INT64_MIN : -i,
               i % 2 ? 18446744073709551615ULL : 0ULL);
      assert_string_equal(line, want);
      seen[i] = 1;
      in_order &= i > previous;
      previous = i;
      count++;
      line = end + 1;
    }
    assert_int_equal(count, n);
    if (threads[t] == 1) assert_true(in_order);
    free(seen);
    free(text);
  }
  SimLaunch l = launch_of("print_other", dim3(1, 1, 1), dim3(2, 1, 1), NULL, false);
  size_t len;
  char *text = launch_capturing_stdout(m, &l, &len);
  assert_string_equal(text, "pi= 3.14|ff|z\npi= 3.14|ff|z\n");
  free(text);
  sim_module_delete(m);
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Math through the prelude's per-call-site memory gives exactly the host library's results:
 * runs of equal arguments, 0.0 after -0.0 and the other way round, NaNs with two payloads, and
 * a kernel with more call sites than memory tables. */
static void test_math_memo(void **state) {
  (void)state;
  SimModule *m = load("math_memo.cu");
  enum { N = 300 };
  double x[N], out[N * 4], want_sites[N], got_sites[N];
  double nan1, nan2;
  uint64_t b1 = 0x7ff8000000000001ULL, b2 = 0xfff8000000000002ULL;
  memcpy(&nan1, &b1, 8), memcpy(&nan2, &b2, 8);
  for (int i = 0; i < N; i++) {
    int r = i % 10;
    x[i] = r < 4 ? 0.5 : r == 4 ? -0.0 : r == 5 ? 0.0 : r == 6 ? nan1 : r == 7 ? nan2 : i * 0.37;
  }
  const int64_t shape2[2] = {N, 4};
  ArrayArg px = pack1(x, 8, N), po = pack(out, 8, 2, shape2), ps = pack1(got_sites, 8, N);
  void *args[] = {&px, &po};
  unsigned threads[] = {1, 0};
  for (int t = 0; t < 2; t++) {
    SimLaunch l = launch_of("unary", dim3(3, 1, 1), dim3(128, 1, 1), args, false);
    l.threads = threads[t];
    assert_launch_ok(m, &l);
    for (int i = 0; i < N; i++) {
      float f = (float)x[i];
      assert_true(same_bits(out[i * 4 + 0], sin(x[i])));
      assert_true(same_bits(out[i * 4 + 1], cos(x[i])));
      assert_true(same_bits(out[i * 4 + 2], (double)sinf(f)));
      assert_true(same_bits(out[i * 4 + 3], (double)expf(f)));
    }
  }
  for (int i = 0; i < N; i++) {
    double acc = expm1(x[i]);
    for (int k = 0; k < 63; k++) acc += log1p(x[i] + k + 1) * (k + 1);
    acc += atan(x[i]) * 1000;
    want_sites[i] = acc;
  }
  void *args2[] = {&px, &ps};
  SimLaunch l = launch_of("many_sites", dim3(3, 1, 1), dim3(128, 1, 1), args2, false);
  l.threads = 1;
  assert_launch_ok(m, &l);
  for (int i = 0; i < N; i++) assert_true(same_bits(got_sites[i], want_sites[i]));
  sim_module_delete(m);
}

static bool same_float_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The math memory's set for a value's bits (a float's zero-extended, as the prelude keys them). */
static unsigned memo_set_of(const void *value, size_t size) {
  unsigned long long bits = 0;
  memcpy(&bits, value, size);
  return p2c_sim_memo_set(bits);
}

/* Fills `out` with `n` distinct doubles, first + k * step for growing k, that fall in one set. */
static void doubles_in_one_set(double first, double step, double *out, int n) {
  unsigned set = memo_set_of(&first, sizeof first);
  out[0] = first;
  for (int found = 1, k = 1; found < n; k++) {
    double v = first + k * step;
    if (memo_set_of(&v, sizeof v) == set) out[found++] = v;
  }
}

static void floats_in_one_set(float first, float step, float *out, int n) {
  unsigned set = memo_set_of(&first, sizeof first);
  out[0] = first;
  for (int found = 1, k = 1; found < n; k++) {
    float v = first + (float)k * step;
    if (memo_set_of(&v, sizeof v) == set) out[found++] = v;
  }
}

/* `n` NaNs with distinct payloads in one set: quiet NaN bits `base` | payload. */
static void nan_bits_in_one_set(unsigned long long base, unsigned long long *out, int n) {
  unsigned set = p2c_sim_memo_set(base | 1);
  out[0] = base | 1;
  for (unsigned long long p = 2, found = 1; found < (unsigned long long)n; p++)
    if (p2c_sim_memo_set(base | p) == set) out[found++] = base | p;
}

/* Arguments that share a set of the memory (two entries) and come back in cycles of two, three
 * and five, NaNs with different payloads among them: every result must be the host library's,
 * bit for bit. A memory that let a value found in the second entry answer with the first's
 * result, moved an argument without its result, or took NaN payloads for equal, fails here. */
static void test_math_memo_collisions(void **state) {
  (void)state;
  SimModule *m = load("math_memo.cu");
  enum { N = 96 };
  double d[3], x[N], out[N];
  float f[3], xf[N], outf[N];
  unsigned long long dn[2], fn[2];
  doubles_in_one_set(0.1, 1e-3, d, 3);
  floats_in_one_set(0.25f, 1e-3f, f, 3);
  nan_bits_in_one_set(0x7ff8000000000000ULL, dn, 2);
  nan_bits_in_one_set(0x7fc00000ULL, fn, 2);
  double dnan[2];
  float fnan[2];
  for (int k = 0; k < 2; k++) {
    memcpy(&dnan[k], &dn[k], sizeof dnan[k]);
    unsigned u = (unsigned)fn[k];
    memcpy(&fnan[k], &u, sizeof fnan[k]);
  }
  /* 24 calls cycling a, b, c; 16 cycling a, b; 16 cycling two NaNs; 40 cycling a, NaN, b, NaN, c. */
  for (int i = 0; i < N; i++) {
    int k = i < 24 ? i % 3 : i < 40 ? i % 2 : i < 56 ? 3 + i % 2 : (int[]){0, 3, 1, 4, 2}[i % 5];
    x[i] = k < 3 ? d[k] : dnan[k - 3];
    xf[i] = k < 3 ? f[k] : fnan[k - 3];
  }
  ArrayArg px = pack1(x, 8, N), pxf = pack1(xf, 4, N), po = pack1(out, 8, N),
           pof = pack1(outf, 4, N);
  void *args[] = {&px, &pxf, &po, &pof};
  for (int launch = 0; launch < 2; launch++) { /* the second starts from an empty memory too */
    memset(out, 0, sizeof out), memset(outf, 0, sizeof outf);
    SimLaunch l = launch_of("cycle", dim3(1, 1, 1), dim3(N, 1, 1), args, false);
    l.threads = 1; /* one block, threads in order: the cycles reach the memory as written */
    assert_launch_ok(m, &l);
    for (int i = 0; i < N; i++) {
      assert_true(same_bits(out[i], sin(x[i])));
      assert_true(same_float_bits(outf[i], sinf(xf[i])));
    }
  }
  sim_module_delete(m);
}

/* One call site in a template used with float and with double, on a double whose bits are the
 * float's zero-extended (same key, same set): each type gets its own function's result. */
static void test_math_memo_types(void **state) {
  (void)state;
  SimModule *m = load("math_memo.cu");
  enum { N = 32 };
  double x[N], out[N];
  float xf[N];
  for (int i = 0; i < N; i++) {
    float v = 0.5f + (float)(i / 2) * 0.25f; /* the same value for threads 2k and 2k + 1 */
    unsigned long long bits = 0;
    memcpy(&bits, &v, sizeof v);
    memcpy(&x[i], &bits, sizeof x[i]); /* a subnormal double */
    xf[i] = v;
  }
  ArrayArg px = pack1(x, 8, N), pxf = pack1(xf, 4, N), po = pack1(out, 8, N);
  void *args[] = {&px, &pxf, &po};
  SimLaunch l = launch_of("both_types", dim3(1, 1, 1), dim3(N, 1, 1), args, false);
  l.threads = 1;
  assert_launch_ok(m, &l);
  for (int i = 0; i < N; i++) {
    double want = i % 2 ? (double)sinf(xf[i]) : sin(x[i]);
    assert_true(same_bits(out[i], want));
  }
  sim_module_delete(m);
}

/* ---- Errors -------------------------------------------------------------------------------- */

/* A compile error: P2C_ERR_SIM, the compiler's log, and a module that refuses to launch. */
static void test_compile_error(void **state) {
  (void)state;
  SimLoadRequest req = {0};
  req.no_cache = true;
  SimModule *m = NULL;
  assert_int_equal(load_with("compile_error.cu", &req, &m), P2C_ERR_SIM);
  assert_non_null(m);
  assert_non_null(strstr(sim_module_log(m), "undeclared_name"));
  assert_non_null(strstr(sim_module_error(m), "failed with exit status"));
  assert_non_null(strstr(sim_module_error(m), "error"));
  SimLaunch l = launch_of("broken", dim3(1, 1, 1), dim3(1, 1, 1), NULL, false);
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "did not load"));
  sim_module_delete(m);
}

static void test_missing_compiler(void **state) {
  (void)state;
  SimLoadRequest req = {0};
  req.cxx = "/nonexistent/pyk2cuda-c++ -O2";
  SimModule *m = NULL;
  assert_int_equal(load_with("vecadd.cu", &req, &m), P2C_ERR_SIM);
  assert_non_null(strstr(sim_module_error(m), "cannot run the host C++ compiler"));
  assert_string_equal(sim_module_log(m), "");
  sim_module_delete(m);
  assert_int_equal(sim_module_load(&(SimLoadRequest){0}, &m), P2C_ERR_USAGE);
  assert_null(m);
  sim_module_delete(NULL);
}

/* Launch configurations outside CUDA's limits, and unknown kernels. */
static void test_bad_launch(void **state) {
  (void)state;
  SimModule *m = load("vecadd.cu");
  struct {
    SimDim3 grid, block;
    const char *symbol, *expect;
  } cases[] = {
      {{1, 1, 1}, {1025, 1, 1}, "vecadd", "exceeds CUDA's limits"},
      {{1, 1, 1}, {32, 32, 2}, "vecadd", "2048 threads"},
      {{1, 1, 1}, {1, 1, 65}, "vecadd", "exceeds CUDA's limits"},
      {{0, 1, 1}, {32, 1, 1}, "vecadd", "every dimension >= 1"},
      {{1, 65536, 1}, {32, 1, 1}, "vecadd", "grid (1,65536,1) exceeds"},
      {{1, 1, 1}, {32, 1, 1}, "nosuch", "no kernel 'nosuch'"},
      {{1, 1, 1}, {32, 1, 1}, "vec-add", "bad kernel symbol"},
      {{1, 1, 1}, {32, 1, 1}, NULL, "bad kernel symbol"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    SimLaunch l = launch_of(cases[i].symbol, cases[i].grid, cases[i].block, NULL, false);
    assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
    if (!strstr(errbuf, cases[i].expect)) fail_msg("case %zu: '%s'", i, errbuf);
  }
  SimLaunch l = launch_of("vecadd", dim3(1, 1, 1), dim3(1, 1, 1), NULL, false);
  l.dynamic_shared_bytes = 1u << 20;
  assert_int_equal(sim_launch(m, &l), P2C_ERR_SIM);
  assert_non_null(strstr(errbuf, "dynamic shared memory"));
  sim_module_delete(m);
}

/* ---- Cache --------------------------------------------------------------------------------- */

/* How many lines of `path` contain `needle` (the counting compiler wrapper writes one line of
 * arguments per run). */
static int count_matching(const char *path, const char *needle) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int n = 0;
  char line[4096];
  while (fgets(line, sizeof line, f)) n += strstr(line, needle) != NULL;
  fclose(f);
  return n;
}

/* Module compiles (the precompiled prelude's own compile is counted apart). */
static int count_lines(const char *path) { return count_matching(path, "src.cu"); }

/* Writes a compiler wrapper at `wrapper` that logs its arguments to `counter`, then runs the
 * compiler. */
static void write_counting_wrapper(const char *wrapper, const char *counter) {
  FILE *w = fopen(wrapper, "w");
  assert_non_null(w);
  const char *cxx = getenv("PYK2CUDA_CXX");
  fprintf(w, "#!/bin/sh\necho \"$*\" >> '%s'\nexec %s \"$@\"\n", counter, cxx && *cxx ? cxx : "c++");
  fclose(w);
  chmod(wrapper, 0700);
}

/* Loads vecadd through a compiler wrapper that counts its runs, and checks the result works. */
static SimModule *load_counted(const char *wrapper, const char *dir, bool no_cache) {
  SimLoadRequest req = {0};
  req.cxx = wrapper;
  req.cache_dir = dir;
  req.no_cache = no_cache;
  SimModule *m = NULL;
  assert_int_equal(load_with("vecadd.cu", &req, &m), P2C_OK);
  float a[3] = {1, 2, 3}, out[3] = {0};
  ArrayArg pa = pack1(a, 4, 3), po = pack1(out, 4, 3);
  void *args[] = {&pa, &pa, &po};
  SimLaunch l = launch_of("vecadd", dim3(1, 1, 1), dim3(32, 1, 1), args, false);
  assert_launch_ok(m, &l);
  assert_true(out[2] == 6.0f);
  return m;
}

static void test_cache(void **state) {
  (void)state;
  char dir[400], sim[420], wrapper[420], counter[420], so[600], key[600];
  snprintf(dir, sizeof dir, "%s/cache-test", cache_dir);
  snprintf(sim, sizeof sim, "%s/sim", dir);
  snprintf(wrapper, sizeof wrapper, "%s/cxx.sh", cache_dir);
  snprintf(counter, sizeof counter, "%s/runs.txt", cache_dir);
  write_counting_wrapper(wrapper, counter);

  /* A build may run the compiler more than once (a retry without an unknown flag). */
  double t0 = now_s();
  SimModule *m = load_counted(wrapper, dir, false);
  double t_miss = now_s() - t0;
  int runs = count_lines(counter);
  assert_false(sim_module_cache_hit(m));
  assert_true(runs >= 1);
  sim_module_delete(m);

  t0 = now_s();
  m = load_counted(wrapper, dir, false);
  double t_hit = now_s() - t0;
  assert_true(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), runs); /* the compiler did not run */
  assert_true(t_hit < t_miss);
  sim_module_delete(m);

  /* A corrupt object is rebuilt in place. */
  only_file(sim, ".so", so, sizeof so);
  FILE *f = fopen(so, "w");
  fputs("not an ELF file", f);
  fclose(f);
  m = load_counted(wrapper, dir, false);
  assert_false(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), 2 * runs);
  sim_module_delete(m);
  m = load_counted(wrapper, dir, false);
  assert_true(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), 2 * runs);
  sim_module_delete(m);

  /* A truncated object (dlopen's reader took SIGBUS on it) and a valid object of another module
   * under this key are rebuilt: their bytes do not match the entry's record (<hash>.sum). */
  only_file(sim, ".so", so, sizeof so);
  size_t so_len;
  free(test_read_file(so, &so_len));
  assert_int_equal(truncate(so, (off_t)so_len / 2), 0);
  m = load_counted(wrapper, dir, false);
  assert_false(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), 3 * runs);
  sim_module_delete(m);
  /* grid2d gets a cache folder of its own: in the shared one, the first .so found could be
   * another test's vecadd, whose bytes are this entry's own. */
  SimModule *other = NULL;
  char other_dir[400];
  snprintf(other_dir, sizeof other_dir, "%s/other-module", cache_dir);
  assert_int_equal(mkdir(other_dir, 0700), 0);
  SimLoadRequest other_req = {.no_cache = false, .cache_dir = other_dir};
  assert_int_equal(load_with("grid2d.cu", &other_req, &other), P2C_OK);
  sim_module_delete(other);
  char other_sim[420], other_so[700];
  snprintf(other_sim, sizeof other_sim, "%s/sim", other_dir);
  DIR *od = opendir(other_sim);
  struct dirent *e;
  other_so[0] = '\0';
  while ((e = readdir(od)))
    if (strstr(e->d_name, ".so")) snprintf(other_so, sizeof other_so, "%s/%s", other_sim, e->d_name);
  closedir(od);
  size_t other_len;
  char *bytes = test_read_file(other_so, &other_len);
  f = fopen(so, "wb");
  fwrite(bytes, 1, other_len, f);
  fclose(f);
  free(bytes);
  m = load_counted(wrapper, dir, false);   /* vecadd, not grid2d's kernel */
  assert_false(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), 4 * runs);
  sim_module_delete(m);

  /* A key that differs (as after a hash collision) is never trusted, nor overwritten. */
  only_file(sim, ".key", key, sizeof key);
  size_t len;
  char *text = test_read_file(key, &len);
  text[len - 2] ^= 1;
  f = fopen(key, "wb");
  fwrite(text, 1, len, f);
  fclose(f);
  m = load_counted(wrapper, dir, false);
  assert_false(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), 5 * runs);
  sim_module_delete(m);
  char *after = test_read_file(key, &len);
  assert_memory_equal(after, text, len);
  free(text), free(after);

  /* no_cache: compiles, and leaves the cache folder as it was. */
  m = load_counted(wrapper, dir, true);
  assert_false(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), 6 * runs);
  sim_module_delete(m);
  only_file(sim, ".so", so, sizeof so);

  /* A cache folder that cannot be made: built in a temporary folder instead, not an error. */
  m = load_counted(wrapper, "/proc/p2c-no-such-cache", false);
  assert_false(sim_module_cache_hit(m));
  assert_int_equal(count_lines(counter), 7 * runs);
  sim_module_delete(m);
  printf("cache: miss %.3f s, hit %.4f s\n", t_miss, t_hit);
  unlink(wrapper);
  unlink(counter);
}

/* Loads tests/sim/<name> through the counting wrapper with a cache in `dir`. */
static void load_module_counted(const char *name, const char *wrapper, const char *dir) {
  SimLoadRequest req = {.cxx = wrapper, .cache_dir = dir};
  SimModule *m = NULL;
  P2cStatus st = load_with(name, &req, &m);
  if (st != P2C_OK) fprintf(stderr, "load %s: %s\n%s\n", name, sim_module_error(m), sim_module_log(m));
  assert_int_equal(st, P2C_OK);
  assert_false(sim_module_cache_hit(m));
  sim_module_delete(m);
}

/* The prelude is compiled once per cache and compiler, and every module build reads it through
 * the cache's prelude-<hash>.h; a damaged precompiled form costs one more compile, never a
 * failed build, and is made again; a header whose text was changed is written again. */
static void test_precompiled_prelude(void **state) {
  (void)state;
  char dir[400], sim[420], wrapper[420], counter[420], gch[700], header[700];
  snprintf(dir, sizeof dir, "%s/pch-test", cache_dir);
  snprintf(sim, sizeof sim, "%s/sim", dir);
  snprintf(wrapper, sizeof wrapper, "%s/cxx-pch.sh", cache_dir);
  snprintf(counter, sizeof counter, "%s/runs-pch.txt", cache_dir);
  write_counting_wrapper(wrapper, counter);

  SimModule *m = load_counted(wrapper, dir, false);   /* vecadd, launched and checked */
  sim_module_delete(m);
  assert_int_equal(count_matching(counter, "c++-header"), 1);
  assert_int_equal(count_lines(counter), 1);
  only_file(sim, ".h.gch", gch, sizeof gch);
  only_file(sim, ".h", header, sizeof header);
  size_t len;
  char *text = test_read_file(header, &len);
  assert_int_equal(len, sim_prelude_size);
  assert_memory_equal(text, sim_prelude_text, len);
  free(text);

  /* Another module: no second precompile, and its compile reads the cache's header. */
  load_module_counted("grid2d.cu", wrapper, dir);
  assert_int_equal(count_matching(counter, "c++-header"), 1);
  assert_int_equal(count_lines(counter), 2);
  assert_int_equal(count_matching(counter, "/sim/prelude-"), 2);

  /* A truncated precompiled prelude makes the compiler stop: the build is tried again with the
   * plain prelude (two module compiles), succeeds, and the damaged file goes. */
  assert_int_equal(truncate(gch, 1000), 0);
  load_module_counted("reduce.cu", wrapper, dir);
  assert_int_equal(count_lines(counter), 4);
  assert_int_equal(access(gch, F_OK), -1);
  /* The next build makes it again. */
  load_module_counted("atomics.cu", wrapper, dir);
  assert_int_equal(count_matching(counter, "c++-header"), 2);
  assert_int_equal(count_lines(counter), 5);
  assert_int_equal(access(gch, F_OK), 0);

  /* A header that is not this prelude's text (what a compiler falls back to) is written again,
   * with its precompiled form. */
  FILE *f = fopen(header, "w");
  fputs("#error not the prelude\n", f);
  fclose(f);
  load_module_counted("math_memo.cu", wrapper, dir);
  assert_int_equal(count_matching(counter, "c++-header"), 3);
  text = test_read_file(header, &len);
  assert_int_equal(len, sim_prelude_size);
  free(text);
  unlink(wrapper);
  unlink(counter);
}

/* ---- Allocation failures ------------------------------------------------------------------- */

typedef struct FailingAlloc {
  int left;      /* allocations that succeed before the failures start */
  long live;     /* bytes outstanding */
} FailingAlloc;

static void *failing_realloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  FailingAlloc *fa = ud;
  if (new_size == 0) {
    free(ptr);
    fa->live -= (long)old_size;
    return NULL;
  }
  if (fa->left-- <= 0) return NULL;
  void *p = realloc(ptr, new_size);
  if (p) fa->live += (long)new_size - (long)old_size;
  return p;
}

/* Every allocation of a cached load and a launch with barriers fails in turn: the result is a
 * status, never a crash or a leak. */
static void test_allocation_failures(void **state) {
  (void)state;
  sim_module_delete(load("reduce.cu")); /* warm the cache */
  int ok_runs = 0;
  for (int k = 0; k < 40 && ok_runs < 2; k++) {
    FailingAlloc fa = {k, 0};
    P2cAllocator alloc = {failing_realloc, &fa};
    SimLoadRequest req = {0};
    req.allocator = &alloc;
    SimModule *m = NULL;
    P2cStatus st = load_with("reduce.cu", &req, &m);
    assert_true(st == P2C_OK || st == P2C_ERR_NOMEM);
    if (st == P2C_OK) {
      float a[256], sums[2];
      for (int i = 0; i < 256; i++) a[i] = 1;
      ArrayArg pa = pack1(a, 4, 256), ps = pack1(sums, 4, 2);
      void *args[] = {&pa, &ps};
      SimLaunch l = launch_of("block_sum", dim3(2, 1, 1), dim3(128, 1, 1), args, true);
      l.threads = 2;
      st = sim_launch(m, &l);
      assert_true(st == P2C_OK || st == P2C_ERR_NOMEM || st == P2C_ERR_SIM);
      if (st == P2C_OK) {
        assert_true(sums[0] == 128 && sums[1] == 128);
        ok_runs++;
      }
    } else {
      assert_null(m);
    }
    sim_module_delete(m);
    assert_int_equal(fa.live, 0);
  }
  assert_int_equal(ok_runs, 2);
}

/* ---- Benchmark (P2C_SIM_BENCH=1) ----------------------------------------------------------- */

static void __attribute__((noinline)) plain_vecadd(const float *a, const float *b, float *out,
                                                   int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

static void test_bench(void **state) {
  (void)state;
  if (!getenv("P2C_SIM_BENCH")) skip();
  SimModule *m = load("vecadd.cu");
  const int64_t n = (int64_t)1 << 24;
  float *a = malloc(n * 4), *b = malloc(n * 4), *out = malloc(n * 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)i, b[i] = 1.0f, out[i] = 0;
  ArrayArg pa = pack1(a, 4, n), pb = pack1(b, 4, n), po = pack1(out, 4, n);
  void *args[] = {&pa, &pb, &po};
  double best_plain = 1e9, best_sim1 = 1e9, best_sim = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now_s();
    plain_vecadd(a, b, out, n);
    best_plain = fmin(best_plain, now_s() - t0);
    SimDim3 grid = dim3((uint32_t)(n / 256), 1, 1);
    SimLaunch l = launch_of("vecadd", grid, dim3(256, 1, 1), args, false);
    l.threads = 1;
    t0 = now_s();
    assert_launch_ok(m, &l);
    best_sim1 = fmin(best_sim1, now_s() - t0);
    l.threads = 0;
    t0 = now_s();
    assert_launch_ok(m, &l);
    best_sim = fmin(best_sim, now_s() - t0);
  }
  printf("bench vecadd 2^24: plain C %.2f ms; sim 1 thread %.2f ms (%.1fx, %.2f ns/thread); "
         "sim %u threads %.2f ms (%.1fx)\n",
         best_plain * 1e3, best_sim1 * 1e3, best_sim1 / best_plain, best_sim1 / n * 1e9,
         sim_cpu_count(), best_sim * 1e3, best_sim / best_plain);
  sim_module_delete(m);
  free(a), free(b), free(out);

  m = load("reduce.cu");
  const int64_t blocks = 1024, total = blocks * 256;
  float *x = malloc(total * 4), *sums = malloc(blocks * 4);
  for (int64_t i = 0; i < total; i++) x[i] = 1.0f;
  ArrayArg px = pack1(x, 4, total), ps = pack1(sums, 4, blocks);
  void *rargs[] = {&px, &ps};
  unsigned threads[] = {1, 0};
  for (int t = 0; t < 2; t++) {
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      SimDim3 grid = dim3((uint32_t)blocks, 1, 1);
      SimLaunch l = launch_of("block_sum", grid, dim3(256, 1, 1), rargs, true);
      l.threads = threads[t];
      double t0 = now_s();
      assert_launch_ok(m, &l);
      best = fmin(best, now_s() - t0);
    }
    /* block_sum: 9 barriers per thread (one, then one per level of 256 = 2^8) */
    printf("bench block_sum 1024x256 (9 barriers/thread), %u worker(s): %.2f ms, %.1f M threads/s, "
           "%.1f M thread-barriers/s\n",
           threads[t] ? threads[t] : sim_cpu_count(), best * 1e3, total / best * 1e-6,
           9.0 * total / best * 1e-6);
  }
  free(x), free(sums);
  sim_module_delete(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vecadd),
      cmocka_unit_test(test_launch_bounds_refusal),
      cmocka_unit_test(test_grid_indices),
      cmocka_unit_test(test_block_reduce),
      cmocka_unit_test(test_barrier_variants),
      cmocka_unit_test(test_partial_barrier),
      cmocka_unit_test(test_exit_thread),
      cmocka_unit_test(test_fault_wild_store),
      cmocka_unit_test(test_fault_lines_damaged),
      cmocka_unit_test(test_fault_stack_overflow),
      cmocka_unit_test(test_stack_from_kernel),
      cmocka_unit_test(test_fault_outside_kernel),
      cmocka_unit_test(test_fiber_mappings_bounded),
      cmocka_unit_test(test_launch_waits_for_a_check),
      cmocka_unit_test(test_warp_operations),
      cmocka_unit_test(test_bounds_1d),
      cmocka_unit_test(test_bounds_every_axis),
      cmocka_unit_test(test_bounds_shared_local),
      cmocka_unit_test(test_bounds_views),
      cmocka_unit_test(test_bounds_macro_names),
      cmocka_unit_test(test_bounds_public_api),
      cmocka_unit_test(test_atomics),
      cmocka_unit_test(test_prelude_and_printf),
      cmocka_unit_test(test_printf_buffer),
      cmocka_unit_test(test_math_memo),
      cmocka_unit_test(test_math_memo_collisions),
      cmocka_unit_test(test_math_memo_types),
      cmocka_unit_test(test_compile_error),
      cmocka_unit_test(test_missing_compiler),
      cmocka_unit_test(test_bad_launch),
      cmocka_unit_test(test_charseq_public_api),
      cmocka_unit_test(test_cache),
      cmocka_unit_test(test_precompiled_prelude),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_bench),
  };
  return cmocka_run_group_tests_name("sim", tests, group_setup, group_teardown);
}
