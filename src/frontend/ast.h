/* The AST: what the frontend produces from the tree-sitter CST and every later phase consumes.
 *
 * Names are resolved by the frontend: a Python identifier becomes a local variable (an index
 * into its Function's vars), a module constant, a device function, or a builtin (cuda.grid,
 * math.sqrt, np.float32, abs, ...). Children are counted arrays. Every node has a location;
 * typeinfer sets `ty` on every expression and inserts EX_CAST nodes where values convert. */
#ifndef P2C_FRONTEND_AST_H
#define P2C_FRONTEND_AST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "builtins/builtins.h"
#include "types/types.h"
#include "util/diag.h"

typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Function Function;

/* How the simulator may run the atomics on an array parameter (Function.private_atomics): on the
 * array itself, or on a worker's private copy merged by this operation (docs/simulator.md,
 * "Atomics"). The prelude's P2C_SIM_PRIVATE names the same values. */
typedef enum PrivateAtomic {
  PA_SHARED, PA_ADD, PA_AND, PA_OR, PA_XOR, PA_MAX, PA_MIN,
} PrivateAtomic;
typedef struct Const Const;

typedef enum ExprKind {
  EX_INT,       /* ival (uval for literals beyond int64) */
  EX_FLOAT,     /* fval */
  EX_IMAG,      /* fval: an imaginary literal fval * 1j, or a folded complex constant
                   real + fval * 1j (complex128) */
  EX_BOOL,      /* ival 0/1 */
  EX_STR,       /* str, str_len: decoded bytes */
  EX_NONE,      /* None: only as an operand of `is` and `is not` */
  EX_VAR,       /* var: index into the function's vars */
  EX_CONST,     /* konst: a module-level constant */
  EX_FUNC,      /* func: a device function, only as a callee */
  EX_BUILTIN,   /* builtin */
  EX_UNARY,     /* op (OP_NEG, OP_POS, OP_INVERT), kids[0] */
  EX_NOT,       /* kids[0] */
  EX_BINARY,    /* op, kids[0], kids[1] */
  EX_COMPARE,   /* kids[0..n), cmps[0..n-1): a < b <= c */
  EX_BOOLOP,    /* op (OP_AND, OP_OR), kids[0..n) */
  EX_IFEXP,     /* kids: cond, then, else */
  EX_CALL,      /* kids[0] callee, kids[1..n) arguments; keywords */
  EX_ATTR,      /* kids[0].attr: a.shape, a.size, a.ndim */
  EX_INDEX,     /* kids[0][kids[1], ..., kids[n-1]] */
  EX_TUPLE,     /* kids */
  EX_SLICE,     /* lo:hi:step inside a subscript: kids are the parts given; ival bit 0 start,
                   bit 1 stop, bit 2 step (which parts are given) */
  EX_CAST,      /* typeinfer: kids[0] converted to ty (numbers, or tuples element-wise) */
  EX_TEMP,      /* codegen only: C text str of type ty (a temporary's name, or a parenthesized
                   expression); ival 1 when the value is known to be >= 0 */
} ExprKind;

/* Op, the operators, is in builtins/ops.h (the builtin table's operator rows name them). */

const char *op_python_spelling(Op op);

/* What the analysis phase records on an expression of a function codegen emits (Expr.facts),
 * so that codegen reads facts instead of asking questions while it prints. Codegen's own nodes
 * (temporaries) carry the facts they have from where codegen makes them. */
enum {
  EF_NONNEG = 1,     /* the value is >= 0 */
  EF_POSITIVE = 2,   /* the value is > 0 */
  EF_KNOWN = 4,      /* EF_NONNEG and EF_POSITIVE are recorded (on subscripts, operands of //
                        and %, and what their facts come from; absent: not computed) */
  EF_STABLE = 8,     /* part of a for loop's iterable that the loop cannot change: read in
                        place, not copied into a temporary before the loop */
  EF_AT_HAND = 16,   /* a tuple value being unpacked whose elements can be read one at a time
                        without evaluating anything twice (not copied into a temporary first) */
  EF_READS_TARGET = 32, /* a tuple literal being unpacked that reads a name its targets bind (or
                           whose targets store into arrays): its elements go to temporaries first */
  EF_STORES = 64,    /* a tuple of assignment targets with a subscript among them, at any depth */
};

