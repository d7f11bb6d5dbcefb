/* Internal to typeinfer: the state of typing one function specialization, shared by infer.c
 * (functions, statements) and infer_expr.c (expressions and builtins). */
#ifndef P2C_TYPEINFER_INFER_H
#define P2C_TYPEINFER_INFER_H

#include "builtins/hooks.h"
#include "typeinfer/typeinfer.h"

typedef struct Infer {
  Compilation *c;
  TypeTable *tt;
  Module *m;
  Function *fn;        /* the specialization being typed */
  bool final;          /* last pass: report errors, insert casts */
  bool changed;        /* a variable's type widened during this pass */
  const Type *ret;     /* unified type of the return statements seen */
  Loc ret_loc;
  int depth;           /* specialization depth (device functions calling device functions) */
  const Expr *statement_value;   /* the value of the statement being typed: where an array
                                    allocation may stand (x = cuda.local.array(...), or alone) */
} Infer;

/* Types e (and its children). Returns NULL when a type is not known yet (non-final passes) or
 * after an error (final pass). */
const Type *infer_expr(Infer *I, Expr *e);
/* In the final pass, wraps *slot in a cast to `to` when its type differs. */
void infer_coerce(Infer *I, Expr **slot, const Type *to);
/* Whether builtin call e has lo to hi arguments; else an E-arity error naming the builtin. */
bool infer_check_arity(Infer *I, Expr *e, int lo, int hi);
/* Whether a value of type t can be used as a condition. */
bool check_truthy(Infer *I, Expr *e, const Type *t);
/* Specializes device function f for argument types; NULL after an error. */
Function *specialize(Infer *I, Function *f, const Type **args, Loc call_loc);
/* A call of device function g, whose decorator gives signatures, with arguments of types args:
 * the specialization of the signature Numba's overload resolution picks (the fewest unsafe,
 * then safe conversions, then promotions; the first of equals), its arguments to be converted
 * to it; NULL after an error when none takes them. */
Function *specialize_declared(Infer *I, Function *g, const Type **args, Loc call_loc);
/* The name of the function e is (EX_FUNC, or a builtin function), or NULL. */
const char *infer_function_name(const Expr *e);
/* Call e of a device function: the arguments that are compile-time values (functions,
 * dtypes, literals the callee needs as constants) are replaced in an instance of the callee,
 * which e then calls with the other arguments (static_args.c). False after an error. */
bool infer_static_args(Infer *I, Expr *e);
/* Whether evaluating typed expression e again cannot change what it gives: no device call,
 * nothing with effects (a tuple it stands for may be written once per element). */
bool infer_can_repeat(const Expr *e);
/* An integer known at compile time (literals, module constants, + - * // of those). */
bool infer_const_int(const Expr *e, int64_t *out);

/* range(start, stop, step) with parts NULL where not given: the type it yields (the parts
 * are cast to it in the final pass). */
const Type *infer_range(Infer *I, Expr **parts);
/* The type of the values a for loop's iterable yields: an array's elements (or, for an N-D
 * array, its (N-1)-D views), a UniTuple's elements, range(), enumerate() and zip() of those
 * (infer_iter.c). NULL when unknown yet or after an error. */
const Type *infer_iterable(Infer *I, Expr *it);
/* Statement i of block b, `for x in literal_unroll(t)` over a tuple whose elements have
 * different types (or are constant, shared or local arrays, which a loop cannot read at a
 * run-time index), replaced by one copy of the loop's body per element, as Numba unrolls it
 * (infer_iter.c); false where the loop is left as it is. */
bool infer_unroll_split(Infer *I, Block *b, int i);
/* The element type of t in loop s, `for x in literal_unroll(t)`, which infer_unroll_split left
 * as a loop: t must be a tuple of one element type (infer_iter.c). NULL after an error. */
const Type *infer_unrolled(Infer *I, Stmt *s);

