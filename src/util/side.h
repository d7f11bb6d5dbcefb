/* A phase's work shared with a second thread ("the side"), for large modules.
 *
 * The side works in a Compilation of its own: the same file, text, line table and options as
 * the phase's, read-only, but its own arena and diagnostic list, so that neither thread writes
 * what the other reads. While both run, the host allocator is called under a lock (it need not
 * be thread-safe; pyk2cuda.h promises that calls never overlap). Afterwards the side's memory
 * joins the phase's arena and its diagnostics come after the phase's own, as if one thread had
 * done the phase's part first and the side's part next. Out of memory on either thread is
 * raised only once both have stopped.
 *
 * Usage: side_prepare; point the side's state at side.c (and &side.c.arena); side_run;
 * side_finish. */
#ifndef P2C_UTIL_SIDE_H
#define P2C_UTIL_SIDE_H

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>

#include "util/diag.h"

typedef struct Side {
  Compilation c;   /* the side's compilation (see above) */
  void (*work)(void *arg);
  void *arg;
  pthread_mutex_t lock;
  jmp_buf oom;
  bool out_of_memory;
} Side;

/* Makes s->c from c, for work(arg) to run on the side. */
void side_prepare(Side *s, const Compilation *c, void (*work)(void *), void *arg);

/* Runs here(here_arg) on this thread while the side's work runs on a second one, and waits for
 * it; when no thread can be started, the side's work runs here afterwards. */
void side_run(Side *s, Compilation *c, void (*here)(void *), void *here_arg);

/* c takes over the side's memory, and its diagnostics unless keep_diagnostics is false (the
 * caller redoes the side's part); then raises out of memory on c if either thread ran out. */
void side_finish(Side *s, Compilation *c, bool keep_diagnostics);

#endif
