/* The compile paths of issue 14, each timed in one process, for bench/compile_vs.py:
 *
 *   compile_paths nvrtc FILE.cu ARCH [OPTION]...
 *       NVRTC alone: FILE.cu (CUDA C that pyk2cuda emitted) compiled once to PTX with the options
 *       pyk2cuda gives it (rtc_compile), then the OPTIONs. Timed from outside, as a fresh
 *       process, it is the floor that `pyk2cuda ptx` is held to. `--time=CSV` makes NVRTC write
 *       the time of its phases (front end, NVVM optimizer) to CSV.
 *   compile_paths inproc FILE.py SIG ARCH N
 *       In one process: the module translated and compiled to PTX once with the cache on (which
 *       fills a cache entry), then N compiles that hit the cache, then N compiles with the cache
 *       off (the "second compile in a long-lived process"). Prints the medians:
 *       "hit_ms X" and "second_ms Y".
 *
 * Uses the public API, and the internal rtc_compile for the NVRTC-alone path. Set
 * PYK2CUDA_CACHE_DIR to a private folder. Exit status 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "pyk2cuda.h"
#include "runtime/cuda/nvrtc.h"

static int nvrtc_alone(const char *file, const char *arch, const char *const *options, int count) {
  size_t len;
  char *src = bench_read_file(file, &len);
  if (!src) return fprintf(stderr, "cannot read %s\n", file), 1;
  RtcRequest req = {.source = src, .program_name = file, .arch = arch, .target = P2C_TARGET_PTX,
                    .options = options, .option_count = (size_t)count};
  RtcResult res;
  P2cStatus s = rtc_compile(&req, &res);
  if (s != P2C_OK) fprintf(stderr, "%s\n%s", res.error, res.log ? res.log : "");
  rtc_result_free(&res);
  free(src);
  return s != P2C_OK;
}

/* N compiles of `m`, each timed; the median in ms. Fails (negative) on an error or when the
 * cache answered other than `want_hit`. */
static double compiles(P2cCompiler *c, P2cModule *m, const char *arch, int n, bool want_hit) {
  double *t = malloc(sizeof *t * (size_t)n), result;
  for (int i = 0; i < n; i++) {
    double t0 = bench_now_ms();
    P2cStatus s = p2c_module_compile(c, m, arch, P2C_TARGET_PTX);
    t[i] = bench_now_ms() - t0;
    if (s != P2C_OK || p2c_module_image_from_cache(m) != want_hit) {
      fprintf(stderr, "compile: %s\n", s != P2C_OK ? p2c_compiler_last_error(c) : "unexpected cache answer");
      free(t);
      return -1;
    }
  }
  result = bench_median(t, n);
  free(t);
  return result;
}

static int in_process(const char *file, const char *sig, const char *arch, int n) {
  size_t len;
  char *src = bench_read_file(file, &len);
  if (!src) return fprintf(stderr, "cannot read %s\n", file), 1;
  char name[128];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(sig, "("), sig);
  const char *kernels[] = {name}, *sigs[] = {sig};
  P2cTranslateOptions o = {kernels, 1, sigs, 1, false, false, {0}};
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  int rc = 1;
  if (p2c_translate(c, file, src, len, &o, &m) != P2C_OK) {
    fprintf(stderr, "translate: %s\n", p2c_compiler_last_error(c));
  } else if (p2c_module_compile(c, m, arch, P2C_TARGET_PTX) == P2C_OK) {
    double hit = compiles(c, m, arch, n, true);
    p2c_compiler_set_cache(c, false);
    double second = hit < 0 ? -1 : compiles(c, m, arch, n, false);
    if (second >= 0) printf("hit_ms %.4f\nsecond_ms %.3f\n", hit, second);
    rc = second < 0;
  } else {
    fprintf(stderr, "compile: %s\n", p2c_compiler_last_error(c));
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(src);
  return rc;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "nvrtc"))
    return nvrtc_alone(argv[2], argv[3], (const char *const *)argv + 4, argc - 4);
  if (argc == 6 && !strcmp(argv[1], "inproc")) return in_process(argv[2], argv[3], argv[4], atoi(argv[5]) > 0 ? atoi(argv[5]) : 1);
  fprintf(stderr, "usage: compile_paths nvrtc FILE.cu ARCH [OPTION]... | inproc FILE.py SIG ARCH N\n");
  return 2;
}
