/* Internal to the frontend: the state of lowering one CST, shared by lower.c (module and
 * statements) and lower_expr.c (expressions). */
#ifndef P2C_FRONTEND_LOWER_H
#define P2C_FRONTEND_LOWER_H

#include <tree_sitter/api.h>

#include "frontend/frontend.h"
#include "util/strmap.h"

/* A module-level name bound to something other than a compile-time constant. */
typedef struct OtherGlobal {
  const char *name;
  Loc loc;
  const char *why;    /* why a NumPy array constructor or a record dtype could not be
                         evaluated, or NULL */
  bool record;        /* why is a record dtype's (np.dtype([...])) */
  bool stencil;       /* a @stencil function: its kernel is made here (stencil.c); calls of it are refused */
} OtherGlobal;

/* The grammar's field names the lowering reads. Their ids are looked up once per compilation:
 * tree-sitter 0.20 resolves a field name by a linear string search on every call. */
#define P2C_FIELDS(X)                                                                        \
  X(alias) X(alternative) X(argument) X(arguments) X(attribute) X(body) X(condition)          \
  X(consequence) X(definition) X(function) X(left) X(module_name) X(name) X(object)         \
  X(operator) X(parameters) X(right) X(superclasses) X(type) X(value)
typedef enum Field {
#define P2C_FIELD_ENUM(f) F_##f,
  P2C_FIELDS(P2C_FIELD_ENUM)
#undef P2C_FIELD_ENUM
  F_COUNT
} Field;

/* The grammar's node kinds the lowering tells apart, all named nodes except `async` (the
 * keyword). Comparing a node's kind is an array lookup by its symbol: comparing ts_node_type's
 * string was a tenth of the lowering's time. */
#define P2C_NODE_KINDS(X)                                                                    \
  X(aliased_import) X(assert_statement) X(assignment) X(attribute) X(augmented_assignment)    \
  X(binary_operator) X(block) X(boolean_operator) X(break_statement) X(call)                  \
  X(class_definition) X(comment) X(comparison_operator) X(concatenated_string)               \
  X(conditional_expression) X(continue_statement) X(decorated_definition) X(decorator)       \
  X(default_parameter) X(typed_default_parameter)                                            \
  X(dictionary_splat) X(dotted_name) X(elif_clause) X(else_clause) X(expression_list)        \
  X(expression_statement) X(false) X(float) X(for_statement) X(function_definition)          \
  X(generator_expression) X(identifier) X(if_statement) X(import_from_statement)             \
  X(import_statement) X(integer) X(interpolation) X(keyword_argument) X(lambda)              \
  X(line_continuation) X(list) X(list_splat) X(list_splat_pattern) X(named_expression) X(none) X(not_operator)     \
  X(parenthesized_expression) X(pass_statement) X(pattern_list) X(raise_statement) X(return_statement)          \
  X(slice) X(string) X(subscript) X(true) X(tuple) X(tuple_pattern) X(typed_parameter)        \
  X(unary_operator) X(while_statement)
typedef enum NodeKind {
  K_other,   /* any kind not listed */
#define P2C_KIND_ENUM(k) K_##k,
  P2C_NODE_KINDS(P2C_KIND_ENUM)
#undef P2C_KIND_ENUM
  K_async,
  K_ERROR,
  K_COUNT
} NodeKind;

/* What the lowering knows about each symbol of the grammar, built once per compilation. */
typedef struct SymbolTable {
  uint8_t *kind;          /* NodeKind by public symbol */
  bool *holds_statements; /* a *_statement, *_clause, block or assignment: may bind a name below */
  uint32_t count;
} SymbolTable;

typedef struct GuDecorator GuDecorator;   /* guvectorize.c */
typedef struct StencilDecl StencilDecl;   /* stencil.c */

