/* The type system: Numba's scalar types, arrays, tuples, and the typing rules shared by the
 * passes (promotion, unification, conversions). In a folder of its own because every phase
 * reads types: the frontend (dtypes of module arrays, the builtin table), typeinfer, analysis
 * and codegen.
 *
 * Also the vocabulary every front shares at the boundary between values and types: the
 * signature grammar (sig.c), NumPy's typestrs (dtype.c), Numba's conversions (conversion.c),
 * the spelling table, layouts from slices and strides (types.c).
 *
 * Scalar types are immutable singletons, so type equality is pointer equality. Array and tuple
 * types are interned in a TypeTable that lives in the compilation's arena, so the same holds
 * for them. */
#ifndef P2C_TYPES_TYPES_H
#define P2C_TYPES_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "pyk2cuda.h"
#include "util/arena.h"
#include "util/buf.h"

typedef enum TypeKind {
  TY_VOID,      /* "none": the result of a statement call, a kernel's return type */
  TY_BOOL,
  TY_INT,       /* int8 .. uint64 */
  TY_FLOAT,     /* float32, float64 */
  TY_COMPLEX,   /* complex64, complex128 */
  TY_HALF,      /* float16 and bfloat16: 16-bit float types of their own (a struct of the bits in
                   the generated C), so that no float32/float64 code path takes them */
  TY_ARRAY,
  TY_TUPLE,
  TY_STR,       /* string literals, only as print() arguments */
  TY_DTYPE,     /* a scalar type used as a value: np.float32 in shared.array(..., dtype=...) */
  TY_RECORD,    /* a NumPy structured dtype (Numba's Record): fields at fixed offsets */
  TY_ENUM,      /* a member of an Enum class: held as its value (dtype, a number type); equal
                   only to members of the same class */
  TY_VECTOR,    /* a CUDA vector type (cuda.float32x4): `lanes` lanes of the scalar `dtype` */
  TY_GRID_GROUP,/* cuda.cg.this_grid()'s value (Numba's GridGroup): only its sync() is used */
  /* character sequences (NumPy's S<n> and U<n>; docs/semantics.md, "Character sequences") */
  TY_CHARSEQ,   /* Numba's CharSeq(n) "[char x n]" or UnicodeCharSeq(n) "[unichr x n]": n
                   bytes or n UCS-4 code points, an array's element or a record's field */
  TY_BYTES,     /* bytes literals, only as values stored into a CharSeq */
  /* NumPy's datetime64 and timedelta64 (Numba's NPDatetime, NPTimedelta): `unit` says which;
   * held as int64_t, INT64_MIN is NaT (types.c, "Datetimes and timedeltas") */
  TY_DATETIME,
  TY_TIMEDELTA,
} TypeKind;

/* MEM_CONST: a module-level array in __constant__ memory (read-only). A MEM_SHARED array
 * without a fixed_shape is dynamic shared memory (cuda.shared.array(0, ...)). */
typedef enum MemSpace { MEM_GLOBAL = 0, MEM_SHARED, MEM_LOCAL, MEM_CONST } MemSpace;

typedef struct Type Type;

/* One field of a record: a scalar, or a nested array (('h', np.float32, (3, 2))), whose type
 * is a fixed-shape C-ordered array in MEM_GLOBAL (the generic memory its record is in, as a
 * view's): a member array of the record's struct, indexed without strides. */
typedef struct RecordField {
  const char *name;         /* NumPy's field name (an ASCII identifier) */
  const Type *type;
  int64_t offset;           /* bytes from the record's start */
} RecordField;

