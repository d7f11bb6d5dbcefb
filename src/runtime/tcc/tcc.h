/* The first tier of @jit functions the host calls: libtcc compiling the C form of a module's host
 * entries in memory (docs/simulator.md, "Host functions: two tiers").
 *
 * Debian ships libtcc only as a static archive (libtcc-dev's libtcc.a, LGPL-2.1+), built as PIE
 * code that cannot go into a shared object as it is. The build makes it one: libpyk2cuda-tcc.so
 * (tcc_module.c and meson.build beside this file), which the runtime opens with dlopen, as it
 * opens NVRTC, so that libtcc stays optional at run time (without it, every host function goes
 * to the optimized tier, as before) and replaceable, as the LGPL asks. Search order: the path in
 * $PYK2CUDA_LIBTCC (empty or "0": no first tier), then libpyk2cuda-tcc.so beside the object
 * holding this code (the library, the Python extension), then the one this build made.
 *
 * libtcc 0.9.27 keeps its compiler's state in globals: one compile at a time in the process
 * (tcc.c holds the lock). A compiled program's code stays valid until tcc_program_delete. */
#ifndef P2C_RUNTIME_TCC_TCC_H
#define P2C_RUNTIME_TCC_TCC_H

#include <stdbool.h>
#include <stddef.h>

#include "pyk2cuda.h"

typedef struct TccProgram TccProgram;

/* Whether libtcc can be loaded; when not, why (the paths tried) into why. Loads it on first use
 * and keeps it for the process. */
bool tcc_available(char *why, size_t whylen);

/* A symbol the text refers to, given by address (a function of the caller's). */
typedef struct TccSymbol {
  const char *name;
  const void *addr;
} TccSymbol;

/* Compiles C `text` in memory and relocates it. `externs` (NULL-terminated, may be NULL) names
 * the functions outside the text that it calls (the C library's, libm's); each is resolved in
 * the process (dlsym). `given` (NULL-terminated by a NULL name, may be NULL): more, by address. Status: P2C_OK with *out a program (owned by the caller; release it with
 * tcc_program_delete); P2C_ERR_SIM when libtcc is missing or rejects the text (its first message
 * in err), P2C_ERR_NOMEM. */
P2cStatus tcc_program_compile(const char *text, const char *const *externs, const TccSymbol *given,
                              const P2cAllocator *alloc,
                              TccProgram **out, char *err, size_t errlen);
/* The address of function `name` of the program, NULL when it has none. */
void *tcc_program_symbol(const TccProgram *p, const char *name);
/* Frees the program and its code. Accepts NULL. No call into its code may be running. */
void tcc_program_delete(TccProgram *p);

#endif
