/* Internal to codegen: the state of emitting one module, shared by emit.c (module, functions,
 * statements) and emit_expr.c (expressions). */
#ifndef P2C_CODEGEN_CG_H
#define P2C_CODEGEN_CG_H

#include "analysis/analysis.h"
#include "builtins/hooks.h"
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
typedef VEC(LineMark) LineMarks;

/* A tuple type and the C struct that holds its values (emit_tuple.c). */
typedef struct TupleCType {
  const Type *type;
  const char *name;
} TupleCType;

/* --sanitize: the kinds of access, spelled in generated text as the simulator's prelude names
 * them (P2C_SAN_READ, ...). */
typedef enum SanKind { SAN_READ, SAN_WRITE, SAN_UPDATE, SAN_ATOMIC, SAN_READ_INPUT } SanKind;

/* The C form (emit_c.c): an array type's struct, and a libm function the code calls. */
typedef struct CArray {
  const Type *dtype;
  int ndim;
} CArray;
typedef struct CMath {
  const char *name;
  int arity;
  bool f32;
} CMath;

typedef struct Gen {
  Compilation *c;
  Arena *a;
  Module *m;
  HelperSet helpers;
  Namer global;
  StrMap link_names;       /* the file-scope identifiers of the linked CUDA C (emit_link.c) */
  /* the function being emitted */
  const Function *fn;
  const char **vnames;     /* C name of each variable */
  Namer local;
  VEC(TempDecl) temps;
  StrBuf *body;
  int indent;
  bool line_directives;
  /* Where each statement's code starts: body offsets while a function is emitted, then offsets
   * in the module's text (see codegen_run); python_line 0 marks a function's end. */
  LineMarks marks;
  VEC(TupleCType) tuple_ctypes;   /* in definition order: elements before the tuples holding them */
  VEC(const Builtin *) libdevice;   /* the libdevice functions called, each once (emit_cuda.c) */
  bool sanitize;          /* CodegenOptions.sanitize */
  /* --sanitize: how the next element emitted is accessed (P2C_SAN_READ unless a store, an
   * augmented assignment or an atomic sets it for its target); taken by that element. */
  int san_kind;   /* a SanKind */
  /* Emitting on codegen's second thread (emit.c, emit_on_two_threads): the module-wide tuple
   * struct list is not this thread's to extend, so a tuple type sets needs_tuples instead and
   * the thread's text is thrown away (its functions are emitted again on the first thread). */
  bool on_second_thread;
  bool needs_tuples;
  /* Writing the C form of the host functions (emit_c.c, codegen_c_form): what it needs, and the
   * first reason it cannot be written (NULL: none). */
  bool c_form;
  const char *c_refused;
  VEC(CArray) c_arrays;
  VEC(CMath) c_math;
} Gen;

/* ---- statements (emit.c) ---- */