typedef struct Keyword {
  const char *name;
  Loc loc;
  Expr *value;
} Keyword;

struct Expr {
  ExprKind kind;
  Loc loc;
  const Type *ty;          /* set by typeinfer */
  const Type *yield_ty;    /* typeinfer, on a for loop's iterable: the type of what it yields */
  Op op;
  uint8_t facts;           /* EF_*, set by the analysis phase */
  Expr **kids;
  int nkids;
  Op *cmps;                /* EX_COMPARE */
  Keyword *keywords;       /* EX_CALL */
  int nkeywords;
  int64_t ival;
  uint64_t uval;
  bool is_unsigned_literal;/* EX_INT beyond INT64_MAX */
  int unpack_at;           /* EX_CALL: the kid that is `*x`, a tuple whose elements are arguments
                              there (typeinfer replaces it by x[0], x[1], ...); 0: none */
  bool args_bound;         /* EX_CALL of a function with *args: its arguments are bound to the
                              parameters, the extra ones packed (typeinfer, bind_call_args) */
  double fval;
  double real;             /* EX_IMAG: the real part (0.0 for a literal; -0.0 in a folded -0j) */
  const char *str;         /* EX_STR bytes (may contain NUL), EX_ATTR name, EX_FLOAT spelling */
  size_t str_len;
  bool is_bytes;           /* EX_STR: a bytes literal (b"..."), its bytes in str */
  int var;                 /* EX_VAR */
  Const *konst;            /* EX_CONST */
  Function *func;          /* EX_FUNC; after typeinfer also EX_CALL: the specialization */
  const Builtin *builtin;  /* EX_BUILTIN; EX_CALL of a builtin after typeinfer */
};

typedef struct Block {
  Stmt **items;
  int len;
} Block;

typedef enum StmtKind {
  ST_EXPR,       /* value */
  ST_ASSIGN,     /* targets[0..n) = value (a = b = v has two targets) */
  ST_AUGASSIGN,  /* targets[0] op= value */
  ST_IF,         /* cond, body, orelse (elif is a nested if in orelse) */
  ST_WHILE,      /* cond, body */
  ST_FOR_RANGE,  /* for var in range(start, stop, step): body */
  ST_FOR_ITER,   /* for targets[0] in value (an array, a UniTuple, enumerate/zip/range calls):
                    body; var is the target's variable when it is a single name, else -1 */
  ST_BREAK,
  ST_CONTINUE,
  ST_PASS,
  ST_RETURN,     /* value or NULL */
  ST_RAISE,      /* raise EXC / raise EXC("msg") (cond NULL), or assert cond[, "msg"]: where cond
                    is NULL or false, the thread raises exc, Python's spelling of the exception
                    ("ValueError: msg"); see docs/semantics.md, "raise and assert" */
} StmtKind;

/* What the analysis phase (src/analysis/ranges.c) knows of an ST_FOR_RANGE loop. */
typedef struct RangeFacts {
  int8_t sign;             /* the step's sign: 1, -1, 0 (a constant 0), or 2: known only at run time */
  bool exact_advance;      /* k + step cannot overflow the counter: `k += step` is exact */
  bool direct;             /* the loop variable can be the C counter: the body does not rebind
                              it and nothing reads it after the loop */
  bool stop_stable;        /* the stop (step) expression cannot change while the loop runs, */
  bool step_stable;        /* so it is read in place, not copied into a temporary first */
  bool short_and_inner;    /* at most SHORT_LOOP_TRIPS iterations, a constant count, and no
                              loop in its body: the simulator's poll is left out (its enclosing
                              loop, if any, polls once per run of it) */
} RangeFacts;

struct Stmt {
  StmtKind kind;
  Loc loc;
  uint32_t end_line;       /* last source line of a simple statement */
  Expr **targets;
  int ntargets;
  Op op;
  Expr *value;
  Expr *cond;
  Expr *start, *stop, *step;
  int var;                 /* loop variable */
  const char *exc;         /* ST_RAISE: the exception, as Python prints it */
  Block body, orelse;
  RangeFacts range;        /* ST_FOR_RANGE, set by the analysis phase */
  bool parallel;           /* ST_FOR_RANGE over numba.prange (its row's BF_PARALLEL) */
  bool unroll;             /* ST_FOR_ITER over literal_unroll(value): value must be a tuple */
  /* ST_FOR_RANGE over prange in a host entry of a parallel=True function, whose iterations the
   * analysis found may run on several cores (parallel.c); NULL: it runs as range. */
  const struct ParallelLoop *par;
};

