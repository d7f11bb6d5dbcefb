/* Round trips of signature texts, through the public API as every front reaches it: each
 * signature the golden and diff suites use is parsed (a --sig of tests/golden/cases.txt, or a
 * decorator's signature in any .py file under tests/ and samples/), and the text the
 * library prints for the specialization (P2cKernelInfo.signature, which Python's
 * kernel.signatures and error messages show) is given back as a signature. The second parse
 * must give the same text and the same parameters (types, dimensions, layouts, records, tuple
 * elements, sizes): a printed type that does not parse back, or parses to another type, is a
 * place where the fronts would disagree. Each parameter's dtype goes through the library's
 * typestr writer and reader (p2c_dtype_str, p2c_dtype_parse) and each array's layout through the
 * dimension text and its slices (p2c_array_dims, p2c_slices_layout) and through strides
 * (p2c_array_layout), and must come back the same. The diff suite's launches (tests/diff/cases.txt,
 * kernels typed from their arguments) are given as the signatures those arguments make. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The typestr of dtype t, read back: the same dtype, no byte swap. */
static void dtype_round_trips(P2cScalarType t, const char *where) {
  char text[32];
  size_t n = p2c_dtype_str(t, text, sizeof text);
  P2cScalarType again;
  bool swapped = true;
  if (n == 0 || n >= sizeof text || !p2c_dtype_parse(text, n, &again, &swapped) || again != t || swapped)
    fail_msg("%s: dtype %d is written '%s', which does not read back as it", where, (int)t, text);
}

/* Whether the slice text of p2c_array_dims ("[:, ::1]") has '::1' first and last. */
static void slice_ends(const char *dims, bool *first, bool *last) {   /* "[()]": neither */
  const char *close = strrchr(dims, ']');
  const char *comma = strrchr(dims, ',');
  *first = strncmp(dims, "[::1", 4) == 0;
  *last = close && close - dims >= 4 && strncmp(close - 3, "::1", 3) == 0 && (!comma || comma < close - 3);
}

/* An array of `ndim` dimensions and layout 'C', 'F' or 'A': the signature's dimension text gives
 * its layout back, and so do strides of that order (a C or F array of extents 2, 3, 4, ...; an A
 * array every other element of a C one). */
static void layout_round_trips(int ndim, char layout, const char *where) {
  if (ndim == 1 && layout == 'F') layout = 'C';   /* a 1-d contiguous array is C */
  char dims[64];
  size_t n = p2c_array_dims(ndim, layout, dims, sizeof dims);
  bool first, last;
  assert_true(n > 0 && n < sizeof dims);
  slice_ends(dims, &first, &last);
  char back = p2c_slices_layout(ndim, first, last);
  if (back != layout) fail_msg("%s: a %dd %c array is written '%s', which reads back as %c", where, ndim, layout, dims, back);
  int64_t shape[P2C_MAX_NDIM], strides[P2C_MAX_NDIM], s = 4;
  for (int k = 0; k < ndim; k++) shape[k] = k + 2;
  for (int i = 0; i < ndim; i++) {
    int k = layout == 'F' ? i : ndim - 1 - i;
    strides[k] = layout == 'A' && i == 0 ? 2 * s : s;
    s *= shape[k] * (layout == 'A' && i == 0 ? 2 : 1);
  }
  back = p2c_array_layout(4, ndim, shape, strides);
  if (back != layout)
    fail_msg("%s: strides of a %dd %c array give layout %c", where, ndim, layout, back);
}

/* The dtypes and layouts of parameters (tuple elements too) round-trip. */
static void params_round_trip(const P2cParam *p, size_t n, const char *where) {
  for (size_t i = 0; i < n; i++) {
    if (p[i].elem_count) params_round_trip(p[i].elems, p[i].elem_count, where);
    if (p[i].type != P2C_RECORD && p[i].type != P2C_TUPLE) dtype_round_trips(p[i].type, where);
    if (p[i].is_array) layout_round_trips(p[i].ndim, p[i].layout, where);
  }
}

/* Translates `file` with these extra signatures (unsigned kernels left out); NULL when the
 * translation fails. */
