/* Binding and loading the CUDA libraries' tables (dynlib.h). */
#include "runtime/cuda/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool dynlib_open(DynLib *lib, const char *path, char *why, size_t whylen) {
  lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle) {
    const char *reason = dlerror();
    snprintf(why, whylen, "%s", reason ? reason : "dlopen failed");
    return false;
  }
  snprintf(lib->path, sizeof lib->path, "%s", path);
  return true;
}

void dynlib_close(DynLib *lib, void *table, size_t size) {
  if (lib->handle) dlclose(lib->handle);
  memset(table, 0, size);
}

const char *dynlib_bind(void *handle, void *table, const DynSymbol *symbols, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const DynSymbol *s = &symbols[i];
    void *sym = NULL;
    for (int k = 0; k < 2 && !sym && s->names[k]; k++) sym = dlsym(handle, s->names[k]);
    if (!sym && s->required) return s->names[0];
    memcpy((char *)table + s->offset, &sym, sizeof sym);
  }
  return NULL;
}

P2cStatus dynlib_load_once(DynOnce *once, void *table, DynOpen open, const char *env, const void **out,
                           char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  pthread_mutex_lock(&once->lock);
  if (!once->loaded) {
    status = open(table, getenv(env), err, errlen);
    once->loaded = status == P2C_OK;
  }
  pthread_mutex_unlock(&once->lock);
  *out = status == P2C_OK ? table : NULL;
  return status;
}
