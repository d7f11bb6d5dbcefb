/* pyk2cuda: compile GPU kernels written in Numba's CUDA Python dialect to CUDA C, PTX and CUBIN.
 *
 * One public header. Conventions (as in lua.h, sqlite3.h and tree-sitter's api.h):
 *  - Objects are opaque handles made by p2c_<object>_new and released by p2c_<object>_delete;
 *    every _delete accepts NULL.
 *  - Functions that can fail return a P2cStatus, 0 (P2C_OK) on success. The handle keeps a
 *    message for the last failure (p2c_compiler_last_error).
 *  - The library never prints and never exits. Errors in the user's Python are returned as
 *    diagnostics (data), not as text on a terminal.
 *  - Every pointer a function returns says in its comment who owns it and how long it lives.
 *  - Memory comes from the host's allocator when one is given (P2cAllocator).
 *  - A P2cCompiler is used by one thread at a time; separate compilers share nothing.
 */
#ifndef PYK2CUDA_H
#define PYK2CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PYK2CUDA_BUILDING)
#define P2C_API __attribute__((visibility("default")))
#else
#define P2C_API
#endif

#define PYK2CUDA_VERSION_MAJOR 0
#define PYK2CUDA_VERSION_MINOR 1
#define PYK2CUDA_VERSION_PATCH 0
#define PYK2CUDA_VERSION_STRING "0.1.0"

/* The version of the library actually linked, as "MAJOR.MINOR.PATCH". Static storage. */
P2C_API const char *p2c_version(void);

/* ---- Status codes -------------------------------------------------------------------------- */

typedef enum P2cStatus {
  P2C_OK = 0,
  P2C_ERR_SOURCE,    /* the Python source has errors: see the diagnostics */
  P2C_ERR_USAGE,     /* a bad argument: unknown kernel, malformed signature, bad option */
  P2C_ERR_NOMEM,     /* the allocator failed */
  P2C_ERR_NO_CUDA,   /* libcuda or NVRTC could not be loaded, or no device was found */
  P2C_ERR_NVRTC,     /* NVRTC rejected the generated program: see the program log */
  P2C_ERR_CUDA,      /* a CUDA driver call failed */
  P2C_ERR_IO,        /* a file could not be read or written */
  P2C_ERR_FORMAT,    /* malformed input data (.npy) */
  P2C_ERR_SIM,       /* the CPU simulator failed (host compiler, bad launch, barrier misuse) */
  P2C_ERR_INTERNAL,  /* a bug in pyk2cuda: please report it */
  P2C_ERR_BOUNDS,    /* with bounds checking, a kernel indexed an array out of bounds */
  P2C_ERR_SANITIZE,  /* with --sanitize, the simulator found races or barrier misuse */
  P2C_ERR_INTERRUPTED, /* the host's interrupt check asked the call to stop (p2c_compiler_set_interrupt) */
  /* A kernel in the simulator touched memory it may not (a wild index without bounds checks):
   * the launch stopped, and the module refuses every later launch until it is made again, as a
   * CUDA context after CUDA_ERROR_ILLEGAL_ADDRESS */
  P2C_ERR_ILLEGAL_ADDRESS
} P2cStatus;

/* A short English description of a status. Static storage. */
P2C_API const char *p2c_status_string(P2cStatus status);

/* ---- Allocation ---------------------------------------------------------------------------- */

/* realloc-like: new_size 0 frees ptr and returns NULL; ptr NULL allocates. old_size is the size
 * the block was allocated with (0 when ptr is NULL). Returns NULL on failure.
 * A translation of a source of 128 KiB or more parses and lowers it on two threads (the one that
 * called p2c_translate and one it starts and joins); the allocator may then be called from
 * either, but never from both at once: pyk2cuda serializes the calls. */
typedef void *(*P2cReallocFn)(void *userdata, void *ptr, size_t old_size, size_t new_size);
typedef struct P2cAllocator {
  P2cReallocFn realloc;
  void *userdata;
} P2cAllocator;

/* ---- Diagnostics --------------------------------------------------------------------------- */

typedef enum P2cSeverity { P2C_SEVERITY_ERROR = 0, P2C_SEVERITY_WARNING, P2C_SEVERITY_NOTE } P2cSeverity;

/* One diagnostic. Lines and columns are 1-based; columns count characters, not bytes. The
 * strings are owned by the object that returned the diagnostic and live as long as it does. */
typedef struct P2cDiagnostic {
  P2cSeverity severity;
  const char *file;
  uint32_t line, column;
  const char *code;      /* stable identifier, e.g. "E-unsupported-stmt" */
  const char *message;
} P2cDiagnostic;

/* ---- Types of kernel parameters (the launch ABI) ------------------------------------------- */

/* The units of NumPy's datetime64 and timedelta64 (Numba's NPDatetime(unit), NPTimedelta(unit)),
 * coarsest first, then the generic unit (NumPy's "datetime64" without a unit). Business days
 * ('B') are not a NumPy unit any more. */
typedef enum P2cTimeUnit {
  P2C_UNIT_Y = 0, P2C_UNIT_M, P2C_UNIT_W, P2C_UNIT_D, P2C_UNIT_h, P2C_UNIT_m, P2C_UNIT_s,
  P2C_UNIT_ms, P2C_UNIT_us, P2C_UNIT_ns, P2C_UNIT_ps, P2C_UNIT_fs, P2C_UNIT_as,
  P2C_UNIT_GENERIC,
  P2C_TIME_UNIT_COUNT
} P2cTimeUnit;

typedef enum P2cScalarType {
  P2C_BOOL = 0,
  P2C_INT8, P2C_INT16, P2C_INT32, P2C_INT64,
  P2C_UINT8, P2C_UINT16, P2C_UINT32, P2C_UINT64,
  P2C_FLOAT32, P2C_FLOAT64,
  P2C_COMPLEX64, P2C_COMPLEX128,   /* NumPy's layout: the real part, then the imaginary part */
  P2C_FLOAT16,                     /* IEEE binary16 */
  /* NumPy's datetime64 and timedelta64: one scalar type per unit, P2C_DATETIME64 + u and
   * P2C_TIMEDELTA64 + u for the P2cTimeUnit u. A value is an int64 count of units since
   * 1970-01-01 (a datetime) or a count of units (a timedelta); INT64_MIN is NaT (NumPy's
   * "not a time"). P2cValue holds it in scalar.i; p2c_scalar_name gives Numba's names,
   * "datetime64[D]", "timedelta64[ns]", "datetime64[]" for the generic unit. */
  P2C_DATETIME64,
  P2C_TIMEDELTA64 = P2C_DATETIME64 + P2C_TIME_UNIT_COUNT,
  P2C_SCALAR_TYPE_COUNT = P2C_TIMEDELTA64 + P2C_TIME_UNIT_COUNT,
  /* Not a scalar: the dtype of an array of records (NumPy's structured dtypes), described by
   * the P2cRecord its `record` member points to. p2c_scalar_size and p2c_scalar_name know
   * nothing of it (0, NULL); p2c_dtype_size gives its itemsize. */
  P2C_RECORD = 64,
  /* Not a scalar: a tuple (Numba's UniTuple, Tuple, NamedTuple), whose elements a P2cParam or
   * P2cValue lists in its `elems`. p2c_scalar_size and p2c_scalar_name know nothing of it. */
  P2C_TUPLE = 65,
  /* Not a scalar: character sequences, NumPy's S<n> (Numba's CharSeq(n), "[char x n]": n bytes)
   * and <U<n> (UnicodeCharSeq(n), "[unichr x n]": n UCS-4 code points of 4 bytes each, in the
   * machine's byte order), as array elements and record fields. The dtype value carries its
   * length: P2C_CHARSEQ(n) and P2C_UNICHARSEQ(n), 1 <= n <= P2C_MAX_CHARS, are the base plus n
   * (p2c_dtype_charseq reads them back); p2c_dtype_size gives the itemsize, p2c_scalar_size and
   * p2c_scalar_name know nothing of them (0, NULL). */
  P2C_CHARSEQ_BASE = 1 << 24,
  P2C_UNICHARSEQ_BASE = 2 << 24
} P2cScalarType;

enum { P2C_MAX_CHARS = 1 << 20 };
#define P2C_CHARSEQ(n) ((P2cScalarType)(P2C_CHARSEQ_BASE + (n)))
#define P2C_UNICHARSEQ(n) ((P2cScalarType)(P2C_UNICHARSEQ_BASE + (n)))
/* Whether dtype t is a character sequence; if so *unicode and *chars (either may be NULL)
 * receive its kind and length. */
P2C_API bool p2c_dtype_charseq(P2cScalarType t, bool *unicode, int64_t *chars);
/* NumPy's spelling of a character sequence dtype, "S12", "U12" or "a12" (S's old spelling),
 * after an optional byte order ("|S12", "<U12"), exactly len bytes of text: its dtype into *out
 * (P2C_CHARSEQ(12), P2C_UNICHARSEQ(12)). False for any other text, or a length outside
 * 1..P2C_MAX_CHARS. The library's one reader of these spellings. */
P2C_API bool p2c_dtype_parse_charseq(const char *text, size_t len, P2cScalarType *out);

/* NumPy's typestr of a dtype, as the array interfaces, dtype.str and .npy headers write it:
 * "<f4", "|b1", "?", "|S12", "<U3", "<M8[D]", "<m8" (an optional byte order '<', '>', '|' or
 * '=', then the kind and size; datetimes with one unit), exactly len bytes of text: its dtype
 * into *out, and into *swapped (may be NULL) whether data in the order the text states needs a
 * byte swap on this host. False for any other text: object and void dtypes, sizes without a
 * type ("<f16", "<i3"), units with a multiple ("<M8[10D]"), '|' on elements of more than one
 * byte. The library's one reader of typestrs (the .npy reader and the Python extension use
 * it). */