/* A function defined inside another (lower_nested.c): a device function of the module, named
 * OUTER__NAME, whose free names that are the enclosing function's variables are captured: a
 * variable bound once, to a constant, by its value (as Numba freezes it); any other one by a
 * parameter of its own (`value` NULL), which each direct call passes by keyword. */
typedef struct Capture {
  const char *name;
  Expr *value;             /* the constant, or NULL: a parameter of that name */
  bool several;            /* bound more than once in the enclosing function */
} Capture;

typedef struct NestedFn {
  Function *fn;
  const char *name;        /* as written */
  Capture *captures;
  int ncaptures;
  struct NestedFn *prev;   /* the one defined before it in the same function, or NULL */
} NestedFn;

/* The function being lowered, as a scope for the functions nested in it. */
typedef struct Scope {
  struct Scope *up;        /* the enclosing function's, or NULL for a module-level function */
  StrMap nested;           /* name -> NestedFn *, the functions defined in this one */
  NestedFn *self;          /* the nested function this scope is, or NULL */
  NestedFn *last;          /* the last function defined in it (a list through prev) */
  TSNode body;             /* its body */
} Scope;

typedef struct Lowerer {
  Compilation *c;
  Arena *a;
  Module *m;
  VEC(OtherGlobal) others;
  /* Module-level names, so that no lookup grows with the module: */
  StrMap const_by_name;   /* -> Const * (the last binding wins, as in Python) */
  StrMap func_by_name;    /* -> Function * (the first definition; a second is an error) */
  StrMap alias_by_name;   /* import alias -> module path ("math.sqrt"); the last import wins */
  StrMap var_by_name;     /* in L->fn: name -> (void *)(index + 1) */
  StrMap builtin_by_path; /* "math.sqrt" -> const Builtin * (builtins_index) */
  StrMap class_by_name;   /* module-level classes (lower_class.c) -> ModuleClass * */
  StrMap str_by_name;     /* module-level str constants -> their text (NUL-terminated) */
  StrMap value_by_name;   /* module-level NAME = value -> the value's node (TSNode *), the last
                             before the point lowered: what a decorator naming NAME reads */
  int vars_cap;           /* allocated length of L->fn->vars while it is being lowered */
  TSFieldId field_ids[F_COUNT];
  SymbolTable symbols;
  TSTreeCursor walk;      /* collect_locals's cursor (lower.c says why it lives here) */
  Function *fn;       /* the function being lowered */
  int depth;          /* nesting of blocks and expressions, bounded by P2C_MAX_NESTING */
  int loops;          /* enclosing loops, for break/continue */
  GuDecorator *gufunc;   /* the @guvectorize of the function being declared, until its kernel is made */
  VEC(Function *) gufunc_kernels;   /* the kernels made for gufuncs, added to the module last */
  VEC(Function *) externs;   /* cuda.declare_device's functions, added to the module after the bodies */
  StencilDecl *stencil;      /* the @stencil of the function being declared, until its parameters are */
  VEC(StencilDecl *) stencils;   /* the module's stencils, whose kernels are made after the bodies */
  Scope *scope;       /* the function being lowered, as a scope (lower_nested.c) */
  VEC(Function *) nested_funcs;   /* functions nested in others, added to the module after the bodies */
} Lowerer;

/* What a dotted name (a.b.c) refers to, when it is not a value expression. */
typedef struct Resolved {
  const char *path;          /* module path ("numba.cuda.grid"), or NULL */
  const Builtin *builtin;    /* the builtin at path, or NULL */
} Resolved;

