/* Unit tests for src/runtime/cuda/nvrtc.c: loading NVRTC, compiling to PTX and CUBIN, errors.
 *
 * NVRTC runs without a GPU, so these run everywhere the CUDA toolkit is installed; where NVRTC
 * cannot be loaded the compile tests are skipped (the loader's own tests still run).
 *
 * The first group runs before anything loads the shared NVRTC table: it sets PYK2CUDA_NVRTC to a
 * missing path and checks that the library refuses to fall back. A failed load is not cached, so
 * the later groups load the real library. */
#include <dlfcn.h>
#include <glob.h>
#include <libgen.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/cuda/nvrtc.h"

/* A kernel in the style of docs/generated-code.md. */
static const char good_source[] =
    "typedef long long int64_t;\n"
    "template <typename T, int N>\n"
    "struct p2c_array {\n"
    "  T *data;\n"
    "  int64_t shape[N];\n"
    "  int64_t strides[N];\n"
    "};\n"
    "static __device__ float twice(float x) { return 2.0f * x; }\n"
    "extern \"C\" __global__ void axpy(float a, p2c_array<float, 1> x, p2c_array<float, 1> y) {\n"
    "  // i = cuda.grid(1)\n"
    "  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  // if i < y.shape[0]: y[i] = a * x[i] + twice(y[i])\n"
    "  if (i < y.shape[0]) y.data[i] = a * x.data[i] + sqrtf(twice(y.data[i]));\n"
    "}\n";

static const char bad_source[] =
    "extern \"C\" __global__ void broken(float *x) {\n"
    "  x[0] = 1.0f +;\n"
    "}\n";

/* ---- NVRTC missing (runs first) ------------------------------------------------------------- */