/* How a reduction variable's chunks combine (parallel.c): `v += x`, `v -= x` (a chunk gathers
 * the sum to subtract), `v = v + x` ... RED_ADD; `*`, `|`, `&`, `^` likewise; `v = min(v, x)`,
 * `max`: RED_MIN, RED_MAX. */
typedef enum ReductionKind { RED_ADD, RED_MUL, RED_OR, RED_AND, RED_XOR, RED_MIN, RED_MAX } ReductionKind;

/* How a prange loop runs over the cores (analysis/parallel.c; codegen's emit_parallel_for):
 * each worker runs a chunk of the iterations with its own copy of every variable the body binds
 * (private[v]); a reduction variable (bound in the body only by updates of one ReductionKind,
 * and not read there otherwise) starts each chunk at its operator's identity (min and max: at
 * its value before the loop), and the chunks' values are combined into it in chunk order after
 * the loop. */
typedef struct ParallelLoop {
  bool *private_vars;      /* per variable of the function */
  int *reductions;         /* the reduction variables */
  ReductionKind *reduction_kinds;  /* each one's */
  int nreductions;
} ParallelLoop;

typedef struct Var {
  const char *name;        /* the Python name (NFC/NFKC-normalized, see frontend) */
  Loc loc;                 /* first definition */
  bool is_param;
  const Type *ty;          /* set by typeinfer */
  Loc ty_loc;              /* where the type was first fixed */
  bool poisoned;           /* its value had an error already reported: stay quiet */
  int64_t align;           /* a shared or local array's alignment= in bytes (typeinfer); 0: none */
} Var;

/* The simulator's regions of a kernel with barriers (src/analysis/regions.c; docs/simulator.md,
 * "Regions"): the kernel cut at its barriers into runs of statements, each run once per thread of
 * a block in a loop over the threads, and the statements holding barriers between them (control),
 * run once per block. */
typedef struct SimRegion {
  const Block *block;      /* its statements: block->items[first, end) (empty for a first region
                              that only gives a new block's slots their zeros) */
  int first, end;
  bool repeated;           /* inside a loop that holds a barrier: runs more than once per block */
  bool *refs;              /* per variable: named in it */
  bool *writes;            /* per variable: bound in it (assignments, loop variables) */
  bool once;               /* binds only uniform variables, to uniform values, and nothing else:
                              run once per block, not once per thread */
  const Expr *below;       /* it is one `if threadIdx.x < U:` (U uniform): only the threads with
                              threadIdx.x < U run it; U, or NULL */
  bool at;                 /* `below` is from `if threadIdx.x == U:`: only threadIdx.x == U runs it */
  /* Warp operations (docs/simulator.md, "Regions"): a statement holding one starts a region, and
   * the region before it ends with each thread's deposit of the operation's value. */
  const Expr *deposit;     /* the warp operation's call that each thread evaluates at its end, in
                              deposit mode (its lane's value into buffer deposit_buf), or NULL */
  int deposit_buf;
  int fetch_buf;           /* it starts with a warp operation's statement, whose lanes' values
                              are in buffer fetch_buf; -1: it does not */
} SimRegion;

typedef struct RegionPlan {
  Function *fn;            /* the function the plan cuts: the kernel, or a copy of it with the
                              device functions that reach a barrier inlined (analysis/inline.c),
                              which the simulator's block function is printed from */
  const char *inlined;     /* the device functions inlined into fn ("a, b"), or NULL */
  SimRegion *regions;         /* in source order, as codegen meets them */
  int nregions;
  const Stmt **control;    /* the for, while and if statements that hold barriers */
  int ncontrol;
  bool *slot;              /* per variable: kept per thread across barriers (slots) */
  bool *shared_var;        /* per variable: one per block (parameters, shared and constant arrays,
                              counters of loops holding barriers), never a thread's own */
  bool *block_slot;        /* per variable: kept across barriers once per block (uniform: the same
                              in every thread) */
  bool *uniform;           /* per variable: the same in every thread wherever it is read */
  const Stmt **recompute;  /* per variable: its one binding (before the first barrier, from the
                              indices, the launch, parameters and constants), which a region that
                              names it runs again instead of keeping a slot; NULL */
  uint64_t slot_bytes;     /* of the slots, per thread */
  bool grid;               /* the kernel's grid syncs are boundaries too (a cooperative grid run
                              phase by phase, docs/simulator.md "Grid regions") */
  bool *control_grid;      /* per control statement: it holds a grid sync (run once per grid) */
  int nwarp;               /* warp operations' statements: buffers of the lanes' values */
} RegionPlan;

