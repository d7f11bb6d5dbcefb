/* Internal to the frontend: the state of lowering one CST, shared by lower.c (module and
 * statements) and lower_expr.c (expressions). */
#ifndef P2C_FRONTEND_LOWER_H
#define P2C_FRONTEND_LOWER_H

#include <tree_sitter/api.h>

#include "frontend/frontend.h"

typedef struct Alias {
  const char *name;   /* local name bound by an import */
  const char *path;   /* what it names: "numba.cuda", "math.sqrt" */
} Alias;

/* A module-level name bound to something other than a compile-time constant. */
typedef struct OtherGlobal {
  const char *name;
  Loc loc;
} OtherGlobal;

typedef struct Lowerer {
  Compilation *c;
  Arena *a;
  Module *m;
  VEC(Alias) aliases;
  VEC(OtherGlobal) others;
  Function *fn;       /* the function being lowered */
  int depth;          /* nesting of blocks and expressions, bounded by P2C_MAX_NESTING */
  int loops;          /* enclosing loops, for break/continue */
} Lowerer;

/* What a dotted name (a.b.c) refers to, when it is not a value expression. */
typedef struct Resolved {
  const char *path;          /* module path ("numba.cuda.grid"), or NULL */
  const Builtin *builtin;    /* the builtin at path, or NULL */
} Resolved;

/* ---- CST helpers (lower.c) ---- */
const char *node_text(Lowerer *L, TSNode n, size_t *len);
char *node_str(Lowerer *L, TSNode n);
Loc node_loc(Lowerer *L, TSNode n);
bool node_is(TSNode n, const char *type);
/* Named children, skipping comments and line continuations. */
int node_kids(TSNode n, TSNode *out, int cap);
bool enter(Lowerer *L, TSNode n);   /* depth check; false (with a diagnostic) past the limit */
void leave(Lowerer *L);
void unsupported(Lowerer *L, TSNode n, const char *what);

/* ---- names (lower.c) ---- */
int find_var(const Function *f, const char *name);
Const *find_const(const Module *m, const char *name);
Function *find_func(const Module *m, const char *name);
const char *alias_path(const Lowerer *L, const char *name);
/* Resolves an identifier or attribute chain rooted at an import alias or a Python builtin. */
bool resolve_dotted(Lowerer *L, TSNode n, Resolved *out);

/* ---- expressions (lower_expr.c) ---- */
bool check_ascii_identifier(Lowerer *L, TSNode n, const char *name);
Expr *lower_expr(Lowerer *L, TSNode n);
/* Decodes a string literal node's value into *out / *len (arena); false after a diagnostic. */
bool lower_string_value(Lowerer *L, TSNode n, const char **out, size_t *len);
Expr *fold_const_expr(Lowerer *L, TSNode n);

#endif