static P2cModule *translate(P2cCompiler *c, const char *file, const char *src, size_t len,
                            const char *const *sigs, size_t nsigs, const char *only) {
  const char *kernels[1] = {only};
  P2cTranslateOptions o = {only ? kernels : NULL, only ? 1 : 0, sigs, nsigs, false, true, {0}};
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
  params_round_trip(k.params, k.param_count, file);
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
  /* from the repository's root, as cli_cases.py runs the golden cases: their link= paths start
   * there (tests/golden/linked_cuda.py) */
  char here[4096];
  assert_non_null(getcwd(here, sizeof here));
  assert_int_equal(chdir(P2C_SOURCE_DIR), 0);
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
  assert_int_equal(chdir(here), 0);
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

/* The parameter type an argument of tests/diff/cases.txt makes (`pyk2cuda run` syntax plus the
 * runner's `in:`/`inF:`), appended to sig; false for one this test does not spell (the runner's
 * named record dtypes, a .npy path). Arrays are C-contiguous (F for inF:); a bare integer is
 * int64, a bare float float64, as Numba types them; "T:v" is T. */
static bool diff_arg_type(const char *arg, char *sig, size_t cap) {
  static const char *const arrays[] = {"in:", "inF:", "zeros:", "ones:", "empty:", "arange:"};
  size_t used = strlen(sig);
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
    size_t pre = strlen(arrays[i]);
    if (strncmp(arg, arrays[i], pre) != 0) continue;
    const char *dtype = arg + pre, *shape = strrchr(dtype, '[');
    if (!shape || shape == dtype) return false;
    int ndim = shape[1] == ']' ? 0 : 1;   /* DTYPE[]: 0-d */
    for (const char *q = shape; *q && *q != ']'; q++) ndim += *q == ',';
    char dims[64];
    p2c_array_dims(ndim, i == 1 && ndim > 1 ? 'F' : 'C', dims, sizeof dims);
    int name_len = (int)(shape - dtype);
    P2cScalarType t;
    char name[48];
    if (p2c_dtype_parse_charseq(dtype, (size_t)name_len, &t)) {
      int64_t chars;
      bool unicode;
      p2c_dtype_charseq(t, &unicode, &chars);
      snprintf(name, sizeof name, "%s(%lld)", unicode ? "UnicodeCharSeq" : "CharSeq", (long long)chars);
    } else snprintf(name, sizeof name, "%.*s", name_len, dtype);
    if (strncmp(name, "rec_", 4) == 0) return false;
    snprintf(sig + used, cap - used, "%s%s%s", used && sig[used - 1] != '(' ? ", " : "", name, dims);
    return true;
  }
  const char *colon = strrchr(arg, ':');
  char type[48];
  if (colon) snprintf(type, sizeof type, "%.*s", (int)(colon - arg), arg);
  else if (!strcmp(arg, "true") || !strcmp(arg, "false")) strcpy(type, "bool");
  else if (strspn(arg, "-0123456789") == strlen(arg)) strcpy(type, "int64");
  else if (strspn(arg, "-0123456789.e") == strlen(arg)) strcpy(type, "float64");
  else return false;
  snprintf(sig + used, cap - used, "%s%s", used && sig[used - 1] != '(' ? ", " : "", type);
  return true;
}

/* Every launch of the diff suite (a kernel typed from its arguments there): the signature its
 * arguments make parses, prints, and parses back the same, dtypes and layouts too. Cases whose
 * kernels have decorator signatures are the decorator test's. */
static void diff_signatures_round_trip(void **state) {
  (void)state;
  size_t len;
  char *text = test_read_file(P2C_SOURCE_DIR "/tests/diff/cases.txt", &len);
  int total = 0, cases = 0, unspelled = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || line[0] == '\0') continue;
    char *w = NULL, *f[5];
    f[0] = strtok_r(line, " \t", &w);
    for (int i = 1; i < 5; i++) f[i] = strtok_r(NULL, " \t", &w);
    if (!f[4]) continue;
    char sig[1024];
    int n = snprintf(sig, sizeof sig, "%s:", f[2]);
    sig[n] = '\0';
    char *body = sig + n;
    bool spelled = true;
    for (char *arg = strtok_r(NULL, " \t", &w); arg && spelled; arg = strtok_r(NULL, " \t", &w))
      if (!strchr(arg, '=') || strncmp(arg, "in", 2) == 0) spelled = diff_arg_type(arg, body, sizeof sig - (size_t)n);
    if (!spelled) {
      unspelled++;
      continue;
    }
    char full[1100], path[1024];
    snprintf(full, sizeof full, "%s(%s)", f[2], body);
    snprintf(path, sizeof path, "%s/tests/diff/%s", P2C_SOURCE_DIR, f[1]);
    const char *sigs[1] = {full};
    size_t flen;
    char *src = test_read_file(path, &flen);
    P2cCompiler *c = p2c_compiler_new(NULL);
    P2cModule *m = translate(c, path, src, flen, sigs, 1, f[2]);
    for (size_t i = 0; m && i < p2c_module_kernel_count(m); i++) {
      P2cKernelInfo k = p2c_module_kernel(m, i);
      if (k.is_ufunc || strcmp(k.python_name, f[2]) != 0) continue;
      round_trip_one(c, path, src, flen, k);
      total++;
    }
    if (!m) fprintf(stderr, "diff case %s: '%s' does not translate: %s\n", f[0], full, p2c_compiler_last_error(c));
    cases += m != NULL;
    p2c_module_delete(m);
    p2c_compiler_delete(c);
    free(src);
  }
  free(text);
  printf("diff: %d specializations of %d cases round-trip (%d cases with record or other arguments left out)\n",
         total, cases, unspelled);
  assert_true(cases >= 250);   /* the corpus is read, not skipped */
}