/* FN_UFUNC: an @vectorize(..., target='cuda') function; each specialization is a device
 * function of scalars, and codegen wraps it in an elementwise kernel (docs/generated-code.md). */
typedef enum FuncKind { FN_KERNEL, FN_DEVICE, FN_UFUNC } FuncKind;

/* A parameter of a device function given a compile-time value at a call (typeinfer's
 * static_args.c): a function, a dtype, or a literal the function needs as a constant. */
typedef struct StaticArg {
  int param;               /* its index among the template's parameters */
  const char *name;        /* the parameter's name */
  const Expr *value;       /* the value, as written at the call (EX_FUNC, EX_BUILTIN, a literal) */
  const char *text;        /* the value in C-name characters: "atomic_add", "uint32", "32" */
} StaticArg;

/* A signature written in the source or on the command line, parsed by typeinfer. */
typedef struct SigText {
  const char *text;
  size_t len;
  Loc loc;                 /* where it is written (for errors inside it: loc + offset) */
  bool on_command_line;
} SigText;

struct Function {
  const char *name;
  Loc loc;
  FuncKind kind;
  int nparams;             /* vars[0..nparams) are the parameters */
  /* A device function's `*args` parameter: its index + 1 (the last parameter, a tuple of the
   * extra positional arguments, packed by typeinfer's bind_call_args); 0: none. An instance
   * has none (its calls are bound). */
  int vararg;
  /* Default values of the parameters (a constant each: a literal, a module constant, a tuple of
   * those), NULL where a parameter has none, or NULL when none has one. Calls are bound to the
   * parameters with them (typeinfer: bind_call_args). An instance has none (its call is bound). */
  Expr **defaults;
  Var *vars;
  int nvars;
  Block body;
  SigText *sigs;
  int nsigs;
  /* Specializations (typeinfer): copies of this function typed for one argument-type tuple. */
  Function *generic;       /* for a specialization: the function it was made from */
  const Type **arg_types;
  const Type *ret_type;     /* while typed: what recursive calls return (declared, or so far) */
  const Type *declared_ret;  /* a device function's signature's return type, if it gives one */
  const char *cname;       /* codegen's name for this specialization */
  bool typed, typing;      /* typeinfer state: done / in progress (recursion) */
  bool failed;             /* typing it reported errors (possibly rolled back: see specialize) */
  bool uses_barrier;
  bool cooperative;        /* uses cuda.cg.this_grid(): launched cooperatively (grid sync) */
  bool debug;              /* @cuda.jit(debug=True): a failed raise or assert is reported */
  bool parallel;           /* @njit(parallel=True): its prange loops may run on several cores */
  bool boundscheck;        /* @cuda.jit(boundscheck=True): indices are checked (so is debug=True),
                            * and nothing else: raises are reported only with debug=True */
  bool fastmath;           /* @cuda.jit(fastmath=True or a flag set): NVRTC's --use_fast_math */
  bool lineinfo;           /* @cuda.jit(lineinfo=True): NVRTC's -lineinfo, #line to the .py */
  bool noopt;              /* @cuda.jit(opt=False): NVVM's -opt=0, as Numba's (-Xnvvm=-opt=0) */
  /* @cuda.jit(launch_bounds=N or (N, min_blocks_per_sm, max_blocks_per_cluster)): a kernel's
   * __launch_bounds__; nlaunch_bounds of them given (0: none). */
  int64_t launch_bounds[3];
  int nlaunch_bounds;
  bool forceinline;        /* @cuda.jit(forceinline=True): a device function's __forceinline__ */
  /* A device function the translation names among its kernels (P2cTranslateOptions.kernels):
   * its specializations made from signatures are exported, each an extern "C" __device__
   * function of the C ABI (compile_ptx(device=True); docs/generated-code.md). */
  bool exported;
  bool export_entry;       /* on such a specialization */
  /* An external device function (`f = cuda.declare_device('sym', 'sig', link=..., abi=...)`):
   * no body, one signature; calls reach the C symbol `extern_symbol` of the CUDA C the module
   * links (Module.links), through Numba's ABI (`int sym(T *ret, args...)`) or, with abi='c',
   * the C ABI (`T sym(args...)`). NULL for every other function. */
  const char *extern_symbol;
  bool extern_c_abi;
  /* @numba.jit/@njit (FN_DEVICE): the host may call it. Its specializations made from a
   * signature (the decorator's, --sig, or a host call's argument types) are host entries: codegen
   * wraps each in a one-thread kernel that stores its result (docs/generated-code.md). */
  bool host_jit;
  bool host_entry;         /* on such a specialization */
  /* A @stencil's kernel (frontend/stencil.c): the stencil function, rewritten into a device
   * function of the inputs and the element's indices, and the stencil's dimensions. A signature
   * of the inputs alone gets `out` from the body's return type (typeinfer). NULL elsewhere. */
  Function *stencil_body;
  int stencil_ndim;
  Function *stencil_loops; /* its loops, where a @jit function calls the stencil (or NULL): the
                              types of those calls specialize the kernel too (what `emit` sees) */
  VEC(Function *) specs;   /* on the generic function */
  /* Instances (typeinfer, static_args.c): copies of a device function whose parameters that
   * were given compile-time values (StaticArg) are replaced by those values in the body and
   * dropped from its parameters. An instance is a template like its device function: it has
   * specializations of its own, and instances of its own (a literal that a function substituted
   * into it now needs as a constant). */
  Function *instance_of;   /* on an instance: the template it was made from */
  const StaticArg *statics;  /* on an instance: the values, in parameter order */
  int nstatics;
  const char *static_suffix; /* on an instance: its values for C names ("atomic_add_uint32_32") */
  VEC(Function *) instances; /* on a template */
  int8_t *const_params;    /* typeinfer's memo: which parameters need a constant (1), or not (0) */
  /* Set by the analysis phase (src/analysis) on the specializations codegen emits: */
  bool *nonneg;            /* each variable is known to be >= 0 */
  bool *positive;          /* each variable is known to be > 0 */
  const Stmt *lockstep_loop;   /* the grid-stride loop the simulator may run in lockstep */
  const RegionPlan *regions;   /* a kernel with barriers the simulator runs as regions, or NULL */
  const char *regions_refused; /* why a kernel with barriers keeps its fibers (NULL: it does not) */
  bool sim_threads_yx;     /* the simulator's loops take threadIdx.y and blockIdx.y fastest
                              (thread_order.c) */
  bool *param_written;     /* each parameter (arrays) may be stored to (writes.c); NULL before */
  /* A kernel's array parameters that the simulator may give each worker a private copy of for
   * their atomics, per parameter a PrivateAtomic (private_atomics.c); NULL: none */
  const uint8_t *private_atomics;
  bool checks_bounds;      /* its array indices are checked (analysis.c, checked_functions) */
  bool reports_raises;     /* its raises and failed asserts are reported (checked_functions) */
  bool python_errors;      /* Numba's CPU error model: a division by zero raises (checked_functions) */
  /* Bytes of cuda.local.array on its deepest call path: its own, plus the most any device
   * function it calls needs (analysis.c, local_array_bytes); the simulator sizes fiber stacks
   * from a kernel's. */
  uint64_t local_bytes;
  bool local_bytes_known;  /* local_bytes is computed (a memo for the walk) */
  /* The first NumPy array creation (np.zeros, ...: BF_HEAP_ALLOC) in it or in a function it
   * calls, or NULL (analysis.c, heap_alloc_site): a host entry with one keeps the call's heap;
   * a kernel with one is refused. */
  const Expr *heap_alloc;
  bool heap_alloc_known;   /* heap_alloc is computed (a memo for the walk) */
};

