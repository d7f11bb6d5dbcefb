/* Types: the scalar singletons, interning of arrays and tuples, and Numba's typing rules for
 * numbers. The rules follow compiled Numba (numba.core.typing.builtins and numba's use of
 * NumPy's type promotion), not the CUDA simulator's NumPy scalar arithmetic. */
#include "types/types.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#define SCALAR(var, k, sc, b, sg, nm, cn) \
  const Type var = {.kind = k, .name = nm, .scalar = sc, .bits = b, .is_signed = sg, .cname = cn}

SCALAR(type_bool, TY_BOOL, P2C_BOOL, 8, false, "bool", "bool");
SCALAR(type_int8, TY_INT, P2C_INT8, 8, true, "int8", "int8_t");
SCALAR(type_int16, TY_INT, P2C_INT16, 16, true, "int16", "int16_t");
SCALAR(type_int32, TY_INT, P2C_INT32, 32, true, "int32", "int32_t");
SCALAR(type_int64, TY_INT, P2C_INT64, 64, true, "int64", "int64_t");
SCALAR(type_uint8, TY_INT, P2C_UINT8, 8, false, "uint8", "uint8_t");
SCALAR(type_uint16, TY_INT, P2C_UINT16, 16, false, "uint16", "uint16_t");
SCALAR(type_uint32, TY_INT, P2C_UINT32, 32, false, "uint32", "uint32_t");
SCALAR(type_uint64, TY_INT, P2C_UINT64, 64, false, "uint64", "uint64_t");
SCALAR(type_float32, TY_FLOAT, P2C_FLOAT32, 32, true, "float32", "float");
SCALAR(type_float64, TY_FLOAT, P2C_FLOAT64, 64, true, "float64", "double");
SCALAR(type_complex64, TY_COMPLEX, P2C_COMPLEX64, 64, true, "complex64", "p2c_complex64");
SCALAR(type_complex128, TY_COMPLEX, P2C_COMPLEX128, 128, true, "complex128", "p2c_complex128");
SCALAR(type_float16, TY_HALF, P2C_FLOAT16, 16, true, "float16", "p2c_half");
/* bfloat16 (numba-cuda's numba.cuda.bf16): float32's exponent with 8 significant bits. A value
 * inside kernels and device functions only: no public scalar type (its `scalar` is none of them,
 * so no conversion rule matches it but its own), no signature spelling, no .npy dtype. */
SCALAR(type_bfloat16, TY_HALF, P2C_SCALAR_TYPE_COUNT, 16, true, "bfloat16", "p2c_bf16");
/* The fp8 types of numba-cuda's numba.cuda._internal.cuda_fp8 (cuda_fp8.h's __nv_fp8_e5m2,
 * __nv_fp8_e4m3, __nv_fp8_e8m0): storage formats, held in kernels like bfloat16, that convert
 * from and to numbers and have no arithmetic. */
SCALAR(type_fp8_e5m2, TY_HALF, P2C_SCALAR_TYPE_COUNT, 8, true, "fp8_e5m2", "p2c_fp8_e5m2");
SCALAR(type_fp8_e4m3, TY_HALF, P2C_SCALAR_TYPE_COUNT, 8, true, "fp8_e4m3", "p2c_fp8_e4m3");
SCALAR(type_fp8_e8m0, TY_HALF, P2C_SCALAR_TYPE_COUNT, 8, false, "fp8_e8m0", "p2c_fp8_e8m0");
const Type type_void = {.kind = TY_VOID, .name = "none", .cname = "void"};
const Type type_str = {.kind = TY_STR, .name = "unicode_type", .cname = "const char *"};
const Type type_bytes = {.kind = TY_BYTES, .name = "readonly bytes(uint8, 1d, C)", .cname = "const char *"};
const Type type_grid_group = {.kind = TY_GRID_GROUP, .name = "GridGroup", .cname = "p2c_grid_group"};

/* Rows in the order of Numba's vector_types list (int8, int16, int32, int64, uint8, uint16,
 * uint32, uint64, float32, float64); columns 1 to 4 lanes. CUDA's names: 64-bit integers are
 * `longlong`/`ulonglong` (64 bits on every platform, unlike `long`), int8 is `char` (a signed
 * char in CUDA's vector types). */