/* ---- CST helpers (lower_cst.c) ---- */
const char *node_text(Lowerer *L, TSNode n, size_t *len);
char *node_str(Lowerer *L, TSNode n);
Loc node_loc(Lowerer *L, TSNode n);
/* Inline: they run for nearly every node, from every file of the lowering. */
static inline NodeKind node_kind(const Lowerer *L, TSNode n) {
  TSSymbol sym = ts_node_symbol(n);
  if (sym < L->symbols.count) return (NodeKind)L->symbols.kind[sym];
  return sym == (TSSymbol)-1 ? K_ERROR : K_other;   /* (TSSymbol)-1 is tree-sitter's ERROR */
}
static inline bool node_is(const Lowerer *L, TSNode n, NodeKind kind) { return node_kind(L, n) == kind; }
/* Whether n is a comment or a line continuation (children that carry no code). */
bool node_is_extra(const Lowerer *L, TSNode n);
/* Named children, skipping comments and line continuations. */
int node_kids(const Lowerer *L, TSNode n, TSNode *out, int cap);
/* All named children of n (comments included) in a new arena array; *count gets their number.
 * Walks with a cursor: indexing children one by one costs time quadratic in their number. */
TSNode *node_named_children(Lowerer *L, TSNode n, uint32_t *count);
/* The child of n in field f, or a null node. */
static inline TSNode lower_field(const Lowerer *L, TSNode n, Field f) {
  return ts_node_child_by_field_id(n, L->field_ids[f]);
}
bool lower_enter(Lowerer *L, TSNode n);   /* depth check; false (with a diagnostic) past the limit */
void lower_leave(Lowerer *L);
void lower_unsupported(Lowerer *L, TSNode n, const char *what);
/* What the function being lowered is, for "... is not supported in %s": "kernels", or "@jit
 * functions" for one the host may call (whose message the Python package's fallback warning
 * repeats: docs/python.md, "CPU functions"). */
const char *lower_context(const Lowerer *L);

/* ---- names (lower_cst.c) ---- */
/* The index of name among the variables of the function being lowered, or -1. */
int find_var(const Lowerer *L, const char *name);
Const *find_const(const Lowerer *L, const char *name);
/* The last module-level binding of name to something other than a constant, or NULL. */
const OtherGlobal *find_other_global(const Lowerer *L, const char *name);
Function *find_func(const Lowerer *L, const char *name);
const char *alias_path(const Lowerer *L, const char *name);
/* Resolves an identifier or attribute chain rooted at an import alias or a Python builtin. */
bool resolve_dotted(Lowerer *L, TSNode n, Resolved *out);

/* ---- module-level classes (lower_class.c) ---- */
/* A class a kernel may name: an exception class (raised by name) or an Enum / IntEnum. */
typedef struct ModuleClass {
  const char *name;
  Loc loc;
  EnumClass *enumc;          /* NULL: an exception class */
  const char *why;           /* why an Enum cannot be used in kernels (a member's value), or NULL */
} ModuleClass;
/* `class NAME(BASE): ...` at module level: records an exception class (BASE a builtin exception
 * or an exception class of the module) or an Enum/IntEnum with constant members; any other
 * class is left as a global kernels cannot use. */
void lower_module_class(Lowerer *L, TSNode n);
const ModuleClass *find_class(const Lowerer *L, const char *name);
/* Color.red / Color['red'] when `object` names an Enum class of the module: the member as an
 * EX_CONST; NULL with *handled false when it does not (NULL and *handled: a diagnostic). */
Expr *lower_enum_member(Lowerer *L, TSNode object, TSNode member, TSNode at, bool *handled);
/* Whether `name` is an exception class: Python's builtin ones a kernel may raise, or one of the
 * module's (not shadowed by a local or another global). */
bool lower_is_exception_class(Lowerer *L, const char *name);

/* ---- decorators (lower.c, vectorize.c) ---- */
/* Appends the signature that node n spells (a string, or a type call like float32(int32)). */
void lower_add_sig(Lowerer *L, Function *f, TSNode n);
/* Signatures given as one, a list or tuple of them, or a module-level name bound to any of these
 * (sig = void(float32[:]); @cuda.jit(sig)), as Python evaluates a decorator's arguments. */