P2C_API bool p2c_dtype_parse(const char *text, size_t len, P2cScalarType *out, bool *swapped);
/* The typestr of dtype t in the host's byte order ('|' where one byte is the unit: "|b1",
 * "|S12"), which p2c_dtype_parse reads back as t. Written to buf (NUL-terminated, truncated to
 * cap); returns the length it needs, as snprintf does; 0 for P2C_RECORD, P2C_TUPLE or an
 * invalid value. */
P2C_API size_t p2c_dtype_str(P2cScalarType t, char *buf, size_t cap);
/* Size in bytes of a scalar type; 0 for an invalid value. */
P2C_API size_t p2c_scalar_size(P2cScalarType t);
/* Numba's name for a scalar type ("float32"). Static storage; NULL for an invalid value. */
P2C_API const char *p2c_scalar_name(P2cScalarType t);
/* Entry i (0, 1, ...) of the names of scalar types that signatures accept: *name ("float_"),
 * *canonical, the type's own name ("float32"), and *numba, whether numba.core.types has the name
 * (the others are NumPy's spellings). False past the last entry. Static storage. The one table
 * of spellings: the Python package builds its type objects from it. */
P2C_API bool p2c_type_spelling(size_t i, const char **name, const char **canonical, bool *numba);
/* The IEEE binary16 bits of the float16 nearest to v (ties to even; beyond the largest, an
 * infinity), as NumPy's float16 stores it; and the value of such bits (exact). */
P2C_API uint16_t p2c_float16_bits(double v);
P2C_API double p2c_float16_value(uint16_t bits);

enum { P2C_MAX_NDIM = 8 };

/* One field of a record dtype, as NumPy's dtype.fields gives it. */
typedef struct P2cRecordField {
  const char *name;              /* an ASCII identifier ("a", "s0") */
  P2cScalarType type;            /* the field's scalar type (or character sequence), or a nested
                                    array field's element type */
  int64_t offset;                /* bytes from the start of the record */
  int ndim;                      /* 0 for a scalar; a nested array field's (('h', np.float32, (3, 2)))
                                    dimensions, 1 to P2C_MAX_NDIM */
  int64_t shape[P2C_MAX_NDIM];
} P2cRecordField;

/* A record (structured) dtype, np.dtype([('a', np.int32), ('b', np.float64)], align=True):
 * Numba's Record type. In generated code each record type is a struct laid out exactly as
 * NumPy lays it out; a layout CUDA cannot hold (a field at an offset that is not a multiple of
 * its alignment, Numba's "is not aligned"; an itemsize that is not a multiple of the widest
 * field's alignment) is refused where the kernel is specialized. The strings and the array
 * belong to the caller, who keeps them alive while a call uses them. */
typedef struct P2cRecord {
  int64_t itemsize;
  bool aligned;                  /* made with align=True (only Numba's name of the type says it) */
  size_t field_count;
  const P2cRecordField *fields;  /* in NumPy's order (dtype.names) */
} P2cRecord;

/* Bytes of one element of dtype `t`: p2c_scalar_size for scalars, the itemsize of `record` for
 * P2C_RECORD (record NULL: 0), n or 4 * n for P2C_CHARSEQ(n) or P2C_UNICHARSEQ(n). */
P2C_API size_t p2c_dtype_size(P2cScalarType t, const P2cRecord *record);
/* Numba's name of a record type, "Record(a[type=int32;offset=0],b[type=float64;offset=8];16;True)",
 * also the spelling signatures accept (--sig, p2c_translate's signatures). Written to `buf`
 * (NUL-terminated, truncated to `cap`); returns the length it needs, as snprintf does. */
P2C_API size_t p2c_record_name(const P2cRecord *record, char *buf, size_t cap);
/* Whether two records have the same fields (names, types, nested shapes) at the same offsets and
 * the same itemsize, the test a launch applies to a record argument (the align flag is only a
 * name). NULL equals nothing. */
P2C_API bool p2c_record_equal(const P2cRecord *a, const P2cRecord *b);
/* The largest source p2c_translate accepts (16 MiB); longer ones are an E-too-large error. */
enum { P2C_MAX_SOURCE_BYTES = 16 << 20 };

/* How one kernel parameter is passed. A scalar is passed by value as its C type. An array is
 * passed as the struct P2cArrayArg (in generated code: p2c_array<T, ndim>): a data pointer, then
 * ndim extents, then ndim strides in bytes, all 64-bit. A record is passed by reference (its
 * address). A tuple (type P2C_TUPLE) is passed by value as a struct of `size` bytes holding
 * element i (elems[i], passed as a parameter of its type would be) at byte elems[i].offset. */
typedef struct P2cParam P2cParam;
struct P2cParam {
  const char *name;          /* the Python parameter name */
  bool is_array;
  P2cScalarType type;        /* the scalar type, or the array's element type */
  int ndim;                  /* arrays only */
  char layout;               /* arrays only: 'C', 'F' or 'A' */
  /* Arrays only: the kernel may store to the array's elements (directly, through a view, an
   * atomic, or a device function it passes the array to). False: it only reads them, so a
   * read-only host array may be passed and nothing needs copying back. Conservative: a use the
   * analysis does not follow (the array bound to another name, put in a tuple) counts as a
   * store (docs/python.md, "Read-only arrays"). */
  bool written;
  const P2cRecord *record;   /* type P2C_RECORD: the record (owned by the module) */
  /* The bytes and alignment of the value in the kernel's parameter space (a tuple element: in
   * its tuple's struct), and where it starts in its tuple's struct (0 for a parameter). */
  size_t size, align, offset;
  /* Tuples only: the elements (owned by the module). An element's `name` is its field name in
   * a namedtuple, NULL in a plain tuple; `tuple_class` is a namedtuple's class name, else NULL.
   * An array element's `written` is true: the analysis does not follow arrays into tuples. */
  const P2cParam *elems;
  size_t elem_count;
  const char *tuple_class;
  /* A member of an Enum class (Numba's Enum<T>(Cls), IntEnum<int64>(Cls)): its class, an ASCII
   * identifier; NULL for other parameters. The rest describes its value, as which it is passed. */
  const char *enum_class;
  bool enum_is_int;
};

struct P2cValue;
/* Writes the kernel-parameter form of scalar value `v` (not an array, record or tuple) to `out`,
 * which must hold p2c_scalar_size(v->type) bytes: its C type's bytes (a float16 as its binary16
 * bits, a complex number as its two parts). Returns the bytes written, 0 for a value that is
 * not a scalar. For p2c_gpu_kernel_launch, next to p2c_device_array_pack. */
P2C_API size_t p2c_scalar_pack(const struct P2cValue *v, void *out);
/* The inverse: *out receives the scalar of type t whose parameter form is at `in` (a @jit
 * function's result, p2c_module_call). Returns the bytes read, 0 for a type that is not a
 * scalar's. */
P2C_API size_t p2c_scalar_unpack(P2cScalarType t, const void *in, struct P2cValue *out);

/* The value of an array argument, as the kernel receives it. */
typedef struct P2cArrayArg {
  void *data;
  int64_t shape[P2C_MAX_NDIM];
  int64_t strides[P2C_MAX_NDIM];
} P2cArrayArg;

/* An array in host memory, described as NumPy describes it (strides in bytes). */
typedef struct P2cHostArray {
  P2cScalarType dtype;
  int ndim;
  int64_t shape[P2C_MAX_NDIM];
  int64_t strides[P2C_MAX_NDIM];
  void *data;
  const P2cRecord *record;       /* dtype P2C_RECORD: its fields (the caller's, see P2cRecord;
                                    from p2c_npy_load: the array's, freed by p2c_host_array_free) */
} P2cHostArray;

/* Bytes an array parameter of `ndim` dimensions occupies in the kernel's parameter space:
 * 8 + 16 * ndim. The struct above is larger; pack the first 8 + 8*ndim bytes then the strides. */
P2C_API size_t p2c_array_arg_size(int ndim);

/* ---- Compiling ----------------------------------------------------------------------------- */

typedef struct P2cCompiler P2cCompiler;   /* options and the last error; no compiled state */
typedef struct P2cModule P2cModule;       /* the result of translating one .py source */

/* What a translation checks, an option of each translation (p2c_translate, p2c_specialize_with,
 * and the translations p2c_launch and p2c_ufunc_launch make), so that two translations on one
 * compiler, or on two threads, each get their own:
 *  - bounds: every array access is checked (`--check-bounds`), on the GPU as on the simulator.
 *    An index out of bounds (after Python's wraparound of negative indices) ends its thread;
 *    the launch then fails with P2C_ERR_BOUNDS and the last error reads "FILE:LINE:COL: error:
 *    index ... is out of bounds ...", naming the first failing access, its indices, the array's
 *    shape and the thread (p2c_compiler_last_failure has it as data). Checks cost time
 *    (docs/simulator.md).
 *  - sanitize: made for the simulator's checker (`--sanitize`), which implies bounds. Such
 *    modules run on the simulator only (a launch on the GPU, or p2c_module_compile, is
 *    P2C_ERR_USAGE); a launch runs on one worker and checks every array access for races on
 *    shared and global memory and for reads of shared and local memory before any write, and
 *    every barrier and warp operation for threads that never reach it. When it finds anything
 *    the launch still runs to its end, then fails with P2C_ERR_SANITIZE, and the last error
 *    holds one line per distinct finding ("FILE:LINE:COL: error: shared-memory race on 'sm'
 *    ...") and a summary line counting each kind (docs/simulator.md, "Sanitizer").
 *  - exact: false (all zero, the default), these checks and the compiler's defaults: the
 *    environment's ($PYK2CUDA_SANITIZE set and not "0" when the compiler was made) and the
 *    deprecated p2c_compiler_set_check_bounds/_set_sanitize. True: exactly these checks. */
typedef struct P2cChecks {
  bool bounds;
  bool sanitize;
  bool exact;
} P2cChecks;