#define VECTOR_TYPE(base, nm, cn, n) \
  {.kind = TY_VECTOR, .name = nm "x" #n, .cname = cn #n, .dtype = &base, .lanes = n}
#define VECS(base, nm, cn) {VECTOR_TYPE(base, nm, cn, 1), VECTOR_TYPE(base, nm, cn, 2), VECTOR_TYPE(base, nm, cn, 3), VECTOR_TYPE(base, nm, cn, 4)}
const Type type_vectors[TYPE_VECTOR_BASES][TYPE_VECTOR_MAX_LANES] = {
    VECS(type_int8, "int8", "char"),        VECS(type_int16, "int16", "short"),
    VECS(type_int32, "int32", "int"),       VECS(type_int64, "int64", "longlong"),
    VECS(type_uint8, "uint8", "uchar"),     VECS(type_uint16, "uint16", "ushort"),
    VECS(type_uint32, "uint32", "uint"),    VECS(type_uint64, "uint64", "ulonglong"),
    VECS(type_float32, "float32", "float"), VECS(type_float64, "float64", "double"),
};
#undef VECS
#undef VECTOR_TYPE

const Type type_bf16_raw = {.kind = TY_VECTOR, .name = "bfloat16_raw", .cname = "p2c_bf16_raw",
                            .dtype = &type_uint16, .lanes = 1};

const Type *type_vector_of(const Type *base, int lanes) {
  if (lanes < 1 || lanes > TYPE_VECTOR_MAX_LANES) return NULL;
  for (int i = 0; i < TYPE_VECTOR_BASES; i++)
    if (type_vectors[i][0].dtype == base) return &type_vectors[i][lanes - 1];
  return NULL;
}

/* ---- Datetimes and timedeltas ----
 * NumPy's datetime64[unit] counts units since 1970-01-01T00:00, timedelta64[unit] counts
 * units; both are int64 in memory and in the generated C, and INT64_MIN is NaT. The unit is
 * part of the type, as in Numba (NPDatetime('D') and NPDatetime('s') are two types), so each
 * operation's unit conversions are known when the kernel is compiled. */
#define TIME_TYPE(k, base, u, nm) \
  [P2C_UNIT_##u] = {.kind = k, .name = base "[" nm "]", .scalar = (base[0] == 'd' ? P2C_DATETIME64 : P2C_TIMEDELTA64) + P2C_UNIT_##u, \
                    .bits = 64, .is_signed = true, .cname = "int64_t", .unit = P2C_UNIT_##u}
#define TIME_TYPES(k, base) {                                                                   \
    TIME_TYPE(k, base, Y, "Y"), TIME_TYPE(k, base, M, "M"), TIME_TYPE(k, base, W, "W"),         \
    TIME_TYPE(k, base, D, "D"), TIME_TYPE(k, base, h, "h"), TIME_TYPE(k, base, m, "m"),         \
    TIME_TYPE(k, base, s, "s"), TIME_TYPE(k, base, ms, "ms"), TIME_TYPE(k, base, us, "us"),     \
    TIME_TYPE(k, base, ns, "ns"), TIME_TYPE(k, base, ps, "ps"), TIME_TYPE(k, base, fs, "fs"),   \
    TIME_TYPE(k, base, as, "as"), TIME_TYPE(k, base, GENERIC, "")}
const Type type_datetimes[P2C_TIME_UNIT_COUNT] = TIME_TYPES(TY_DATETIME, "datetime64");
const Type type_timedeltas[P2C_TIME_UNIT_COUNT] = TIME_TYPES(TY_TIMEDELTA, "timedelta64");
#undef TIME_TYPES
#undef TIME_TYPE

static const char *const unit_names[P2C_TIME_UNIT_COUNT] = {
    "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", ""};

const char *time_unit_name(P2cTimeUnit u) { return (unsigned)u < P2C_TIME_UNIT_COUNT ? unit_names[u] : NULL; }

int time_unit_parse(const char *s, size_t n) {
  for (int u = 0; u < P2C_TIME_UNIT_COUNT; u++)
    if (strlen(unit_names[u]) == n && memcmp(unit_names[u], s, n) == 0) return u;
  return -1;
}

/* Y and M: calendar units, which no fixed number of days makes. */
static bool calendar_unit(P2cTimeUnit u) { return u <= P2C_UNIT_M; }

bool time_unit_can_cast(P2cTimeUnit from, P2cTimeUnit to) {
  if (from == to || from == P2C_UNIT_GENERIC) return true;
  if (from > to || to == P2C_UNIT_GENERIC) return false;
  return !(calendar_unit(from) && !calendar_unit(to));
}

/* How many of the next finer unit make one of `u` (0: none exactly: M, and as, the finest). */
static int64_t next_unit_factor(P2cTimeUnit u) {
  static const int64_t f[P2C_TIME_UNIT_COUNT] = {
      [P2C_UNIT_Y] = 12, [P2C_UNIT_W] = 7, [P2C_UNIT_D] = 24, [P2C_UNIT_h] = 60, [P2C_UNIT_m] = 60,
      [P2C_UNIT_s] = 1000, [P2C_UNIT_ms] = 1000, [P2C_UNIT_us] = 1000, [P2C_UNIT_ns] = 1000,
      [P2C_UNIT_ps] = 1000, [P2C_UNIT_fs] = 1000};
  return f[u];
}

int64_t time_unit_factor(P2cTimeUnit from, P2cTimeUnit to) {
  if (from == P2C_UNIT_GENERIC) return 1;
  if (to == P2C_UNIT_GENERIC || from > to) return 0;
  int64_t factor = 1;
  for (P2cTimeUnit u = from; u < to; u++) {
    if (!next_unit_factor(u)) return 0;   /* M to W or finer: months have no fixed length */
    factor *= next_unit_factor(u);
  }
  return factor;
}

P2cTimeUnit time_unit_best(P2cTimeUnit a, P2cTimeUnit b) {
  if (a == P2C_UNIT_GENERIC) return b;
  if (b == P2C_UNIT_GENERIC) return a;
  return a > b ? a : b;
}

int time_unit_combine(P2cTimeUnit datetime, P2cTimeUnit timedelta) {
  if (datetime == P2C_UNIT_GENERIC) return (int)timedelta;
  if (timedelta == P2C_UNIT_GENERIC) return (int)datetime;
  if (calendar_unit(timedelta) && !calendar_unit(datetime)) return -1;
  return (int)(datetime > timedelta ? datetime : timedelta);
}

static const Type *const scalars[P2C_SCALAR_TYPE_COUNT] = {
    [P2C_BOOL] = &type_bool,       [P2C_INT8] = &type_int8,     [P2C_INT16] = &type_int16,
    [P2C_INT32] = &type_int32,     [P2C_INT64] = &type_int64,   [P2C_UINT8] = &type_uint8,
    [P2C_UINT16] = &type_uint16,   [P2C_UINT32] = &type_uint32, [P2C_UINT64] = &type_uint64,
    [P2C_FLOAT32] = &type_float32, [P2C_FLOAT64] = &type_float64,
    [P2C_COMPLEX64] = &type_complex64, [P2C_COMPLEX128] = &type_complex128,
    [P2C_FLOAT16] = &type_float16,
};

const Type *type_of_scalar(P2cScalarType s) {
  if (s >= P2C_DATETIME64 && s < P2C_TIMEDELTA64) return type_datetime((P2cTimeUnit)(s - P2C_DATETIME64));
  if (s >= P2C_TIMEDELTA64 && s < P2C_SCALAR_TYPE_COUNT) return type_timedelta((P2cTimeUnit)(s - P2C_TIMEDELTA64));
  return (unsigned)s < P2C_SCALAR_TYPE_COUNT ? scalars[s] : NULL;
}

/* The one spelling table of scalar types: every name a signature may use, with Numba's meaning
 * (numba.core.types: `float_` is float32, `int_` and `long_` int64, C's names as on LP64 Linux).
 * `numba` marks the names numba.core.types has, which the Python package exports as objects
 * (p2c_type_spelling); the others are NumPy's spellings, accepted in signature text only. */
static const struct {
  const char *name;
  const Type *type;
  bool numba;
} scalar_names[] = {
    {"bool", &type_bool, false},          {"boolean", &type_bool, true},
    {"bool_", &type_bool, true},          {"b1", &type_bool, true},
    {"int8", &type_int8, true},           {"i1", &type_int8, true},
    {"char", &type_int8, true},           {"int16", &type_int16, true},
    {"i2", &type_int16, true},            {"short", &type_int16, true},
    {"int32", &type_int32, true},         {"i4", &type_int32, true},
    {"intc", &type_int32, true},          {"int64", &type_int64, true},
    {"i8", &type_int64, true},            {"intp", &type_int64, true},
    {"int_", &type_int64, true},          {"long_", &type_int64, true},
    {"longlong", &type_int64, true},      {"ssize_t", &type_int64, true},
    {"uint8", &type_uint8, true},         {"u1", &type_uint8, true},
    {"uchar", &type_uint8, true},         {"byte", &type_uint8, true},
    {"uint16", &type_uint16, true},       {"u2", &type_uint16, true},
    {"ushort", &type_uint16, true},       {"uint32", &type_uint32, true},
    {"u4", &type_uint32, true},           {"uintc", &type_uint32, true},
    {"uint64", &type_uint64, true},       {"u8", &type_uint64, true},
    {"uintp", &type_uint64, true},        {"uint", &type_uint64, true},
    {"ulong", &type_uint64, true},        {"ulonglong", &type_uint64, true},
    {"size_t", &type_uint64, true},       {"float32", &type_float32, true},
    {"f4", &type_float32, true},          {"float_", &type_float32, true},
    {"single", &type_float32, false},     {"float64", &type_float64, true},
    {"f8", &type_float64, true},          {"double", &type_float64, true},
    {"complex64", &type_complex64, true}, {"c8", &type_complex64, true},
    {"csingle", &type_complex64, false},  {"complex128", &type_complex128, true},
    {"c16", &type_complex128, true},      {"complex_", &type_complex128, false},
    {"cdouble", &type_complex128, false}, {"float16", &type_float16, true},
    {"f2", &type_float16, true},          {"half", &type_float16, false},
};

bool type_spelling(size_t i, const char **name, const Type **type, bool *numba) {
  if (i >= sizeof scalar_names / sizeof scalar_names[0]) return false;
  *name = scalar_names[i].name;
  *type = scalar_names[i].type;
  *numba = scalar_names[i].numba;
  return true;
}

/* "datetime64[D]", "m8[ns]", "timedelta64[]", "datetime64" (the generic unit): Numba's and
 * NumPy's names of the datetime types. */
static const Type *time_type_by_name(const char *name) {
  static const struct { const char *base; bool datetime; } bases[] = {
      {"datetime64", true}, {"M8", true}, {"timedelta64", false}, {"m8", false}};
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
    size_t n = strlen(bases[i].base);
    if (strncmp(name, bases[i].base, n) != 0) continue;
    const char *rest = name + n;
    int u = P2C_UNIT_GENERIC;
    if (*rest) {
      size_t len = strlen(rest);
      if (rest[0] != '[' || rest[len - 1] != ']' || (u = time_unit_parse(rest + 1, len - 2)) < 0) return NULL;
    }
    return bases[i].datetime ? type_datetime((P2cTimeUnit)u) : type_timedelta((P2cTimeUnit)u);
  }
  return NULL;
}