void lower_add_sigs(Lowerer *L, Function *f, TSNode n);
/* @vectorize / @cuda.vectorize(...) at decorator expression e (callee resolved to path):
 * makes f a FN_UFUNC with its signatures; false after a diagnostic. */
bool lower_vectorize_decorator(Lowerer *L, Function *f, TSNode e, const char *path);
/* @guvectorize(sigs, layout, target='cuda') at decorator expression e: makes f a device function
 * (the gufunc's core) and keeps the decorator in L->gufunc for lower_guvectorize_kernel; true
 * (diagnostics, if any, are reported and the kernel is then not made). */
bool lower_guvectorize_decorator(Lowerer *L, Function *f, TSNode e);
/* The kernel of the gufunc whose core is `core` (its parameters lowered): a FN_KERNEL of the
 * core's name and parameters, with the decorator's signatures made outer (guvectorize.c says
 * how); NULL after a diagnostic. Consumes L->gufunc. */
Function *lower_guvectorize_kernel(Lowerer *L, Function *core);

/* @stencil, @stencil(...) at decorator expression e: makes f a device function (the stencil's
 * body) and keeps the options in L->stencil; true (diagnostics, if any, are reported and the
 * kernel is then not made). */
bool lower_stencil_decorator(Lowerer *L, Function *f, TSNode e);
/* f's parameters are lowered: checks the options against them and queues the stencil in
 * L->stencils. Consumes L->stencil. */
void lower_stencil_declared(Lowerer *L, Function *f);
/* Whether f is a @stencil's function. Numba's stencil pass reads its names before SSA (a
 * relative index bound twice is not a constant), so its variables are not cut into webs. */
bool lower_is_stencil_body(const Lowerer *L, const Function *f);
/* The kernel of stencil d, its body lowered (stencil.c says how): a FN_KERNEL of the stencil's
 * name taking its parameters and `out`; the body rewritten and renamed NAME_body. NULL after a
 * diagnostic. */
Function *lower_stencil_kernel(Lowerer *L, StencilDecl *d);
/* A call of a stencil in a @jit function the host calls, NAME(inputs...[, out=o]): a call of the
 * stencil's loops (NAME_call, or NAME_loops with out), which lower_stencil_kernel makes. *handled
 * false (NULL) when `call` is no such call; NULL with *handled after a diagnostic. */
Expr *lower_stencil_call(Lowerer *L, TSNode call, bool *handled);

/* ---- external device functions and linked CUDA C (lower_link.c) ---- */
/* `left = right` at module level when right is cuda.declare_device(...): declares the external
 * function (Function.extern_symbol) and its link= files; false when right is no such call. */
bool lower_declare_device(Lowerer *L, TSNode left, TSNode right);
/* A link= value (a path, cuda.CUSource(...), or a list or tuple of those): the module's links. */
void lower_link_list(Lowerer *L, TSNode value);

/* ---- functions (lower.c) ---- */
/* Declares f's parameters from the `parameters` node (in L->fn's variables: L->vars_cap 0). */
void lower_params(Lowerer *L, Function *f, TSNode params);
/* Lowers f's default values, in the module's scope (L->fn NULL, L->var_by_name empty). */
void lower_defaults(Lowerer *L, Function *f, TSNode params);
/* Declares every name that body binds as a local of L->fn. */
void lower_collect_locals(Lowerer *L, TSNode body);

/* ---- functions nested in functions (lower_nested.c) ---- */
/* `def NAME(...): ...` inside the function being lowered: declares and lowers it. */
void lower_nested_def(Lowerer *L, TSNode def);
/* The nested function `name` visible from the function being lowered, or NULL. */
NestedFn *lower_find_nested(const Lowerer *L, const char *name);
/* Call e (at n), once lowered: a nested function passed as an argument (it may escape) must
 * capture only constants; a direct call of one passes its captured variables. False after a
 * diagnostic. */