struct Type {
  TypeKind kind;
  const char *name;         /* Numba's spelling: "int64", "array(float32, 2d, C)" */
  /* scalars */
  P2cScalarType scalar;
  int bits;
  bool is_signed;
  const char *cname;        /* C spelling: "int64_t", "double" */
  /* arrays */
  const Type *dtype;        /* also the scalar of a TY_DTYPE */
  int ndim;
  char layout;              /* 'C', 'F', 'A' */
  MemSpace space;
  const int64_t *fixed_shape;   /* shared/local arrays: compile-time extents */
  /* tuples */
  const Type **elems;
  int nelems;
  /* vectors: `lanes` copies of the scalar `dtype`; `cname` is CUDA's name ("float4") */
  int lanes;
  int nest;                 /* tuples inside tuples: 1 for a tuple of scalars and arrays */
  /* A namedtuple (Numba's NamedTuple/NamedUniTuple): its class name and one field name per
   * element; NULL for a plain tuple. Two namedtuple types are one when these are equal. */
  const char *tuple_class;
  const char *const *field_names;
  /* records: `bits` is 8 * the itemsize, `cname` the struct's name */
  const RecordField *fields;
  int nfields;
  int align;                /* the largest alignment of a field */
  bool aligned;             /* NumPy's align=True (part of Numba's name only) */
  /* enums (TY_ENUM): the class's name; dtype is the members' value type */
  const char *enum_class;
  /* character sequences (TY_CHARSEQ): `chars` characters of 1 byte (CharSeq) or of 4
   * (UnicodeCharSeq, `unicode`); `bits` is 8 * the itemsize */
  int64_t chars;
  bool unicode;
  /* datetimes and timedeltas (TY_DATETIME, TY_TIMEDELTA) */
  P2cTimeUnit unit;
};

extern const Type type_void, type_bool, type_str;
extern const Type type_bytes;
extern const Type type_int8, type_int16, type_int32, type_int64;
extern const Type type_uint8, type_uint16, type_uint32, type_uint64;
extern const Type type_float32, type_float64;
extern const Type type_complex64, type_complex128;
extern const Type type_float16, type_bfloat16;
extern const Type type_fp8_e5m2, type_fp8_e4m3, type_fp8_e8m0;
extern const Type type_grid_group;

const Type *type_of_scalar(P2cScalarType s);
/* Numba's kinds of conversion (typeconv), best first: how a value of one scalar type converts to
 * a parameter of another; CONV_NONE where Numba has no conversion (datetimes, to and from other
 * types). conversion.c. */
typedef enum TypeConversion { CONV_EXACT, CONV_PROMOTE, CONV_SAFE, CONV_UNSAFE, CONV_NONE } TypeConversion;
TypeConversion type_conversion(P2cScalarType from, P2cScalarType to);
/* Entry i of the scalar spelling table (types.c): a name signatures accept, its type, and whether
 * numba.core.types has the name. False past the last entry. */
bool type_spelling(size_t i, const char **name, const Type **type, bool *numba);
/* The scalar type named `name` ("float32", "f4", "int", "float", "bool_", "intp", ...), or NULL. */
const Type *type_scalar_by_name(const char *name);

static inline bool type_is_int(const Type *t) { return t->kind == TY_INT; }
static inline bool type_is_float(const Type *t) { return t->kind == TY_FLOAT; }
static inline bool type_is_number(const Type *t) {
  return t->kind == TY_INT || t->kind == TY_FLOAT || t->kind == TY_BOOL;
}
static inline bool type_is_scalar(const Type *t) { return type_is_number(t); }
static inline bool type_is_complex(const Type *t) { return t->kind == TY_COMPLEX; }
/* Numbers and complex numbers: what arithmetic, assignment and promotion accept. */
static inline bool type_is_numeric(const Type *t) {
  return type_is_number(t) || t->kind == TY_COMPLEX || t->kind == TY_HALF;
}
static inline bool type_is_half(const Type *t) { return t->kind == TY_HALF; }
static inline bool type_is_bf16(const Type *t) { return t == &type_bfloat16; }
static inline bool type_is_fp8(const Type *t) {
  return t == &type_fp8_e5m2 || t == &type_fp8_e4m3 || t == &type_fp8_e8m0;
}
/* bfloat16 and the fp8 types: no promotion with any other type (numba-cuda: convert first). */
static inline bool type_is_alone(const Type *t) { return type_is_bf16(t) || type_is_fp8(t); }
/* Bools and unsigned ints: every value of the type is >= 0. */
static inline bool type_never_negative(const Type *t) {
  return t->kind == TY_BOOL || (t->kind == TY_INT && !t->is_signed);
}
/* The float type of a complex type's parts (complex64: float32). */
const Type *type_complex_part(const Type *c);
/* The complex type whose parts are float type f (float32: complex64). */
const Type *type_complex_of(const Type *f);