const Type *type_scalar_by_name(const char *name) {
  if ((name[0] == 'd' || name[0] == 't' || name[0] == 'M' || name[0] == 'm') && time_type_by_name(name))
    return time_type_by_name(name);
  for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++)   /* first byte first */
    if (scalar_names[i].name[0] == name[0] && strcmp(scalar_names[i].name, name) == 0)
      return scalar_names[i].type;
  return NULL;
}

void types_init(TypeTable *tt, Arena *a) {
  memset(tt, 0, sizeof *tt);
  tt->arena = a;
}

static bool same_shape(const int64_t *a, const int64_t *b, int n) {
  if (!a || !b) return a == b;
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static const char *space_suffix(MemSpace s) {
  return s == MEM_SHARED ? ", shared" : s == MEM_LOCAL ? ", local" : s == MEM_CONST ? ", const" : "";
}

const Type *type_array(TypeTable *tt, const Type *dtype, int ndim, char layout, MemSpace space,
                       const int64_t *fixed_shape) {
  for (size_t i = 0; i < tt->arrays.len; i++) {
    Type *t = tt->arrays.items[i];
    if (t->dtype == dtype && t->ndim == ndim && t->layout == layout && t->space == space &&
        same_shape(t->fixed_shape, fixed_shape, ndim))
      return t;
  }
  Type *t = arena_alloc(tt->arena, sizeof *t);
  t->kind = TY_ARRAY;
  t->dtype = dtype;
  t->ndim = ndim;
  t->layout = layout;
  t->space = space;
  if (fixed_shape) t->fixed_shape = arena_dup(tt->arena, fixed_shape, (size_t)ndim * sizeof(int64_t));
  t->name = arena_printf(tt->arena, "array(%s, %dd, %c%s)", dtype->name, ndim, layout,
                         space_suffix(space));
  vec_push(tt->arena, &tt->arrays, t);
  return t;
}

const Type *type_array_as_param(TypeTable *tt, const Type *t) {
  return type_array(tt, t->dtype, t->ndim, t->layout, MEM_GLOBAL, NULL);
}

/* ---- values in generated C (kernel parameters, tuple members) ---- */

static int64_t round_up(int64_t n, int64_t align) { return (n + align - 1) / align * align; }

int type_value_align(const Type *t) {
  switch (t->kind) {
  case TY_ARRAY: case TY_RECORD: return 8;   /* a pointer first; a record is a pointer */
  case TY_COMPLEX: return t->bits / 16;
  case TY_CHARSEQ: return type_char_size(t);
  case TY_TUPLE: {
    int a = 1;
    for (int i = 0; i < t->nelems; i++)
      if (type_value_align(t->elems[i]) > a) a = type_value_align(t->elems[i]);
    return a;
  }
  default: return t->bits > 8 ? t->bits / 8 : 1;
  }
}

int64_t type_tuple_offset(const Type *t, int k) {
  int64_t at = 0;
  for (int i = 0; i < k; i++) at = round_up(at, type_value_align(t->elems[i])) + type_value_size(t->elems[i]);
  return round_up(at, type_value_align(t->elems[k]));
}

int64_t type_value_size(const Type *t) {
  switch (t->kind) {
  case TY_ARRAY: return 8 + 16 * (int64_t)t->ndim;
  case TY_RECORD: return 8;
  case TY_TUPLE: {
    if (t->nelems == 0) return 1;   /* C++ gives an empty struct one byte */
    int64_t end = type_tuple_offset(t, t->nelems - 1) + type_value_size(t->elems[t->nelems - 1]);
    return round_up(end, type_value_align(t));
  }
  default: return t->bits > 8 ? t->bits / 8 : 1;
  }
}

/* Whether interned tuple t is the one asked for: the same elements, and the same class and
 * field names (none for a plain tuple). */
static bool same_tuple(const Type *t, const char *cls, const char *const *names, const Type **elems, int n) {
  if (t->nelems != n || memcmp(t->elems, elems, (size_t)n * sizeof *elems) != 0) return false;
  if (!cls || !t->tuple_class) return !cls && !t->tuple_class;
  if (strcmp(cls, t->tuple_class) != 0) return false;
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], t->field_names[i]) != 0) return false;
  return true;
}

