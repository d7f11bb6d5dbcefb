/* The one dispatcher: which specialization of a kernel takes a list of values, how a value
 * converts to a parameter, and the words for both, for every front (the CLI's `run` and
 * p2c_launch through launch.c, the Python package's launches through the public API).
 *
 * The rules are Numba's (numba/core/dispatcher.py and typeconv): a kernel specialized from its
 * arguments takes values of exactly its types and layouts (P2C_MATCH_EXACT); a kernel whose
 * decorator gives signatures takes any number for a number parameter, converted, and any array
 * layout for an 'A' parameter, and among the signatures that take the values, the one whose
 * conversions are best (P2C_MATCH_CONVERT). docs/python.md, "Signatures and conversions". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "types/types.h"
#include "util/buf.h"

/* ---- layouts and type names ---- */

char p2c_array_layout(int64_t itemsize, int ndim, const int64_t *shape, const int64_t *strides) {
  bool c = true, f = true;
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

/* The array an argument describes, wherever it lives: a device array is described by the same
 * fields, with its device address as the data pointer. */
P2cHostArray dispatch_array_of(const P2cValue *v) {
  if (!v->device_array) return v->array;
  const P2cDeviceArray *d = v->device_array;
  P2cHostArray a = {.dtype = d->dtype, .ndim = d->ndim, .data = (void *)(uintptr_t)d->data, .record = d->record};
  memcpy(a.shape, d->shape, sizeof a.shape);
  memcpy(a.strides, d->strides, sizeof a.strides);
  return a;
}

static char value_layout(const P2cValue *v) {
  P2cHostArray a = dispatch_array_of(v);
  return p2c_array_layout((int64_t)p2c_dtype_size(a.dtype, a.record), a.ndim, a.shape, a.strides);
}

/* Numba's name of a dtype: "float32", a record's "Record(...)", "[unichr x 12]". */
static void put_dtype(char *buf, size_t cap, size_t *at, P2cScalarType t, const P2cRecord *r) {
  bool unicode;
  int64_t chars;
  if (t == P2C_RECORD) *at += p2c_record_name(r, *at < cap ? buf + *at : NULL, *at < cap ? cap - *at : 0);
  else if (p2c_dtype_charseq(t, &unicode, &chars))
    counted_appendf(buf, cap, at, "[%s x %lld]", unicode ? "unichr" : "char", (long long)chars);
  else counted_appendf(buf, cap, at, "%s", p2c_scalar_name(t) ? p2c_scalar_name(t) : "?");
}

/* "[:, ::1]": the dimensions of an array of that layout. */
static void put_dims(char *buf, size_t cap, size_t *at, int ndim, char layout) {
  for (int k = 0; k < ndim; k++) {
    bool contig = (layout == 'C' && k == ndim - 1) || (layout == 'F' && k == 0);
    counted_appendf(buf, cap, at, "%s%s", k ? ", " : "[", contig ? "::1" : ":");
  }
  counted_appendf(buf, cap, at, "]");
}

/* "Tuple(" or "NamedTuple(Point, " before a tuple's elements (the signature grammar's). */
static void put_tuple_start(char *buf, size_t cap, size_t *at, const char *cls) {
  if (cls) counted_appendf(buf, cap, at, "NamedTuple(%s", cls);
  else counted_appendf(buf, cap, at, "Tuple(");
}

static void put_elem_start(char *buf, size_t cap, size_t *at, size_t i, const char *cls, const char *field) {
  if (cls) counted_appendf(buf, cap, at, ", %s=", field);
  else if (i) counted_appendf(buf, cap, at, ", ");
}

/* "Enum<" or "IntEnum<" before an Enum member's value type, ">(Cls)" after it. */
static void put_enum_start(char *buf, size_t cap, size_t *at, bool is_int) {
  counted_appendf(buf, cap, at, "%s<", is_int ? "IntEnum" : "Enum");
}

static void put_enum_end(char *buf, size_t cap, size_t *at, const char *cls) {
  counted_appendf(buf, cap, at, ">(%s)", cls);
}

void dispatch_put_value_type(char *buf, size_t cap, size_t *at, const P2cValue *v) {
  if (v->enum_class) {
    P2cValue value = *v;
    value.enum_class = NULL;
    put_enum_start(buf, cap, at, v->enum_is_int);
    dispatch_put_value_type(buf, cap, at, &value);
    put_enum_end(buf, cap, at, v->enum_class);
    return;
  }
  if (v->type == P2C_TUPLE) {
    put_tuple_start(buf, cap, at, v->tuple_class);
    for (size_t i = 0; i < v->elem_count; i++) {
      put_elem_start(buf, cap, at, i, v->tuple_class, v->tuple_class ? v->field_names[i] : NULL);
      dispatch_put_value_type(buf, cap, at, &v->elems[i]);
    }
    counted_appendf(buf, cap, at, ")");
    return;
  }
  P2cHostArray a = dispatch_array_of(v);
  put_dtype(buf, cap, at, v->type, a.record);
  if (v->is_array) put_dims(buf, cap, at, a.ndim, value_layout(v));
}

void dispatch_put_param_type(char *buf, size_t cap, size_t *at, const P2cParam *p) {
  if (p->enum_class) {
    P2cParam value = *p;
    value.enum_class = NULL;
    put_enum_start(buf, cap, at, p->enum_is_int);
    dispatch_put_param_type(buf, cap, at, &value);
    put_enum_end(buf, cap, at, p->enum_class);
    return;
  }
  if (p->type == P2C_TUPLE) {
    put_tuple_start(buf, cap, at, p->tuple_class);
    for (size_t i = 0; i < p->elem_count; i++) {
      put_elem_start(buf, cap, at, i, p->tuple_class, p->elems[i].name);
      dispatch_put_param_type(buf, cap, at, &p->elems[i]);
    }
    counted_appendf(buf, cap, at, ")");
    return;
  }
  put_dtype(buf, cap, at, p->type, p->record);
  if (p->is_array) put_dims(buf, cap, at, p->ndim, p->layout);
}

size_t p2c_value_type_name(const P2cValue *v, char *buf, size_t cap) {
  size_t at = 0;
  if (cap) buf[0] = '\0';
  dispatch_put_value_type(buf, cap, &at, v);
  return at;
}

/* ---- which specialization takes the values ---- */

static bool same_name(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

static bool is_time_type(P2cScalarType t) { return t >= P2C_DATETIME64 && t < P2C_SCALAR_TYPE_COUNT; }

static bool fits(P2cMatchPolicy policy, const P2cValue *v, const P2cParam *p);

/* A tuple fits a tuple parameter of as many elements, each fitting its element, of the same
 * namedtuple class and fields (or plain, as it is). */
static bool tuple_fits(P2cMatchPolicy policy, const P2cValue *v, const P2cParam *p) {
  if (v->type != p->type || v->elem_count != p->elem_count || !same_name(v->tuple_class, p->tuple_class))
    return false;
  for (size_t i = 0; i < v->elem_count; i++)
    if ((v->tuple_class && !same_name(v->field_names[i], p->elems[i].name)) ||
        !fits(policy, &v->elems[i], &p->elems[i]))
      return false;
  return true;
}

/* An Enum member fits a parameter of its class exactly, and, converting, an IntEnum member
 * fits an integer parameter (Numba passes its int). */
static bool enum_fits(P2cMatchPolicy policy, const P2cValue *v, const P2cParam *p) {
  if (same_name(v->enum_class, p->enum_class) && v->enum_is_int == p->enum_is_int && v->type == p->type &&
      (v->type != P2C_TUPLE || tuple_fits(policy, v, p)))
    return true;
  return policy == P2C_MATCH_CONVERT && v->enum_is_int && !p->enum_class && !p->is_array &&
         p->type != P2C_TUPLE && p->type != P2C_RECORD;
}

/* An array fits an array parameter of its dtype and ndim, laid out as the parameter says (an
 * 'A' parameter, converting, takes any layout, as Numba's Array.can_convert_to). */
static bool array_fits(P2cMatchPolicy policy, const P2cValue *v, const P2cParam *p) {
  P2cHostArray a = dispatch_array_of(v);
  if (v->type != p->type || a.ndim != p->ndim) return false;
  if (v->type == P2C_RECORD && !p2c_record_equal(a.record, p->record)) return false;
  char l = value_layout(v);
  return p->layout == l || (policy == P2C_MATCH_CONVERT && p->layout == 'A');
}

static bool fits(P2cMatchPolicy policy, const P2cValue *v, const P2cParam *p) {
  if (v->is_array != p->is_array) return false;
  if (v->enum_class || p->enum_class) return enum_fits(policy, v, p);
  if (v->type == P2C_TUPLE || p->type == P2C_TUPLE) return tuple_fits(policy, v, p);
  if (v->type == P2C_RECORD || p->type == P2C_RECORD)
    return !v->is_array ? v->type == p->type && p2c_record_equal(v->array.record, p->record)
                        : array_fits(policy, v, p);
  if (v->is_array) return array_fits(policy, v, p);
  if (is_time_type(v->type) || is_time_type(p->type)) return v->type == p->type;   /* none converts */
  return policy == P2C_MATCH_CONVERT || v->type == p->type;
}

/* How a value that fits parameter p converts to it: a scalar by Numba's rules (a pair without
 * one, complex to real, counts as unsafe here and is refused by p2c_value_convert), an array of
 * the parameter's own layout exactly, of another (into an 'A' parameter) safely; tuples and
 * records exactly. */
static TypeConversion conversion(const P2cValue *v, const P2cParam *p) {
  if (v->type == P2C_TUPLE || v->type == P2C_RECORD) return CONV_EXACT;
  if (v->is_array) return p->layout == value_layout(v) ? CONV_EXACT : CONV_SAFE;
  TypeConversion kind = type_conversion(v->type, p->type);
  return kind == CONV_NONE ? CONV_UNSAFE : kind;
}

static bool takes_all(P2cMatchPolicy policy, const P2cKernelInfo *k, const P2cValue *values, size_t n) {
  if (k->param_count != n) return false;
  for (size_t j = 0; j < n; j++)
    if (!fits(policy, &values[j], &k->params[j])) return false;
  return true;
}

/* Whether rating a (counts of each kind of conversion) is better than b: fewer unsafe
 * conversions, then fewer safe ones, then fewer promotions. */
static bool better_rating(const size_t *a, const size_t *b) {
  for (int kind = CONV_UNSAFE; kind > CONV_EXACT; kind--)
    if (a[kind] != b[kind]) return a[kind] < b[kind];
  return false;
}

/* "float64[::1], float64": the values' types, as the message names them. */
static void put_values(char *buf, size_t cap, size_t *at, const P2cValue *values, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i) counted_appendf(buf, cap, at, ", ");
    dispatch_put_value_type(buf, cap, at, &values[i]);
  }
}