/* A module-level NumPy array built from literals (np.array, np.arange, np.zeros, ...; see
 * lower_array.c). Kernels read it from constant memory, through cuda.const.array_like or by
 * naming the global, which Numba freezes the same way. Values are already converted to dtype. */
typedef struct RecordDtype RecordDtype;

typedef struct ConstArray {
  const Type *dtype;       /* a scalar type singleton; NULL for an array of records */
  const RecordDtype *record; /* an array of records: its dtype (1-d; the items in `bytes`) */
  unsigned char *bytes;    /* records: count * record->size bytes, NumPy's memory image */
  int ndim;
  int64_t shape[P2C_MAX_NDIM];
  int64_t count;           /* elements, C order */
  int64_t *ints;           /* bool and integer dtypes (uint64 as its bits) */
  double *floats;          /* float dtypes; float32 values are rounded to float32; the real
                              parts of a complex dtype */
  double *imags;           /* complex dtypes: the imaginary parts (complex64's rounded) */
} ConstArray;

/* A module-level record dtype, np.dtype([('a', np.int32), ('v', np.float32, (3,))], align=True):
 * its fields at NumPy's offsets (typeinfer makes its record type). */
typedef struct RecordDtypeField {
  const char *name;
  const Type *scalar;      /* a scalar type singleton; NULL for a character sequence: */
  int64_t chars;           /* its characters ('U12', 'S5': typeinfer makes its type) */
  bool unicode;            /* U<n> (4 bytes a character), else S<n> */
  int ndim;                /* 0, or a nested array's dimensions */
  int64_t shape[P2C_MAX_NDIM];
  int64_t offset;
} RecordDtypeField;