/* CUDA's vector types, as Numba's CUDA target defines them: int8 .. uint64, float32 and float64
 * with 1 to 4 lanes (x, y, z, w), named "float32x4" and spelled in C as CUDA's "float4". Like
 * scalars they are singletons, and no tuple (their lanes are not `elems`). */
enum { TYPE_VECTOR_BASES = 10, TYPE_VECTOR_MAX_LANES = 4 };
extern const Type type_vectors[TYPE_VECTOR_BASES][TYPE_VECTOR_MAX_LANES];
/* cuda_bf16.h's __nv_bfloat16_raw, the bits of a bfloat16 that numba-cuda's fp8 cvt_* intrinsics
 * take and give: a struct of one member x (uint16) that kernels read, as a 1-lane vector's, and
 * never build (no constructor names it, so no vector constructor takes it). */
extern const Type type_bf16_raw;
/* The vector type of `lanes` (1..4) lanes of scalar type `base`, or NULL where CUDA has none. */
const Type *type_vector_of(const Type *base, int lanes);
static inline bool type_is_vector(const Type *t) { return t->kind == TY_VECTOR; }

/* ---- Datetimes and timedeltas: 28 singletons, one per kind and unit ---- */

extern const Type type_datetimes[P2C_TIME_UNIT_COUNT], type_timedeltas[P2C_TIME_UNIT_COUNT];
static inline const Type *type_datetime(P2cTimeUnit u) { return &type_datetimes[u]; }
static inline const Type *type_timedelta(P2cTimeUnit u) { return &type_timedeltas[u]; }
static inline bool type_is_time(const Type *t) { return t->kind == TY_DATETIME || t->kind == TY_TIMEDELTA; }
/* NumPy's spelling of a unit ("D", "ms"; "" for the generic unit); the unit spelled `s` (its
 * first n bytes), or -1. */
const char *time_unit_name(P2cTimeUnit u);
int time_unit_parse(const char *s, size_t n);
/* Numba's unit rules (numba.np.npdatetime_helpers), which the typing and the generated code
 * share:
 *  - time_unit_can_cast: a timedelta of unit `from` converts exactly to unit `to`: the same
 *    unit, from the generic unit, or to a finer unit of the same family (Y M; W D h ... as).
 *  - time_unit_factor: the integer that multiplies a count of `from` into a count of `to`
 *    (1 from the generic unit), or 0 when no integer does (M to D, D to W, h to D).
 *  - time_unit_best: the finer of two units (the other one when either is generic): the unit
 *    of datetime - datetime, and of comparisons of datetimes.
 *  - time_unit_combine: the unit of datetime +- timedelta, or -1 when a Y or M timedelta meets
 *    a datetime of a finer unit. */
bool time_unit_can_cast(P2cTimeUnit from, P2cTimeUnit to);
int64_t time_unit_factor(P2cTimeUnit from, P2cTimeUnit to);
P2cTimeUnit time_unit_best(P2cTimeUnit a, P2cTimeUnit b);
int time_unit_combine(P2cTimeUnit datetime, P2cTimeUnit timedelta);