/* "SIG: argument 'x' is float64[::1], where it takes float32[::1]": the first value that
 * specialization k does not take (or its count of parameters). */
static void put_misfit(char *buf, size_t cap, size_t *at, P2cMatchPolicy policy, const P2cKernelInfo *k,
                       const P2cValue *values, size_t n) {
  if (k->param_count != n) {
    counted_appendf(buf, cap, at, "%s takes %zu arguments", k->signature, k->param_count);
    return;
  }
  size_t i = 0;
  while (i + 1 < n && fits(policy, &values[i], &k->params[i])) i++;
  counted_appendf(buf, cap, at, "%s: argument '%s' is ", k->signature, k->params[i].name);
  dispatch_put_value_type(buf, cap, at, &values[i]);
  counted_appendf(buf, cap, at, ", where it takes ");
  dispatch_put_param_type(buf, cap, at, &k->params[i]);
}

static void explain_no_match(char *why, size_t cap, P2cMatchPolicy policy, const P2cKernelInfo *const *specs,
                             size_t nspecs, const P2cValue *values, size_t n) {
  size_t at = 0;
  if (!why || !cap) return;
  why[0] = '\0';
  counted_appendf(why, cap, &at, "no signature of kernel '%s' takes (", nspecs ? specs[0]->python_name : "?");
  put_values(why, cap, &at, values, n);
  counted_appendf(why, cap, &at, ")");
  for (size_t i = 0; i < nspecs && n > 0; i++) {
    counted_appendf(why, cap, &at, i ? "; " : ": ");
    put_misfit(why, cap, &at, policy, specs[i], values, n);
  }
}