/* Every dtype: its typestr reads back as it; NumPy's own texts (dtype.str on a little-endian
 * host) read as their dtypes, with a swap where the order is the other one; texts NumPy has no
 * dtype of here are refused. */
static void every_dtype_round_trips(void **state) {
  (void)state;
  for (int t = 0; t < P2C_SCALAR_TYPE_COUNT; t++) dtype_round_trips((P2cScalarType)t, "dtypes");
  for (int64_t n = 1; n <= P2C_MAX_CHARS; n *= 7) {
    dtype_round_trips(P2C_CHARSEQ(n), "dtypes");
    dtype_round_trips(P2C_UNICHARSEQ(n), "dtypes");
  }
  static const struct { const char *text; P2cScalarType t; bool swap; } numpy[] = {
      {"|b1", P2C_BOOL, false}, {"?", P2C_BOOL, false}, {"<f4", P2C_FLOAT32, false},
      {">f4", P2C_FLOAT32, true}, {"=f8", P2C_FLOAT64, false}, {"<c16", P2C_COMPLEX128, false},
      {">c8", P2C_COMPLEX64, true}, {"<f2", P2C_FLOAT16, false}, {"|u1", P2C_UINT8, false},
      {">u1", P2C_UINT8, false}, {"<i8", P2C_INT64, false}, {"|S12", P2C_CHARSEQ(12), false},
      {"a3", P2C_CHARSEQ(3), false}, {"<U5", P2C_UNICHARSEQ(5), false}, {">U5", P2C_UNICHARSEQ(5), true},
      {"<M8[D]", (P2cScalarType)(P2C_DATETIME64 + P2C_UNIT_D), false},
      {"<m8", (P2cScalarType)(P2C_TIMEDELTA64 + P2C_UNIT_GENERIC), false},
      {">m8[ns]", (P2cScalarType)(P2C_TIMEDELTA64 + P2C_UNIT_ns), true}};
  for (size_t i = 0; i < sizeof numpy / sizeof numpy[0]; i++) {
    P2cScalarType t;
    bool swap;
    if (!p2c_dtype_parse(numpy[i].text, strlen(numpy[i].text), &t, &swap) || t != numpy[i].t || swap != numpy[i].swap)
      fail_msg("NumPy's '%s' is not read as dtype %d (swap %d)", numpy[i].text, (int)numpy[i].t, numpy[i].swap);
  }
  static const char *const refused[] = {"", "<", "|O", "|V8", "<f16", "<i3", "<M8[10D]", "<M8[]",
                                        "|f4", "|M8[D]", "<f4x", "|S0", "|S1048577", "f4 ", "<U"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    P2cScalarType t;
    if (p2c_dtype_parse(refused[i], strlen(refused[i]), &t, NULL)) fail_msg("'%s' is accepted", refused[i]);
  }
  char text[8];
  assert_int_equal(p2c_dtype_str(P2C_FLOAT32, text, sizeof text), 3);
  assert_string_equal(text, "<f4");
  assert_int_equal(p2c_dtype_str(P2C_RECORD, text, sizeof text), 0);
  assert_int_equal(p2c_dtype_str(P2C_TUPLE, text, sizeof text), 0);
}

/* Every layout of every rank: through its dimension text and through strides. */
static void every_layout_round_trips(void **state) {
  (void)state;
  layout_round_trips(0, 'C', "layouts");   /* a 0-d array is C */
  for (int ndim = 1; ndim <= P2C_MAX_NDIM; ndim++)
    for (const char *l = "CFA"; *l; l++) layout_round_trips(ndim, *l, "layouts");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(golden_signatures_round_trip),
      cmocka_unit_test(decorator_signatures_round_trip),
      cmocka_unit_test(every_spelling_round_trips),
      cmocka_unit_test(diff_signatures_round_trip),
      cmocka_unit_test(every_dtype_round_trips),
      cmocka_unit_test(every_layout_round_trips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