/* "(int64, float64)" for a plain tuple, Numba's "Point(int64, float64)" for a namedtuple. The
 * name is for messages; nested tuples can repeat a long element name, so it is cut. */
static const char *tuple_name(TypeTable *tt, const Type *t) {
  enum { MAX_NAME = 200 };
  StrBuf sb;
  sb_init(&sb, tt->arena);
  if (t->tuple_class) sb_puts(&sb, t->tuple_class);
  sb_putc(&sb, '(');
  for (int i = 0; i < t->nelems && sb.len < MAX_NAME; i++)
    sb_printf(&sb, "%s%.*s", i ? ", " : "", MAX_NAME, t->elems[i]->name);
  if (sb.len >= MAX_NAME) sb_puts(&sb, ", ...");
  sb_puts(&sb, t->nelems == 1 && !t->tuple_class ? ",)" : ")");
  return sb_str(&sb);
}

static const Type *intern_tuple(TypeTable *tt, const char *cls, const char *const *names,
                                const Type **elems, int n) {
  for (size_t i = 0; i < tt->tuples.len; i++)
    if (same_tuple(tt->tuples.items[i], cls, names, elems, n)) return tt->tuples.items[i];
  Type *t = arena_alloc(tt->arena, sizeof *t);
  t->kind = TY_TUPLE;
  t->nelems = n;
  t->elems = arena_dup(tt->arena, elems, (size_t)n * sizeof *elems);
  t->nest = 1;
  for (int i = 0; i < n; i++)
    if (elems[i]->kind == TY_TUPLE && elems[i]->nest + 1 > t->nest) t->nest = elems[i]->nest + 1;
  if (cls) {
    const char **copy = arena_alloc(tt->arena, sizeof *copy * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) copy[i] = arena_strdup(tt->arena, names[i]);
    t->tuple_class = arena_strdup(tt->arena, cls);
    t->field_names = copy;
  }
  t->name = tuple_name(tt, t);
  vec_push(tt->arena, &tt->tuples, t);
  return t;
}