static void env_override_missing_fails(void **state) {
  (void)state;
  char err[1024] = "";
  int major = -1, minor = -1;
  setenv("PYK2CUDA_NVRTC", "/nonexistent/libnvrtc.so", 1);
  assert_int_equal(rtc_version(&major, &minor, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_non_null(strstr(err, "NVRTC not found"));
  assert_non_null(strstr(err, "PYK2CUDA_NVRTC=/nonexistent/libnvrtc.so"));

  RtcRequest req = {.source = good_source, .program_name = "axpy.py", .arch = "sm_90"};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_ERR_NO_CUDA);
  assert_non_null(strstr(res.error, "PYK2CUDA_NVRTC"));
  assert_null(res.image);
  assert_null(res.log);
  rtc_result_free(&res);
  unsetenv("PYK2CUDA_NVRTC");
}

static void lib_open_missing_path(void **state) {
  (void)state;
  RtcLib lib;
  char err[1024] = "";
  assert_int_equal(rtc_lib_open(&lib, "/nonexistent", err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(lib.dl.handle);
  assert_non_null(strstr(err, "NVRTC not found: PYK2CUDA_NVRTC=/nonexistent"));
  assert_non_null(strstr(err, "fix or unset PYK2CUDA_NVRTC"));
}

/* A library that loads but is not NVRTC is refused by name. */
static void lib_open_wrong_library(void **state) {
  (void)state;
  RtcLib lib;
  char err[1024] = "";
  assert_int_equal(rtc_lib_open(&lib, "libm.so.6", err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(lib.dl.handle);
  assert_non_null(strstr(err, "lacks nvrtcVersion"));
}

/* ---- The search: wheels, conda, builtins beside NVRTC (also before anything loads) ---------- */

/* A folder holding the toolkit's libnvrtc.so.13 (and its builtins), or NULL: the tests below
 * link it into fake install trees. */
static const char *toolkit_dir(void) {
  static char dir[512];
  const char *home = getenv("CUDA_HOME");
  snprintf(dir, sizeof dir, "%s/lib64", home && *home ? home : "/usr/local/cuda");
  char probe[600];
  snprintf(probe, sizeof probe, "%s/libnvrtc.so.13", dir);
  return access(probe, R_OK) == 0 ? dir : NULL;
}

/* Links libnvrtc.so.13 and every libnvrtc-builtins.so.X.Y of the toolkit into `dir` (made with
 * its parents), as a wheel or conda installs them. */
static void link_nvrtc_into(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  assert_int_equal(system(cmd), 0);
  glob_t g;
  char pattern[600];
  snprintf(pattern, sizeof pattern, "%s/libnvrtc-builtins.so.*.*", toolkit_dir());
  assert_int_equal(glob(pattern, 0, NULL, &g), 0);
  for (size_t i = 0; i <= g.gl_pathc; i++) {
    char target[600], link[600];
    snprintf(target, sizeof target, "%s", i < g.gl_pathc ? g.gl_pathv[i] : "");
    if (i == g.gl_pathc) snprintf(target, sizeof target, "%s/libnvrtc.so.13", toolkit_dir());
    snprintf(link, sizeof link, "%s/%s", dir, basename(target));
    assert_int_equal(symlink(target, link), 0);
  }
  globfree(&g);
}

/* Removes a fake tree. */
static void remove_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* NVRTC from a cu13 wheel in a site-packages folder of PYK2CUDA_SITE_PACKAGES, before the loader
 * path that also has it here; its builtins are loaded from the same folder first, so that the
 * name NVRTC opens them by finds that copy; a compile works. Runs before anything has loaded
 * NVRTC, so the by-name look-up can only find what the search loaded. */
static void wheel_on_site_packages_with_builtins(void **state) {
  (void)state;
  if (!toolkit_dir()) skip();
  char site[] = "/tmp/p2c-site-XXXXXX", wheel[256], want[300], err[1024] = "";
  assert_non_null(mkdtemp(site));
  snprintf(wheel, sizeof wheel, "%s/nvidia/cu13/lib", site);
  link_nvrtc_into(wheel);
  char list[300];
  snprintf(list, sizeof list, "/nonexistent:%s", site);
  setenv("PYK2CUDA_SITE_PACKAGES", list, 1);
  RtcLib lib;
  assert_int_equal(rtc_lib_open(&lib, NULL, err, sizeof err), P2C_OK);
  snprintf(want, sizeof want, "%s/libnvrtc.so.13", wheel);
  assert_string_equal(lib.dl.path, want);
  assert_non_null(lib.builtins.handle);
  assert_int_equal(strncmp(lib.builtins.path, wheel, strlen(wheel)), 0);
  void *by_name = dlopen(basename(lib.builtins.path), RTLD_NOW | RTLD_NOLOAD);
  assert_ptr_equal(by_name, lib.builtins.handle);
  dlclose(by_name);
  RtcNvrtcProgram prog = NULL;
  const char *opts[] = {"-arch=compute_90"};
  assert_int_equal(lib.nvrtcCreateProgram(&prog, good_source, "axpy.py", 0, NULL, NULL), 0);
  assert_int_equal(lib.nvrtcCompileProgram(prog, 1, opts), 0);
  lib.nvrtcDestroyProgram(&prog);
  /* Left loaded: a compile leaves NVRTC state that unloading it would orphan (LeakSanitizer
   * reports it); the later tests' loads of the same file find this copy. */
  unsetenv("PYK2CUDA_SITE_PACKAGES");
  remove_tree(site);
}

/* The cu12 wheel's layout (nvidia/cuda_nvrtc/lib) and conda's ($CONDA_PREFIX/lib) are found. */
static void cu12_wheel_and_conda_layouts(void **state) {
  (void)state;
  if (!toolkit_dir()) skip();
  char root[] = "/tmp/p2c-layouts-XXXXXX", dir[256], want[300], err[1024] = "";
  assert_non_null(mkdtemp(root));
  snprintf(dir, sizeof dir, "%s/site/nvidia/cuda_nvrtc/lib", root);
  link_nvrtc_into(dir);
  snprintf(want, sizeof want, "%s/site", root);
  setenv("PYK2CUDA_SITE_PACKAGES", want, 1);
  RtcLib lib;
  assert_int_equal(rtc_lib_open(&lib, NULL, err, sizeof err), P2C_OK);
  assert_int_equal(strncmp(lib.dl.path, dir, strlen(dir)), 0);
  rtc_lib_close(&lib);
  unsetenv("PYK2CUDA_SITE_PACKAGES");
  snprintf(dir, sizeof dir, "%s/conda/lib", root);
  link_nvrtc_into(dir);
  snprintf(want, sizeof want, "%s/conda", root);
  setenv("CONDA_PREFIX", want, 1);
  assert_int_equal(rtc_lib_open(&lib, NULL, err, sizeof err), P2C_OK);
  snprintf(want, sizeof want, "%s/libnvrtc.so.13", dir);
  assert_string_equal(lib.dl.path, want);
  assert_non_null(lib.builtins.handle);
  rtc_lib_close(&lib);
  unsetenv("CONDA_PREFIX");
  remove_tree(root);
}

/* A library in a wheel's place that is not NVRTC is reported, not passed over for the loader
 * path's NVRTC: the site-packages come first. */
static void wheel_that_is_not_nvrtc_is_reported(void **state) {
  (void)state;
  char site[] = "/tmp/p2c-site-XXXXXX", dir[256], link[300], err[1024] = "";
  assert_non_null(mkdtemp(site));
  snprintf(dir, sizeof dir, "%s/nvidia/cu13/lib", site);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  assert_int_equal(system(cmd), 0);
  snprintf(link, sizeof link, "%s/libnvrtc.so.13", dir);
  void *libm = dlopen("libm.so.6", RTLD_NOW);
  struct link_map *map = NULL;
  assert_int_equal(dlinfo(libm, RTLD_DI_LINKMAP, &map), 0);
  assert_int_equal(symlink(map->l_name, link), 0);
  setenv("PYK2CUDA_SITE_PACKAGES", site, 1);
  RtcLib lib;
  assert_int_equal(rtc_lib_open(&lib, NULL, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_non_null(strstr(err, "lacks nvrtcVersion"));
  assert_non_null(strstr(err, link));
  unsetenv("PYK2CUDA_SITE_PACKAGES");
  dlclose(libm);
  remove_tree(site);
}

/* The one wording of a driver older than NVRTC; a driver of NVRTC's major version fits. */
static void driver_fit(void **state) {
  (void)state;
  char why[512] = "";
  assert_true(rtc_driver_fits(13000, 13, 0, "", why, sizeof why));
  assert_true(rtc_driver_fits(13020, 13, 1, "", why, sizeof why));
  assert_false(rtc_driver_fits(12040, 13, 0, ", X", why, sizeof why));
  assert_string_equal(why, "the CUDA driver (CUDA 12.4) is older than NVRTC (CUDA 13.0), X: "
                           "install an NVIDIA driver for CUDA 13.0 or later, or set "
                           "PYK2CUDA_NVRTC to an NVRTC of CUDA 12");
}

/* ---- Helpers needing no library ------------------------------------------------------------- */

static void result_names(void **state) {
  (void)state;
  assert_string_equal(rtc_result_name(0), "NVRTC_SUCCESS");
  assert_string_equal(rtc_result_name(6), "NVRTC_ERROR_COMPILATION");
  assert_string_equal(rtc_result_name(17), "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED");
  assert_string_equal(rtc_result_name(18), "NVRTC_ERROR_UNKNOWN");
  assert_string_equal(rtc_result_name(-1), "NVRTC_ERROR_UNKNOWN");
  assert_non_null(strstr(rtc_default_options(), "--std=c++17"));
}

static void usage_errors(void **state) {
  (void)state;
  static const char *const bad_arches[] = {"sm_9", "sm_1000", "gfx90a", "sm_90x", "sm_", "90", ""};
  for (size_t i = 0; i < sizeof bad_arches / sizeof bad_arches[0]; i++) {
    RtcRequest req = {.source = good_source, .arch = bad_arches[i]};
    RtcResult res;
    assert_int_equal(rtc_compile(&req, &res), P2C_ERR_USAGE);
    assert_non_null(strstr(res.error, "bad architecture"));
    rtc_result_free(&res);
  }
  RtcRequest cubin = {.source = good_source, .arch = "compute_90", .target = P2C_TARGET_CUBIN};
  RtcResult res;
  assert_int_equal(rtc_compile(&cubin, &res), P2C_ERR_USAGE);
  assert_non_null(strstr(res.error, "a CUBIN needs a real architecture such as sm_90"));
  rtc_result_free(&res);
  RtcRequest nosrc = {.source = NULL};
  assert_int_equal(rtc_compile(&nosrc, &res), P2C_ERR_USAGE);
  rtc_result_free(&res);
}

/* ---- With NVRTC ----------------------------------------------------------------------------- */

/* Whether NVRTC loads; the tests below skip themselves when it does not. */
static bool have_nvrtc(void) {
  const RtcLib *lib;
  char err[1024];
  if (rtc_load(&lib, err, sizeof err) == P2C_OK) return true;
  print_message("skipped: %s\n", err);
  return false;
}

static void version(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  int major = 0, minor = -1;
  char err[1024] = "";
  assert_int_equal(rtc_version(&major, &minor, err, sizeof err), P2C_OK);
  assert_true(major >= 12);
  assert_true(minor >= 0);
}

static void compile_ptx_for(const char *arch, const char *target_line) {
  RtcRequest req = {.source = good_source, .program_name = "axpy.py", .arch = arch};
  RtcResult res;
  P2cStatus st = rtc_compile(&req, &res);
  if (st != P2C_OK) print_message("%s\n%s\n", res.error, res.log ? res.log : "");
  assert_int_equal(st, P2C_OK);
  assert_non_null(res.image);
  const char *ptx = res.image;
  assert_int_equal(strlen(ptx), res.image_size);
  assert_non_null(strstr(ptx, ".entry axpy("));
  assert_non_null(strstr(ptx, target_line));
  assert_non_null(res.log); /* kept on success, possibly empty */
  assert_int_equal(strlen(res.log), res.log_len);
  assert_string_equal(res.error, "");
  rtc_result_free(&res);
  assert_null(res.image);
  assert_null(res.log);
  rtc_result_free(&res); /* twice is harmless */
}

static void ptx_sm75(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  compile_ptx_for("sm_75", ".target sm_75");
}

static void ptx_sm90(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  compile_ptx_for("sm_90", ".target sm_90");
}

static void ptx_compute90(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  compile_ptx_for("compute_90", ".target sm_90");
}

static void ptx_default_arch_is_sm90(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  compile_ptx_for(NULL, ".target sm_90");
}

static void cubin_sm90(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  RtcRequest req = {.source = good_source,
                    .program_name = "axpy.py",
                    .arch = "sm_90",
                    .target = P2C_TARGET_CUBIN};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_OK);
  assert_non_null(res.image);
  assert_true(res.image_size > 64);
  assert_memory_equal(res.image,
                      "\x7f"
                      "ELF",
                      4);
  assert_int_equal(((const char *)res.image)[res.image_size], '\0');
  /* The kernel's name is in the ELF's string table. */
  assert_non_null(memmem(res.image, res.image_size, "axpy", 4));
  rtc_result_free(&res);
}

static void syntax_error_names_program(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  RtcRequest req = {.source = bad_source, .program_name = "samples/broken.py", .arch = "sm_90"};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_ERR_NVRTC);
  assert_null(res.image);
  assert_int_equal(res.image_size, 0);
  assert_non_null(res.log);
  assert_non_null(strstr(res.log, "samples/broken.py(2)"));
  assert_non_null(strstr(res.log, "error"));
  assert_non_null(strstr(res.error, "NVRTC could not compile samples/broken.py for sm_90"));
  assert_non_null(strstr(res.error, "NVRTC_ERROR_COMPILATION"));
  assert_non_null(strstr(res.error, "samples/broken.py(2): error"));
  rtc_result_free(&res);
}

/* The request's options come after the defaults and reach NVRTC. */
static void extra_options(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  static const char src[] = "extern \"C\" __global__ void k(int *x) { x[0] = SCALE; }\n";
  static const char *const opts[] = {"-DSCALE=7"};
  RtcRequest req = {.source = src, .program_name = "k.py", .options = opts, .option_count = 1};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_OK);
  assert_non_null(strstr(res.image, "7;"));
  rtc_result_free(&res);
  req.option_count = 0;
  assert_int_equal(rtc_compile(&req, &res), P2C_ERR_NVRTC);
  assert_non_null(strstr(res.log, "SCALE"));
  rtc_result_free(&res);
}

static void invalid_option(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  static const char *const opts[] = {"--no-such-option"};
  RtcRequest req = {.source = good_source, .options = opts, .option_count = 1};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_ERR_NVRTC);
  assert_non_null(strstr(res.error, "NVRTC_ERROR_INVALID_OPTION"));
  assert_non_null(res.log);
  rtc_result_free(&res);
}

/* An unannotated helper compiles: -default-device is among the defaults. */
static void default_device(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  static const char src[] =
      "static float helper(float x) { return x + 1.0f; }\n"
      "extern \"C\" __global__ void k(float *x) { x[0] = helper(x[0]); }\n";
  RtcRequest req = {.source = src, .program_name = "k.py"};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_OK);
  rtc_result_free(&res);
}

/* What the generated code uses from CUDA compiles with the defaults (--minimal included). */
static void contract_builtins(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  static const char src[] =
      "extern \"C\" __global__ void k(double *x, float *y) {\n"
      "  __shared__ double tile[32];\n"
      "  unsigned t = threadIdx.x + blockIdx.x * blockDim.x + gridDim.x;\n"
      "  tile[t % 32] = sqrt(x[t]) + sin(x[t]) + rint(x[t]) + floor(x[t]) + fmod(x[t], 3.0) +\n"
      "                 copysign(1.0, x[t]);\n"
      "  __syncthreads();\n"
      "  y[t] = sqrtf(y[t]) + sinf(y[t]);\n"
      "  if (isnan(x[t]) || isinf(x[t]) || !isfinite(y[t])) printf(\"%d %f\\n\", (int)t, "
      "tile[0]);\n"
      "}\n";
  RtcRequest req = {.source = src, .program_name = "k.py"};
  RtcResult res;
  P2cStatus st = rtc_compile(&req, &res);
  if (st != P2C_OK) print_message("%s\n%s\n", res.error, res.log ? res.log : "");
  assert_int_equal(st, P2C_OK);
  assert_non_null(strstr(res.image, "vprintf"));
  rtc_result_free(&res);
}

/* Compiles on several threads at once: the shared table is loaded once, programs are separate. */
static void *compile_on_thread(void *arg) {
  RtcRequest req = {.source = good_source, .program_name = "axpy.py", .arch = arg};
  RtcResult res;
  P2cStatus st = rtc_compile(&req, &res);
  bool ok = st == P2C_OK && strstr(res.image, ".entry axpy(") != NULL;
  rtc_result_free(&res);
  return ok ? arg : NULL;
}

static void concurrent_compiles(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  static char arches[4][8] = {"sm_75", "sm_80", "sm_90", "sm_90"};
  pthread_t threads[4];
  for (int i = 0; i < 4; i++)
    assert_int_equal(pthread_create(&threads[i], NULL, compile_on_thread, arches[i]), 0);
  for (int i = 0; i < 4; i++) {
    void *ret = NULL;
    assert_int_equal(pthread_join(threads[i], &ret), 0);
    assert_ptr_equal(ret, arches[i]);
  }
}

/* ---- The host allocator --------------------------------------------------------------------- */

typedef struct CountingAlloc {
  long live;    /* blocks not yet freed */
  long calls;   /* allocations made */
  long fail_at; /* fail the n-th allocation (1-based); 0: never */
} CountingAlloc;

static void *counting_realloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  CountingAlloc *c = ud;
  (void)old_size;
  if (new_size == 0) {
    if (ptr) c->live--;
    free(ptr);
    return NULL;
  }
  if (!ptr) {
    c->calls++;
    if (c->fail_at && c->calls == c->fail_at) return NULL;
    c->live++;
  }
  return realloc(ptr, new_size);
}

static void uses_host_allocator(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  CountingAlloc c = {0};
  P2cAllocator alloc = {counting_realloc, &c};
  RtcRequest req = {.source = good_source, .program_name = "axpy.py", .alloc = &alloc};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_OK);
  assert_int_equal(c.live, 2); /* the image and the log */
  rtc_result_free(&res);
  assert_int_equal(c.live, 0);
  /* On failure the log stays, also from the host's allocator. */
  req.source = bad_source;
  assert_int_equal(rtc_compile(&req, &res), P2C_ERR_NVRTC);
  assert_int_equal(c.live, 1);
  rtc_result_free(&res);
  assert_int_equal(c.live, 0);
}

