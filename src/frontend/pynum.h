/* Python's numbers at compile time: ints of any size up to PYNUM_MAX_BITS, floats, complex
 * numbers and bools, with CPython's own arithmetic (int, float, complex and bool results, floor
 * division and modulo, `**` with a negative exponent giving a float and a negative base to a
 * fractional power a complex number, correctly rounded int-to-float conversion and int true
 * division), and the limits under which CPython's AST optimizer folds a constant
 * expression (Python/ast_opt.c: safe_multiply, safe_power, safe_lshift). The one place where
 * the compiler computes Python arithmetic on constants: the frontend's folding of constant
 * expressions in kernels (lower_fold.c) and of module-level constants (lower_const.c). */
#ifndef P2C_FRONTEND_PYNUM_H
#define P2C_FRONTEND_PYNUM_H

#include <stdbool.h>
#include <stdint.h>

#include "frontend/ast.h"

enum {
  PYNUM_LIMBS = 24,       /* 768 bits of magnitude: room for a division's shifted numerator */
  PYNUM_MAX_BITS = 384,   /* larger ints are not computed (CPython folds none past ~130 bits) */
  PYNUM_FOLD_BITS = 128,  /* ast_opt.c's MAX_INT_SIZE */
};

typedef enum PyNumKind { PN_INT, PN_BOOL, PN_FLOAT, PN_COMPLEX } PyNumKind;

/* A Python int (sign and magnitude, little-endian 32-bit limbs), bool (mag[0] is 0 or 1),
 * float (f) or complex (f + im*1j). */
typedef struct PyNum {
  PyNumKind kind;
  bool neg;
  uint32_t mag[PYNUM_LIMBS];
  double f, im;
} PyNum;

/* How an operation is asked: as Python evaluates it (module constants), or as CPython's
 * optimizer folds it, which refuses products, powers and left shifts past 128 bits. */
typedef enum PyEval { PY_EVALUATE, PY_FOLD } PyEval;

PyNum pynum_int(int64_t v);
PyNum pynum_uint(uint64_t v);
PyNum pynum_bool(bool v);
PyNum pynum_float(double v);
PyNum pynum_complex(double real, double imag);

/* An integer literal's digits (Python's spelling: 0x, 0o, 0b, underscores); false when its value
 * needs more than PYNUM_MAX_BITS. */
bool pynum_parse_int(const char *s, size_t len, PyNum *out);

/* a op b for a binary arithmetic or bitwise Op (OP_ADD .. OP_BITXOR); false where Python raises
 * (a zero divisor, a negative shift, 0.0 ** -1, an overflowing float or complex `**`, an operand
 * type the operator does not take: // % and bitwise operators on complex numbers), where it
 * needs more than PYNUM_MAX_BITS, or, with PY_FOLD, where CPython's optimizer leaves the
 * expression to run time. */
bool pynum_binary(Op op, const PyNum *a, const PyNum *b, PyEval how, PyNum *out);

/* -a, +a, ~a (OP_NEG, OP_POS, OP_INVERT) as Python computes them (a bool gives an int; ~ of a
 * float or complex is an error); false where Python raises. */
bool pynum_unary(Op op, const PyNum *a, PyNum *out);

/* Python's truth of a number (`not a` is its negation). */
bool pynum_truth(const PyNum *a);

/* The value as an int64, or as a uint64 above INT64_MAX: false when an int does not fit either
 * (Numba types an int constant int64, else uint64, else refuses it), and for a float or complex. */
bool pynum_to_int64(const PyNum *a, int64_t *v, bool *is_unsigned);

/* The int equal to an integral double (CPython's PyLong_FromDouble); false for an infinity or
 * NaN (Python raises) or past PYNUM_MAX_BITS. */
bool pynum_from_integral(double d, PyNum *out);

/* A float's value, or an int's or bool's converted as Python's float() converts (correctly
 * rounded, half to even); a complex number's real part. */
double pynum_as_double(const PyNum *a);

/* The int's decimal digits (with a sign), for messages, in buf. */
void pynum_int_text(const PyNum *a, char *buf, size_t cap);

#endif