const Type *type_tuple(TypeTable *tt, const Type **elems, int n) {
  return intern_tuple(tt, NULL, NULL, elems, n);
}

const Type *type_named_tuple(TypeTable *tt, const char *cls, const char *const *names,
                             const Type **elems, int n) {
  return intern_tuple(tt, cls, names, elems, n);
}

bool type_tuple_uniform(const Type *t) {
  for (int i = 1; i < t->nelems; i++)
    if (t->elems[i] != t->elems[0]) return false;
  return t->nelems > 0;
}

bool type_tuple_of_numbers(const Type *t) {
  for (int i = 0; i < t->nelems; i++) {
    const Type *e = t->elems[i];
    if (e->kind == TY_TUPLE ? !type_tuple_of_numbers(e) : !type_is_numeric(e) || e->enum_class) return false;
  }
  return true;
}

int type_tuple_field(const Type *t, const char *name) {
  for (int i = 0; t->field_names && i < t->nelems; i++)
    if (strcmp(t->field_names[i], name) == 0) return i;
  return -1;
}

const Type *type_uniform_tuple(TypeTable *tt, const Type *t, int n) {
  const Type *elems[P2C_MAX_NDIM * 4];
  assert(n >= 0 && n <= (int)(sizeof elems / sizeof elems[0]));
  for (int i = 0; i < n; i++) elems[i] = t;
  return type_tuple(tt, elems, n);
}

const Type *type_dtype(TypeTable *tt, const Type *scalar) {
  for (size_t i = 0; i < tt->dtypes.len; i++)
    if (tt->dtypes.items[i]->dtype == scalar) return tt->dtypes.items[i];
  Type *t = arena_alloc(tt->arena, sizeof *t);
  t->kind = TY_DTYPE;
  t->dtype = scalar;
  t->name = arena_printf(tt->arena, "class(%s)", scalar->name);
  vec_push(tt->arena, &tt->dtypes, t);
  return t;
}

const Type *type_enum(TypeTable *tt, const char *cls, const Type *value, bool is_int) {
  for (size_t i = 0; i < tt->enums.len; i++) {
    const Type *t = tt->enums.items[i];
    if (strcmp(t->enum_class, cls) == 0 && t->dtype == value && (t->kind == TY_INT) == is_int) return t;
  }
  Type *t = arena_alloc(tt->arena, sizeof *t);
  *t = *value;   /* held, passed and compared as its value */
  t->kind = is_int ? TY_INT : TY_ENUM;
  t->dtype = value;
  t->enum_class = cls;
  t->name = arena_printf(tt->arena, "%s<%s>(%s)", is_int ? "IntEnum" : "Enum", value->name, cls);
  vec_push(tt->arena, &tt->enums, t);
  return t;
}

/* ---- character sequences ---- */

const Type *type_charseq(TypeTable *tt, bool unicode, int64_t chars) {
  assert(chars >= 1 && chars <= TYPE_MAX_CHARS);
  for (size_t i = 0; i < tt->charseqs.len; i++)
    if (tt->charseqs.items[i]->unicode == unicode && tt->charseqs.items[i]->chars == chars)
      return tt->charseqs.items[i];
  Type *t = arena_alloc(tt->arena, sizeof *t);
  t->kind = TY_CHARSEQ;
  t->unicode = unicode;
  t->chars = chars;
  t->bits = (int)(chars * type_char_size(t) * 8);
  t->scalar = unicode ? P2C_UNICHARSEQ(chars) : P2C_CHARSEQ(chars);
  t->name = arena_printf(tt->arena, "[%s x %lld]", unicode ? "unichr" : "char", (long long)chars);
  t->cname = arena_printf(tt->arena, "p2c_%s<%lld>", unicode ? "unichars" : "chars", (long long)chars);
  vec_push(tt->arena, &tt->charseqs, t);
  return t;
}

/* ---- records ---- */

int64_t type_byte_size(const Type *t) {
  if (t->kind != TY_ARRAY) return t->bits / 8;
  int64_t n = t->dtype->bits / 8;
  for (int k = 0; k < t->ndim; k++) n *= t->fixed_shape[k];
  return n;
}

/* A scalar's alignment is its size, except complex numbers (their part's) and records. */
int type_alignment(const Type *t) {
  if (t->kind == TY_ARRAY) return type_alignment(t->dtype);
  if (t->kind == TY_RECORD) return t->align;
  if (t->kind == TY_COMPLEX) return t->bits / 16;
  if (t->kind == TY_CHARSEQ) return type_char_size(t);   /* NumPy's: 1 for S, 4 for U */
  return t->bits / 8;
}

size_t type_record_spell(char *buf, size_t cap, const P2cRecord *r) {
  size_t at = 0;
  if (cap) buf[0] = '\0';
  counted_appendf(buf, cap, &at, "Record(");
  for (size_t i = 0; i < r->field_count; i++) {
    const P2cRecordField *f = &r->fields[i];
    const Type *st = type_of_scalar(f->type);
    const char *t = st ? st->name : "?";
    bool unicode;
    int64_t chars;
    counted_appendf(buf, cap, &at, "%s%s[type=", i ? "," : "", f->name);
    if (f->ndim == 0 && p2c_dtype_charseq(f->type, &unicode, &chars))
      counted_appendf(buf, cap, &at, "[%s x %lld]", unicode ? "unichr" : "char", (long long)chars);
    else if (f->ndim == 0) counted_appendf(buf, cap, &at, "%s", t);
    else {   /* Numba's NestedArray: "nestedarray(uint8, (5,))" */
      counted_appendf(buf, cap, &at, "nestedarray(%s, (", t);
      for (int k = 0; k < f->ndim && k < P2C_MAX_NDIM; k++) counted_appendf(buf, cap, &at, "%s%lld", k ? ", " : "", (long long)f->shape[k]);
      counted_appendf(buf, cap, &at, f->ndim == 1 ? ",))" : "))");
    }
    counted_appendf(buf, cap, &at, ";offset=%lld]", (long long)f->offset);
  }
  counted_appendf(buf, cap, &at, ";%lld;%s)", (long long)r->itemsize, r->aligned ? "True" : "False");
  return at;
}