/* a[i, j], a[i], a[lo:hi, ::2], t[k] (infer_view.c): an element, a view or a tuple element. */
const Type *infer_subscript(Infer *I, Expr *e);
/* x.attr: an array's shape, size, ndim; a number's real, imag; a record's field. */
const Type *infer_attr(Infer *I, Expr *e);
/* lo:hi:step inside a subscript: the parts are int64; the result stands for "a slice". */
const Type *infer_slice(Infer *I, Expr *e);
/* a.view(dtype) and other calls of an array's methods (infer_view.c): rewritten into a call of
 * the method's row, then typed as that call. */
const Type *infer_array_method(Infer *I, Expr *e);
/* a.real, a.imag of array type t (infer_view.c). */
const Type *infer_array_part(Infer *I, Expr *e, const Type *t);

/* Complex numbers (infer_complex.c). */
const Type *infer_complex_binary(Infer *I, Expr *e, const Type *a, const Type *b);
const Type *infer_complex_unary(Infer *I, Expr *e, const Type *t);
bool complex_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b);
/* x.real, x.imag of a number. */
const Type *infer_numeric_attr(Infer *I, Expr *e, const Type *t);
/* A call whose callee is an attribute: x.conjugate(). */
const Type *infer_method_call(Infer *I, Expr *e);
/* Whether a value of type `from` may be cast to `to` when either is complex. */
bool complex_cast_ok(Infer *I, Expr *e, const Type *from, const Type *to);

/* float16 (infer_half.c). A binary operation with a float16 operand: returns float16 when it
 * stays one, else the type both operands were converted to (in *a and *b), or NULL. */
const Type *infer_half_binary(Infer *I, Expr *e, const Type **a, const Type **b);
const Type *infer_half_unary(Infer *I, Expr *e, const Type *t);

/* datetime64 and timedelta64 (infer_time.c): a binary operation with a datetime or timedelta
 * operand, a unary one on one, and whether op compares a and b. */
const Type *infer_time_binary(Infer *I, Expr *e, const Type *a, const Type *b);
const Type *infer_time_unary(Infer *I, Expr *e, const Type *t);
bool time_compare_ok(Infer *I, Expr *e, Op op, const Type *a, const Type *b);
/* min() and max() of datetimes or timedeltas: values of one type (t[1..]), which they keep. */
const Type *infer_time_minmax(Infer *I, Expr *e, const Type **t);

/* CUDA vector types (infer_vector.c): v.x .. v.w of vector type t; the lane an attribute
 * name is (0 for "x" .. 3 for "w"; -1 for any other name). */
const Type *infer_vector_lane(Infer *I, Expr *e, const Type *t);
int infer_vector_lane_index(const char *attr);

/* Tuples (infer_tuple.c). */
const Type *infer_tuple_literal(Infer *I, Expr *e);
/* t[k]: a constant index picks an element of any tuple; a runtime index needs a UniTuple. */
const Type *infer_tuple_index(Infer *I, Expr *e, const Type *tt);
/* x[k] for element k of tuple-valued x, which infer_can_repeat allows to be written once per
 * element: x itself for k = 0, a copy of it for the others (a tuple unpacked into arguments or
 * indices). */
Expr *infer_tuple_elem_expr(Infer *I, Expr *x, int k);
/* p.x of a namedtuple, rewritten to p[k]. */
const Type *infer_tuple_field(Infer *I, Expr *e, const Type *tt);
/* t1 + t2 */
const Type *infer_tuple_concat(Infer *I, Expr *e, const Type *a, const Type *b);
/* Converts the tuple at *slot to tuple type `to` (same length), element by element. */
void infer_coerce_tuple(Infer *I, Expr **slot, const Type *to);
/* The type a value of type t has once stored or passed: a shared or local array becomes a view
 * (an array without a fixed shape). */
const Type *type_as_value(TypeTable *tt, const Type *t);

/* ---- CUDA intrinsics (infer_cuda.c) ---- */
/* The type of a module-level NumPy array constant: a fixed-shape array in constant memory. */
const Type *infer_const_array(Infer *I, Const *k);

/* Errors are reported only in the final pass; earlier passes see partial types. */
#define TERR(I, loc, code, ...) \
  do {                                                          \
    if ((I)->final) diag_error((I)->c, loc, code, __VA_ARGS__); \
  } while (0)

#endif
