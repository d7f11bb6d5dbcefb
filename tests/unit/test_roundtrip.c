/* Round trips of signature texts, through the public API as every front reaches it: each
 * signature the golden and diff suites use is parsed (a --sig of tests/golden/cases.txt, or a
 * decorator's signature in any .py file under tests/ and samples/), and the text the
 * library prints for the specialization (P2cKernelInfo.signature, which Python's
 * kernel.signatures and error messages show) is given back as a signature. The second parse
 * must give the same text and the same parameters (types, dimensions, layouts, records, tuple
 * elements, sizes): a printed type that does not parse back, or parses to another type, is a
 * place where the fronts would disagree. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pyk2cuda.h"
#include "test_files.h"

#ifndef P2C_SOURCE_DIR
#error "P2C_SOURCE_DIR must name the source tree"
#endif

enum { MAX_SIGS = 64 };

/* Whether two parameter lists describe the same types, element by element (names aside: a
 * tuple's field names are part of its type, a parameter's name is the source's). */
static bool same_params(const P2cParam *a, const P2cParam *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (a[i].is_array != b[i].is_array || a[i].type != b[i].type || a[i].ndim != b[i].ndim ||
        a[i].layout != b[i].layout || a[i].size != b[i].size || a[i].align != b[i].align ||
        a[i].offset != b[i].offset || a[i].elem_count != b[i].elem_count ||
        (a[i].record == NULL) != (b[i].record == NULL))
      return false;
    if ((a[i].tuple_class || b[i].tuple_class) &&
        (!a[i].tuple_class || !b[i].tuple_class || strcmp(a[i].tuple_class, b[i].tuple_class)))
      return false;
    if (a[i].record && (a[i].record->itemsize != b[i].record->itemsize ||
                        a[i].record->aligned != b[i].record->aligned ||
                        a[i].record->field_count != b[i].record->field_count))
      return false;
    if (a[i].elem_count && !same_params(a[i].elems, b[i].elems, a[i].elem_count)) return false;
  }
  return true;
}

/* Translates `file` with these extra signatures (unsigned kernels left out); NULL when the
 * translation fails. */
static P2cModule *translate(P2cCompiler *c, const char *file, const char *src, size_t len,
                            const char *const *sigs, size_t nsigs, const char *only) {
  const char *kernels[1] = {only};
  P2cTranslateOptions o = {only ? kernels : NULL, only ? 1 : 0, sigs, nsigs, false, true};
  P2cModule *m = NULL;
  if (p2c_translate(c, file, src, len, &o, &m) != P2C_OK) {
    p2c_module_delete(m);
    return NULL;
  }
  return m;
}

/* Gives specialization `k` of `m` back as "name:TEXT" and checks that the result has a
 * specialization of the same text and parameters. Fails the test with both texts if not. */
static void round_trip_one(P2cCompiler *c, const char *file, const char *src, size_t len,
                           P2cKernelInfo k) {
  char sig[2048];
  int n = snprintf(sig, sizeof sig, "%s:%s", k.python_name, k.signature);
  assert_true(n > 0 && (size_t)n < sizeof sig);
  const char *sigs[1] = {sig};
  P2cModule *again = translate(c, file, src, len, sigs, 1, k.python_name);
  if (!again) fail_msg("%s: '%s' does not parse back: %s", file, sig, p2c_compiler_last_error(c));
  bool found = false;
  for (size_t i = 0; i < p2c_module_kernel_count(again) && !found; i++) {
    P2cKernelInfo j = p2c_module_kernel(again, i);
    found = strcmp(j.python_name, k.python_name) == 0 && strcmp(j.signature, k.signature) == 0 &&
            j.param_count == k.param_count && same_params(j.params, k.params, k.param_count);
  }
  if (!found) {
    fprintf(stderr, "%s: %s printed as '%s'; given back, the module has:\n", file, k.python_name,
            k.signature);
    for (size_t i = 0; i < p2c_module_kernel_count(again); i++)
      fprintf(stderr, "  %s %s\n", p2c_module_kernel(again, i).python_name,
              p2c_module_kernel(again, i).signature);
    fail_msg("signature text of %s in %s does not round-trip", k.python_name, file);
  }
  p2c_module_delete(again);
}

/* Round-trips every specialization of `file` translated with `sigs`; returns how many, or -1
 * when the file does not translate with them (not every test file is meant to). */
