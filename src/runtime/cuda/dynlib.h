/* The one pattern by which the CUDA driver and NVRTC are loaded (cudrv.c, nvrtc.c): a table of
 * function pointers bound from a dlopen'ed library by name, each required or optional, and one
 * process-wide table per library, loaded on first use. */
#ifndef P2C_RUNTIME_CUDA_DYNLIB_H
#define P2C_RUNTIME_CUDA_DYNLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "pyk2cuda.h"

/* The head of every table: the library's handle (from dlopen) and the name or path that loaded
 * it. */
typedef struct DynLib {
  void *handle;
  char path[512];
} DynLib;

/* Loads the library at `path` into lib, which remembers the path; false with dlopen's reason
 * in why. */
bool dynlib_open(DynLib *lib, const char *path, char *why, size_t whylen);
/* Unloads the library of `table` (size bytes, whose head is lib) and zeroes the table. */
void dynlib_close(DynLib *lib, void *table, size_t size);

/* One function of a table: where its pointer goes, whether a library without it is refused,
 * and the names tried in order (a versioned symbol, then an older one; NULL ends). */
typedef struct DynSymbol {
  size_t offset;
  bool required;
  const char *names[2];
} DynSymbol;

/* Binds symbols[0..n) of the library `handle` into `table`. Returns NULL, or the name of the
 * first required function the library lacks (the table is then partly bound). */
const char *dynlib_bind(void *handle, void *table, const DynSymbol *symbols, size_t n);

/* A process-wide table, loaded once: written under `lock` by the first successful load and never
 * changed afterwards, so a pointer to it stays valid and is read without the lock. A failed load
 * leaves it untouched, and the next call tries again. */
typedef struct DynOnce {
  pthread_mutex_t lock;
  bool loaded;
} DynOnce;
#define DYN_ONCE_INIT {PTHREAD_MUTEX_INITIALIZER, false}

/* Opens a table into `table` (override: a path the user gave, or NULL). */
typedef P2cStatus (*DynOpen)(void *table, const char *override, char *err, size_t errlen);
/* The loaded table (*out = table), opening it with open(table, getenv(env)) on first use;
 * *out = NULL and err set when that fails. */
P2cStatus dynlib_load_once(DynOnce *once, void *table, DynOpen open, const char *env, const void **out,
                           char *err, size_t errlen);

#endif