struct RecordDtype {
  RecordDtypeField *fields;
  int nfields;
  int64_t size;            /* NumPy's itemsize */
  bool aligned;            /* align=True: offsets and size padded as a C struct's */
};

/* A device array a kernel reads from a Python global (Numba's capture of an object with
 * __cuda_array_interface__): its memory by address, as Numba embeds the pointer, so a kernel sees
 * what is written there later; its shape and strides are frozen when the kernel is compiled. The
 * Python package writes `NAME = cuda._captured_array(ADDRESS, SHAPE, STRIDES, TYPESTR)` for it
 * (lower_captured.c). */
typedef struct CapturedArray {
  uint64_t address;        /* of element [0, ...] */
  const Type *dtype;       /* a number type singleton */
  int ndim;
  int64_t shape[P2C_MAX_NDIM];
  int64_t strides[P2C_MAX_NDIM];   /* in bytes */
  char layout;             /* 'C', 'F' or 'A', from the strides (p2c_array_layout) */
} CapturedArray;

struct Const {
  const char *name;
  Loc loc;
  Expr *value;             /* a literal or a tuple of literals; for an array, an EX_CONST
                              naming this constant (so that scalar-only code sees no literal) */
  const Type *scalar;      /* a NumPy scalar's type (np.float32(2.5) is float32), or NULL:
                              the value has its Python type (int64, float64, bool, a tuple) */
  ConstArray *array;       /* a module-level NumPy array, or NULL */
  CapturedArray *captured; /* a captured device array (value is then an EX_CONST naming this
                              constant, as for an array), or NULL */
  RecordDtype *record;     /* a module-level record dtype (value is then an EX_CONST naming
                              this constant, as for an array), or NULL */
  const Type *record_type; /* typeinfer: the record type of an array of records (array) */
  atomic_bool used;        /* referenced by a kernel (set by both lowering threads, see
                              lower.c's lower_bodies_on_two_threads) */
  bool indexed;            /* a tuple read with a runtime index: emitted as a table */
  bool array_tuple;        /* value is a tuple of constant arrays' EX_CONSTs (NAME = (np.array(...),
                              ...)): each use is a copy of that tuple (lower_expr.c) */
  const char *cname;       /* codegen */
  struct EnumClass *enum_of; /* a member of this Enum or IntEnum class (Color.red; value is
                              its .value), or NULL. An IntEnum's members are typed as ints. */
};

/* A module-level `class Color(Enum)` (enum.Enum; an IntEnum's members are plain ints, see
 * docs/semantics.md "Enums"): its members, each a Const holding the member's value. */
typedef struct EnumClass {
  const char *name;
  Loc loc;
  bool is_int;             /* IntEnum */
  Const **members;         /* in definition order; an alias (too = 2 after two = 2) is a member */
  int nmembers;
} EnumClass;

