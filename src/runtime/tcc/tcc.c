/* libtcc, loaded with dlopen (tcc.h): the loader binds the few functions a compile needs into a
 * private table, once per process, as nvrtc.c binds NVRTC's (runtime/cuda/dynlib.h); a compile
 * makes a TCCState with -nostdlib (no library is searched: what the text calls outside itself is
 * given by address, so neither libtcc1.a nor tcc's headers need be installed), compiles the text,
 * and relocates it into memory that the program owns. */
#include "runtime/tcc/tcc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/dynlib.h"
#include "util/arena.h"

typedef struct TCCState TCCState;
typedef void (*TccErrorFn)(void *opaque, const char *msg);

enum { TCC_OUTPUT_MEMORY = 1 };
#define TCC_RELOCATE_AUTO ((void *)1)

/* The functions of libtcc 0.9.27 a compile calls (libtcc.h). */
typedef struct TccLib {
  DynLib dl;
  TCCState *(*tcc_new)(void);
  void (*tcc_delete)(TCCState *s);
  void (*tcc_set_error_func)(TCCState *s, void *opaque, TccErrorFn fn);
  void (*tcc_set_options)(TCCState *s, const char *options);
  int (*tcc_set_output_type)(TCCState *s, int type);
  int (*tcc_compile_string)(TCCState *s, const char *text);
  int (*tcc_add_symbol)(TCCState *s, const char *name, const void *addr);
  int (*tcc_relocate)(TCCState *s, void *where);
  void *(*tcc_get_symbol)(TCCState *s, const char *name);
} TccLib;

#define SYMBOL(name) {offsetof(TccLib, name), true, {#name, NULL}}
static const DynSymbol symbols[] = {
    SYMBOL(tcc_new),          SYMBOL(tcc_delete),        SYMBOL(tcc_set_error_func),
    SYMBOL(tcc_set_options),  SYMBOL(tcc_set_output_type), SYMBOL(tcc_compile_string),
    SYMBOL(tcc_add_symbol),   SYMBOL(tcc_relocate),      SYMBOL(tcc_get_symbol),
};
#undef SYMBOL

#define MODULE_NAME "libpyk2cuda-tcc.so"

struct TccProgram {
  const P2cAllocator *alloc;
  TCCState *state;
};

/* Loads and binds the library at `path`; false with the reason in why. */
static bool try_open(TccLib *lib, const char *path, char *why, size_t whylen) {
  memset(lib, 0, sizeof *lib);
  if (!dynlib_open(&lib->dl, path, why, whylen)) return false;
  const char *missing = dynlib_bind(lib->dl.handle, lib, symbols, sizeof symbols / sizeof symbols[0]);
  if (!missing) return true;
  snprintf(why, whylen, "%s lacks %s", path, missing);
  dynlib_close(&lib->dl, lib, sizeof *lib);
  return false;
}

/* The folder of the object that holds this code (the library, the Python extension, a program
 * linked with it statically), where an install puts libpyk2cuda-tcc.so; false when unknown. */
static const char anchor;   /* an address inside that object */
static bool own_folder(char *out, size_t size) {
  Dl_info info;
  if (!dladdr(&anchor, &info) || !info.dli_fname) return false;
  const char *slash = strrchr(info.dli_fname, '/');
  if (!slash) return false;
  size_t n = (size_t)(slash - info.dli_fname);
  if (n + 1 > size) return false;
  memcpy(out, info.dli_fname, n);
  out[n] = '\0';
  return true;
}

/* The search (tcc.h): the override, else beside this code, else this build's module. */
static P2cStatus open_lib(void *table, const char *override, char *err, size_t errlen) {
  TccLib *lib = table;
  char why[512], dir[400], path[512];
  if (override) {
    if (!*override || strcmp(override, "0") == 0) {
      snprintf(err, errlen, "the first tier is off (PYK2CUDA_LIBTCC=%s)", override);
      return P2C_ERR_SIM;
    }
    if (try_open(lib, override, why, sizeof why)) return P2C_OK;
    snprintf(err, errlen, "PYK2CUDA_LIBTCC=%.300s could not be loaded (%s)", override, why);
    return P2C_ERR_SIM;
  }
  if (own_folder(dir, sizeof dir) && snprintf(path, sizeof path, "%s/" MODULE_NAME, dir) < (int)sizeof path &&
      try_open(lib, path, why, sizeof why))
    return P2C_OK;
#ifdef P2C_LIBTCC_BUILD_PATH
  if (try_open(lib, P2C_LIBTCC_BUILD_PATH, why, sizeof why)) return P2C_OK;
#endif
  snprintf(err, errlen, "libtcc not found (" MODULE_NAME " beside pyk2cuda's library%s): install Debian's "
           "libtcc-dev and rebuild, or set PYK2CUDA_LIBTCC",
#ifdef P2C_LIBTCC_BUILD_PATH
           " or at " P2C_LIBTCC_BUILD_PATH
#else
           ""
#endif
  );
  return P2C_ERR_SIM;
}

/* The mutable globals of this file, with their reasons: the process-wide table (a loaded library
 * is process-wide by nature, as nvrtc.c's), and the lock that makes compiles take turns, since
 * libtcc 0.9.27 keeps the state of the compile in progress in globals of its own. */
static DynOnce shared_once = DYN_ONCE_INIT;
static TccLib shared_lib;
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

static const TccLib *load(char *err, size_t errlen) {
  const void *table = NULL;
  if (dynlib_load_once(&shared_once, &shared_lib, open_lib, "PYK2CUDA_LIBTCC", &table, err, errlen) != P2C_OK)
    return NULL;
  return table;
}