typedef struct TypeTable {
  Arena *arena;
  VEC(Type *) arrays;
  VEC(Type *) tuples;
  VEC(Type *) dtypes;
  VEC(Type *) records;
  VEC(Type *) enums;
  VEC(Type *) charseqs;
} TypeTable;

void types_init(TypeTable *tt, Arena *a);
const Type *type_array(TypeTable *tt, const Type *dtype, int ndim, char layout, MemSpace space,
                       const int64_t *fixed_shape);
const Type *type_tuple(TypeTable *tt, const Type **elems, int n);
/* A tuple of n copies of `t` (cuda.grid(2), a.shape). */
const Type *type_uniform_tuple(TypeTable *tt, const Type *t, int n);
/* The namedtuple type `cls` with fields names[i] of types elems[i] (strings copied). */
const Type *type_named_tuple(TypeTable *tt, const char *cls, const char *const *names,
                             const Type **elems, int n);
/* Whether every element of tuple t has one type (Numba's UniTuple; a runtime index works). */
bool type_tuple_uniform(const Type *t);
/* Whether every element of tuple t, in nested tuples too, is a number (an Enum's value may be). */
bool type_tuple_of_numbers(const Type *t);
/* The element of namedtuple t whose field is `name`, or -1. */
int type_tuple_field(const Type *t, const char *name);
const Type *type_dtype(TypeTable *tt, const Type *scalar);
/* The type of the members of Enum class `cls` (one type per class name and value type), whose values have
 * type `value`: Numba's Enum<int64>(Color), held as its value. An IntEnum's (is_int, `value` an
 * integer type) is Numba's IntEnum<int64>(Shape): an integer type (TY_INT) in every use, whose
 * own identity only `is` and specializations see; its dtype is the plain integer type. */
const Type *type_enum(TypeTable *tt, const char *cls, const Type *value, bool is_int);
/* t without an IntEnum's identity: its plain integer type (t itself for other types). */
static inline const Type *type_plain(const Type *t) { return t->kind == TY_INT && t->enum_class ? t->dtype : t; }
/* Numba's CharSeq(chars) "[char x chars]" (unicode: UnicodeCharSeq(chars) "[unichr x chars]"),
 * 1 <= chars <= TYPE_MAX_CHARS; P2C_CHARSEQ or P2C_UNICHARSEQ is its `scalar`. */
enum { TYPE_MAX_CHARS = 1 << 20 };
const Type *type_charseq(TypeTable *tt, bool unicode, int64_t chars);
/* NumPy's spelling of a character sequence dtype, the one parser of it (the CLI's arguments,
 * .npy descrs, record fields, the extension's typestrs and buffer formats all come here):
 * "S12", "U12" or "a12" (S's old spelling), after an optional byte order ('<', '>', '|', '='),
 * exactly len bytes. *unicode and *chars get its kind and length; false for any other text or a
 * length outside 1..TYPE_MAX_CHARS (never overflows on long digit strings). */
bool type_charseq_parse(const char *s, size_t len, bool *unicode, int64_t *chars);

/* ---- NumPy's typestrs (dtype.c): "<f4", "|b1", "?", "|S12", "<U3", "<M8[D]", "<m8" ---- */

/* Why a typestr is refused: no such text (DTYPE_UNKNOWN), an object or void dtype, a float of a size
 * without a type (f16), a character sequence's length outside 1..TYPE_MAX_CHARS, a datetime's
 * unit, '|' (no byte order) on elements of more than one byte. */
typedef enum DtypeProblem {
  DTYPE_OK, DTYPE_UNKNOWN, DTYPE_OBJECT, DTYPE_VOID, DTYPE_FLOAT_SIZE, DTYPE_CHARS, DTYPE_TIME_UNIT, DTYPE_NO_ORDER
} DtypeProblem;
/* The one reader of typestrs (p2c_dtype_parse): exactly n bytes of s; on DTYPE_OK the dtype into
 * *out and into *swap whether the data, in the order the text states, needs a byte swap on
 * this host. */
