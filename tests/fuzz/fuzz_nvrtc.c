/* libFuzzer harness: kernels that `emit` accepts must compile with NVRTC. Any input that
 * translates but that NVRTC rejects is a translator bug (the harness traps with NVRTC's log).
 *
 * Input: lines "# sig: NAME(TYPES)" at the top give --sig signatures (as tests/golden/cases.txt
 * does), the rest is the module. A custom mutator edits kernels a line or a token at a time
 * (duplicate, delete or swap lines of one indentation, insert a statement from a small
 * grammar, swap an operator or a literal), so that most mutants stay Python that the
 * translator accepts and reach NVRTC; libFuzzer's byte mutations stay as one choice in four.
 * Without NVRTC (no CUDA) the harness only translates. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyk2cuda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

enum { MAX_SIGS = 16, MAX_LINES = 4096 };

/* The "# sig: ..." lines, copied out (NUL-terminated) into `store`. */
static size_t read_sigs(const char *text, size_t size, char *store, const char **sigs) {
  size_t n = 0, at = 0;
  const char *p = text, *end = text + size;
  while (p < end && n < MAX_SIGS && end - p > 7 && memcmp(p, "# sig: ", 7) == 0) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    size_t len = (size_t)((eol ? eol : end) - p) - 7;
    memcpy(store + at, p + 7, len);
    store[at + len] = '\0';
    if (memchr(store + at, '\0', len)) break;
    sigs[n++] = store + at;
    at += len + 1;
    p = eol ? eol + 1 : end;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *store = malloc(size + MAX_SIGS + 1);
  const char *sigs[MAX_SIGS];
  if (!store) return 0;
  size_t nsigs = read_sigs((const char *)data, size, store, sigs);
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  P2cTranslateOptions o = {NULL, 0, sigs, nsigs, false, true, {0}};
  if (c) p2c_compiler_set_cache(c, false);
  if (c && p2c_translate(c, "fuzz.py", (const char *)data, size, &o, &m) == P2C_OK &&
      p2c_module_kernel_count(m) > 0) {
    P2cStatus s = p2c_module_compile(c, m, "sm_75", P2C_TARGET_PTX);
    if (s == P2C_ERR_NVRTC) {
      fprintf(stderr, "emit accepted what NVRTC rejects: %s\n%s\n--- CUDA C ---\n%s\n",
              p2c_compiler_last_error(c), p2c_module_nvrtc_log(m), p2c_module_cuda(m, NULL));
      __builtin_trap();
    }
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(store);
  return 0;
}

/* ---- the mutator ---- */

typedef struct Lines {
  const char *start[MAX_LINES];
  size_t len[MAX_LINES];   /* with the newline */
  size_t n;
} Lines;

static void split(const uint8_t *data, size_t size, Lines *l) {
  l->n = 0;
  for (size_t i = 0; i < size && l->n < MAX_LINES;) {
    const uint8_t *eol = memchr(data + i, '\n', size - i);
    size_t len = eol ? (size_t)(eol - (data + i)) + 1 : size - i;
    l->start[l->n] = (const char *)data + i;
    l->len[l->n++] = len;
    i += len;
  }
}

static size_t indent_of(const char *s, size_t len) {
  size_t k = 0;
  while (k < len && s[k] == ' ') k++;
  return k;
}

static const char *const statements[] = {
    "x = a[0] + 1\n", "a[0] = a[0] * 2\n", "i = cuda.grid(1)\n", "if i < a.size:\n",
    "for j in range(3):\n", "while False:\n", "cuda.syncthreads()\n", "a[i % a.size] += 1\n",
    "t = (a[0], 1)\n", "y = math.sqrt(abs(a[0]))\n", "z = -a[0] // 3\n", "w = a[0] if i else 0\n",
    "k = min(i, 7) << 2\n", "pass\n", "return\n", "s = cuda.shared.array(32, numba.float32)\n",
};
static const char *const operators[] = {"+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>",
                                        "<", "<=", "==", "!=", "and", "or"};
static const char *const literals[] = {"0", "1", "-1", "2", "255", "2147483647", "-2147483648",
                                       "9223372036854775807", "1.5", "-0.0", "1e308", "3", "True"};

/* Writes the lines back with line `drop` left out (SIZE_MAX: none), `extra` (indent spaces
 * first) inserted before line `at`. Returns the new size, or 0 when it does not fit. */
static size_t rebuild(uint8_t *out, size_t max, const Lines *l, size_t drop, size_t at,
                      const char *extra, size_t indent) {
  size_t o = 0, elen = extra ? strlen(extra) : 0;
  for (size_t i = 0; i <= l->n; i++) {
    if (i == at && extra) {
      if (o + indent + elen > max) return 0;
      memset(out + o, ' ', indent);
      memcpy(out + o + indent, extra, elen);
      o += indent + elen;
    }
    if (i == l->n || i == drop) continue;
    if (o + l->len[i] > max) return 0;
    memcpy(out + o, l->start[i], l->len[i]);
    o += l->len[i];
  }
  return o;
}

/* Replaces the first occurrence at or after a random offset of one word of `from` with a word
 * of `to`. */
static size_t swap_word(uint8_t *data, size_t size, size_t max, unsigned seed,
                        const char *const *from, size_t nfrom, const char *const *to, size_t nto) {
  size_t start = size ? seed % size : 0;
  for (size_t i = start; i < size; i++)
    for (size_t k = 0; k < nfrom; k++) {
      size_t wl = strlen(from[k]);
      if (wl > size - i || memcmp(data + i, from[k], wl) != 0) continue;
      const char *w = to[(seed / 7) % nto];
      size_t nl = strlen(w);
      if (size - wl + nl > max) return 0;
      memmove(data + i + nl, data + i + wl, size - i - wl);
      memcpy(data + i, w, nl);
      return size - wl + nl;
    }
  return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  static Lines l;   /* large; the fuzzer runs one input at a time */
  uint8_t *copy = malloc(size + 1);
  if (!copy) return LLVMFuzzerMutate(data, size, max_size);
  memcpy(copy, data, size);
  split(copy, size, &l);
  size_t out = 0, pick = l.n ? (seed >> 8) % l.n : 0;
  switch (seed % 8) {
  case 0:   /* duplicate a line */
    if (l.n) {
      char line[512];
      size_t n = l.len[pick] < sizeof line - 1 ? l.len[pick] : sizeof line - 1;
      memcpy(line, l.start[pick], n);
      line[n] = '\0';
      out = rebuild(data, max_size, &l, SIZE_MAX, pick, line, 0);
    }
    break;
  case 1:   /* delete a line */
    if (l.n) out = rebuild(data, max_size, &l, pick, SIZE_MAX, NULL, 0);
    break;
  case 2:
  case 3: { /* insert a statement with the indentation of the line it goes before */
    size_t indent = pick < l.n ? indent_of(l.start[pick], l.len[pick]) : 0;
    out = rebuild(data, max_size, &l, SIZE_MAX, pick, statements[(seed / 16) % (sizeof statements / sizeof *statements)], indent);
    break;
  }
  case 4:
    out = swap_word(data, size, max_size, seed >> 3, operators, sizeof operators / sizeof *operators,
                    operators, sizeof operators / sizeof *operators);
    break;
  case 5:
    out = swap_word(data, size, max_size, seed >> 3, literals, sizeof literals / sizeof *literals,
                    literals, sizeof literals / sizeof *literals);
    break;
  default:
    break;
  }
  free(copy);
  return out ? out : LLVMFuzzerMutate(data, size, max_size);
}
