/* The rest of libpyk2cuda-tcc.so, which is otherwise Debian's libtcc.a whole (meson.build beside
 * this file; tcc.h says why it is a module of its own). libtcc.a is PIE code: its objects reach
 * the C library's data stdout, stderr and environ PC-relatively, as a program may but a shared
 * object may not. The link points those names at the variables below (--defsym), which this
 * object, compiled as PIC, fills from the C library's own when the module is loaded. libtcc uses
 * them only to print where no error function is set (the runtime sets one) and in tcc_run (which
 * the runtime never calls). */
#include <dlfcn.h>
#include <stdio.h>

__attribute__((visibility("hidden"))) FILE *p2c_tcc_stdout, *p2c_tcc_stderr;
__attribute__((visibility("hidden"))) char **p2c_tcc_environ;

/* At load: the C library's values, looked up by name (a plain reference would be the symbol the
 * link redirected, this module's own variable). */
__attribute__((constructor)) static void p2c_tcc_module_init(void) {
  FILE **out = dlsym(RTLD_DEFAULT, "stdout"), **err = dlsym(RTLD_DEFAULT, "stderr");
  char ***env = dlsym(RTLD_DEFAULT, "environ");
  p2c_tcc_stdout = out ? *out : NULL;
  p2c_tcc_stderr = err ? *err : NULL;
  p2c_tcc_environ = env ? *env : NULL;
}
