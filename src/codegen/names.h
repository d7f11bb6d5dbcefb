/* C names for Python names: every identifier the generated code declares goes through a Namer,
 * so that no Python name can capture or be captured by a C, C++ or CUDA keyword, macro,
 * built-in, library function, prelude helper or generated temporary. */
#ifndef P2C_CODEGEN_NAMES_H
#define P2C_CODEGEN_NAMES_H

#include <stdbool.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/strmap.h"

typedef struct Namer {
  Arena *arena;
  const struct Namer *parent;   /* names taken in an enclosing scope */
  StrMap taken;         /* C names claimed in this scope */
  StrMap next_number;   /* base name -> first number not yet tried for it */
} Namer;

void namer_init(Namer *n, Arena *a, const Namer *parent);
/* A fresh C name for the Python name `want`: the name itself when it is free and not reserved,
 * else a variant ("int" -> "int_", then "int_2", ...). The result is marked taken. */
const char *namer_claim(Namer *n, const char *want);
/* An exported function's C name, the symbol other code links to (compile's abi_name): `want`
 * itself where it is ASCII, free and no keyword, CUDA or library name or p2c_ name, even when
 * it starts with "_" and a capital as mangled C++ names do ("_Z4funcii"); else namer_claim's. */
const char *namer_claim_symbol(Namer *n, const char *want);
/* Marks `name` taken as it is (an identifier of linked CUDA C), so that no claim returns it. */
void namer_take(Namer *n, const char *name);
/* A name for a generated temporary: "p2c_" + base, numbered when taken. User names can never
 * be these, since namer_claim renames every p2c_ name it is given. */
const char *namer_claim_temp(Namer *n, const char *base);
/* Whether `name` is reserved in generated code (keywords, CUDA and library names, p2c_*). */
bool name_is_reserved(const char *name);
/* Whether the reserved-word tables are sorted, as name_is_reserved's bsearch needs (for tests). */
bool names_reserved_lists_sorted(void);

#endif