static void allocation_failures(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  /* Fail each allocation rtc_compile makes in turn: options, log, image. */
  for (long n = 1; n <= 3; n++) {
    CountingAlloc c = {.fail_at = n};
    P2cAllocator alloc = {counting_realloc, &c};
    RtcRequest req = {.source = good_source, .alloc = &alloc, .target = P2C_TARGET_CUBIN};
    RtcResult res;
    assert_int_equal(rtc_compile(&req, &res), P2C_ERR_NOMEM);
    assert_null(res.image);
    assert_non_null(strstr(res.error, "out of memory"));
    rtc_result_free(&res);
    assert_int_equal(c.live, 0);
  }
}

/* One compile for a CUBIN and its PTX (the explore view's): the PTX is the one a PTX request
 * gives, the CUBIN an ELF image, and a request for PTX alone is refused. */
static void cubin_with_ptx(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  static const char *const opts[] = {"-lineinfo"};
  RtcRequest req = {.source = good_source, .program_name = "axpy.py.cu", .arch = "sm_90",
                    .target = P2C_TARGET_PTX, .options = opts, .option_count = 1};
  RtcResult alone, cubin, ptx;
  assert_int_equal(rtc_compile(&req, &alone), P2C_OK);
  assert_int_equal(rtc_compile_with_ptx(&req, &cubin, &ptx), P2C_ERR_USAGE);
  assert_null(ptx.image);
  rtc_result_free(&cubin);
  req.target = P2C_TARGET_CUBIN;
  assert_int_equal(rtc_compile_with_ptx(&req, &cubin, &ptx), P2C_OK);
  assert_memory_equal(cubin.image, "\x7f" "ELF", 4);
  assert_int_equal(ptx.image_size, alone.image_size);
  assert_string_equal(ptx.image, alone.image);
  assert_non_null(strstr(ptx.image, ".loc"));
  rtc_result_free(&alone);
  rtc_result_free(&cubin);
  rtc_result_free(&ptx);
  /* Each allocation failed in turn (options, log, CUBIN, PTX): no image, nothing left over. */
  for (long n = 1; n <= 4; n++) {
    CountingAlloc c = {.fail_at = n};
    P2cAllocator alloc = {counting_realloc, &c};
    req.alloc = &alloc;
    assert_int_equal(rtc_compile_with_ptx(&req, &cubin, &ptx), P2C_ERR_NOMEM);
    assert_null(cubin.image);
    assert_null(ptx.image);
    assert_non_null(strstr(cubin.error, "out of memory"));
    rtc_result_free(&cubin);
    rtc_result_free(&ptx);
    assert_int_equal(c.live, 0);
  }
}