P2cRecord type_record_desc(Arena *a, const Type *t) {
  P2cRecordField *f = arena_alloc(a, sizeof *f * (size_t)(t->nfields ? t->nfields : 1));
  for (int i = 0; i < t->nfields; i++) {
    const Type *ft = t->fields[i].type;
    f[i].name = t->fields[i].name;
    f[i].offset = t->fields[i].offset;
    f[i].type = ft->kind == TY_ARRAY ? ft->dtype->scalar : ft->scalar;
    f[i].ndim = ft->kind == TY_ARRAY ? ft->ndim : 0;
    for (int k = 0; k < f[i].ndim; k++) f[i].shape[k] = ft->fixed_shape[k];
  }
  return (P2cRecord){.itemsize = t->bits / 8, .aligned = t->aligned, .field_count = (size_t)t->nfields, .fields = f};
}

static bool same_fields(const Type *r, const RecordField *f, int n) {
  if (r->nfields != n) return false;
  for (int i = 0; i < n; i++)
    if (r->fields[i].type != f[i].type || r->fields[i].offset != f[i].offset ||
        strcmp(r->fields[i].name, f[i].name) != 0)
      return false;
  return true;
}

const Type *type_record(TypeTable *tt, const RecordField *fields, int n, int64_t size, bool aligned) {
  for (size_t i = 0; i < tt->records.len; i++) {
    Type *t = tt->records.items[i];
    if (t->bits == size * 8 && t->aligned == aligned && same_fields(t, fields, n)) return t;
  }
  Type *t = arena_alloc(tt->arena, sizeof *t);
  t->kind = TY_RECORD;
  t->scalar = P2C_RECORD;
  t->bits = (int)(size * 8);
  t->aligned = aligned;
  t->align = 1;
  RecordField *copy = arena_alloc(tt->arena, sizeof *copy * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    copy[i] = fields[i];
    copy[i].name = arena_strdup(tt->arena, fields[i].name);
    if (type_alignment(fields[i].type) > t->align) t->align = type_alignment(fields[i].type);
  }
  t->fields = copy;
  t->nfields = n;
  P2cRecord desc = type_record_desc(tt->arena, t);
  size_t len = type_record_spell(NULL, 0, &desc);
  char *name = arena_alloc(tt->arena, len + 1);
  type_record_spell(name, len + 1, &desc);
  t->name = name;
  t->cname = arena_printf(tt->arena, "p2c_record_%zu", tt->records.len);
  vec_push(tt->arena, &tt->records, t);
  return t;
}

const char *record_layout_error(Arena *a, const RecordField *f, int n, int64_t size) {
  FieldPlace *places = arena_alloc(a, sizeof *places * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    const Type *t = f[i].type;
    places[i] = (FieldPlace){f[i].name, t->kind == TY_ARRAY ? t->dtype : t, 1, f[i].offset};
    for (int k = 0; t->kind == TY_ARRAY && k < t->ndim; k++) places[i].count *= t->fixed_shape[k];
  }
  return record_places_error(a, places, n, size);
}

const char *record_places_error(Arena *a, const FieldPlace *f, int n, int64_t size) {
  int align = 1;
  if (n == 0) return "a record needs at least one field";
  for (int i = 0; i < n; i++) {
    int64_t bytes = type_byte_size(f[i].scalar) * f[i].count;
    int al = type_alignment(f[i].scalar);
    if (f[i].offset < 0 || f[i].offset > size || bytes > size - f[i].offset)
      return arena_printf(a, "field '%s' does not fit in the record's %lld bytes", f[i].name, (long long)size);
    if (f[i].offset % al)   /* Numba's CUDA target refuses these too */
      return arena_printf(a, "field '%s' of type %s is not aligned (offset %lld; use np.dtype(..., "
                          "align=True))", f[i].name, f[i].scalar->name, (long long)f[i].offset);
    for (int j = 0; j < i; j++) {
      if (strcmp(f[i].name, f[j].name) == 0) return arena_printf(a, "field '%s' appears twice", f[i].name);
      if (f[i].offset < f[j].offset + type_byte_size(f[j].scalar) * f[j].count && f[j].offset < f[i].offset + bytes)
        return arena_printf(a, "fields '%s' and '%s' overlap", f[j].name, f[i].name);
    }
    if (al > align) align = al;
  }
  if (size % align)
    return arena_printf(a, "the itemsize %lld is not a multiple of the alignment %d of its widest field "
                        "(use np.dtype(..., align=True))", (long long)size, align);
  return NULL;
}

const RecordField *type_record_field(const Type *r, const char *name) {
  for (int i = 0; i < r->nfields; i++)
    if (strcmp(r->fields[i].name, name) == 0) return &r->fields[i];
  return NULL;
}

