/* Internal to codegen: the state of emitting one module, shared by emit.c (module, functions,
 * statements) and emit_expr.c (expressions). */
#ifndef P2C_CODEGEN_CG_H
#define P2C_CODEGEN_CG_H

#include "codegen/codegen.h"
#include "codegen/names.h"
#include "codegen/prelude.h"

/* C operator precedence, higher binds tighter; an operand below its context's level is
 * parenthesized. */
enum {
  P_LOWEST = 0, P_COMMA = 1, P_ASSIGN = 2, P_COND = 3, P_OR = 4, P_AND = 5, P_BOR = 6,
  P_BXOR = 7, P_BAND = 8, P_EQ = 9, P_REL = 10, P_SHIFT = 11, P_ADD = 12, P_MUL = 13,
  P_UNARY = 15, P_POSTFIX = 16,
};

typedef struct TempDecl {
  const char *ctype;
  const char *name;
} TempDecl;

typedef struct LineMark {
  size_t offset;
  uint32_t python_line;
} LineMark;

typedef struct Gen {
  Compilation *c;
  Arena *a;
  Module *m;
  HelperSet helpers;
  Namer global;
  /* the function being emitted */
  const Function *fn;
  const char **vnames;     /* C name of each variable */
  bool *nonneg;            /* each variable is known to be >= 0 */
  bool *positive;          /* each variable is known to be > 0 */
  Namer local;
  VEC(TempDecl) temps;
  StrBuf *body;
  int indent;
  bool line_directives;
  /* Where each statement's code starts: body offsets while a function is emitted, then offsets
   * in the module's text (see codegen_run); python_line 0 marks a function's end. */
  VEC(LineMark) marks;
} Gen;

/* Writes e as a C expression of precedence >= prec (parenthesized if needed). */
void emit_expr(Gen *G, const Expr *e, StrBuf *sb, int prec);
/* Writes element k of a tuple-valued expression. */
void emit_tuple_elem(Gen *G, const Expr *e, int k, StrBuf *sb, int prec);
/* The C spelling of a value type: "int64_t", "p2c_array<float, 2>". */
const char *ctype_of(Gen *G, const Type *t);
/* A new function-local temporary of type t. */
const char *new_temp(Gen *G, const Type *t);
/* Whether e is known to be >= 0 (index wraparound can be skipped). */
bool expr_nonneg(Gen *G, const Expr *e);
/* Whether e is known to be > 0. */
bool expr_positive(Gen *G, const Expr *e);
/* Whether e can be evaluated twice without a visible difference (no calls with effects). */
bool expr_is_pure(const Expr *e);
/* The common type of a comparison's two operand types. */
const Type *compare_type(const Type *a, const Type *b);

#endif
