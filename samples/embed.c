/* Embedding pyk2cuda: translate a Python kernel held in memory, print its diagnostics or its
 * kernels and CUDA C, and compile it to PTX when NVRTC is there. Build it against the installed
 * library:  cc embed.c $(pkg-config --cflags --libs pyk2cuda) -o embed */
#include <stdio.h>

#include "pyk2cuda.h"

static const char source[] =
    "from numba import cuda\n"
    "\n"
    "@cuda.jit('void(float32, float32[::1], float32[::1])')\n"
    "def axpy(a, x, y):\n"
    "    i = cuda.grid(1)\n"
    "    if i < y.size:\n"
    "        y[i] = a * x[i] + y[i]\n";

static void print_kernels(const P2cModule *m) {
  for (size_t i = 0; i < p2c_module_kernel_count(m); i++) {
    P2cKernelInfo k = p2c_module_kernel(m, i);
    printf("kernel %s, symbol %s, signature %s\n", k.python_name, k.symbol, k.signature);
    for (size_t j = 0; j < k.param_count; j++)
      printf("  %s: %s%s\n", k.params[j].name, p2c_scalar_name(k.params[j].type),
             k.params[j].is_array ? " array" : "");
  }
}

int main(void) {
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  P2cStatus s = p2c_translate(c, "axpy.py", source, sizeof source - 1, NULL, &m);
  for (size_t i = 0; i < p2c_module_diagnostic_count(m); i++) {
    P2cDiagnostic d = p2c_module_diagnostic(m, i);
    fprintf(stderr, "%s:%u:%u: %s [%s]\n", d.file, d.line, d.column, d.message, d.code);
  }
  if (s == P2C_OK) {
    print_kernels(m);
    puts(p2c_module_cuda(m, NULL));
    P2cStatus cs = p2c_module_compile(c, m, "sm_90", P2C_TARGET_PTX);
    size_t size = 0;
    if (cs == P2C_OK && p2c_module_image(m, &size)) printf("PTX: %zu bytes\n", size);
    else printf("no PTX: %s\n", p2c_compiler_last_error(c));
  } else {
    fprintf(stderr, "%s\n", p2c_status_string(s));
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  return s == P2C_OK ? 0 : 1;
}