static int round_trip_file(const char *file, const char *const *sigs, size_t nsigs) {
  size_t len;
  char *src = test_read_file(file, &len);
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  P2cModule *m = translate(c, file, src, len, sigs, nsigs, NULL);
  int count = -1;
  if (m) {
    count = 0;
    for (size_t i = 0; i < p2c_module_kernel_count(m); i++) {
      P2cKernelInfo k = p2c_module_kernel(m, i);
      if (k.is_ufunc) continue;   /* a ufunc's kernel takes its broadcast views, not a signature */
      round_trip_one(c, file, src, len, k);
      count++;
    }
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(src);
  return count;
}

/* Takes the --sig '...' arguments out of one line of tests/golden/cases.txt (NAME FILE ARGS:
 * every --sig of the golden cases is single-quoted). Returns the count; sigs point into line. */
static size_t golden_sigs(char *line, char **file, const char **sigs) {
  size_t n = 0;
  char *save = NULL;
  strtok_r(line, " \t", &save);          /* the case name */
  *file = strtok_r(NULL, " \t", &save);
  char *p = save;
  while (p && (p = strstr(p, "--sig '")) && n < MAX_SIGS) {
    p += strlen("--sig '");
    char *end = strchr(p, '\'');
    if (!end) break;
    *end = '\0';
    sigs[n++] = p;
    p = end + 1;
  }
  return n;
}

/* Every golden case with signatures: the --sig texts parse, print, and parse back the same. */
static void golden_signatures_round_trip(void **state) {
  (void)state;
  size_t len;
  char *text = test_read_file(P2C_SOURCE_DIR "/tests/golden/cases.txt", &len);
  int total = 0, files = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || line[0] == '\0') continue;
    char *file;
    const char *sigs[MAX_SIGS];
    size_t nsigs = golden_sigs(line, &file, sigs);
    if (!file || nsigs == 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", P2C_SOURCE_DIR, file);
    int n = round_trip_file(path, sigs, nsigs);
    if (n < 0) fail_msg("golden case file %s does not translate with its signatures", file);
    total += n;
    files++;
  }
  free(text);
  printf("golden: %d specializations of %d cases round-trip\n", total, files);
  assert_true(total >= 50);   /* the corpus is read, not skipped */
}

/* Every decorator signature in the .py files under `dir`, its subfolders included. Files that
 * do not translate as a whole (a diagnostics case, kernels typed only at launch, kernels
 * defined inside test functions) have nothing to give back. */
static int folder_round_trip(const char *dir, int *files) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int total = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_type == DT_DIR && e->d_name[0] != '.') {
      total += folder_round_trip(path, files);
      continue;
    }
    if (n < 4 || strcmp(e->d_name + n - 3, ".py") != 0) continue;
    int k = round_trip_file(path, NULL, 0);
    if (k > 0) {
      total += k;
      (*files)++;
    }
  }
  closedir(d);
  return total;
}

static void decorator_signatures_round_trip(void **state) {
  (void)state;
  int files = 0;
  int total = folder_round_trip(P2C_SOURCE_DIR "/tests", &files) +
              folder_round_trip(P2C_SOURCE_DIR "/samples", &files);
  printf("decorators: %d specializations of %d files round-trip\n", total, files);
  assert_true(total >= 20);   /* the corpus is read, not skipped */
}

/* Every scalar spelling of the one table (p2c_type_spelling): as an array's dtype in each
 * layout and as a scalar, it prints as its canonical name and that text parses back the same. */
static void every_spelling_round_trips(void **state) {
  (void)state;
  static const char source[] = "from numba import cuda\n\n@cuda.jit\ndef k(a, b):\n    pass\n";
  static const char *const layouts[] = {"[::1]", "[:]", "[:, ::1]", "[::1, :]", "[:, :, :]"};
  const char *name, *canonical;
  bool numba;
  size_t count = 0;
  P2cCompiler *c = p2c_compiler_new(NULL);
  assert_non_null(c);
  for (size_t i = 0; p2c_type_spelling(i, &name, &canonical, &numba); i++) {
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
      char sig[256], want[256];
      snprintf(sig, sizeof sig, "k(%s%s, %s)", name, layouts[l], name);
      snprintf(want, sizeof want, "void(%s%s, %s)", canonical, layouts[l], canonical);
      const char *sigs[1] = {sig};
      P2cModule *m = translate(c, "spell.py", source, sizeof source - 1, sigs, 1, NULL);
      if (!m) fail_msg("'%s' is refused: %s", sig, p2c_compiler_last_error(c));
      assert_int_equal(p2c_module_kernel_count(m), 1);
      P2cKernelInfo k = p2c_module_kernel(m, 0);
      if (strcmp(k.signature, want) != 0) fail_msg("'%s' prints as '%s', not '%s'", sig, k.signature, want);
      round_trip_one(c, "spell.py", source, sizeof source - 1, k);
      p2c_module_delete(m);
      count++;
    }
  }
  p2c_compiler_delete(c);
  printf("spellings: %zu signatures round-trip\n", count);
  assert_true(count >= 5 * 14);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(golden_signatures_round_trip),
      cmocka_unit_test(decorator_signatures_round_trip),
      cmocka_unit_test(every_spelling_round_trips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
