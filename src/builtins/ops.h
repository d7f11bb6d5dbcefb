/* The operators of expressions: Python's binary, unary, boolean and comparison operators. The
 * AST's operator nodes hold one (EX_UNARY, EX_BINARY, EX_BOOLOP, a comparison's cmps) (frontend/ast.h), and so do the builtin
 * table's operator rows (operator.add, pow: BK_OPERATOR), which is why the enum is here, with the
 * table, before the frontend in the phase order (tests/layers.py). */
#ifndef P2C_BUILTINS_OPS_H
#define P2C_BUILTINS_OPS_H

typedef enum Op {
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
  OP_LSHIFT, OP_RSHIFT, OP_BITAND, OP_BITOR, OP_BITXOR,
  OP_NEG, OP_POS, OP_INVERT,
  OP_AND, OP_OR,
  OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
  OP_IS, OP_IS_NOT,   /* Numba's rule: operands of one type compare with ==, of two types are
                        not the same object (codegen decides by type_identity) */
  OP_IN, OP_NOT_IN,   /* x in t: an element of a UniTuple or an array equals x */
} Op;

#endif
