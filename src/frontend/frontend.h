/* The frontend: Python source -> AST (the only phase that sees tree-sitter).
 *
 * Requires: a Compilation with file and raw text set.
 * Produces: c->text normalized (BOM removed, CRLF and lone CR turned into LF), the line table,
 *           and a Module whose names are all resolved (see ast.h). Syntax errors, constructs
 *           outside the supported subset and unknown names become diagnostics.
 * Nothing after this phase touches tree-sitter. The CST of a large module is freed on another
 * thread while the later phases run: frontend_finish waits for it. */
#ifndef P2C_FRONTEND_FRONTEND_H
#define P2C_FRONTEND_FRONTEND_H

#include "frontend/ast.h"

/* Checks and normalizes the raw source into c->text / c->len and builds the line table.
 * Returns false (with a diagnostic) for input Python would refuse: NUL bytes, invalid UTF-8,
 * or sources past the size limit. */
bool source_prepare(Compilation *c, const char *raw, size_t raw_len);

/* The first problem of the token stream (tokens.c): where, its diagnostic code and message. */
typedef struct TokenProblem {
  size_t offset;
  const char *code;
  char message[160];
} TokenProblem;

/* Checks c->text as Python's tokenizer does (indentation and tabs, brackets, unterminated
 * strings) and that a compound statement's header ends with ':'. Returns false and fills
 * *problem with the first problem; reports nothing (the caller weighs it against the
 * grammar's first error). */
bool source_check_tokens(Compilation *c, TokenProblem *problem);

/* Gives each for loop its own variable where a name is only ever a loop's single target, so
 * that each loop's variable has its own type, as Numba types each binding (loop_vars.c). */
void frontend_split_loop_vars(Arena *a, Function *f);
/* Cuts each variable into its webs (the assignments reads see together), each web but the
 * first a new variable of the same name, so that each has its own type, as Numba types each
 * version of a name (webs.c). */
void frontend_split_webs(Arena *a, Function *f);
/* Reports uses of local variables that no assignment reaches (defuse.c). */
void defuse_check(Compilation *c, const Function *f);

/* Parses c->text and lowers it to *m. Returns false when errors were reported. */
bool frontend_run(Compilation *c, Module *m);

/* Waits until what frontend_run left running in the background (the release of the parse
 * trees) is done. Every caller of frontend_run calls it, whatever the outcome, before c's
 * arena is freed; an out-of-memory jump out of any later phase included. Safe to call twice,
 * and when frontend_run never ran. */
void frontend_finish(Compilation *c);

/* A @guvectorize layout, "(m,n),(n,p)->(m,p)", parsed into *out (guvectorize.c); false with
 * out->error and out->error_at when it is not one. Public as p2c_gufunc_layout. */
bool frontend_gufunc_layout(const char *text, size_t len, P2cGufuncLayout *out);

#endif