static const Type *int_type(int bits, bool is_signed) {
  switch (bits) {
  case 8: return is_signed ? &type_int8 : &type_uint8;
  case 16: return is_signed ? &type_int16 : &type_uint16;
  case 32: return is_signed ? &type_int32 : &type_uint32;
  default: return is_signed ? &type_int64 : &type_uint64;
  }
}

/* Booleans take part in arithmetic as small signed integers (True + True is int64 2). */
static const Type *as_int(const Type *t) { return t->kind == TY_BOOL ? &type_int8 : t; }

const Type *type_int_result(const Type *a, const Type *b) {
  a = as_int(a);
  b = as_int(b);
  int bits = a->bits > b->bits ? a->bits : b->bits;
  if (bits < 64) bits = 64;
  return int_type(bits, a->is_signed || b->is_signed);
}

/* NumPy's promotion of two integer types. */
static const Type *promote_ints(const Type *a, const Type *b) {
  if (a->is_signed == b->is_signed) return a->bits >= b->bits ? a : b;
  const Type *s = a->is_signed ? a : b, *u = a->is_signed ? b : a;
  if (s->bits > u->bits) return s;
  if (u->bits < 64) return int_type(u->bits * 2, true);
  return &type_float64;   /* uint64 with any signed integer */
}

/* The smallest float that holds every value of integer type t exactly enough for NumPy. */
static const Type *float_for_int(const Type *t) {
  return t->bits <= 16 ? &type_float32 : &type_float64;
}

const Type *type_complex_part(const Type *c) {
  return c == &type_complex64 ? &type_float32 : &type_float64;
}

const Type *type_complex_of(const Type *f) {
  return f == &type_float32 ? &type_complex64 : &type_complex128;
}

/* NumPy's promotion with a complex operand: the complex type whose parts hold the promotion
 * of the float parts with the other operand (complex64 with int16 stays complex64, with int32
 * or float64 becomes complex128). */
static const Type *promote_complex(const Type *a, const Type *b) {
  const Type *fa = a->kind == TY_COMPLEX ? type_complex_part(a) : a;
  const Type *fb = b->kind == TY_COMPLEX ? type_complex_part(b) : b;
  const Type *p = type_promote(fa, fb);
  if (!p) return NULL;   /* bfloat16 */
  return type_complex_of(p->kind == TY_FLOAT ? p : &type_float64);
}

/* NumPy's promotion with float16: it holds bools and 8-bit ints; 16-bit ints need float32,
 * wider ones float64; with another float type the wider wins. */
static const Type *promote_half(const Type *a, const Type *b) {
  if (type_is_alone(a) || type_is_alone(b)) return NULL;   /* bfloat16 and fp8 mix with nothing */
  const Type *o = a->kind == TY_HALF ? b : a;
  if (o->kind == TY_HALF || o->kind == TY_BOOL) return &type_float16;
  if (o->kind == TY_FLOAT) return o;
  return o->bits <= 8 ? &type_float16 : o->bits <= 16 ? &type_float32 : &type_float64;
}

const Type *type_promote(const Type *a, const Type *b) {
  if (a == b) return a;
  a = type_plain(a);
  b = type_plain(b);
  if (a->kind == TY_COMPLEX || b->kind == TY_COMPLEX) return promote_complex(a, b);
  if (a->kind == TY_HALF || b->kind == TY_HALF) return promote_half(a, b);
  if (a->kind == TY_BOOL) return b;
  if (b->kind == TY_BOOL) return a;
  if (a->kind == TY_INT && b->kind == TY_INT) return promote_ints(a, b);
  if (a->kind == TY_FLOAT && b->kind == TY_FLOAT) return a->bits >= b->bits ? a : b;
  const Type *f = a->kind == TY_FLOAT ? a : b, *i = a->kind == TY_FLOAT ? b : a;
  if (f == &type_float64) return f;
  return float_for_int(i);
}

/* NumPy's order of kinds for same_kind casting: b < u < i < f (float16 too) < c. */
static int kind_order(const Type *t) {
  switch (t->kind) {
  case TY_BOOL: return 0;
  case TY_INT: return t->is_signed ? 2 : 1;
  case TY_HALF:
  case TY_FLOAT: return 3;
  default: return 4;
  }
}

/* NumPy's casting rules, from the promotion above: a cast is safe exactly when promoting the two
 * types gives the target (NumPy's can_cast(a, b, 'safe') == (promote_types(a, b) == b) for every
 * pair of its number types, checked for NumPy 1.24 in test_types.c), and same_kind adds every
 * cast into the same or a later kind. */
bool type_can_cast(const Type *from, const Type *to, TypeCasting casting) {
  from = type_plain(from);
  to = type_plain(to);
  if (!type_is_numeric(from) || !type_is_numeric(to)) return from == to;
  switch (casting) {
  case CAST_NO:
  case CAST_EQUIV: return from == to;
  case CAST_SAFE: return type_promote(from, to) == to;
  case CAST_SAME_KIND: return type_promote(from, to) == to || kind_order(from) <= kind_order(to);
  case CAST_UNSAFE: return true;
  }
  return false;
}

bool type_compares_mixed_sign(const Type *a, const Type *b) {
  if (a->kind != TY_INT || b->kind != TY_INT || a->is_signed == b->is_signed) return false;
  const Type *u = a->is_signed ? b : a;
  return u->bits == 64;
}