typedef struct P2cTranslateOptions {
  const char *const *kernels;   /* translate only these kernels (NULL: all); a device function
                                   named here is exported (P2cKernelInfo.exported) */
  size_t kernel_count;
  const char *const *signatures;/* extra signatures, "name(float32[:], int64)" */
  size_t signature_count;
  bool line_directives;         /* emit #line directives pointing at the .py file */
  bool skip_unsigned_kernels;   /* kernels without any signature are left out silently
                                   (default: each is an error, since it cannot be typed) */
  P2cChecks checks;             /* what the translation checks (above); zero: the defaults */
} P2cTranslateOptions;

/* Makes a compiler. `allocator` may be NULL (malloc); it is copied, and must outlive the
 * compiler and every module made with it. Returns NULL when out of memory. */
P2C_API P2cCompiler *p2c_compiler_new(const P2cAllocator *allocator);
P2C_API void p2c_compiler_delete(P2cCompiler *compiler);
/* The message of the last failure on this compiler, or "" when none. Owned by the compiler,
 * valid until its next call. */
P2C_API const char *p2c_compiler_last_error(const P2cCompiler *compiler);
/* Deprecated: pass P2cChecks with each translation instead (P2cTranslateOptions.checks,
 * P2cLaunchOptions.checks, p2c_specialize_with). Kept working: they set the compiler's default
 * checks, which every later translation by this compiler whose P2cChecks is not `exact` adds
 * to its own: bounds checking (`--check-bounds`), and the simulator's checker (`--sanitize`,
 * which implies bounds checking; its default is on when $PYK2CUDA_SANITIZE is set, and not
 * "0", when the compiler is made). */
P2C_API void p2c_compiler_set_check_bounds(P2cCompiler *compiler, bool on);
P2C_API void p2c_compiler_set_sanitize(P2cCompiler *compiler, bool on);
/* The compiler's default for the simulator's checker: what $PYK2CUDA_SANITIZE said when it was
 * made, or the deprecated p2c_compiler_set_sanitize last. */
P2C_API bool p2c_compiler_get_sanitize(const P2cCompiler *compiler);
/* The compile cache (on by default): p2c_module_compile reads and writes images in the cache
 * folder ($PYK2CUDA_CACHE_DIR, else $XDG_CACHE_HOME/pyk2cuda or ~/.cache/pyk2cuda), keyed by
 * everything that changes NVRTC's output (docs/runtime.md, "The compile cache"). `on` false:
 * every later compile by this compiler runs NVRTC and leaves the cache alone (`--no-cache`). */
P2C_API void p2c_compiler_set_cache(P2cCompiler *compiler, bool on);
/* Off by default. `on`: in every later translation by this compiler, a @jit host function
 * without a signature (none in its decorator, none given) is typed by the calls of it in the
 * file's host code whose arguments' types can be told from the text (literals, constants, NumPy's
 * array creation, names bound to those), each one a note at its call: `pyk2cuda emit` (README.md,
 * "Command line"). The Python package types such a function by its actual calls instead. */
P2C_API void p2c_compiler_set_host_call_signatures(P2cCompiler *compiler, bool on);
/* The compile cache's folder as the environment names it now (the rule above), written with its
 * NUL into out[0..cap). False when no folder can be named (no $HOME) or it does not fit; the
 * folder may not exist yet. The Python package puts cache=True's files there when the source's
 * __pycache__ cannot be written (docs/python.md, "cache=True"). */
P2C_API bool p2c_cache_folder(char *out, size_t cap);
/* Interrupting a long call. The library installs no signal handlers and blocks no signals, so
 * a host that wants Ctrl-C or a time limit to end a call gives it a check: `check(userdata)` is
 * called on the thread that made the call, about every 30 ms while the simulator's host C++
 * compiler runs (a launch's first, on a cache miss) and at most every 20 ms between the runs of
 * blocks of a simulator launch. When it returns true, the call stops and returns
 * P2C_ERR_INTERRUPTED: the compiler's whole process group is ended and its work folder removed
 * (nothing enters the cache), or the launch takes no more blocks (blocks already running
 * finish; arrays keep what the kernel wrote so far). A host's signal handler sets a flag that
 * the check reads (a `volatile sig_atomic_t` or an atomic); a Python binding calls
 * PyErr_CheckSignals there. Not interrupted: NVRTC, launches on the GPU, and a simulated
 * thread that never ends, which runs as native code until the process ends it
 * (docs/simulator.md, "Hostile launches"). `check` NULL removes it. */
typedef bool (*P2cInterruptFn)(void *userdata);
P2C_API void p2c_compiler_set_interrupt(P2cCompiler *compiler, P2cInterruptFn check, void *userdata);

/* Translates the Python source in `source` (`length` bytes; need not be NUL-terminated) to CUDA
 * C. `filename` is used in diagnostics and #line directives. `options` may be NULL.
 * On P2C_OK and on P2C_ERR_SOURCE, *out receives a module (owned by the caller, released with
 * p2c_module_delete) holding the diagnostics; with P2C_OK it also holds the CUDA C text.
 * On other statuses *out is NULL. */
P2C_API P2cStatus p2c_translate(P2cCompiler *compiler, const char *filename, const char *source,
                                size_t length, const P2cTranslateOptions *options, P2cModule **out);

P2C_API void p2c_module_delete(P2cModule *module);

P2C_API size_t p2c_module_diagnostic_count(const P2cModule *module);
/* The i-th diagnostic, in source order. Strings owned by the module. */
P2C_API P2cDiagnostic p2c_module_diagnostic(const P2cModule *module, size_t i);

/* The generated CUDA C (NUL-terminated), or NULL after errors. Owned by the module. */
P2C_API const char *p2c_module_cuda(const P2cModule *module, size_t *length);
/* A printable form of the module after a phase: "ast" (the frontend's AST, names resolved),
 * "types" (the typed specializations), "analysis" (the facts codegen prints from), "cuda" (as
 * p2c_module_cuda). Available for every phase that completed, also when a later one reported
 * errors. Owned by the module. NULL for an unknown stage or a phase that did not complete. */
P2C_API const char *p2c_module_dump(P2cModule *module, const char *stage);

/* Kernels in the module: one per (kernel, signature) specialization. */
typedef struct P2cKernelInfo {
  const char *python_name;  /* "smooth" */
  const char *symbol;       /* the extern "C" name in the CUDA C, e.g. "smooth" or "smooth_1" */
  const char *signature;    /* Numba-style, "void(float32[:, ::1], int64)" */
  size_t param_count;
  const P2cParam *params;
  bool uses_barrier;        /* calls syncthreads (the simulator needs fibers) */
  uint32_t static_shared_bytes;
  /* A @vectorize ufunc's kernel (one per signature): its parameters are the inputs, then "out",
   * all broadcast views (ndim 8). Call it with p2c_ufunc_launch, which makes the views. */
  bool is_ufunc;
  /* Uses cuda.cg.this_grid() (a grid sync): launched cooperatively, as Numba launches it, with
   * every block resident at once (P2cGpuLaunch.cooperative; the launch functions of this API
   * do it themselves). Its grid may have at most p2c_gpu_kernel_max_cooperative_blocks blocks
   * on a GPU, p2c_sim_max_cooperative_blocks on the simulator. */
  bool cooperative;
  /* Its kernel's decorator gives signatures: a launch chooses among them with Numba's
   * conversions (P2C_MATCH_CONVERT); else it was specialized from a launch's arguments. */
  bool declared;
  /* Its launches read the bounds record afterwards: it checks indices (the translation's bounds
   * checking, or its decorator's debug=True or boundscheck=True, as the frontend reads them) or
   * reports raises (debug=True). A launch that skips the record (p2c_gpu_kernel_launch alone)
   * would miss what the kernel reported. */
  bool checks_bounds;
  /* A @numba.jit/@njit function called from the host (not a kernel): call it with
   * p2c_module_call, which runs it once on the CPU. `signature` gives its result type; `result`
   * describes the result's bytes as a parameter of its type is laid out (a scalar, or a tuple:
   * its elements at their offsets), NULL when it returns nothing. */
  bool host;
  const P2cParam *result;
  /* A result holding arrays (`result` is one, or a tuple with some, at any depth): their
   * elements were created by the call (np.zeros, ...) or are an argument's. After the result,
   * at byte result_owners of the result's bytes, one address per array, in the order of a
   * depth-first walk of `result`: the heap block holding its elements, which the call hands to
   * the caller (free it once with p2c_host_block_free, also when two arrays name it), or NULL
   * where they are an argument's memory. result_size: the bytes p2c_module_call needs
   * (result->size when no array is in the result). */
  size_t result_arrays, result_owners, result_size;
  /* An exported device function, not a kernel: a device function named among the translation's
   * kernels (P2cTranslateOptions.kernels), compiled as an extern "C" __device__ function of the
   * C ABI (`.visible .func` in the PTX; numba.cuda.compile_ptx(device=True)). `signature` gives
   * its result. It cannot be launched; its module compiles as relocatable device code. */
  bool exported;
  /* The most threads a block of its launches may have by its launch bounds (the decorator's
   * launch_bounds=, CUDA's __launch_bounds__ first figure), 0 when it has none. A launch over it
   * fails with P2C_ERR_CUDA on both devices, as the driver refuses it (CUDA_ERROR_INVALID_VALUE). */
  uint32_t launch_bound_threads;
} P2cKernelInfo;

P2C_API size_t p2c_module_kernel_count(const P2cModule *module);
/* Strings and arrays owned by the module. */
P2C_API P2cKernelInfo p2c_module_kernel(const P2cModule *module, size_t i);

/* Output of NVRTC: PTX text, a CUBIN, or LTO-IR (NVRTC's -dlto: the NVVM IR nvJitLink links
 * with link-time optimization; numba-cuda's compile(output='ltoir')). */