bool lower_nested_call(Lowerer *L, TSNode n, Expr *e);
/* The constant an enclosing function's `name` was captured as, or NULL: none. */
const Capture *lower_find_capture(const Lowerer *L, const char *name);

/* ---- statements (lower_stmt.c) ---- */
/* The statements of a block node (a function's or a compound statement's body). */
Block lower_block(Lowerer *L, TSNode block);

/* ---- expressions (lower_expr.c) ---- */
Expr *lower_expr(Lowerer *L, TSNode n);
/* Decodes a string literal node's value into *out / *len (arena); false after a diagnostic. */
bool lower_string_value(Lowerer *L, TSNode n, const char **out, size_t *len);
bool lower_op_from_text(const char *text, Op *op);   /* "+" -> OP_ADD, ... */
/* A float literal's value from its digits (underscores allowed), as Python reads it. */
double lower_float_text(const char *s, size_t len);

/* ---- constant expressions in kernels, folded as CPython folds them (lower_fold.c) ---- */
/* Whether n is a constant expression CPython folds; if so *out is its literal (NULL after a
 * diagnostic: an int beyond uint64). */
bool lower_fold(Lowerer *L, TSNode n, Expr **out);
/* For a chain of binary operators (spine: the top node first, each the left operand of the one
 * before; leaf: the bottom node's left operand): whether the leaf folds; if so *done counts the
 * operators from the bottom that fold with it and *out is the literal of that prefix (NULL after
 * a diagnostic). */
bool lower_fold_chain(Lowerer *L, TSNode *spine, size_t len, TSNode leaf, Expr **out, size_t *done);

/* ---- module-level constants (lower_const.c) ---- */
/* The literal that n folds to, or NULL; *numpy_type gets the NumPy scalar type of a value such
 * as np.float32(2.5), or NULL for a Python number or tuple. */
Expr *fold_const_expr(Lowerer *L, TSNode n, const Type **numpy_type);
/* The same, and where it does not fold, *why says why when the fold can tell (a call CPython
 * computes with its own code, an operation that raises in Python), else NULL. */
Expr *fold_const_value(Lowerer *L, TSNode n, const Type **numpy_type, const char **why);

/* ---- signatures from the host code's calls (lower_host_calls.c) ---- */
/* After the module is lowered: the signatures of its @jit functions without one that the calls
 * in its host code give (Module.host_call_sigs). Reports nothing. */
void lower_host_calls(Lowerer *L, const TSNode *roots, int nroots);

/* ---- module-level NumPy arrays (lower_array.c) ---- */
/* The array that n builds (np.array, np.arange, np.zeros, np.ones, np.full, .reshape, .astype
 * of those), evaluated now; NULL when it is no such constructor or cannot be evaluated, and
 * then *why says why for a NumPy call (NULL for anything else). Reports no diagnostics. */
ConstArray *lower_const_array(Lowerer *L, TSNode n, const char **why);
/* NAME = cuda._captured_array(...) (lower_captured.c): *is_one says whether `right` is that
 * call; the array it describes, or NULL after a diagnostic when it is one. */
CapturedArray *lower_captured_array(Lowerer *L, TSNode right, bool *is_one);
/* A dtype argument at n (np.float32, numba.int32, float, 'f4'): its scalar type, or NULL. */
const Type *lower_dtype_of(Lowerer *L, TSNode n);
/* NAME = np.dtype([(name, dtype[, shape]), ...], align=...) at module level (lower_record.c):
 * the record dtype, or NULL with *why set when n is such a call that cannot be evaluated, or
 * NULL with *why NULL when n is not one. */
RecordDtype *lower_record_dtype(Lowerer *L, TSNode n, const char **why);
/* A dtype= argument that is a record dtype: a list of fields, an np.dtype() call or the name of
 * a module-level record dtype; NULL (with *why when it could not be evaluated) otherwise. */
RecordDtype *lower_record_dtype_arg(Lowerer *L, TSNode n, const char **why);

#endif