DtypeProblem type_dtype_parse(const char *s, size_t n, P2cScalarType *out, bool *swap);
/* The one writer (p2c_dtype_str): t's typestr in the host's order ('|' for one-byte units), as
 * snprintf writes; 0 and "" for a record, a tuple or an invalid value. Reads back as t. */
size_t type_dtype_str(P2cScalarType t, char *buf, size_t cap);
/* The bytes a byte swap reverses in an element of dtype t (a scalar's, a complex number's part,
 * one character of a character sequence); 0 for a record, a tuple or an invalid value. */
size_t type_dtype_swap_size(P2cScalarType t);
/* Whether dtype t is a character sequence, and its kind and length (p2c_dtype_charseq). */
bool type_dtype_charseq(P2cScalarType t, bool *unicode, int64_t *chars);

/* Array layouts as signatures write them, the one rule for every printer and reader: dimension
 * k of an ndim-dimensional array of layout 'C' or 'F' is written '::1' where the array is
 * contiguous (the last of a C array, the first of an F array; a 1-d contiguous array is C) and
 * ':' elsewhere. */
bool type_dim_contiguous(int ndim, char layout, int k);
/* Numba's layout of an array type written with ndim slices (types.Type.__getitem__): 'F' when
 * the first of two or more is '::1', else 'C' when the last is, else 'A'; 'C' for 0-d (T[()]). */
char type_layout_of_slices(int ndim, bool first_contiguous, bool last_contiguous);
/* An array's layout from its extents and byte strides: 'C', 'F' or 'A' (p2c_array_layout). */
char type_layout_of_strides(int64_t itemsize, int ndim, const int64_t *shape, const int64_t *strides);
/* Bytes of one character of charseq type t: 1, or 4 for a UnicodeCharSeq. */
static inline int type_char_size(const Type *t) { return t->unicode ? 4 : 1; }
/* The record type with these fields (in NumPy's order), itemsize and align flag. The caller has
 * checked the layout (record_layout_error). */
const Type *type_record(TypeTable *tt, const RecordField *fields, int n, int64_t size, bool aligned);
/* Why a record layout cannot be compiled, or NULL: a field outside the itemsize, fields that
 * overlap, a field at an offset that is not a multiple of its alignment (Numba's "is not
 * aligned"), an itemsize that is not a multiple of the largest alignment. Arena message. */
const char *record_layout_error(Arena *a, const RecordField *fields, int n, int64_t size);
/* A field as that rule sees it: `count` items of `scalar` (a nested array's are its extents'
 * product) from byte `offset`; what the frontend, which makes no array types, describes. */
typedef struct FieldPlace {
  const char *name;
  const Type *scalar;
  int64_t count, offset;
} FieldPlace;
/* record_layout_error of fields so described: the one home of the rule. */
const char *record_places_error(Arena *a, const FieldPlace *fields, int n, int64_t size);
/* Numba's name of a record, as snprintf writes (the spelling type_record gives its types and
 * sig_parse reads). */
size_t type_record_spell(char *buf, size_t cap, const P2cRecord *r);
/* The public description of record type t (strings shared with t; the field array in arena a). */
P2cRecord type_record_desc(Arena *a, const Type *t);
/* The field of record r named `name`, or NULL. */
const RecordField *type_record_field(const Type *r, const char *name);
/* Bytes and alignment of a value of type t inside a record (a scalar, a nested array). */
int64_t type_byte_size(const Type *t);
int type_alignment(const Type *t);
/* Bytes and alignment of a value of type t as the generated C holds it, in a kernel's
 * parameter space or as a member of a tuple's struct: a scalar by its C type, an array as
 * p2c_array<T, ndim> (a pointer, ndim extents, ndim strides), a record as a pointer (Numba
 * passes records by reference), a tuple as the struct of its members in order, each at the
 * next multiple of its alignment (an empty tuple is an empty C++ struct: one byte). */