int p2c_match_specialization(const P2cKernelInfo *const *specs, size_t nspecs, const P2cValue *values,
                             size_t count, P2cMatchPolicy policy, char *why, size_t why_cap) {
  int best = -1;
  size_t best_rating[CONV_NONE] = {0};
  for (size_t i = 0; i < nspecs; i++) {
    if (!takes_all(policy, specs[i], values, count)) continue;
    if (policy == P2C_MATCH_EXACT) return (int)i;
    size_t rating[CONV_NONE] = {0};
    for (size_t j = 0; j < count; j++) rating[conversion(&values[j], &specs[i]->params[j])]++;
    if (best < 0 || better_rating(rating, best_rating)) {
      best = (int)i;
      memcpy(best_rating, rating, sizeof rating);
    }
  }
  if (best < 0) explain_no_match(why, why_cap, policy, specs, nspecs, values, count);
  return best;
}

/* ---- converting a value to its parameter's type ---- */

static bool is_complex(P2cScalarType t) { return t == P2C_COMPLEX64 || t == P2C_COMPLEX128; }
static bool is_float(P2cScalarType t) { return t == P2C_FLOAT16 || t == P2C_FLOAT32 || t == P2C_FLOAT64; }
static bool is_integer(P2cScalarType t) { return t >= P2C_INT8 && t <= P2C_UINT64; }