int main(void) {
  const struct CMUnitTest missing[] = {
      cmocka_unit_test(env_override_missing_fails),
      cmocka_unit_test(lib_open_missing_path),
      cmocka_unit_test(lib_open_wrong_library),
      cmocka_unit_test(wheel_on_site_packages_with_builtins),
      cmocka_unit_test(cu12_wheel_and_conda_layouts),
      cmocka_unit_test(wheel_that_is_not_nvrtc_is_reported),
  };
  const struct CMUnitTest offline[] = {
      cmocka_unit_test(result_names),
      cmocka_unit_test(usage_errors),
      cmocka_unit_test(driver_fit),
  };
  const struct CMUnitTest with_nvrtc[] = {
      cmocka_unit_test(version),
      cmocka_unit_test(ptx_sm75),
      cmocka_unit_test(ptx_sm90),
      cmocka_unit_test(ptx_compute90),
      cmocka_unit_test(ptx_default_arch_is_sm90),
      cmocka_unit_test(cubin_sm90),
      cmocka_unit_test(cubin_with_ptx),
      cmocka_unit_test(syntax_error_names_program),
      cmocka_unit_test(extra_options),
      cmocka_unit_test(invalid_option),
      cmocka_unit_test(default_device),
      cmocka_unit_test(contract_builtins),
      cmocka_unit_test(concurrent_compiles),
      cmocka_unit_test(uses_host_allocator),
      cmocka_unit_test(allocation_failures),
  };
  int failed = cmocka_run_group_tests_name("nvrtc: library missing", missing, NULL, NULL);
  failed += cmocka_run_group_tests_name("nvrtc: no library needed", offline, NULL, NULL);
  failed += cmocka_run_group_tests_name("nvrtc: compiling", with_nvrtc, NULL, NULL);
  return failed;
}
