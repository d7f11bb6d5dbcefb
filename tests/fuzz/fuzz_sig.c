/* libFuzzer harness: the signature parser, through the public API as `--sig` reaches it: the
 * input is the text after the kernel name ("(float32[:], int64)" or "void(...)") of a --sig for
 * a fixed kernel of three parameters. A signature is parsed with a strict grammar, never
 * pasted: whatever it holds, the result is a module or diagnostics, and an accepted one
 * translates to CUDA C. The same bytes go to the library's one reader of NumPy's S<n>/U<n>
 * dtype spellings (p2c_dtype_parse_charseq): an accepted spelling has a length in
 * 1..P2C_MAX_CHARS, and NumPy's own text of the dtype it gives ("S12", "<U12") reads back as
 * that dtype. And to the one reader of NumPy's typestrs (p2c_dtype_parse: "<f4", "|S12", "<M8[D]"):
 * an accepted typestr names a dtype with a size, the library's typestr of that dtype
 * (p2c_dtype_str) reads back as the same dtype in the host's order, and the text's own order
 * is the host's when no swap is asked for. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyk2cuda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The dtype spelling reader on the raw bytes (any length, NULs included: it takes a length). */
static void check_charseq_spelling(const uint8_t *data, size_t size) {
  P2cScalarType t;
  if (!p2c_dtype_parse_charseq((const char *)data, size, &t)) return;
  bool unicode;
  int64_t chars;
  if (!p2c_dtype_charseq(t, &unicode, &chars) || chars < 1 || chars > P2C_MAX_CHARS) __builtin_trap();
  char text[32];
  int n = snprintf(text, sizeof text, "%s%lld", unicode ? "<U" : "S", (long long)chars);
  P2cScalarType again;
  if (!p2c_dtype_parse_charseq(text, (size_t)n, &again) || again != t) __builtin_trap();
}

/* The typestr reader on the raw bytes, and its writer's text of what it read. */
static void check_typestr(const uint8_t *data, size_t size) {
  P2cScalarType t, again;
  bool swapped, swapped_again;
  if (!p2c_dtype_parse((const char *)data, size, &t, &swapped)) return;
  if (p2c_dtype_size(t, NULL) == 0) __builtin_trap();
  char text[32];
  size_t n = p2c_dtype_str(t, text, sizeof text);
  if (n == 0 || n >= sizeof text || !p2c_dtype_parse(text, n, &again, &swapped_again) || again != t || swapped_again)
    __builtin_trap();
  if (swapped && size && data[0] != '<' && data[0] != '>') __builtin_trap();   /* only an explicit order swaps */
}

static const char source[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit\n"
    "def k(a, b, c):\n"
    "    pass\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check_charseq_spelling(data, size);
  check_typestr(data, size);
  if (size > 4096 || memchr(data, 0, size)) return 0;   /* a C string, as the CLI gives it */
  char *sig = malloc(size + 2);
  if (!sig) return 0;
  sig[0] = 'k';
  memcpy(sig + 1, data, size);
  sig[size + 1] = '\0';
  P2cCompiler *c = p2c_compiler_new(NULL);
  const char *sigs[1] = {sig};
  const char *kernels[1] = {"k"};
  P2cTranslateOptions o = {kernels, 1, sigs, 1, false, false, {0}};
  P2cModule *m = NULL;
  P2cStatus s = c ? p2c_translate(c, "sig.py", source, sizeof source - 1, &o, &m) : P2C_ERR_NOMEM;
  if (s == P2C_OK && (p2c_module_kernel_count(m) == 0 || !p2c_module_cuda(m, NULL))) __builtin_trap();
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(sig);
  return 0;
}