static double as_double(const P2cValue *v) {
  if (v->type == P2C_BOOL) return v->scalar.b;
  if (is_complex(v->type)) return v->scalar.c[0];
  if (is_float(v->type)) return v->scalar.f;
  if (v->type >= P2C_UINT8 && v->type <= P2C_UINT64) return (double)v->scalar.u;
  return (double)v->scalar.i;
}

static bool refuse(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool refuse(char *why, size_t cap, const char *fmt, ...) {
  if (why && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
  }
  return false;
}

/* A float as Python's repr writes it: the shortest text that reads back as the same double,
 * "2.0" rather than "2", "1e+19", "nan", "inf". */
static void python_repr(double d, char *buf, size_t cap) {
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, cap, "%.*g", digits, d);
    if (strtod(buf, NULL) == d || d != d) break;
  }
  if (!strpbrk(buf, ".eni")) strncat(buf, ".0", cap - strlen(buf) - 1);
}

bool p2c_value_convert(P2cValue *v, P2cScalarType t, const char *param, char *why, size_t why_cap) {
  if (v->type == t) return true;
  const char *from = p2c_scalar_name(v->type) ? p2c_scalar_name(v->type) : "?";
  const char *to = p2c_scalar_name(t) ? p2c_scalar_name(t) : "?";
  if (is_time_type(v->type) || is_time_type(t) || v->is_array || (unsigned)t >= P2C_DATETIME64)
    return refuse(why, why_cap, "argument '%s': cannot convert %s to %s", param, from, to);
  if (is_complex(v->type) && !is_complex(t))   /* Numba has no conversion from complex */
    return refuse(why, why_cap, "argument '%s': cannot convert %s to %s", param, from, to);
  if (is_float(v->type) && is_integer(t)) {   /* ctypes' c_int64(2.5), Numba's, raises too */
    char text[40];
    python_repr(v->scalar.f, text, sizeof text);
    return refuse(why, why_cap, "argument '%s': a %s (%s) cannot be passed to the %s parameter "
                  "(Numba's CUDA target refuses it too); pass an integer, e.g. int(x)", param, from,
                  text, to);
  }
  double d = as_double(v);
  if (is_complex(t)) {
    if (!is_complex(v->type)) v->scalar.c[0] = d, v->scalar.c[1] = 0;
    if (t == P2C_COMPLEX64) {   /* its parts as float32, as Numba converts */
      v->scalar.c[0] = (float)v->scalar.c[0];
      v->scalar.c[1] = (float)v->scalar.c[1];
    }
  } else if (t == P2C_BOOL) {
    v->scalar.b = d != 0;
  } else if (t == P2C_FLOAT16) {
    v->scalar.f = p2c_float16_value(p2c_float16_bits(d));
  } else if (is_float(t)) {
    v->scalar.f = d;
  } else {   /* integers wrap to the width (bools are 0 or 1), as ctypes' c_int64 and friends */
    v->scalar.i = v->type == P2C_BOOL ? v->scalar.b : v->scalar.i;
  }
  v->type = t;
  return true;
}