/* Writes one indented line (the format's text) into the function body. */
void emit_line(Gen *G, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_loop_body(Gen *G, const Block *body, bool poll);
void emit_block(Gen *G, const Block *b);
/* target = value for any assignment target: a name, a subscript, or a tuple of targets. */
void emit_assign_one(Gen *G, const Expr *target, Expr *value);
/* The parts of a plain range() loop's C header: start, stop and step as C text (stop and step
 * are temporaries assigned at the current line where the body could change them, as Python
 * evaluates them once), the sign of the step (1, -1, or 2 when known only at run time), and
 * whether the step is the implicit 1. */
typedef struct RangeLoop {
  const char *start, *stop, *step;
  const char *ctype;     /* the counter's C type */
  int sign;
  bool unit_step;
  bool exact_advance;    /* k + step cannot overflow: `k += step`; else p2c_range_next */
} RangeLoop;
RangeLoop range_loop(Gen *G, const Stmt *s);
/* The test that keeps the loop going with counter `ctr`, and the counter's advance. */
const char *range_loop_test(Gen *G, const RangeLoop *r, const char *ctr);
const char *range_loop_advance(Gen *G, const RangeLoop *r, const char *ctr);

/* A function's text is written in two passes: its statements first (into fs->body; they name
 * its temporaries), then `header`, the declarations of its variables and temporaries, and the
 * statements (function_end, which also keeps the Python line marks right). */
typedef struct FunctionScope {
  const char **pnames;   /* the C names of the parameters */
  StrBuf body;
  size_t first_mark;
} FunctionScope;
void function_begin(Gen *G, const Function *f, FunctionScope *fs);
void function_end(Gen *G, FunctionScope *fs, const char *header, StrBuf *out);
/* The parameter list of G->fn ("p2c_array<float, 1> x, double a"), without parentheses. */
void emit_params(Gen *G, StrBuf *out, const char **pnames);

/* The Python line of statement s as a comment (its first line only), and its line mark. */
void emit_stmt_comment(Gen *G, const Stmt *s);

/* ---- grid-stride loops in lockstep, for the simulator (emit_lockstep.c) ---- */
/* Writes the step function of kernel f for that loop into out; returns its name. */
const char *emit_lockstep_step(Gen *G, const Function *f, const Stmt *loop, StrBuf *out);

/* ---- kernels with barriers as regions, for the simulator (emit_regions.c) ---- */
/* Writes the block function of kernel f (which has f->regions) into out; returns its name. */
const char *emit_regions_fn(Gen *G, const Function *f, StrBuf *out);
/* The declaration of variable v of G->fn as the function's header declares it ("  int64_t x = 0;\n"). */
void emit_var_decl(Gen *G, StrBuf *out, int v);

/* for targets in iterable (emit_iter.c); plain range() loops are emit.c's. */
void emit_for_iter(Gen *G, const Stmt *s);

/* ---- expressions (emit_expr.c) ---- */

/* Writes e as a C expression of precedence >= prec (parenthesized if needed). */
void emit_expr(Gen *G, const Expr *e, StrBuf *sb, int prec);
/* cond ? a : b */
void emit_ifexp(Gen *G, const Expr *e, StrBuf *sb, int prec);
/* An index wrapped Python's way around `extent` (C text) unless it is known to be >= 0. */
void emit_wrapped_index(Gen *G, const Expr *ix, const char *extent, StrBuf *sb, int prec);
/* --check-bounds: an index as the checks take it: int64_t, a uint64 past INT64_MAX saturated. */
void emit_checked_index_value(Gen *G, const Expr *ix, StrBuf *sb);
/* --check-bounds or debug=True: the runtime index of tuple[i] (e), checked against its `nelems`
 * elements as Numba checks it (IndexError: tuple index out of range). */
void emit_checked_tuple_index(Gen *G, const Expr *e, int nelems, StrBuf *sb);
/* Extent k of array `arr` (of type at). */
void emit_extent(Gen *G, const Expr *arr, const Type *at, int k, StrBuf *sb);
/* A finite float literal in the fewest decimal digits that read back as exactly v (as a float,
 * with the f suffix, when as_float32): "0.1", "1.0", "1e+30", "0.1f". */
void emit_float_digits(StrBuf *sb, double v, bool as_float32);
/* Coordinate k of cuda.grid(n) / cuda.gridsize(n) (`call` is the call). */
void emit_grid_elem(const Expr *call, int k, StrBuf *sb, int prec);
/* An array as a first-class p2c_array value: a shared or local array becomes a view of its
 * storage; any other array is itself. */
void emit_array_value(Gen *G, const Expr *a, StrBuf *sb);

/* A subscript whose value is an array (a view: a[i] of a 2-D array, a[lo:hi]) (emit_view.c). */
void emit_view(Gen *G, const Expr *e, StrBuf *sb);
/* a.real, a.imag of an array (emit_view.c). */
void emit_array_part(Gen *G, const Expr *e, StrBuf *sb, int prec);

/* ---- complex numbers (emit_complex.c) ---- */

void emit_imag_literal(Gen *G, const Expr *e, StrBuf *sb);
/* A cast (EX_CAST) to a complex type. */
void emit_complex_cast(Gen *G, const Expr *e, StrBuf *sb);
void emit_complex_pow(Gen *G, const Expr *e, StrBuf *sb);
/* x.real, x.imag (e is the EX_ATTR). */
void emit_part(Gen *G, const Expr *e, StrBuf *sb, int prec);
/* x.conjugate() (e is the EX_CALL). */
void emit_method_call(Gen *G, const Expr *e, StrBuf *sb, int prec);
void emit_complex_abs(Gen *G, const Expr *e, StrBuf *sb);

/* ---- datetime64 and timedelta64 (emit_time.c) ---- */

/* A binary or unary operator with a datetime or timedelta operand, abs() of a timedelta, and
 * one comparison of two of them (`ta`, `tb`: temporaries holding the operands, or NULL). */
void emit_time_binary(Gen *G, const Expr *e, StrBuf *sb);
void emit_time_unary(Gen *G, const Expr *e, StrBuf *sb, int prec);
void emit_time_abs(Gen *G, const Expr *e, StrBuf *sb);
/* The prelude function min() or max() (call e) of datetimes or timedeltas folds with. */
const char *emit_time_minmax_function(Gen *G, const Expr *e);
void emit_time_compare(Gen *G, Op op, const Expr *a, const char *ta, const Expr *b, const char *tb, StrBuf *sb);

/* ---- float16 (emit_half.c) ---- */

/* A cast (EX_CAST) from or to float16 (not to complex: emit_complex_cast). */
void emit_half_cast(Gen *G, const Expr *e, StrBuf *sb, int prec);
/* fn(args...) of float16 values: abs() of a float16 (p2c_habs), the cuda.fp16 intrinsics. */
void emit_half_call(Gen *G, const char *fn, const Expr *e, StrBuf *sb);
/* --sanitize: the checker's name of a memory space, and an array's name as a C string literal
 * followed by suffix ("[...]" for a view). */
const char *san_space_name(MemSpace space);
void emit_san_name(StrBuf *sb, const char *name, const char *suffix);
/* --sanitize: wraps a write of a whole view (p2c_fill(...), p2c_ufunc(...)) so that its element
 * writes are reported; `view` gives the position and the array's name. Nothing otherwise. */
void san_view_written_open(Gen *G, const Type *view, StrBuf *sb);
void san_view_written_close(Gen *G, const Expr *view, StrBuf *sb);
/* Marks the prelude helpers a p2c_ufunc call needs (a ufunc with an output, a copy into a view). */
void use_ufunc_helpers(Gen *G);

/* ---- libdevice (emit_cuda.c) ---- */

/* Adds the libdevice functions the side thread called to G's (emit.c's two threads). */
void libdevice_merge(Gen *G, const Gen *side_gen);
/* NVRTC's declarations of the libdevice functions called, in the order of their names, under
 * #ifndef PYK2CUDA_SIM (the simulator's prelude defines them); nothing when none is called. */
void emit_libdevice_decls(Gen *G, StrBuf *out);

/* ---- linked CUDA C and external functions (emit_link.c) ---- */
/* Takes every identifier of the module's linked CUDA C in the global namer. */
void emit_take_link_names(Gen *G);
/* The module's linked CUDA C, each file framed by #line directives. */
void emit_links(Gen *G, StrBuf *text);
/* The body of external function f's specialization (its parameters' C names): the symbol's call. */
void emit_extern_body(Gen *G, const Function *f, const char *const *pnames);
/* A C string literal of s[0..len), quotes included (emit_stmt.c). */
void emit_c_string_literal(StrBuf *sb, const char *s, size_t len);

/* ---- tuples (emit_tuple.c) ---- */

/* The C struct holding values of tuple type t ("p2c_tuple_i64_f64"), declared on first use. */
const char *tuple_ctype(Gen *G, const Type *t);
/* The definitions of every tuple struct used, in dependency order. */
void emit_tuple_structs(Gen *G, StrBuf *out);

/* ---- records (emit_record.c; expressions in emit_expr.c) ---- */
/* The struct of every record type the analysis found in use, with its layout checks. */
void emit_record_structs(Gen *G, const Analysis *an, StrBuf *out);
/* The C member name of a record's field. */
const char *record_member(Gen *G, const Type *r, const char *name);
/* target = value where target is a nested array field (r.v = arr): an element-wise copy. */
void emit_nested_copy(Gen *G, const Expr *target, const Expr *value);
/* A value stored into character sequence type t: a str or bytes literal (cut to t's length, the
 * rest zeros), a conditional of literals, or a sequence of type t (emit_charseq.c). */
void emit_charseq_value(Gen *G, const Type *t, const Expr *value, StrBuf *sb);
/* A pointer to the record e denotes (a variable's or temporary's value, an argument, a result). */
void emit_record_ref(Gen *G, const Expr *e, StrBuf *sb, int prec);
/* Writes a tuple-valued e as a whole C value; returns false where emit_expr's own case for
 * e's kind already does that (variables, device calls, conditional expressions, indexing). */
bool emit_tuple_value(Gen *G, const Expr *e, StrBuf *sb, int prec);
/* Writes element k of a tuple-valued expression (e is evaluated once, with its side effects). */
void emit_tuple_elem(Gen *G, const Expr *e, int k, StrBuf *sb, int prec);
/* t[i] with a runtime index. */
void emit_tuple_runtime_index(Gen *G, const Expr *e, StrBuf *sb);
/* The C member of element k of a value of tuple type t: ".f0", or ".f[0]" in a UniTuple. */
void put_member(StrBuf *sb, const Type *t, int k);
/* A codegen-made expression: element k of tuple `base` (a constant index). */
Expr *tuple_elem_expr(Gen *G, Expr *base, int k);
/* A codegen-made expression naming a new temporary of type t. */
Expr *temp_expr(Gen *G, const Type *t);
/* Short spelling of a type for generated names: "i64", "f32", "a2f32", "tup2i64f64". */
const char *type_suffix(Gen *G, const Type *t);
/* The C spelling of a value type: "int64_t", "p2c_array<float, 2>". */
const char *ctype_of(Gen *G, const Type *t);
/* A new function-local temporary of type t. */
const char *new_temp(Gen *G, const Type *t);
/* The common type of a comparison's two operand types. */
const Type *compare_type(const Type *a, const Type *b);

/* ---- @jit functions called from the host (emit_host.c) ---- */
/* Claims the symbol of a named host entry's kernel ("<its C name>_host"). */
const char *host_name_spec(Gen *G, const Function *spec);
/* Whether a host entry returns a value, which its kernel stores in `result`. */
bool host_has_result(const Function *spec);
/* The arrays in a value of type t (t itself, or a tuple's at any depth), depth-first: each
 * one's C access path from the value (".f1.f0", "" for t itself) appended to *paths when paths
 * is not NULL; returns the count. */
int host_result_arrays(Gen *G, const Type *t, const char *path, const char **paths);
/* Where the addresses of the blocks holding a host entry's result arrays start in its result's
 * bytes: after the result, 8-aligned (P2cKernelInfo.result_owners). */
size_t host_owners_offset(const Function *spec);
/* The end of a host entry whose function creates arrays: the call's heap hands the blocks that
 * hold the result's arrays (in `res`, the result's bytes as a uint8 array) to the caller and
 * frees the rest; `local` names the addresses' array (NULL: a fixed name, the C form's). */
void emit_heap_end(Gen *G, Namer *local, const Function *spec, const char *res, StrBuf *out);
/* The one-thread kernel that calls a host entry for the host. */
void emit_host_kernel(Gen *G, const Function *spec, const char *symbol, StrBuf *out);

/* ---- the C form of the host functions, for the first tier (emit_c.c) ---- */
/* Records that the C form cannot be written, and why (the first reason is kept). */
void c_form_refuse(Gen *G, const char *why);
/* The C struct of array type t ("p2c_array_double_2"), declared before the code. */
const char *c_form_array_type(Gen *G, const Type *t);
/* Records libm's function fn (of `arity` doubles, or floats when f32), declared before the code. */
void c_form_math(Gen *G, const char *fn, int arity, bool f32);
/* The host entry's C function `symbol`, which takes kernelParams. */
void emit_host_entry_c(Gen *G, const Function *spec, const char *symbol, StrBuf *out);
/* The C form's text: its header, array structs, libm declarations and helpers, then defs. */
void c_form_assemble(Gen *G, const StrBuf *defs, CodegenResult *out);

/* ---- @vectorize ufuncs (emit_ufunc.c) ---- */
/* Claims the names of a ufunc specialization: returns its kernel's symbol (the ufunc's name,
 * with the argument types appended when it has several signatures) and sets spec->cname, the
 * device function of scalars that the kernel calls. */
const char *ufunc_name_spec(Gen *G, Function *spec, bool many);
/* The elementwise kernel of a named ufunc specialization. */
void emit_ufunc_kernel(Gen *G, const Function *spec, const char *symbol, StrBuf *out);
/* The runtime's descriptor of that kernel: one view parameter per input, then `out`. */
void describe_ufunc(Gen *G, const Function *spec, const char *symbol, KernelDesc *k);

/* ---- CUDA intrinsics (emit_cuda.c) ---- */
/* The module's constant arrays used by kernels, as __constant__ definitions. */
void emit_const_arrays(Gen *G, StrBuf *out);
/* The device arrays captured from Python globals that kernels use (emit_cuda.c). */
void emit_captured_arrays(Gen *G, StrBuf *out);
/* The declaration of a local variable holding a constant array. */
void emit_const_array_decl(Gen *G, StrBuf *out, const Type *t, const char *name);

/* v.x .. v.w of a CUDA vector (emit_vector.c). */
void emit_vector_lane(Gen *G, const Expr *e, StrBuf *sb, int prec);

#endif