int64_t type_value_size(const Type *t);
int type_value_align(const Type *t);
/* The byte offset of element k in tuple t's struct. */
int64_t type_tuple_offset(const Type *t, int k);
/* The array type as a kernel parameter would receive it: global memory, no fixed shape. */
const Type *type_array_as_param(TypeTable *tt, const Type *t);

/* ---- Numba's typing rules ---- */

/* Integer result of an arithmetic operator on two integers (Numba's integer typing NBEP:
 * width max(64, widths), signed if either is signed). */
const Type *type_int_result(const Type *a, const Type *b);
/* NumPy's promote_types for two scalars (bool < ints < floats; int64+uint64 -> float64); NULL
 * for bfloat16 with any other type (numba-cuda has no such promotion: convert first). */
const Type *type_promote(const Type *a, const Type *b);
/* The type an arithmetic operator (+ - * / // % **) computes in for operands a, b, Numba's
 * (a float32 with a uint16 is float64, not NumPy's float32); NULL if none. */
const Type *type_arith(const Type *a, const Type *b);
/* The float type a math function of these n arguments computes in, as Numba types math and
 * NumPy's ufuncs: float32 when every argument is float32, else float64. */
const Type *type_math_float(const Type **t, int n);
/* NumPy's casting rules (np.can_cast(from, to, casting)) on bool and the number types, beside
 * and from type_promote: CAST_SAFE when promoting the two gives `to`; CAST_SAME_KIND adds every
 * cast into the same kind or a later one of bool < unsigned < signed < floats (float16 too) <
 * complex; CAST_NO and CAST_EQUIV the same type only (byte orders are not types here),
 * CAST_UNSAFE any. Other types cast only to themselves. The one place casting is decided: a
 * ufunc's `out=` array in a kernel, a @vectorize call's inputs (launch_ufunc.c). */
typedef enum TypeCasting { CAST_NO, CAST_EQUIV, CAST_SAFE, CAST_SAME_KIND, CAST_UNSAFE } TypeCasting;
bool type_can_cast(const Type *from, const Type *to, TypeCasting casting);
/* Whether NumPy compares a and b exactly rather than in their promotion (float64): one is
 * uint64, the other a signed integer (NumPy 1.25's loops, which numba-cuda has too). */
bool type_compares_mixed_sign(const Type *a, const Type *b);
/* How `a is b` is decided for operands of types a and b, as Numba decides it (its generic_is
 * and the enum variant): operands of one type that == compares are compared with ==; None is
 * None; operands of two types, or of a type without == (a vector, a grid group), are never the
 * same object. Tuples of one type are compared with == when their elements are. Arrays of one
 * type are compared by their data, shape and strides (Numba's array_is); records and character
 * sequences of one type Numba refuses. */
typedef enum Identity { ID_BY_EQUALITY, ID_BY_ADDRESS, ID_ALWAYS, ID_NEVER, ID_UNSUPPORTED } Identity;
Identity type_identity(const Type *a, const Type *b);
/* Unification of two types assigned to one variable, as Numba unifies them; NULL if none. */
const Type *type_unify(TypeTable *tt, const Type *a, const Type *b);

/* ---- Signatures: "void(float32[:, ::1], int64)", "float64(float64, float64)" ---- */

typedef struct Signature {
  const Type *ret;          /* NULL when the signature gives only arguments ("(int32,)") */
  const Type **args;
  int nargs;
} Signature;

/* Parses a Numba signature with a strict grammar. On error returns false and sets *err to a
 * message (arena) and *err_offset to the byte offset in `text` where parsing failed. */
bool sig_parse(TypeTable *tt, const char *text, size_t len, Signature *out, const char **err,
               size_t *err_offset);
/* Numba's spelling of a signature, arena-allocated. */
const char *sig_format(Arena *a, const Signature *s);

#endif