/* A file of CUDA C the module links into its kernels (`@cuda.jit(link=[...])`,
 * `cuda.declare_device(..., link=[...])`): the path as written (read relative to the current
 * directory, as Numba opens it), and where. The API reads the text after the frontend
 * (api/compiler.c, read_links); codegen compiles it together with the generated code. */
typedef struct LinkFile {
  const char *path;
  Loc loc;
  const char *text;        /* its contents (NUL-terminated), once read */
  size_t len;
} LinkFile;

/* A signature of a @jit host function without one, from a call in the file's host code
 * (lower_host_calls.c; only when p2c_compiler_set_host_call_signatures asks). */
typedef struct HostCallSig {
  Function *func;
  SigText sig;             /* "(float64[::1], int64)", at the call */
} HostCallSig;

typedef struct Module {
  VEC(Function *) funcs;   /* kernels and device functions, in source order */
  VEC(LinkFile) links;     /* the CUDA C linked (files, texts), each once, in the order first named */
  VEC(Const *) consts;
  Loc host_code;           /* the first module-level statement that is host code, which is never
                              run (a call, `if __name__ == ...`, a loop); line 0 when none */
  VEC(HostCallSig) host_call_sigs;
} Module;

/* r.b or r['b'] of a record (after typeinfer): a place in memory, read and written like an
 * array element; any other attribute is a property of its object (a.shape, z.real). */
static inline bool expr_is_field(const Expr *e) {
  return e->kind == EX_ATTR && e->kids[0]->ty && e->kids[0]->ty->kind == TY_RECORD;
}
/* a.shape, a.size, a.ndim of an array (after typeinfer): never negative, below 2^62. Not a
 * number's .real or a vector's .x, which are values like any other. */
static inline bool expr_is_array_attr(const Expr *e) {
  return e->kind == EX_ATTR && e->kids[0]->ty && e->kids[0]->ty->kind == TY_ARRAY;
}
/* A constant whose value is an EX_CONST naming itself, not a literal: an array (constant or
 * captured) or a record dtype. Scalar-only code looks through the others to their literals. */
static inline bool const_names_itself(const Const *k) { return k->array || k->captured || k->record; }
/* An assignment target that stores into memory: an element or a record's field. */
static inline bool expr_is_store(const Expr *e) { return e->kind == EX_INDEX || e->kind == EX_ATTR; }

/* Prints the AST into sb: with typed = false the functions as the frontend made them (the
 * --dump=ast form), else their typed specializations (--dump=types). */
void ast_dump(StrBuf *sb, const Module *m, bool typed);

/* What a phase leaves: names resolved (frontend), types and casts (typeinfer), facts for
 * codegen on the functions it emits (analysis). */
typedef enum AstStage { AST_RESOLVED, AST_TYPED, AST_ANALYSED } AstStage;
/* Checks the module's shape after `stage` (verify.c); false, with an E-internal diagnostic at
 * the first problem, when a phase broke it. */
bool ast_verify(Compilation *c, const Module *m, AstStage stage);
Expr *ast_new_expr(Arena *a, ExprKind kind, Loc loc);
/* Nodes the frontend makes itself (stencils, gufunc kernels): one with room for `nkids` kids
 * (to be filled), a variable by its index, an int literal. */
Expr *ast_new_node(Arena *a, ExprKind kind, Loc loc, int nkids);
Expr *ast_new_var(Arena *a, int var, Loc loc);
Expr *ast_new_int(Arena *a, int64_t v, Loc loc);
Stmt *ast_new_stmt(Arena *a, StmtKind kind, Loc loc);
/* A deep copy of a function body (for specialization); vars are copied too. */
Function *ast_clone_function(Arena *a, const Function *f);
/* A deep copy of a block's statements. */
Block ast_clone_block(Arena *a, Block b);
/* A deep copy of an expression. */
Expr *ast_clone_expr(Arena *a, const Expr *e);
/* Call `call` of an operator row (operator.add(a, b), pow(a, b): BK_OPERATOR) written as that
 * operator's expression (a + b), on the call's arguments and at its location; the caller has
 * checked that it has no keywords and the row's two arguments. */
Expr *ast_operator_call(Arena *a, const Expr *call);

#endif