bool tcc_available(char *why, size_t whylen) {
  char err[700];
  if (load(err, sizeof err)) return true;
  if (why) snprintf(why, whylen, "%s", err);
  return false;
}

/* ---- The runtime tcc's code calls ----
 * tcc's x86-64 code generator calls these for conversions between uint64 and floating point
 * (normally from libtcc1.a, which -nostdlib leaves out). Here they are compiled by the host
 * compiler, so they convert exactly as the optimized tier's code does. */
static unsigned long long fixunsdfdi(double d) { return (unsigned long long)d; }
static unsigned long long fixunssfdi(float f) { return (unsigned long long)f; }
static double floatundidf(unsigned long long u) { return (double)u; }
static float floatundisf(unsigned long long u) { return (float)u; }

/* The conversions above, the C library's memory functions tcc emits for struct copies, and the
 * allocator of NumPy's array creation (the call's heap, whose blocks the caller frees with free). */
static bool add_runtime(const TccLib *lib, TCCState *s) {
  const struct {
    const char *name;
    const void *addr;
  } runtime[] = {
      {"__fixunsdfdi", (const void *)(uintptr_t)fixunsdfdi}, {"__fixunssfdi", (const void *)(uintptr_t)fixunssfdi},
      {"__floatundidf", (const void *)(uintptr_t)floatundidf}, {"__floatundisf", (const void *)(uintptr_t)floatundisf},
      {"memmove", (const void *)(uintptr_t)memmove},           {"memcpy", (const void *)(uintptr_t)memcpy},
      {"memset", (const void *)(uintptr_t)memset},           {"malloc", (const void *)(uintptr_t)malloc},
      {"free", (const void *)(uintptr_t)free},
  };
  for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++)
    if (lib->tcc_add_symbol(s, runtime[i].name, runtime[i].addr) < 0) return false;
  return true;
}

/* Each name of `externs` at its address in the process; false with the first missing one in err. */
static bool add_externs(const TccLib *lib, TCCState *s, const char *const *externs, char *err, size_t errlen) {
  for (size_t i = 0; externs && externs[i]; i++) {
    void *addr = dlsym(RTLD_DEFAULT, externs[i]);
    if (!addr) {
      snprintf(err, errlen, "the first tier's code calls %s, which this process lacks", externs[i]);
      return false;
    }
    if (lib->tcc_add_symbol(s, externs[i], addr) < 0) return false;
  }
  return true;
}

/* tcc's messages: the first one is kept (it names the first problem). */
typedef struct Messages {
  char *err;
  size_t errlen;
  bool any;
} Messages;

static void on_message(void *opaque, const char *msg) {
  Messages *m = opaque;
  if (m->any) return;
  snprintf(m->err, m->errlen, "libtcc: %s", msg);
  m->any = true;
}

/* The caller's symbols, by address. */
static bool add_given(const TccLib *lib, TCCState *s, const TccSymbol *given) {
  for (size_t i = 0; given && given[i].name; i++)
    if (lib->tcc_add_symbol(s, given[i].name, given[i].addr) < 0) return false;
  return true;
}

/* Compiles and relocates under the compile lock; the state on success, else NULL (err set). */
static TCCState *compile_locked(const TccLib *lib, const char *text, const char *const *externs,
                                const TccSymbol *given, char *err, size_t errlen) {
  Messages msgs = {err, errlen, false};
  TCCState *s = lib->tcc_new();
  if (!s) {
    snprintf(err, errlen, "libtcc: tcc_new failed");
    return NULL;
  }
  lib->tcc_set_error_func(s, &msgs, on_message);
  /* -Werror: an implicit declaration would call a function as returning int */
  lib->tcc_set_options(s, "-nostdlib -Werror");
  bool ok = lib->tcc_set_output_type(s, TCC_OUTPUT_MEMORY) == 0 && lib->tcc_compile_string(s, text) == 0 &&
            add_runtime(lib, s) && add_externs(lib, s, externs, err, errlen) && add_given(lib, s, given) && lib->tcc_relocate(s, TCC_RELOCATE_AUTO) >= 0;
  if (ok) return s;
  if (!msgs.any && !err[0]) snprintf(err, errlen, "libtcc could not compile the C form");
  lib->tcc_delete(s);
  return NULL;
}

P2cStatus tcc_program_compile(const char *text, const char *const *externs, const TccSymbol *given,
                              const P2cAllocator *alloc, TccProgram **out, char *err, size_t errlen) {
  *out = NULL;
  err[0] = '\0';
  const TccLib *lib = load(err, errlen);
  if (!lib) return P2C_ERR_SIM;
  if (!alloc) alloc = mem_default();
  TccProgram *p = mem_alloc(alloc, sizeof *p);
  if (!p) return P2C_ERR_NOMEM;
  pthread_mutex_lock(&compile_lock);
  p->state = compile_locked(lib, text, externs, given, err, errlen);
  pthread_mutex_unlock(&compile_lock);
  if (!p->state) {
    mem_free(alloc, p, sizeof *p);
    return P2C_ERR_SIM;
  }
  p->alloc = alloc;
  *out = p;
  return P2C_OK;
}

void *tcc_program_symbol(const TccProgram *p, const char *name) {
  if (!p || !name) return NULL;
  pthread_mutex_lock(&compile_lock);
  void *addr = shared_lib.tcc_get_symbol(p->state, name);
  pthread_mutex_unlock(&compile_lock);
  return addr;
}

void tcc_program_delete(TccProgram *p) {
  if (!p) return;
  pthread_mutex_lock(&compile_lock);
  shared_lib.tcc_delete(p->state);
  pthread_mutex_unlock(&compile_lock);
  mem_free(p->alloc, p, sizeof *p);
}
