/* bench/specializations.c: NVRTC's CPU time for four specializations of one kernel compiled as
 * one program (what a kernel with a list of signatures compiles: pyk2cuda's Python package
 * translates them into one module, and its specializations share that module's one NVRTC
 * program, the compile cache giving the later ones its image) against four programs of one
 * specialization each (issue 30: measured there at 3.1x). Public API only; the compile cache
 * off (p2c_compiler_set_cache), the translation outside the timing, NVRTC loaded by a warm-up
 * compile first. CPU time of the process (CLOCK_PROCESS_CPUTIME_ID: NVRTC runs in it), so the
 * machine's load counts little. Prints medians over ROUNDS alternating rounds, in ms, for PTX
 * and for a CUBIN of sm_90.
 * Usage: build/bench/specializations [ROUNDS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "pyk2cuda.h"

static const char SOURCE[] =
    "from numba import cuda\n"
    "@cuda.jit\n"
    "def axpy(x, out, a):\n"
    "    i = cuda.grid(1)\n"
    "    if i < x.size:\n"
    "        out[i] = a * x[i] + out[i]\n";

static const char *const SIGS[4] = {
    "axpy(float32[::1], float32[::1], float32)", "axpy(float64[::1], float64[::1], float64)",
    "axpy(int32[::1], int32[::1], int32)", "axpy(int64[::1], int64[::1], int64)"};

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static P2cModule *translate(P2cCompiler *c, const char *const *sigs, size_t n) {
  P2cTranslateOptions o = {.signatures = sigs, .signature_count = n};
  P2cModule *m = NULL;
  if (p2c_translate(c, "axpy.py", SOURCE, sizeof SOURCE - 1, &o, &m) != P2C_OK) {
    fprintf(stderr, "specializations: %s\n", p2c_compiler_last_error(c));
    exit(1);
  }
  return m;
}

/* CPU ms of compiling the modules, one NVRTC program each. */
static double compile_ms(P2cCompiler *c, P2cModule **m, size_t n, P2cTarget target) {
  double t0 = cpu_ms();
  for (size_t i = 0; i < n; i++)
    if (p2c_module_compile(c, m[i], "sm_90", target) != P2C_OK) {
      fprintf(stderr, "specializations: %s\n", p2c_compiler_last_error(c));
      exit(1);
    }
  return cpu_ms() - t0;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  if (rounds < 1 || rounds > 99) rounds = 7;
  P2cCompiler *c = p2c_compiler_new(NULL);
  if (!c) return 1;
  p2c_compiler_set_cache(c, false);
  P2cModule *one[1] = {translate(c, SIGS, 4)}, *four[4];
  for (size_t i = 0; i < 4; i++) four[i] = translate(c, &SIGS[i], 1);
  if (p2c_module_kernel_count(one[0]) != 4) return fprintf(stderr, "specializations: not 4 kernels\n"), 1;
  compile_ms(c, one, 1, P2C_TARGET_PTX);   /* loads NVRTC */
  static const struct { const char *name; P2cTarget target; } targets[] = {{"PTX", P2C_TARGET_PTX}, {"CUBIN sm_90", P2C_TARGET_CUBIN}};
  for (size_t t = 0; t < 2; t++) {
    double a[99], b[99];
    for (int r = 0; r < rounds; r++) {
      a[r] = compile_ms(c, one, 1, targets[t].target);
      b[r] = compile_ms(c, four, 4, targets[t].target);
    }
    double ma = bench_median(a, rounds), mb = bench_median(b, rounds);
    printf("%s: one program of 4 specializations %.1f ms, 4 programs %.1f ms: %.2fx (CPU, median of %d)\n",
           targets[t].name, ma, mb, mb / ma, rounds);
  }
  for (size_t i = 0; i < 4; i++) p2c_module_delete(four[i]);
  p2c_module_delete(one[0]);
  p2c_compiler_delete(c);
  return 0;
}