typedef enum P2cTarget { P2C_TARGET_PTX = 0, P2C_TARGET_CUBIN, P2C_TARGET_LTOIR } P2cTarget;

/* Compiles the module's CUDA C with NVRTC for `arch` ("sm_90"; NULL: sm_90) into PTX, CUBIN or
 * LTO-IR,
 * or takes the image from the compile cache (p2c_compiler_set_cache). PTX for sm_XY is the PTX
 * of the virtual compute_XY, without the ptxas run a real architecture would add. All kernels of
 * the module are one NVRTC program. On success the image is kept in the module
 * (p2c_module_image). NVRTC's log, on success or failure, is p2c_module_nvrtc_log ("" for an
 * image from the cache).
 * Returns P2C_ERR_NO_CUDA when NVRTC cannot be loaded, P2C_ERR_NVRTC when it rejects the
 * program; the compiler's last error then says which Python line the failure came from when
 * it is known. */
P2C_API P2cStatus p2c_module_compile(P2cCompiler *compiler, P2cModule *module, const char *arch,
                                     P2cTarget target);
/* The PTX (NUL-terminated) or CUBIN image, or NULL before a successful compile. Owned by the
 * module. */
P2C_API const void *p2c_module_image(const P2cModule *module, size_t *size);
/* Whether the module's image came from the compile cache (NVRTC did not run). */
P2C_API bool p2c_module_image_from_cache(const P2cModule *module);
/* NVRTC's program log of the last compile, or "". Owned by the module. */
P2C_API const char *p2c_module_nvrtc_log(const P2cModule *module);


/* ---- Ahead-of-time bundles (pyk2cuda build, docs/aot.md) ---------------------------------------- */

/* What p2c_module_bundle makes. */
typedef struct P2cBundleOptions {
  const char *name;               /* the files' and the C API's prefix: a C identifier (NAME.h, NAME_...) */
  const char *const *archs;       /* "sm_80", "sm_90", ...: one CUBIN each; none: sm_90 */
  size_t arch_count;
  bool with_sim;                  /* add the simulator's build of the kernels (NAME_sim.cc) */
} P2cBundleOptions;

typedef struct P2cBundle P2cBundle;  /* the texts of a bundle's files */

/* Makes the files of a bundle of the module's kernels: NAME.h (one typed launcher per kernel
 * specialization) and NAME.c (a small runtime, the module's CUBIN for each architecture and its
 * PTX, compiled as one NVRTC program per architecture), which a C or C++ program compiles with
 * no pyk2cuda, Python or NVRTC at run time. The module must have translated without errors and
 * without bounds checks; @vectorize ufuncs, and kernels taking tuples or records, are refused
 * (P2C_ERR_USAGE, the last error says which). NVRTC's failures as p2c_module_compile's.
 * On success *out receives the bundle, owned by the caller (p2c_bundle_delete). */
P2C_API P2cStatus p2c_module_bundle(P2cCompiler *compiler, P2cModule *module, const P2cBundleOptions *options,
                                    P2cBundle **out);
P2C_API size_t p2c_bundle_file_count(const P2cBundle *bundle);
/* File i's text (NUL-terminated, *length bytes) and the suffix its name takes after NAME (".h",
 * ".c", "_sim.cc"); NULL past the last. Owned by the bundle. */
P2C_API const char *p2c_bundle_file(const P2cBundle *bundle, size_t i, const char **suffix, size_t *length);
/* Accepts NULL. */
P2C_API void p2c_bundle_delete(P2cBundle *bundle);

/* ---- The explore view ------------------------------------------------------------------------ */

/* What the explore view is made for: the architecture its PTX, resources and occupancy are for,
 * and the launch its occupancy is computed at. */
typedef struct P2cExploreOptions {
  const char *arch;               /* "sm_90" (NULL: sm_90); occupancy needs a row of docs/explore.md's table */
  int block_threads;              /* threads per block (0: 256) */
  uint32_t dynamic_shared_bytes;  /* the launch's dynamic shared memory */
  /* The simulator's checker's findings to mark at their lines (p2c_compiler_finding's, of a
   * launch of this module's source); read during the call only. NULL: none. */
  const struct P2cFinding *findings;
  size_t finding_count;
} P2cExploreOptions;

/* The explore view of a translated module (docs/explore.md): one self-contained HTML page (no
 * network, no external scripts or fonts) with, per kernel specialization, the Python with each
 * name's inferred type, the CUDA C, the PTX, the lines linked both ways, the diagnostics at their
 * lines, the registers, spills, local, shared and constant memory ptxas reports, and the
 * theoretical occupancy with what limits it. NVRTC compiles the module once for it (a CUBIN
 * with line info and ptxas's verbose report, and that program's PTX), outside the compile cache;
 * no GPU is needed.
 * A module with errors (p2c_translate's P2C_ERR_SOURCE) gets a page of its Python and
 * diagnostics; one NVRTC cannot compile gets its page without PTX and the reason in it, and so
 * does one translated for the simulator's checker. `options` may be NULL.
 * On P2C_OK, and on P2C_ERR_NVRTC (NVRTC rejected the CUDA C: the page says why, and so does the
 * compiler's last error), *html receives the page (NUL-terminated, *length bytes; length may be
 * NULL), owned by the module and valid until it is deleted. P2C_ERR_USAGE for a bad architecture
 * or block size, P2C_ERR_NOMEM: *html is NULL. */
P2C_API P2cStatus p2c_module_explore(P2cCompiler *compiler, P2cModule *module,
                                     const P2cExploreOptions *options, const char **html,
                                     size_t *length);

/* Where the library finds NVIDIA's nvdisasm, the program that gives the explore view its SASS
 * (docs/explore.md, "SASS"): $PYK2CUDA_NVDISASM when set, else the places where NVRTC is looked
 * for, as programs (NVIDIA's wheels in $PYK2CUDA_SITE_PACKAGES, $CONDA_PREFIX/bin, $PATH,
 * $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin), reading the environment at each call.
 * True with its path in `path` (NUL-terminated, at most size bytes); false with the message the
 * page gives in `path` ("nvdisasm not found (tried ...)"). For fronts that run nvdisasm
 * themselves (the Python package's inspect_sass), so that they find the one the page uses. */
P2C_API bool p2c_find_nvdisasm(char *path, size_t size);

/* ---- The GPU runtime ------------------------------------------------------------------------ */

/* The CUDA driver (libcuda.so.1, or $PYK2CUDA_LIBCUDA) is loaded with dlopen at the first call
 * that needs it; NVRTC likewise when something must be compiled.
 *
 * A P2cDevice is one GPU: its primary context, its limits, and the message of the last failure
 * of any call made on it or on the objects made from it (buffers, streams, events, modules):
 * p2c_device_last_error. Statuses: P2C_ERR_NO_CUDA (no driver, no device), P2C_ERR_CUDA (a
 * driver call failed: the message names the call, the kernel or module concerned, and the CUDA
 * error name), P2C_ERR_USAGE (a bad argument: a launch configuration beyond the device's limits,
 * a copy outside a buffer), P2C_ERR_NVRTC, P2C_ERR_NOMEM.
 *
 * Ownership: each object is owned by whoever made it and released by its _delete (NULL is
 * accepted); every object made from a device must be deleted before the device. A device and
 * its objects are used by one thread at a time (any thread: each call makes the device's
 * context current). Device addresses are plain uint64_t, as CUdeviceptr. */
typedef struct P2cDevice P2cDevice;
typedef struct P2cBuffer P2cBuffer;       /* device memory */
typedef struct P2cStream P2cStream;       /* a CUDA stream; NULL means the default stream */
typedef struct P2cEvent P2cEvent;         /* a CUDA event that records time */
typedef struct P2cGpuModule P2cGpuModule; /* code loaded on a device */
typedef struct P2cGpuKernel P2cGpuKernel; /* a kernel of a loaded module, owned by the module */

/* The number of CUDA devices. P2C_ERR_NO_CUDA (message in the compiler's last error) when there
 * is no driver or no device; *count is then 0. */
P2C_API P2cStatus p2c_device_count(P2cCompiler *compiler, int *count);
/* Opens device `ordinal` (0 is the first). The device copies the compiler's allocator and does
 * not need the compiler afterwards. On failure *out is NULL and the compiler's last error says
 * why (P2C_ERR_NO_CUDA, P2C_ERR_USAGE for an ordinal that does not exist, P2C_ERR_CUDA). */
P2C_API P2cStatus p2c_device_open(P2cCompiler *compiler, int ordinal, P2cDevice **out);
/* Unloads the modules the device loaded for p2c_launch and releases its context. */
P2C_API void p2c_device_delete(P2cDevice *device);
/* The message of the last failure on this device or its objects, "" when none. Owned by the
 * device, valid until its next failing call. */
P2C_API const char *p2c_device_last_error(const P2cDevice *device);
/* Waits for all work on the device (cuCtxSynchronize). Faults inside kernels surface here. */
P2C_API P2cStatus p2c_device_synchronize(P2cDevice *device);

typedef struct P2cDeviceInfo {
  int ordinal;
  char name[256];
  char arch[16];                /* what NVRTC compiles for: "sm_90" */
  int compute_major, compute_minor;
  uint64_t total_memory;        /* bytes */
  int multiprocessors;
  int warp_size;
  int max_threads_per_block;
  int max_block[3], max_grid[3];
  int max_shared_per_block;     /* bytes, without opting in */
  int max_shared_optin;         /* bytes a kernel may be allowed (launches ask for it) */
} P2cDeviceInfo;

/* What the device is and allows (read once, when it was opened). */
P2C_API P2cDeviceInfo p2c_device_info(const P2cDevice *device);

/* -- device memory */

/* Allocates `bytes` (> 0) of device memory, usable on any stream when it returns (from the
 * driver's stream-ordered allocator where the device has one, CUDA 11.2 and later; else, as
 * on a device without memory pools, cuMemAlloc). */