Identity type_identity(const Type *a, const Type *b) {
  if (a != b) return ID_NEVER;
  if (a->kind == TY_ARRAY) return ID_BY_ADDRESS;
  if (a->kind == TY_RECORD) return ID_UNSUPPORTED;
  if (a->kind == TY_CHARSEQ) return ID_UNSUPPORTED;   /* Numba: "no default `is` implementation" */
  if (a->kind == TY_VOID) return ID_ALWAYS;   /* None is None */
  if (a->kind == TY_TUPLE) {   /* compared by == when its elements are */
    for (int k = 0; k < a->nelems; k++)
      if (type_identity(a->elems[k], a->elems[k]) != ID_BY_EQUALITY) return ID_NEVER;
    return ID_BY_EQUALITY;
  }
  return type_is_numeric(a) || a->kind == TY_ENUM || type_is_time(a) ? ID_BY_EQUALITY : ID_NEVER;
}

const Type *type_math_float(const Type **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i] != &type_float32) return &type_float64;
  return &type_float32;
}

/* Numba's arithmetic on float f and an integer or bool i: the float signature i converts to
 * safely (typeconv: bool, int8, uint8 and int16 to float32; wider ones, and uint16, whose path
 * goes through int32, only to float64). NumPy's promotion gives float32 for uint16 too, which
 * Numba does not: float32(1e8) - uint16(3) is 99999997.0, a float64 (fuzz.py --kind ops, seeds
 * 89, 94 and 100). */
static const Type *arith_float_int(const Type *f, const Type *i) {
  if (f != &type_float32) return f;
  return type_conversion(i->scalar, P2C_FLOAT32) <= CONV_SAFE ? &type_float32 : &type_float64;
}

bool type_charseq_parse(const char *s, size_t len, bool *unicode, int64_t *chars) {
  if (len && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) s++, len--;
  if (len < 2 || (s[0] != 'S' && s[0] != 'U' && s[0] != 'a')) return false;
  int64_t n = 0;
  for (size_t i = 1; i < len; i++) {
    if (s[i] < '0' || s[i] > '9' || n > TYPE_MAX_CHARS) return false;   /* checked before it grows */
    n = n * 10 + (s[i] - '0');
  }
  if (n < 1 || n > TYPE_MAX_CHARS) return false;
  *unicode = s[0] == 'U';
  *chars = n;
  return true;
}

const Type *type_arith(const Type *a, const Type *b) {
  if (a->kind == TY_COMPLEX || b->kind == TY_COMPLEX || a->kind == TY_HALF || b->kind == TY_HALF)
    return type_is_numeric(a) && type_is_numeric(b) ? type_promote(a, b) : NULL;
  if (!type_is_number(a) || !type_is_number(b)) return NULL;
  if (a->kind != TY_FLOAT && b->kind != TY_FLOAT) return type_int_result(a, b);
  if (a->kind == TY_FLOAT && b->kind == TY_FLOAT) return type_promote(a, b);
  return a->kind == TY_FLOAT ? arith_float_int(a, b) : arith_float_int(b, a);
}

const Type *type_unify(TypeTable *tt, const Type *a, const Type *b) {
  if (a == b) return a;
  if (type_is_numeric(a) && type_is_numeric(b)) return type_promote(a, b);
  if (a->kind == TY_ARRAY && b->kind == TY_ARRAY && a->dtype == b->dtype && a->ndim == b->ndim &&
      a->space == MEM_GLOBAL && b->space == MEM_GLOBAL)
    return type_array(tt, a->dtype, a->ndim, 'A', MEM_GLOBAL, NULL);
  if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && a->nelems == b->nelems) {
    const Type *elems[64];
    if (a->nelems > 64) return NULL;
    for (int i = 0; i < a->nelems; i++)
      if (!(elems[i] = type_unify(tt, a->elems[i], b->elems[i]))) return NULL;
    if (!a->tuple_class && !b->tuple_class) return type_tuple(tt, elems, a->nelems);
    /* a namedtuple unifies with one of its own class and fields only */
    if (!a->tuple_class || !b->tuple_class || !same_tuple(a, b->tuple_class, b->field_names, a->elems, a->nelems))
      return NULL;
    return type_named_tuple(tt, a->tuple_class, a->field_names, elems, a->nelems);
  }
  return NULL;
}

/* ---- array layouts in signatures ---- */

bool type_dim_contiguous(int ndim, char layout, int k) {
  return (layout == 'C' && k == ndim - 1) || (layout == 'F' && k == 0);
}

char type_layout_of_slices(int ndim, bool first_contiguous, bool last_contiguous) {
  if (ndim == 0) return 'C';   /* T[()]: a 0-d array is C, as Numba's typeof types np.array(5.0) */
  if (ndim > 1 && first_contiguous) return 'F';
  return last_contiguous ? 'C' : 'A';
}

/* NumPy's flags, as Numba's typeof reads them: an array without elements is both C and F
 * contiguous whatever its strides; otherwise each order asks that every extent but 1 have the
 * stride that order gives it. */
char type_layout_of_strides(int64_t itemsize, int ndim, const int64_t *shape, const int64_t *strides) {
  bool c = true, f = true;
  for (int k = 0; k < ndim; k++)
    if (shape[k] == 0) return 'C';
  int64_t expect = itemsize;
  for (int k = ndim; k-- > 0;) {
    if (shape[k] != 1 && strides[k] != expect) c = false;
    expect *= shape[k];
  }
  expect = itemsize;
  for (int k = 0; k < ndim; k++) {
    if (shape[k] != 1 && strides[k] != expect) f = false;
    expect *= shape[k];
  }
  return c ? 'C' : f ? 'F' : 'A';
}
