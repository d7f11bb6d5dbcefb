/* Internal to the command line: pieces shared by the compile commands (pyk2cuda.c) and the
 * runtime commands (run.c). */
#ifndef P2C_TOOLS_CLI_H
#define P2C_TOOLS_CLI_H

#include <stdarg.h>
#include <stddef.h>

#include "pyk2cuda.h"

int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *cli_read_file(const char *path, size_t *len);
/* Prints why cli_read_file failed (errno) and returns the usage exit status. */
int cli_read_error(const char *path);
void cli_print_diagnostics(const P2cModule *m, const char *src, size_t len);
int cli_exit_for(P2cStatus s);
int cli_run(int argc, char **argv);
int cli_info(int argc, char **argv);

#endif