P2C_API P2cStatus p2c_buffer_new(P2cDevice *device, size_t bytes, P2cBuffer **out);
/* Frees the buffer (NULL accepted) without waiting: the memory is released after the work
 * queued so far on the default stream and every stream of p2c_stream_new (cuMemFreeAsync on
 * the legacy default stream), so no stream is held up. Work queued later must not use it; so
 * must not work of streams another library made non-blocking. Memory from cuMemAlloc (a
 * driver or device without the stream-ordered allocator) is freed with cuMemFree, which may
 * wait for the device. */
P2C_API void p2c_buffer_delete(P2cBuffer *buffer);
P2C_API uint64_t p2c_buffer_address(const P2cBuffer *buffer);
P2C_API size_t p2c_buffer_size(const P2cBuffer *buffer);
/* Copies between host memory and a buffer, or between buffers, at byte offsets. With a NULL
 * stream the copy is complete on return; with a stream it is queued on it (truly asynchronous
 * only from pinned host memory, p2c_pinned_new) and the host memory must stay valid until the
 * stream is synchronized. A range outside a buffer is P2C_ERR_USAGE. */
P2C_API P2cStatus p2c_buffer_write(P2cBuffer *dst, size_t offset, const void *src, size_t bytes,
                                   P2cStream *stream);
P2C_API P2cStatus p2c_buffer_read(const P2cBuffer *src, size_t offset, void *dst, size_t bytes,
                                  P2cStream *stream);
P2C_API P2cStatus p2c_buffer_copy(P2cBuffer *dst, size_t dst_offset, const P2cBuffer *src,
                                  size_t src_offset, size_t bytes, P2cStream *stream);
/* Sets every byte of the buffer to zero. */
P2C_API P2cStatus p2c_buffer_zero(P2cBuffer *buffer, P2cStream *stream);

/* -- pinned (page-locked) host memory, for asynchronous copies */

/* *out receives `bytes` (> 0) of page-locked host memory, usable with every device. */
P2C_API P2cStatus p2c_pinned_new(P2cDevice *device, size_t bytes, void **out);
/* Frees memory from p2c_pinned_new (NULL accepted). */
P2C_API void p2c_pinned_delete(P2cDevice *device, void *ptr);
/* Page-locks `bytes` (> 0) of host memory the caller already has, at `ptr`, until
 * p2c_pinned_unregister (Numba's cuda.pinned): copies from and to it can then be asynchronous.
 * `read_only`: the memory is only read (copied to the device), so it is registered with
 * CU_MEMHOSTREGISTER_READ_ONLY, which memory mapped read-only (a file opened for reading)
 * needs; copies into it are then the caller's error.
 * Memory that is already page-locked (from p2c_pinned_new or an earlier registration) is left
 * as it is and is not an error: *registered (may be NULL) says whether this call registered
 * it, that is, whether p2c_pinned_unregister must be called. The memory must outlive the
 * registration. */
P2C_API P2cStatus p2c_pinned_register(P2cDevice *device, void *ptr, size_t bytes, bool read_only,
                                      bool *registered);
/* Ends a registration made by p2c_pinned_register; `ptr` is the address it was given. */
P2C_API P2cStatus p2c_pinned_unregister(P2cDevice *device, void *ptr);

/* -- streams and events */

P2C_API P2cStatus p2c_stream_new(P2cDevice *device, P2cStream **out);
/* Destroys the stream; work already queued on it still completes. */
P2C_API void p2c_stream_delete(P2cStream *stream);
P2C_API P2cStatus p2c_stream_synchronize(P2cStream *stream);

P2C_API P2cStatus p2c_event_new(P2cDevice *device, P2cEvent **out);
P2C_API void p2c_event_delete(P2cEvent *event);
/* Records the event on `stream` (NULL: the default stream). */
P2C_API P2cStatus p2c_event_record(P2cEvent *event, P2cStream *stream);
P2C_API P2cStatus p2c_event_synchronize(P2cEvent *event);
/* Work queued on `stream` (NULL: the default stream) after this call starts only once `event`
 * is reached; the host does not wait (cuStreamWaitEvent; a driver without it gets the host's
 * wait for the event). An event never recorded is reached. */
P2C_API P2cStatus p2c_stream_wait_event(P2cStream *stream, P2cEvent *event);
/* Milliseconds between two recorded events (waits for `end`). */
P2C_API P2cStatus p2c_event_elapsed_ms(const P2cEvent *start, const P2cEvent *end, float *ms);

/* -- modules and kernels */

/* Loads PTX (text; need not end with a NUL) or a CUBIN/fatbin image. A rejected image is
 * P2C_ERR_CUDA with the JIT compiler's error log in the last error. */
P2C_API P2cStatus p2c_gpu_module_load(P2cDevice *device, const void *image, size_t size,
                                      P2cGpuModule **out);

typedef struct P2cSourceOptions {
  const char *name;                 /* the program's name in messages; NULL: "source.cu" */
  const char *const *nvrtc_options; /* extra NVRTC options, after pyk2cuda's defaults */
  size_t nvrtc_option_count;
  const char *arch;                 /* NULL: the device's own (sm_XY) */
  bool no_cache;                    /* bypass the compile cache */
} P2cSourceOptions;

/* Compiles hand-written CUDA C with NVRTC (the same options and cache as generated code: a
 * second compile of the same text reads the CUBIN from the cache) and loads it, as PyCUDA's
 * SourceModule does. Kernels must be extern "C" to be found by name. `options` may be NULL.
 * When NVRTC rejects the source (P2C_ERR_NVRTC) no module is made and the device's last error
 * holds NVRTC's whole log. */
P2C_API P2cStatus p2c_gpu_module_from_source(P2cDevice *device, const char *cuda_source,
                                             const P2cSourceOptions *options,
                                             P2cGpuModule **out);
/* Compiles a translated Python module's CUDA C (p2c_translate, p2c_specialize) the same way and
 * loads it; its kernels are named by P2cKernelInfo.symbol. */
P2C_API P2cStatus p2c_gpu_module_from_python(P2cDevice *device, const P2cModule *module,
                                             bool no_cache, P2cGpuModule **out);
P2C_API void p2c_gpu_module_delete(P2cGpuModule *module);
/* Whether the module's image came from the compile cache (NVRTC did not run). */
P2C_API bool p2c_gpu_module_cache_hit(const P2cGpuModule *module);
/* NVRTC's log (warnings) and the JIT's information log, "" when none. Owned by the module. */
P2C_API const char *p2c_gpu_module_log(const P2cGpuModule *module);
/* The kernel named `symbol`; owned by the module (valid until it is deleted). A missing name
 * is P2C_ERR_USAGE. */
P2C_API P2cStatus p2c_gpu_module_kernel(P2cGpuModule *module, const char *symbol,
                                        P2cGpuKernel **out);
/* The device address and size of a __device__ variable of the module. A missing name is
 * P2C_ERR_USAGE. */
P2C_API P2cStatus p2c_gpu_module_global(P2cGpuModule *module, const char *name, uint64_t *address,
                                        size_t *bytes);

typedef struct P2cGpuLaunch {
  uint32_t grid[3];         /* 0 is taken as 1 */
  uint32_t block[3];        /* 0 is taken as 1 */
  uint32_t shared_bytes;    /* dynamic shared memory per block */
  P2cStream *stream;        /* NULL: the default stream */
  /* cuLaunchCooperativeKernel instead of cuLaunchKernel: all blocks resident at once, which a
   * kernel with P2cKernelInfo.cooperative (a grid sync) needs. A grid beyond
   * p2c_gpu_kernel_max_cooperative_blocks is P2C_ERR_USAGE. */
  bool cooperative;
} P2cGpuLaunch;

/* Launches a kernel asynchronously. args[i] points at the value of parameter i, as
 * cuLaunchKernel's kernelParams (a device pointer is a uint64_t; a Python kernel's array is a
 * P2cArrayArg's first p2c_array_arg_size(ndim) bytes, see docs/generated-code.md). The
 * configuration is checked first against the device's and the kernel's limits (threads per
 * block, block and grid extents, shared memory): P2C_ERR_USAGE with the reason. Faults inside
 * the kernel surface at the next synchronizing call. */
P2C_API P2cStatus p2c_gpu_kernel_launch(P2cGpuKernel *kernel, const P2cGpuLaunch *config,
                                        void **args);
/* How many blocks of `block_threads` threads using `shared_bytes` of dynamic shared memory a
 * cooperative launch of the kernel may have on its device: the blocks one multiprocessor holds
 * at once (cuOccupancyMaxActiveBlocksPerMultiprocessor) times the multiprocessors, as Numba's
 * max_cooperative_grid_blocks computes it. */
P2C_API P2cStatus p2c_gpu_kernel_max_cooperative_blocks(P2cGpuKernel *kernel, uint32_t block_threads,
                                                        uint32_t shared_bytes, uint32_t *blocks);
/* The same for the simulator, which runs a cooperative launch's blocks all at once on threads
 * of their own: at most 64 blocks and 16,384 threads in all (docs/simulator.md). */
P2C_API uint32_t p2c_sim_max_cooperative_blocks(uint32_t block_threads);
/* The most threads a block of a launch of the kernel may have on its device
 * (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the device's limit, lowered by the kernel's
 * registers or launch bounds), as Numba's get_max_threads_per_block gives it. */
P2C_API P2cStatus p2c_gpu_kernel_max_threads(P2cGpuKernel *kernel, uint32_t *threads);
/* The same for the simulator, whose blocks take up to CUDA's 1024 threads whatever the kernel. */
P2C_API uint32_t p2c_sim_max_block_threads(void);

/* -- arrays in device memory (Numba's device arrays) */

