/* Internal to the command line: pieces shared by the compile commands (pyk2cuda.c) and the
 * runtime commands (run.c). */
#ifndef P2C_TOOLS_CLI_H
#define P2C_TOOLS_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "pyk2cuda.h"

int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *cli_read_file(const char *path, size_t *len);
/* Prints why cli_read_file failed (errno) and returns the usage exit status. */
int cli_read_error(const char *path);
void cli_print_diagnostics(const P2cModule *m, const char *src, size_t len);
int cli_exit_for(P2cStatus s);
/* Writes len bytes of data to path ("-" or NULL: stdout): 0, or the usage exit code after saying why. */
int cli_write_output(const char *path, const void *data, size_t len);
/* explore FILE.py KERNEL --sanitize ...: run's launch under the checker, then the page with its findings. */
int cli_explore_sanitized(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_info(int argc, char **argv);

/* help.c: the synopsis of every command; whether NAME is a command; whether the arguments after
 * the command ask for help; one command's help on stdout (returns the exit status). */
void cli_print_usage(FILE *out);
bool cli_is_command(const char *name);
bool cli_wants_help(int argc, char **argv);
int cli_print_help(const char *name);

#endif
