/* libFuzzer harness: the translation API (p2c_translate) on arbitrary bytes.
 *
 * The first byte chooses options: bit 0 bounds checking (--check-bounds), bit 1 leaving
 * unsigned kernels out (as `check` does), bit 2 #line directives; the rest is the source. Every
 * accepted module is also dumped (--dump=ast). Any crash, sanitizer report, leak or hang is a
 * finding (tests/fuzz/README.md). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pyk2cuda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t flags = data[0];
  P2cCompiler *c = p2c_compiler_new(NULL);
  if (!c) return 0;
  P2cTranslateOptions o = {NULL, 0, NULL, 0, (flags & 4) != 0, (flags & 2) != 0, {(flags & 1) != 0, false, true}};
  P2cModule *m = NULL;
  P2cStatus s = p2c_translate(c, "fuzz.py", (const char *)data + 1, size - 1, &o, &m);
  for (size_t i = 0; i < p2c_module_diagnostic_count(m); i++) {
    P2cDiagnostic d = p2c_module_diagnostic(m, i);
    if (!d.message || !d.code || d.line == 0 || d.column == 0) __builtin_trap();   /* every diagnostic is located */
  }
  if (s == P2C_OK) {
    size_t len;
    const char *text = p2c_module_cuda(m, &len);
    if (!text || strlen(text) != len) __builtin_trap();   /* the CUDA C is one string */
    (void)p2c_module_dump(m, "ast");
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  return 0;
}