typedef struct P2cDeviceArray {
  P2cScalarType dtype;
  int ndim;
  int64_t shape[P2C_MAX_NDIM];
  int64_t strides[P2C_MAX_NDIM]; /* in bytes */
  uint64_t data;                 /* device address of element [0, ..., 0] */
  P2cBuffer *buffer;             /* the memory it owns, or NULL for a view the caller made */
  const P2cRecord *record;       /* dtype P2C_RECORD: its fields (not owned) */
} P2cDeviceArray;

/* Interop with other libraries' device memory and streams (CuPy, PyTorch; the
 * __cuda_array_interface__ v3 protocol).
 *
 * The CUDA device whose memory `address` is, in *ordinal (cuPointerGetAttribute); -1 when the
 * driver cannot tell (memory it did not allocate, or a driver without the query). */
P2C_API P2cStatus p2c_device_pointer_ordinal(P2cDevice *device, uint64_t address, int *ordinal);
/* Waits, on the host, until the work queued so far on another library's stream of this device
 * is done: `handle` is the driver's CUstream as an integer, as __cuda_array_interface__ gives it
 * (1: the legacy default stream, 2: the calling thread's per-thread default stream; 0 is not a
 * stream). */
P2C_API P2cStatus p2c_device_wait_stream(P2cDevice *device, uint64_t handle);
/* Orders the work queued later on `consumer` (NULL: the legacy default stream) after the work
 * queued so far on another library's stream `handle` (as for p2c_device_wait_stream), on the
 * device: an event recorded on `handle` that `consumer` waits for (cuStreamWaitEvent); the host
 * does not wait. Nothing is needed, and nothing is done, for 1, the legacy default stream (every
 * stream of p2c_stream_new is ordered after it), nor for 2 before the legacy default stream
 * (which waits for every blocking stream, per-thread ones included); 2 before a stream is the
 * calling thread's per-thread default stream, the only one it can name. A driver without
 * cuStreamWaitEvent gets the host's wait. */
P2C_API P2cStatus p2c_stream_wait_producer(P2cDevice *device, uint64_t handle, P2cStream *consumer);
/* The driver's handle of `stream` as an integer, as __cuda_array_interface__ v3 gives a stream:
 * NULL (the default stream, which pyk2cuda's is) gives 1, the legacy default stream. */
P2C_API uint64_t p2c_stream_handle(const P2cStream *stream);

/* A zero-filled C-ordered array in new device memory; release it with p2c_device_array_free.
 * The zeros are written on a stream of the device's own, and waited for: never on the legacy
 * default stream, which would wait for (and hold up) every other stream's work first. */
P2C_API P2cStatus p2c_device_array_new(P2cDevice *device, P2cScalarType dtype, int ndim,
                                       const int64_t *shape, P2cDeviceArray *out);
/* A zero-filled array with the shape and strides of a host array (Numba's device_array_like),
 * zeroed as p2c_device_array_new zeroes. */
P2C_API P2cStatus p2c_device_array_like(P2cDevice *device, const P2cHostArray *host,
                                        P2cDeviceArray *out);
/* The same, with the zeros written on `stream` (asynchronously, after the work queued there
 * before; NULL: as above): work queued on that stream after sees them, other streams must be
 * ordered after it as for any work of that stream. */
P2C_API P2cStatus p2c_device_array_new_on(P2cDevice *device, P2cScalarType dtype, int ndim,
                                          const int64_t *shape, P2cStream *stream,
                                          P2cDeviceArray *out);
P2C_API P2cStatus p2c_device_array_like_on(P2cDevice *device, const P2cHostArray *host,
                                           P2cStream *stream, P2cDeviceArray *out);
/* Copies between a host and a device array of the same dtype, shape and strides (the memory
 * they span, in one copy). Stream as p2c_buffer_write. */
P2C_API P2cStatus p2c_device_array_upload(P2cDevice *device, P2cDeviceArray *dst,
                                          const P2cHostArray *src, P2cStream *stream);
P2C_API P2cStatus p2c_device_array_download(P2cDevice *device, const P2cDeviceArray *src,
                                            P2cHostArray *dst, P2cStream *stream);
/* Frees the array's buffer when it owns one; accepts an empty array. */
P2C_API void p2c_device_array_free(P2cDeviceArray *array);
/* Writes the kernel-parameter form of a device array (p2c_array<T, ndim>: the data address,
 * the extents, the strides in bytes) to `out`, which must hold p2c_array_arg_size(ndim) bytes,
 * for p2c_gpu_kernel_launch. Returns the bytes written. */
P2C_API size_t p2c_device_array_pack(const P2cDeviceArray *array, void *out);


/* ---- A kernel's failure, as data --------------------------------------------------------------- */

/* What a launch that returned P2C_ERR_BOUNDS recorded (runtime/bounds.h): an index out of bounds,
 * or, in a function compiled with debug=True, a raise or a failed assert. The message on the
 * handle says the same in words; fronts that make their own exception of it (the Python package:
 * Numba's exception class and message) read this instead of parsing the words.
 * After a simulator launch that returned P2C_ERR_ILLEGAL_ADDRESS (a kernel's wild access, or a
 * launch refused after one): file, kernel and the Python line of the faulting access (0 where
 * the simulator cannot tell: code of the prelude or the C library, a fiber's stack overflow);
 * raised false, the other fields zero (the message names the thread or the blocks). */
typedef struct P2cLaunchFailure {
  bool raised;               /* a raise or failed assert; false: an index out of bounds */
  char exception[128];       /* raised: the exception as Python prints it, "ValueError: msg" */
  char file[512];            /* the Python source's name, as given to the translation */
  char kernel[128];          /* the kernel's Python name */
  uint32_t line, column;     /* where in the Python source (1-based, column in characters) */
  uint32_t thread[3], block[3];   /* the failing thread's threadIdx and blockIdx */
} P2cLaunchFailure;
/* The failure of the last call on this compiler that returned P2C_ERR_BOUNDS, or the simulator's
 * P2C_ERR_ILLEGAL_ADDRESS: true with *out filled, false when the last error was another (or
 * there was none). */
P2C_API bool p2c_compiler_last_failure(const P2cCompiler *compiler, P2cLaunchFailure *out);

/* ---- The simulator's checker's findings, as data ----------------------------------------------- */

/* One finding of the simulator's checker (`--sanitize`, docs/simulator.md "Sanitizer"): a race,
 * a read of memory no thread wrote, a divergent barrier or a warp operation whose lanes did not
 * all arrive. The words are those `run --sanitize` prints after "FILE:LINE:COL: error: "; the
 * rest is the same finding as data, for fronts that show it their own way (the explore view, the
 * Python package's exception). The static texts (kind, access, space) live forever. */
typedef struct P2cFinding {
  const char *kind;          /* "shared-race", "global-race", "uninitialized-read",
                                "divergent-barrier" or "warp-missing-lanes" */
  char message[600];         /* the words, without the position and the kernel */
  char file[512];            /* the Python source's name, as given to the translation */
  char kernel[128];          /* the kernel's Python name */
  uint32_t line, column;     /* the access (a race: the one that found it), the read, or the call */
  uint32_t thread[3], block[3];   /* the thread that made it: threadIdx and blockIdx */
  /* A race: the earlier access it conflicts with, and its thread; zero otherwise. */
  uint32_t other_line, other_column;
  uint32_t other_thread[3], other_block[3];
  const char *access, *other_access;   /* "read", "write", "read-modify-write", "atomic"; NULL
                                          where not an access (other_access: not a race) */
  const char *space;         /* "shared", "global" or "local"; NULL where not an access */
  char array[64];            /* the array's name, "" where not an access */
  int ndim;                  /* the element: index[0..ndim) (0 where not an access) */
  int64_t index[8];
} P2cFinding;

/* What the checker found in the last launch: `count` findings to read with
 * p2c_compiler_finding (the first 64 distinct ones), `total` distinct findings in all. */
typedef struct P2cFindings {
  size_t count;
  uint64_t total;
  bool out_of_memory;        /* its shadow memory could not grow: some accesses went unchecked */
} P2cFindings;
/* After a call on this compiler that returned P2C_ERR_SANITIZE (a launch of a module translated
 * with checks.sanitize): true with *out filled; false when the last error was another (or there
 * was none). The compiler's last error holds the same findings as text, one line each, and the
 * summary line. */
P2C_API bool p2c_compiler_last_findings(const P2cCompiler *compiler, P2cFindings *out);
/* Finding i (< P2cFindings.count) of that launch into *out: true; false when there is none. */
P2C_API bool p2c_compiler_finding(const P2cCompiler *compiler, size_t i, P2cFinding *out);

/* ---- Choosing a specialization: Numba's dispatcher, for every front ---------------------------- */

/* 'C' when an array of `itemsize`-byte elements with these extents and strides (in bytes) is
 * contiguous in C order, else 'F' when it is in Fortran order, else 'A'. Extents of 1 may have
 * any stride, and an array without elements is 'C' whatever its strides, as NumPy's flags (which
 * Numba's typeof reads) say. The one rule that every front asks. */
P2C_API char p2c_array_layout(int64_t itemsize, int ndim, const int64_t *shape, const int64_t *strides);
/* "[:, ::1]": the dimensions of an ndim-dimensional array of layout 'C', 'F' or 'A' as
 * signatures write them ('::1' on the last dimension of a C array, on the first of an F array; a
 * 1-d contiguous array is written as C; "[()]" for a 0-d array, pyk2cuda's spelling, since Numba
 * has none), the text the library prints and parses. Written to buf (NUL-terminated, truncated
 * to cap); returns the length it needs, as snprintf does, or 0 for an ndim outside
 * 0..P2C_MAX_NDIM or another layout. */
P2C_API size_t p2c_array_dims(int ndim, char layout, char *buf, size_t cap);
/* Numba's layout of the array type made by indexing a type with ndim slices (float32[:, ::1],
 * types.Type.__getitem__), given whether the first and the last slice are '::1': 'F' when the
 * first of two or more is, else 'C' when the last is, else 'A'. */
