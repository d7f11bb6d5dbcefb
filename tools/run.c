/* pyk2cuda run and info: launch a kernel on the GPU or the CPU simulator. */
#include <stdio.h>

#include "cli.h"

int cli_run(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fputs("pyk2cuda: 'run' is not available yet in this build\n", stderr);
  return 3;
}

int cli_info(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("pyk2cuda %s\n", p2c_version());
  return 0;
}
