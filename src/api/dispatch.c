/* The one dispatcher: which specialization of a kernel takes a list of values, how a value
 * converts to a parameter, and the words for both, for every front (the CLI's `run` and
 * p2c_launch through launch.c, the Python package's launches through the public API).
 *
 * The rules are Numba's (numba/core/dispatcher.py and typeconv): a kernel specialized from its
 * arguments takes values of exactly its types and layouts (P2C_MATCH_EXACT); a kernel whose
 * decorator gives signatures takes any number for a number parameter, converted, and any array
 * layout for an 'A' parameter, and among the signatures that take the values, the one whose
 * conversions are best (P2C_MATCH_CONVERT); a @vectorize ufunc takes arrays of exactly a
 * signature's types and converts only scalars (P2C_MATCH_UFUNC, Numba's CUDA ufunc rule).
 * docs/python.md, "Signatures and conversions". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "types/types.h"
#include "util/buf.h"

/* ---- layouts and type names ---- */

char p2c_array_layout(int64_t itemsize, int ndim, const int64_t *shape, const int64_t *strides) {
  return type_layout_of_strides(itemsize, ndim, shape, strides);
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

/* ---- one description of a type, of a value or of a parameter ---- */

/* What the printer and the rules below read of a type: a value's (the type that takes it
 * exactly) or a parameter's (the type it declares), through the same questions, so that each
 * rule and the one printer are written once. Exactly one of v and p is set. */
typedef struct TypeOf {
  const P2cValue *v;
  const P2cParam *p;
} TypeOf;

static TypeOf of_value(const P2cValue *v) { return (TypeOf){v, NULL}; }
static TypeOf of_param(const P2cParam *p) { return (TypeOf){NULL, p}; }
static P2cScalarType ty_type(TypeOf t) { return t.v ? t.v->type : t.p->type; }
static bool ty_is_array(TypeOf t) { return t.v ? t.v->is_array : t.p->is_array; }
static const char *ty_enum(TypeOf t) { return t.v ? t.v->enum_class : t.p->enum_class; }
static bool ty_enum_is_int(TypeOf t) { return t.v ? t.v->enum_is_int : t.p->enum_is_int; }
static const char *ty_tuple_class(TypeOf t) { return t.v ? t.v->tuple_class : t.p->tuple_class; }
static size_t ty_elem_count(TypeOf t) { return t.v ? t.v->elem_count : t.p->elem_count; }
static TypeOf ty_elem(TypeOf t, size_t i) { return t.v ? of_value(&t.v->elems[i]) : of_param(&t.p->elems[i]); }

/* A namedtuple's field i (only a namedtuple has them). */
static const char *ty_field(TypeOf t, size_t i) { return t.v ? t.v->field_names[i] : t.p->elems[i].name; }

/* A record's description (a value's is its array's, or its device array's). */
static const P2cRecord *ty_record(TypeOf t) { return t.v ? dispatch_array_of(t.v).record : t.p->record; }

/* An array's ndim and layout (a value's layout from its strides). */
static int ty_ndim(TypeOf t) { return t.v ? dispatch_array_of(t.v).ndim : t.p->ndim; }
static char ty_layout(TypeOf t) { return t.v ? value_layout(t.v) : t.p->layout; }

/* ---- the one printer ---- */

/* Numba's name of a dtype: "float32", a record's "Record(...)", "[unichr x 12]". */
static void put_dtype(char *buf, size_t cap, size_t *at, P2cScalarType t, const P2cRecord *r) {
  bool unicode;
  int64_t chars;
  if (t == P2C_RECORD) *at += p2c_record_name(r, *at < cap ? buf + *at : NULL, *at < cap ? cap - *at : 0);
  else if (p2c_dtype_charseq(t, &unicode, &chars))
    counted_appendf(buf, cap, at, "[%s x %lld]", unicode ? "unichr" : "char", (long long)chars);
  else counted_appendf(buf, cap, at, "%s", p2c_scalar_name(t) ? p2c_scalar_name(t) : "?");
}

/* "[:, ::1]": the dimensions of an array of that layout (types.c's rule); "[()]" a 0-d array's. */
static void put_dims(char *buf, size_t cap, size_t *at, int ndim, char layout) {
  if (ndim == 0) counted_appendf(buf, cap, at, "[()");
  for (int k = 0; k < ndim; k++)
    counted_appendf(buf, cap, at, "%s%s", k ? ", " : "[", type_dim_contiguous(ndim, layout, k) ? "::1" : ":");
  counted_appendf(buf, cap, at, "]");
}

size_t p2c_array_dims(int ndim, char layout, char *buf, size_t cap) {
  size_t at = 0;
  if (cap) buf[0] = '\0';
  if (ndim < 0 || ndim > P2C_MAX_NDIM || !layout || !strchr("CFA", layout)) return 0;
  put_dims(buf, cap, &at, ndim, layout);
  return at;
}

char p2c_slices_layout(int ndim, bool first_contiguous, bool last_contiguous) {
  return type_layout_of_slices(ndim, first_contiguous, last_contiguous);
}

static void put_type(char *buf, size_t cap, size_t *at, TypeOf t, bool in_enum);

static bool same_name(const char *a, const char *b) { return a && b ? strcmp(a, b) == 0 : a == b; }

/* Whether a and b are one type (as the printer would write them alike). */
static bool ty_equal(TypeOf a, TypeOf b) {
  if (ty_type(a) != ty_type(b) || ty_is_array(a) != ty_is_array(b) || !same_name(ty_enum(a), ty_enum(b)) ||
      (ty_enum(a) && ty_enum_is_int(a) != ty_enum_is_int(b)))
    return false;
  if (ty_type(a) == P2C_RECORD && !p2c_record_equal(ty_record(a), ty_record(b))) return false;
  if (ty_is_array(a)) return ty_ndim(a) == ty_ndim(b) && ty_layout(a) == ty_layout(b);
  if (ty_type(a) != P2C_TUPLE) return true;
  if (ty_elem_count(a) != ty_elem_count(b) || !same_name(ty_tuple_class(a), ty_tuple_class(b))) return false;
  for (size_t i = 0; i < ty_elem_count(a); i++)
    if ((ty_tuple_class(a) && !same_name(ty_field(a, i), ty_field(b, i))) || !ty_equal(ty_elem(a, i), ty_elem(b, i)))
      return false;
  return true;
}

/* A plain tuple of one element type (Numba's UniTuple). */
static bool ty_uniform(TypeOf t) {
  if (ty_tuple_class(t) || ty_elem_count(t) == 0) return false;
  for (size_t i = 1; i < ty_elem_count(t); i++)
    if (!ty_equal(ty_elem(t, 0), ty_elem(t, i))) return false;
  return true;
}

/* "UniTuple(int64 x 2)", "Tuple(int64, float64)", "NamedTuple(Point, x=int64, y=int64)": as the
 * signature formatter writes a tuple type (sig.c format_tuple), which the grammar reads back. */
static void put_tuple(char *buf, size_t cap, size_t *at, TypeOf t) {
  const char *cls = ty_tuple_class(t);
  if (ty_uniform(t)) {
    counted_appendf(buf, cap, at, "UniTuple(");
    put_type(buf, cap, at, ty_elem(t, 0), false);
    counted_appendf(buf, cap, at, " x %zu)", ty_elem_count(t));
    return;
  }
  if (cls) counted_appendf(buf, cap, at, "NamedTuple(%s", cls);
  else counted_appendf(buf, cap, at, "Tuple(");
  for (size_t i = 0; i < ty_elem_count(t); i++) {
    if (cls) counted_appendf(buf, cap, at, ", %s=", ty_field(t, i));
    else if (i) counted_appendf(buf, cap, at, ", ");
    put_type(buf, cap, at, ty_elem(t, i), false);
  }
  counted_appendf(buf, cap, at, ")");
}

/* The type as a signature spells it; "Enum<T>(Cls)" or "IntEnum<int64>(Cls)" around an Enum
 * member's value type unless in_enum (the value type inside those brackets). */
static void put_type(char *buf, size_t cap, size_t *at, TypeOf t, bool in_enum) {
  if (ty_enum(t) && !in_enum) {
    counted_appendf(buf, cap, at, "%s<", ty_enum_is_int(t) ? "IntEnum" : "Enum");
    put_type(buf, cap, at, t, true);
    counted_appendf(buf, cap, at, ">(%s)", ty_enum(t));
  } else if (ty_type(t) == P2C_TUPLE) {
    put_tuple(buf, cap, at, t);
  } else {
    put_dtype(buf, cap, at, ty_type(t), ty_record(t));
    if (ty_is_array(t)) put_dims(buf, cap, at, ty_ndim(t), ty_layout(t));
  }
}

void dispatch_put_value_type(char *buf, size_t cap, size_t *at, const P2cValue *v) {
  put_type(buf, cap, at, of_value(v), false);
}

void dispatch_put_param_type(char *buf, size_t cap, size_t *at, const P2cParam *p) {
  put_type(buf, cap, at, of_param(p), false);
}

size_t p2c_value_type_name(const P2cValue *v, char *buf, size_t cap) {
  size_t at = 0;
  if (cap) buf[0] = '\0';
  dispatch_put_value_type(buf, cap, &at, v);
  return at;
}

/* ---- which specialization takes the values ---- */

/* The policies: the public two, and the one a launch checks its converted values by (the last
 * check before packing): exact types, an array of any layout for an 'A' parameter. */
enum { MATCH_AS_CONVERTED = P2C_MATCH_UFUNC + 1 };

static bool is_time_type(P2cScalarType t) { return t >= P2C_DATETIME64 && t < P2C_SCALAR_TYPE_COUNT; }

static bool fits(int policy, const P2cValue *v, const P2cParam *p);

/* A tuple fits a tuple parameter of as many elements, each fitting its element. Converting,
 * as Numba's BaseAnonymousTuple.can_convert_to: a plain tuple converts to a plain tuple element
 * by element, and a namedtuple only to its own type (the same class and fields, each element of
 * exactly the field's type); a plain tuple never to a namedtuple, nor a namedtuple to a plain one. */
static bool tuple_fits(int policy, const P2cValue *v, const P2cParam *p) {
  if (v->type != p->type || v->elem_count != p->elem_count || !same_name(v->tuple_class, p->tuple_class))
    return false;
  int elem_policy = policy == P2C_MATCH_CONVERT && v->tuple_class ? P2C_MATCH_EXACT : policy;
  for (size_t i = 0; i < v->elem_count; i++)
    if ((v->tuple_class && !same_name(v->field_names[i], p->elems[i].name)) ||
        !fits(elem_policy, &v->elems[i], &p->elems[i]))
      return false;
  return true;
}

/* An Enum member fits a parameter of its class exactly, and, converting, an IntEnum member
 * fits an integer parameter (Numba passes its int). */
static bool enum_fits(int policy, const P2cValue *v, const P2cParam *p) {
  if (same_name(v->enum_class, p->enum_class) && v->enum_is_int == p->enum_is_int && v->type == p->type &&
      (v->type != P2C_TUPLE || tuple_fits(policy, v, p)))
    return true;
  return policy == P2C_MATCH_CONVERT && v->enum_is_int && !p->enum_class && !p->is_array &&
         p->type != P2C_TUPLE && p->type != P2C_RECORD;
}

/* An array fits an array parameter of its dtype and ndim, laid out as the parameter says (an
 * 'A' parameter, converting, takes any layout, as Numba's Array.can_convert_to). */
static bool array_fits(int policy, const P2cValue *v, const P2cParam *p) {
  P2cHostArray a = dispatch_array_of(v);
  if (v->type != p->type || a.ndim != p->ndim) return false;
  if (v->type == P2C_RECORD && !p2c_record_equal(a.record, p->record)) return false;
  char l = value_layout(v);
  return p->layout == l || (policy != P2C_MATCH_EXACT && p->layout == 'A');
}

static bool fits(int policy, const P2cValue *v, const P2cParam *p) {
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

bool dispatch_takes_as_converted(const P2cParam *p, const P2cValue *v) { return fits(MATCH_AS_CONVERTED, v, p); }

/* How a value that fits parameter p converts to it: a scalar by Numba's rules (a pair without
 * one, complex to real, counts as unsafe here and is refused by p2c_value_convert), an array of
 * the parameter's own layout exactly, of another (into an 'A' parameter) safely; a plain tuple
 * as its worst element (Numba's max over the elements), a namedtuple and a record exactly. */
static TypeConversion conversion(const P2cValue *v, const P2cParam *p) {
  if (v->type == P2C_TUPLE && !v->tuple_class && !v->enum_class) {
    TypeConversion worst = CONV_EXACT;
    for (size_t i = 0; i < v->elem_count; i++) {
      TypeConversion kind = conversion(&v->elems[i], &p->elems[i]);
      if (kind > worst) worst = kind;
    }
    return worst;
  }
  if (v->type == P2C_TUPLE || v->type == P2C_RECORD || (v->enum_class && p->enum_class)) return CONV_EXACT;
  if (v->is_array) return p->layout == value_layout(v) ? CONV_EXACT : CONV_SAFE;
  TypeConversion kind = type_conversion(v->type, p->type);
  return kind == CONV_NONE ? CONV_UNSAFE : kind;
}

static bool takes_all(int policy, const P2cKernelInfo *k, const P2cValue *values, size_t n) {
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
  counted_appendf(why, cap, &at, "No matching definition of kernel '%s' for argument type(s) (", nspecs ? specs[0]->python_name : "?");
  put_values(why, cap, &at, values, n);
  counted_appendf(why, cap, &at, ")");
  for (size_t i = 0; i < nspecs && n > 0; i++) {
    counted_appendf(why, cap, &at, i ? "; " : ": ");
    put_misfit(why, cap, &at, policy, specs[i], values, n);
  }
}

/* ---- a ufunc's signature (P2C_MATCH_UFUNC) ----
 * Numba's rule (numba/np/ufunc/deviceufunc.py, UFuncMechanism._resolve_signature): a CUDA ufunc
 * converts no array, only scalars (to the chosen signature's type). */

/* Whether ufunc specialization k takes the inputs: every array of exactly its type, and, when
 * `scalars_exact`, every scalar of its own type too (a scalar's type is the one NumPy's asarray
 * gives it, which is how the fronts type scalars). */
static bool ufunc_takes(const P2cKernelInfo *k, const P2cValue *values, size_t n, bool scalars_exact) {
  if (k->param_count != n + 1) return false;
  for (size_t j = 0; j < n; j++)
    if ((values[j].is_array || scalars_exact) && values[j].type != k->params[j].type) return false;
  return true;
}

/* "float32(float32, float32): argument 'a' is int32, where it takes float32": the first input
 * of specialization k whose type it does not take as it is (or its count of inputs). */
static void put_ufunc_misfit(char *buf, size_t cap, size_t *at, const P2cKernelInfo *k,
                             const P2cValue *values, size_t n) {
  if (k->param_count != n + 1) {
    counted_appendf(buf, cap, at, "%s takes %zu inputs", k->signature, k->param_count - 1);
    return;
  }
  size_t i = 0;
  while (i + 1 < n && (!values[i].is_array || values[i].type == k->params[i].type)) i++;
  counted_appendf(buf, cap, at, "%s: argument '%s' is %s, where it takes %s", k->signature,
                  k->params[i].name, p2c_scalar_name(values[i].type) ? p2c_scalar_name(values[i].type) : "?",
                  p2c_scalar_name(k->params[i].type) ? p2c_scalar_name(k->params[i].type) : "?");
}

static int match_ufunc(const P2cKernelInfo *const *specs, size_t nspecs, const P2cValue *values,
                       size_t count, char *why, size_t why_cap) {
  bool any_scalar = false;
  for (size_t j = 0; j < count; j++) any_scalar |= !values[j].is_array;
  int found = -1, matches = 0;
  for (int scalars_exact = any_scalar; scalars_exact >= 0 && matches == 0; scalars_exact--)
    for (size_t i = 0; i < nspecs; i++)
      if (ufunc_takes(specs[i], values, count, scalars_exact) && matches++ == 0) found = (int)i;
  if (matches == 1) return found;
  if (why && why_cap) {
    size_t at = 0;
    why[0] = '\0';
    const char *name = nspecs ? specs[0]->python_name : "?";
    counted_appendf(why, why_cap, &at, "%s signature of ufunc '%s' takes (", matches ? "more than one" : "no", name);
    put_values(why, why_cap, &at, values, count);
    if (matches) {
      counted_appendf(why, why_cap, &at, "): the scalars' types decide none of them; give a scalar "
                      "as a NumPy scalar of the type wanted, e.g. np.float32(x) (Numba refuses the call too)");
      return -1;
    }
    counted_appendf(why, why_cap, &at, "); a CUDA ufunc takes arrays of exactly a signature's types, as "
                    "Numba's (NumPy's casting='no'): convert them first, e.g. a.astype(np.float64)");
    for (size_t i = 0; i < nspecs; i++) {
      counted_appendf(why, why_cap, &at, i ? "; " : ": ");
      put_ufunc_misfit(why, why_cap, &at, specs[i], values, count);
    }
  }
  return -1;
}

/* Rates specialization k for the values: how many of them each kind of conversion takes. */
static void rate(const P2cKernelInfo *k, const P2cValue *values, size_t n, size_t rating[CONV_NONE]) {
  memset(rating, 0, sizeof(size_t) * CONV_NONE);
  for (size_t j = 0; j < n; j++) rating[conversion(&values[j], &k->params[j])]++;
}

/* Numba's ambiguity TypeError (its typing context's resolve_overload, which its CUDA dispatcher
 * calls with allow_ambiguous=False): "Ambiguous overloading for kernel 'K' (argument types):"
 * and each best-rated signature on a line of its own, "(types) -> none", in their order. */
static void explain_ambiguous(char *why, size_t cap, const P2cKernelInfo *const *specs, size_t nspecs,
                              const P2cValue *values, size_t n, const size_t *best_rating) {
  size_t at = 0, rating[CONV_NONE];
  if (!why || !cap) return;
  why[0] = '\0';
  counted_appendf(why, cap, &at, "Ambiguous overloading for kernel '%s' (", specs[0]->python_name);
  put_values(why, cap, &at, values, n);
  counted_appendf(why, cap, &at, "):");
  for (size_t i = 0; i < nspecs; i++) {
    if (!takes_all(P2C_MATCH_CONVERT, specs[i], values, n)) continue;
    rate(specs[i], values, n, rating);
    if (memcmp(rating, best_rating, sizeof rating) != 0) continue;
    counted_appendf(why, cap, &at, "\n(");
    for (size_t j = 0; j < n; j++) {
      if (j) counted_appendf(why, cap, &at, ", ");
      dispatch_put_param_type(why, cap, &at, &specs[i]->params[j]);
    }
    counted_appendf(why, cap, &at, ") -> none");
  }
}

int p2c_match_specialization(const P2cKernelInfo *const *specs, size_t nspecs, const P2cValue *values,
                             size_t count, P2cMatchPolicy policy, char *why, size_t why_cap) {
  if (policy == P2C_MATCH_UFUNC) return match_ufunc(specs, nspecs, values, count, why, why_cap);
  int best = -1;
  bool tied = false;
  size_t best_rating[CONV_NONE] = {0};
  for (size_t i = 0; i < nspecs; i++) {
    if (!takes_all(policy, specs[i], values, count)) continue;
    if (policy == P2C_MATCH_EXACT) return (int)i;
    size_t rating[CONV_NONE];
    rate(specs[i], values, count, rating);
    if (best < 0 || better_rating(rating, best_rating)) {
      best = (int)i;
      tied = false;
      memcpy(best_rating, rating, sizeof rating);
    } else if (!better_rating(best_rating, rating)) {
      tied = true;   /* rated as the best so far: ambiguous unless a better one comes */
    }
  }
  if (best < 0) explain_no_match(why, why_cap, policy, specs, nspecs, values, count);
  if (tied) explain_ambiguous(why, why_cap, specs, nspecs, values, count, best_rating);
  return tied ? -1 : best;
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