P2C_API char p2c_slices_layout(int ndim, bool first_contiguous, bool last_contiguous);

/* A generalized ufunc's layout, "(m,n),(n,p)->(m,p)", as @guvectorize(..., target='cuda') reads
 * it (Numba's grammar: groups of dimension names, spaces ignored, a trailing comma allowed in a
 * group; one or more outputs, every output dimension named by an input). Per argument (the
 * inputs, then the outputs): its number of core dimensions and where each name is in the text
 * parsed. */
enum { P2C_MAX_GUFUNC_ARGS = 64 };
typedef struct P2cGufuncLayout {
  int nargs, ninputs;
  int ndims[P2C_MAX_GUFUNC_ARGS];
  uint32_t name_at[P2C_MAX_GUFUNC_ARGS][P2C_MAX_NDIM];   /* byte offsets into the text */
  uint32_t name_len[P2C_MAX_GUFUNC_ARGS][P2C_MAX_NDIM];
  char error[128];         /* when it does not parse: why ("expected '->' after the inputs") */
  size_t error_at;         /* and where, a byte offset into the text */
} P2cGufuncLayout;
/* Parses a gufunc layout of `len` bytes into *out; false (out->error, out->error_at) when it is
 * not one. The translator's own reading of @guvectorize's layout: every front asks it. */
P2C_API bool p2c_gufunc_layout(const char *text, size_t len, P2cGufuncLayout *out);

typedef enum P2cMatchPolicy {
  /* A kernel specialized from its arguments: a specialization takes values of exactly its
   * types (an array: its dtype, ndim and layout). */
  P2C_MATCH_EXACT,
  /* A kernel whose decorator gives signatures (P2cKernelInfo.declared), as Numba's dispatcher:
   * a number fits any number parameter (converted by p2c_value_convert, which may still refuse
   * it), an IntEnum member an integer parameter, an array of any layout an 'A' parameter; among
   * the specializations that fit, the one whose conversions are best (fewest unsafe, then safe,
   * then promotions, Numba's ratings). Two or more rated best are ambiguous, as Numba's CUDA
   * dispatcher finds them: -1, with `why` in Numba's words ("Ambiguous overloading for kernel
   * 'K' (float64[::1], float64, float64):" and each of them, "(float64[::1], float32, float64)
   * -> none", on a line of its own). */
  P2C_MATCH_CONVERT,
  /* A @vectorize ufunc's signatures (each specialization takes the inputs and then its output),
   * as Numba's CUDA ufunc dispatcher chooses: an array input must be of exactly the
   * signature's type (NumPy's casting='no'; any shape and layout, the call broadcasts); with
   * scalar inputs, the signatures that also take each scalar's own type (a Python int is
   * int64, a float float64) are tried first, then those that take the arrays and any scalars.
   * Exactly one must remain: two or more is ambiguous, and -1 with `why` saying so. */
  P2C_MATCH_UFUNC
} P2cMatchPolicy;

struct P2cValue;
/* The index in `specs` of the specialization that takes the `count` values under `policy`, or
 * -1 when none does or (P2C_MATCH_CONVERT, P2C_MATCH_UFUNC) the choice is ambiguous; then `why`
 * (when not NULL) receives the one message every front gives: "No matching definition of kernel
 * 'K' for argument type(s) (float64[::1], float64): void(float32[::1], float32): argument 'a' is
 * float64[::1], where it takes float32[::1]", or the policy's ambiguity message
 * (NUL-terminated, truncated to why_cap). */
P2C_API int p2c_match_specialization(const P2cKernelInfo *const *specs, size_t nspecs,
                                     const struct P2cValue *values, size_t count,
                                     P2cMatchPolicy policy, char *why, size_t why_cap);
/* Converts scalar *v to type t as a launch passes it to a parameter of that type: integers wrap
 * to its width and bools are 0 or 1 (as Numba's ctypes conversion), numbers become floats and
 * complex numbers by value (a complex64's parts rounded to float32, a float16 to the nearest
 * float16). Refused, false with a message naming parameter `param` in why: a float for an
 * integer type (Numba refuses it too; a C cast would be undefined for nan, inf and values out of
 * range), a complex for a real type, a datetime or timedelta for any other type, a value for an
 * array, record or tuple type. */
P2C_API bool p2c_value_convert(struct P2cValue *v, P2cScalarType t, const char *param, char *why,
                               size_t why_cap);
/* The type that takes value v exactly, as a signature spells it ("float32[:, ::1]",
 * "Tuple(int64, float64)", "IntEnum<int64>(Shape)"): written to buf (NUL-terminated, truncated
 * to cap); returns the length it needs, as snprintf does. */
P2C_API size_t p2c_value_type_name(const struct P2cValue *v, char *buf, size_t cap);

/* ---- Running kernels ----------------------------------------------------------------------- */

typedef enum P2cDeviceKind {
  P2C_DEVICE_AUTO = 0,   /* the GPU when a driver and a device are there, else the simulator */
  P2C_DEVICE_GPU,
  P2C_DEVICE_SIM         /* the CPU simulator: the same CUDA C, compiled by the host C++ compiler */
} P2cDeviceKind;

/* One kernel argument. Scalars: `i` for signed integers, `u` for unsigned, `f` for floats
 * (a float16's value too, passed as the nearest float16: p2c_float16_bits), `b` for bool, `c`
 * for complex numbers (a complex64's parts rounded to float). A
 * record (type P2C_RECORD, is_array false) is passed by reference, as Numba passes it: `array`
 * describes its memory (ndim 0, data, record), which the kernel may write (copied to the GPU
 * and back like an array). A tuple (type P2C_TUPLE) lists its elements in `elems`. A kernel's
 * types follow its arguments, as Numba types them: a Python int is int64, a float float64; an
 * array's layout (C, F or A) is found from its strides; a tuple is the tuple of its elements'
 * types (a namedtuple's names included). */
typedef struct P2cValue {
  bool is_array;
  P2cScalarType type;       /* the scalar's type, or the array's dtype (array.dtype) */
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double f;
    double c[2];            /* complex64 and complex128: the real part, then the imaginary part */
  } scalar;
  P2cHostArray array;
  /* Arrays already on the GPU: when not NULL the argument is this device array (its dtype
   * must equal `type`) and `array` is ignored. Only launches on the GPU take them. */
  const P2cDeviceArray *device_array;
  /* A tuple (type P2C_TUPLE, is_array false), typed as Numba types it: the elem_count elements,
   * each a value of its own (scalars, arrays, device arrays, tuples; not records). A namedtuple
   * gives its class name and one field name per element (a kernel specialized for it reads
   * the fields by name); a plain tuple leaves both NULL. The caller owns them. */
  const struct P2cValue *elems;
  size_t elem_count;
  const char *tuple_class;
  const char *const *field_names;
  /* A member of an Enum class, typed as Numba types it: enum_class (an ASCII identifier of at
   * most 63 characters that names the class; NULL for other values) and the type of its value,
   * which the fields above describe (a number or a tuple of numbers): Enum<T>(Cls), or, with
   * enum_is_int (an IntEnum, whose value is an int64), IntEnum<int64>(Cls). It is passed as its
   * value. Members of one class must have values of one type; two classes need two names. */
  const char *enum_class;
  bool enum_is_int;
} P2cValue;

typedef struct P2cLaunchOptions {
  P2cDeviceKind device;
  uint32_t grid[3];         /* 0 is taken as 1 */
  uint32_t block[3];
  uint32_t shared_bytes;    /* dynamic shared memory per block */
  int repeat;               /* launches (kernel times are reported as min and median); <= 1: once */
  bool no_cache;            /* bypass the compile cache */
  const char *arch;         /* GPU architecture, "sm_90"; NULL: the device's own */
  /* GPU and AUTO: the device to run on, which keeps the loaded module for the next launch of
   * the same specialization. NULL: device 0, opened for this launch only. */
  P2cDevice *gpu;
  /* GPU: the stream (of `gpu`) that host arrays are copied in and out on and the kernel runs
   * on; the launch waits for it before it returns. NULL: the legacy default stream. */
  P2cStream *stream;
  /* GPU: called on the launching thread with true before the launch blocks waiting for the
   * device (its copies, its kernel) and with false when that wait is over, so that the host can
   * let its other threads run meanwhile (the Python package releases the GIL). No call of this
   * library on the compiler or device of the launch may be made in between. NULL: none. */
  void (*wait)(void *userdata, bool waiting);
  void *wait_userdata;
  /* p2c_launch and p2c_ufunc_launch: what the translation they make checks (P2cChecks; zero:
   * the compiler's defaults). A module already translated keeps its own checks. */
  P2cChecks checks;
} P2cLaunchOptions;

typedef struct P2cLaunchReport {
  P2cDeviceKind device;     /* where it ran */
  bool cache_hit;           /* the compiled kernel came from the cache */
  double compile_ms;        /* translation and compilation (or cache look-up) */
  double h2d_ms, d2h_ms;    /* copies (0 on the simulator, which works on host memory) */
  double kernel_ms_min, kernel_ms_median;
  char message[256];        /* a remark for the user (e.g. why AUTO chose the simulator) */
  double load_ms;           /* GPU: loading the compiled module on the device (cuModuleLoad),
                               and looking up the kernel; 0 when it was already loaded */
  /* The simulator: how it ran the kernel, a static string: "loops" (no barriers: a loop over the
   * threads of each block), "regions" (barriers: each run of statements between them a loop over
   * the block's threads), "fibers" (barriers the regions do not cover: a fiber per thread); NULL
   * on a GPU. docs/simulator.md. */
  const char *sim_path;
} P2cLaunchReport;

/* Translates `kernel` of the Python `source` for the types of `args` (values are not read):
 * *out receives a module, as p2c_translate does, whose kernel 0 is the specialization for
 * `args`. A kernel without signatures is specialized for the arguments' types; one whose
 * decorator gives signatures gets no new specialization (as in Numba): kernel 0 is the one
 * whose signature takes the arguments exactly. P2C_ERR_USAGE (the last error names the
 * parameter, its declared type and the argument's) when none does, or when `nargs` is not the
 * kernel's parameter count. */
P2C_API P2cStatus p2c_specialize(P2cCompiler *compiler, const char *filename, const char *source,
                                 size_t length, const char *kernel, const P2cValue *args,
                                 size_t nargs, P2cModule **out);
/* p2c_specialize with translation options: their `checks` and `line_directives` (kernels,
 * signatures and skip_unsigned_kernels are the call's own and ignored); `options` may be NULL. */
P2C_API P2cStatus p2c_specialize_with(P2cCompiler *compiler, const char *filename, const char *source,
                                      size_t length, const char *kernel, const P2cValue *args,
                                      size_t nargs, const P2cTranslateOptions *options, P2cModule **out);
/* Launches kernel `kernel_index` of a module with `args` (see p2c_launch). */
P2C_API P2cStatus p2c_module_launch(P2cCompiler *compiler, P2cModule *module, size_t kernel_index,
                                    const P2cValue *args, size_t nargs,
                                    const P2cLaunchOptions *options, P2cLaunchReport *report);
/* Calls the @jit function `index` of a module (P2cKernelInfo.host) with `args`, as Numba's CPU
 * dispatcher calls it, once, on the CPU: its code is the simulator's host build of the module
 * (compiled by the host compiler and cached as any module), whatever `options->device` says
 * (only `no_cache` is read; options may be NULL). Arguments are taken and converted as for
 * p2c_module_launch (host arrays, updated in place; a declared signature's conversions). What
 * it returns is written to `result` (result_size bytes, at least P2cKernelInfo.result->size;
 * NULL when it returns nothing), laid out as P2cKernelInfo.result describes: read a scalar with
 * p2c_scalar_unpack, a tuple's elements at their offsets, an array as a P2cArrayArg; with arrays
 * in it, result_size is at least P2cKernelInfo.result_size and the caller owns the blocks named
 * after the result (P2cKernelInfo.result_owners). Errors as p2c_module_launch, and
 * P2C_ERR_USAGE for an index that is not a host function or a result buffer too small. */
P2C_API P2cStatus p2c_module_call(P2cCompiler *compiler, P2cModule *module, size_t index,
                                  const P2cValue *args, size_t nargs, const P2cLaunchOptions *options,
                                  void *result, size_t result_size);
/* The tiers of @jit functions called from the host (docs/simulator.md, "Host functions: two
 * tiers"): at a module's first host call, unless its optimized build (the host compiler's -O2,
 * cached) is in the cache, its C form is compiled in memory by libtcc and runs at once, while
 * the optimized build is made on a thread of its own; the first call that finds it ready swaps
 * it in before it runs. $PYK2CUDA_LIBTCC=0 turns the first tier off. */
typedef enum P2cHostTier {
  P2C_HOST_TIER_NONE,        /* no host call yet */
  P2C_HOST_TIER_FIRST,       /* libtcc's code of the C form */
  P2C_HOST_TIER_OPTIMIZED    /* the host compiler's -O2 build */
} P2cHostTier;
/* The tier that ran the module's last host call; *why_not_first (may be NULL) receives why the
 * calls do not run on the first tier ("" when they do; owned by the module, valid until the next
 * call or its deletion). */
P2C_API P2cHostTier p2c_module_host_tier(const P2cModule *module, const char **why_not_first);
/* Waits for the module's optimized build, when one is being made, and swaps it in: the next
 * call runs the optimized code. P2C_OK (also when there is nothing to wait for); P2C_ERR_USAGE
 * for a NULL module. Must not race a call of the module. */
P2C_API P2cStatus p2c_module_host_settle(P2cModule *module);
/* Frees a heap block a @jit function's call handed over with an array it returned
 * (P2cKernelInfo.result_owners): the C library's free(), which the module allocated it with.
 * Accepts NULL. */
P2C_API void p2c_host_block_free(void *block);
/* Runs `kernel` from the Python `source` with `args`, in the kernel's parameter order: the
 * kernel is specialized for the arguments' types (each new type tuple is a new specialization,
 * compiled once and cached), launched with the options' grid and block, and every array is
 * written back to its host memory (arrays are updated in place). `report` may be NULL.
 * With P2C_ERR_SOURCE, *diagnostics (if not NULL) receives the module holding the diagnostics
 * (owned by the caller); otherwise it is set to NULL. Other failures leave a message in the
 * compiler's last error: P2C_ERR_USAGE (wrong number or kinds of arguments, bad launch
 * configuration), P2C_ERR_NO_CUDA, P2C_ERR_CUDA, P2C_ERR_NVRTC, P2C_ERR_SIM,
 * P2C_ERR_ILLEGAL_ADDRESS (on the simulator, the kernel faulted, or faulted at an earlier launch
 * of the same module: make the module again). */
P2C_API P2cStatus p2c_launch(P2cCompiler *compiler, const char *filename, const char *source,
                             size_t length, const char *kernel, const P2cValue *args,
                             size_t nargs, const P2cLaunchOptions *options,
                             P2cLaunchReport *report, P2cModule **diagnostics);

/* Calls the @vectorize(target='cuda') ufunc `ufunc` of the Python `source` on `args` (its
 * inputs: host arrays or scalars), as Numba's CUDA ufuncs are called. The signature is chosen
 * by the library's dispatcher (p2c_module_ufunc_choose: arrays of exactly its types, as Numba's;
 * scalars are converted to it). The inputs are broadcast as NumPy does, and *out
 * receives a new C-ordered host array of the broadcast shape and the signature's result type
 * (1-d of one element when every input is a scalar), to be freed with p2c_host_array_free.
 * The grid and block are chosen here (the options' grid, block and shared bytes are ignored).
 * Errors as p2c_launch: P2C_ERR_USAGE for arguments that cannot be broadcast or match no
 * signature, or a name that is not a ufunc. */
P2C_API P2cStatus p2c_ufunc_launch(P2cCompiler *compiler, const char *filename, const char *source,
                                   size_t length, const char *ufunc, const P2cValue *args,
                                   size_t nargs, const P2cLaunchOptions *options,
                                   P2cLaunchReport *report, P2cModule **diagnostics,
                                   P2cHostArray *out);

/* The index (p2c_module_kernel) of the specialization of ufunc `ufunc` in `module` that the
 * inputs choose (p2c_match_specialization with P2C_MATCH_UFUNC, among the ufunc's signatures in
 * decorator order), or -1 when none or more than one takes them, with the reason in `why` (when
 * not NULL): Numba's TypeError, in the library's words. */
P2C_API long p2c_module_ufunc_choose(const P2cModule *module, const char *ufunc, const P2cValue *args,
                                     size_t nargs, char *why, size_t why_cap);

/* p2c_ufunc_launch on a module already translated (p2c_translate) from the ufunc's source: the
 * module is translated once and kept by the caller, and it keeps what its launches loaded (the
 * simulator's compiled code; on the GPU the device keeps the loaded module), so a call costs the
 * conversion of its inputs and the launch, not a translation. Same signature choice,
 * broadcasting, result and errors as p2c_ufunc_launch. */
P2C_API P2cStatus p2c_module_ufunc_launch(P2cCompiler *compiler, P2cModule *module, const char *ufunc,
                                          const P2cValue *args, size_t nargs,
                                          const P2cLaunchOptions *options, P2cLaunchReport *report,
                                          P2cHostArray *out);

/* ---- Host arrays and .npy files ----------------------------------------------------------- */

/* A zero-filled C-ordered array of a scalar dtype or a character sequence (P2C_CHARSEQ(n),
 * P2C_UNICHARSEQ(n)); its data comes from the compiler's allocator. Release it with
 * p2c_host_array_free. */
P2C_API P2cStatus p2c_host_array_new(P2cCompiler *compiler, P2cScalarType dtype, int ndim,
                                     const int64_t *shape, P2cHostArray *out);
/* Reads a .npy file (format 1.0-3.0, any supported dtype, C or Fortran order, either byte
 * order) into a new host array in native byte order. Malformed, truncated, object or pickled
 * files give P2C_ERR_FORMAT, unreadable ones P2C_ERR_IO; the last error says why. */
P2C_API P2cStatus p2c_npy_load(P2cCompiler *compiler, const char *path, P2cHostArray *out);
/* Writes a C- or Fortran-contiguous host array to a .npy file, atomically. */
P2C_API P2cStatus p2c_npy_save(P2cCompiler *compiler, const char *path, const P2cHostArray *a);
/* Frees an array from p2c_host_array_new or p2c_npy_load; accepts an empty one. */
P2C_API void p2c_host_array_free(P2cCompiler *compiler, P2cHostArray *a);


/* ---- The environment ------------------------------------------------------------------------ */

/* A readable report of what this machine offers: the pyk2cuda version, the NVRTC version, the
 * CUDA driver version and each device (name, compute capability, memory, SMs). *text is
 * allocated with the compiler's allocator; free it with p2c_text_free. Returns P2C_OK when a
 * driver and at least one device were found, else P2C_ERR_NO_CUDA (or the driver's status) with
 * the report of what was found (still in *text, ending "no GPU: the simulator will run kernels")
 * and the reason in the last error. */
P2C_API P2cStatus p2c_environment_info(P2cCompiler *compiler, char **text);
P2C_API void p2c_text_free(P2cCompiler *compiler, char *text);

/* Compile-cache and simulator settings come from the environment: PYK2CUDA_CACHE_DIR (else
 * $XDG_CACHE_HOME/pyk2cuda, else ~/.cache/pyk2cuda), PYK2CUDA_CXX (the simulator's compiler). */

#ifdef __cplusplus
}
#endif
#endif
