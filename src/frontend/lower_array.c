/* Module-level NumPy arrays built from literals, evaluated at compile time.
 *
 * Numba freezes a global NumPy array into the kernel as a constant, and cuda.const.array_like
 * puts one into constant memory. Here the array's constructor is evaluated the way NumPy
 * would: np.array / np.asarray of nested lists or tuples of constant numbers, np.arange,
 * np.zeros, np.ones, np.full, each with an optional dtype, and the methods .reshape and
 * .astype on the result. Anything else (np.random, np.linspace, arrays read from files) cannot
 * be known before the kernel runs; the reason is kept, and reported if a kernel uses the name.
 *
 * Values follow NumPy: an int that does not fit the requested dtype is refused here (NumPy 2
 * raises OverflowError), as is a float to an integer dtype that is out of range; .astype
 * converts with C's wrapping, as NumPy does. Sizes are bounded by constant memory (64 KiB). */
#include <math.h>
#include <string.h>

#include "frontend/lower.h"

enum { MAX_CONST_BYTES = 64 * 1024, MAX_ELEMENTS = MAX_CONST_BYTES, MAX_RECORD_FIELDS = 64 };

typedef enum NumKind { NUM_BOOL, NUM_INT, NUM_UINT, NUM_FLOAT, NUM_COMPLEX } NumKind;

/* A Python number: NUM_UINT is an int above INT64_MAX (its bits in i); NUM_COMPLEX has its
 * real part in f, its imaginary part in im. */
typedef struct Num {
  NumKind kind;
  int64_t i;
  double f, im;
} Num;

/* An array under construction: values as Python numbers until the dtype is applied. */
typedef struct Build {
  Lowerer *L;
  const RecordDtype *record; /* an array of records: its dtype, the items in `bytes` */
  unsigned char *bytes;
  const char *why;           /* first reason the constructor cannot be evaluated */
  Num *v;
  int64_t count, cap;
  int ndim;
  int64_t shape[P2C_MAX_NDIM];
  const Type *dtype;         /* NULL: NumPy's default for the values */
} Build;

static bool fail(Build *b, const char *why) {
  if (!b->why) b->why = why;
  return false;
}

static Num num_of_literal(const Expr *e) {
  Num n = {NUM_INT, e->ival, 0, 0};
  if (e->kind == EX_FLOAT) n.kind = NUM_FLOAT, n.f = e->fval;
  else if (e->kind == EX_IMAG) n.kind = NUM_COMPLEX, n.i = 0, n.f = e->real, n.im = e->fval;
  else if (e->kind == EX_BOOL) n.kind = NUM_BOOL;
  else if (e->is_unsigned_literal) n.kind = NUM_UINT, n.i = (int64_t)e->uval;
  return n;
}

static double num_as_double(Num n) {
  if (n.kind == NUM_FLOAT || n.kind == NUM_COMPLEX) return n.f;
  return n.kind == NUM_UINT ? (double)(uint64_t)n.i : (double)n.i;
}

/* Room for `extra` more values (capacity doubles, so list literals stay linear). */
static bool grow(Build *b, int64_t extra) {
  if (b->count + extra > MAX_ELEMENTS) return fail(b, "it has more elements than constant memory (64 KiB) can hold");
  if (b->count + extra <= b->cap) return true;
  int64_t cap = b->cap ? b->cap : 16;
  while (cap < b->count + extra) cap *= 2;
  Num *v = arena_alloc(b->L->a, sizeof *v * (size_t)cap);
  if (b->count) memcpy(v, b->v, sizeof *v * (size_t)b->count);
  b->v = v;
  b->cap = cap;
  return true;
}

/* ---- dtypes ---- */

/* A dtype argument: np.float32, numba.int32, float/int/bool, or a string such as 'f4'. */
const Type *lower_dtype_of(Lowerer *L, TSNode n) {
  if (node_is(L, n, K_string)) {
    const char *s;
    size_t len;
    if (!lower_string_value(L, n, &s, &len)) return NULL;
    const Type *t = strlen(s) == len ? type_scalar_by_name(s) : NULL;
    return t && t->kind != TY_VOID ? t : NULL;
  }
  Resolved r;
  if (!resolve_dotted(L, n, &r) || !r.builtin) return NULL;
  bool scalar = r.builtin->kind == BK_TYPE || r.builtin->id == BI_CAST;   /* np.float32, float */
  return scalar && r.builtin->result != &type_void ? r.builtin->result : NULL;
}

static const Type *dtype_of(Build *b, TSNode n) { return lower_dtype_of(b->L, n); }

/* NumPy's dtype for a list of Python numbers (NumPy 1.24, which Numba runs with): each int is
 * int64, or uint64 above INT64_MAX, and the list's dtype their promotion, bool < int64 < float64
 * < complex128, with int64 and uint64 together float64 (np.array([2**63, 1]) is float64, as is
 * np.array([2**63, -1])); float64 for no numbers at all (np.array([]), np.array([[], []])). */
static const Type *default_dtype(Build *b) {
  if (b->count == 0) return &type_float64;
  bool any_complex = false, any_float = false, any_int = false, any_uint = false;
  for (int64_t k = 0; k < b->count; k++) {
    Num n = b->v[k];
    any_complex |= n.kind == NUM_COMPLEX;
    any_float |= n.kind == NUM_FLOAT;
    any_int |= n.kind == NUM_INT;
    any_uint |= n.kind == NUM_UINT;
  }
  if (any_complex) return &type_complex128;
  if (any_float || (any_uint && any_int)) return &type_float64;
  if (any_uint) return &type_uint64;
  return any_int ? &type_int64 : &type_bool;
}

/* Whether integer n fits integer type t. */
static bool int_fits(Num n, const Type *t) {
  if (n.kind == NUM_UINT) return !t->is_signed && t->bits == 64;
  int64_t v = n.i;
  if (t->is_signed) {
    int64_t lim = t->bits == 64 ? INT64_MAX : ((int64_t)1 << (t->bits - 1)) - 1;
    return v >= -lim - 1 && v <= lim;
  }
  return v >= 0 && (t->bits == 64 || v <= ((int64_t)1 << t->bits) - 1);
}

/* Wraps integer bits into type t, as a C cast does. */
static int64_t wrap_int(uint64_t bits, const Type *t) {
  if (t->bits == 64) return (int64_t)bits;
  uint64_t m = ((uint64_t)1 << t->bits) - 1;
  bits &= m;
  if (t->is_signed && (bits >> (t->bits - 1)) & 1) return (int64_t)(bits | ~m);
  return (int64_t)bits;
}

/* n converted to dtype t. `wrap`: integers wrap as in .astype; otherwise they must fit. */
static bool convert(Build *b, Num n, const Type *t, bool wrap, Num *out) {
  if (t->kind == TY_COMPLEX) {
    double re = num_as_double(n), im = n.kind == NUM_COMPLEX ? n.im : 0;
    if (n.kind == NUM_INT && t == &type_complex64) re = (float)n.i;   /* one rounding */
    else if (n.kind == NUM_UINT && t == &type_complex64) re = (float)(uint64_t)n.i;
    else if (t == &type_complex64) re = (float)re, im = (float)im;
    *out = (Num){NUM_COMPLEX, 0, re, im};
    return true;
  }
  if (n.kind == NUM_COMPLEX) {   /* .astype drops the imaginary part (NumPy warns); np.array refuses */
    if (!wrap) return fail(b, "a complex value cannot be converted to a real dtype (NumPy refuses it)");
    n = (Num){NUM_FLOAT, 0, n.f, 0};
  }
  if (t->kind == TY_BOOL) {
    *out = (Num){NUM_BOOL, n.kind == NUM_FLOAT ? n.f != 0 : n.i != 0, 0, 0};
    return true;
  }
  if (t->kind == TY_FLOAT) {
    double d = num_as_double(n);
    if (n.kind == NUM_INT && t == &type_float32) d = (float)n.i;      /* one rounding */
    else if (n.kind == NUM_UINT && t == &type_float32) d = (float)(uint64_t)n.i;
    else if (t == &type_float32) d = (float)d;
    *out = (Num){NUM_FLOAT, 0, d, 0};
    return true;
  }
  Num r = n;
  if (n.kind == NUM_FLOAT) {
    double f = trunc(n.f);
    bool in_range = t->is_signed ? f >= -9223372036854775808.0 && f < 9223372036854775808.0
                                 : f >= 0 && f < 18446744073709551616.0;
    if (!in_range) return fail(b, "a float value is out of range for its integer dtype");
    r = f >= 9223372036854775808.0 ? (Num){NUM_UINT, (int64_t)(uint64_t)f, 0, 0} : (Num){NUM_INT, (int64_t)f, 0, 0};
  }
  if (r.kind == NUM_BOOL) r.kind = NUM_INT;
  if (!wrap && n.kind != NUM_FLOAT && !int_fits(r, t))
    return fail(b, "a value does not fit its dtype (NumPy refuses it)");
  if (!wrap && n.kind == NUM_FLOAT && !int_fits(r, t)) return fail(b, "a float value is out of range for its integer dtype");
  int64_t v = wrap_int((uint64_t)r.i, t);
  *out = (Num){!t->is_signed && t->bits == 64 && v < 0 ? NUM_UINT : NUM_INT, v, 0, 0};
  return true;
}

static bool apply_dtype(Build *b, const Type *t, bool wrap) {
  for (int64_t k = 0; k < b->count; k++)
    if (!convert(b, b->v[k], t, wrap, &b->v[k])) return false;
  b->dtype = t;
  return true;
}

/* ---- arguments ---- */

typedef struct Args {
  TSNode pos[8];
  int npos;
  TSNode dtype;
  bool has_dtype;
} Args;

static bool split_args(Build *b, TSNode call, Args *a) {
  TSNode kids[16];
  int k = node_kids(b->L, ts_node_child_by_field_name(call, "arguments", 9), kids, 16);
  memset(a, 0, sizeof *a);
  if (k > 16) return fail(b, "the call has too many arguments");
  for (int i = 0; i < k; i++) {
    if (node_is(b->L, kids[i], K_keyword_argument)) {
      char *name = node_str(b->L, ts_node_child_by_field_name(kids[i], "name", 4));
      if (strcmp(name, "dtype") != 0) return fail(b, "the call has a keyword other than dtype=");
      a->dtype = ts_node_child_by_field_name(kids[i], "value", 5);
      a->has_dtype = true;
    } else if (a->npos < 8 && !node_is(b->L, kids[i], K_list_splat) && !node_is(b->L, kids[i], K_dictionary_splat)) {
      a->pos[a->npos++] = kids[i];
    } else {
      return fail(b, "the call's arguments are not plain values");
    }
  }
  return true;
}

static bool complex_value(Build *b, TSNode n, Num *out, int depth);

/* A real number, or an imaginary literal (2j) as a complex one. */
static bool complex_part(Build *b, TSNode n, Num *out, int depth) {
  Lowerer *L = b->L;
  if (node_is(L, n, K_integer) || node_is(L, n, K_float)) {
    Expr *e = lower_expr(L, n);
    if (e && e->kind == EX_IMAG) return *out = (Num){NUM_COMPLEX, 0, e->real, e->fval}, true;
  }
  if ((node_is(L, n, K_unary_operator) || node_is(L, n, K_parenthesized_expression)) &&
      complex_value(b, n, out, depth + 1))
    return true;
  const Type *np;
  Expr *e = fold_const_expr(L, n, &np);
  if (!e || np || e->kind == EX_TUPLE) return false;
  *out = num_of_literal(e);
  return true;
}

/* A complex number as Python's repr writes one in a list (what the Python package gives for a
 * complex NumPy array: `(0.5-1.5j)`, `-2j`): a real number plus or minus an imaginary literal,
 * with Python's arithmetic (a - bj has the imaginary part 0.0 - b), and unary minus. */
static bool complex_value(Build *b, TSNode n, Num *out, int depth) {
  Lowerer *L = b->L;
  if (depth > 8) return false;
  if (node_is(L, n, K_parenthesized_expression)) {
    TSNode inner[2];
    return node_kids(L, n, inner, 2) == 1 && complex_value(b, inner[0], out, depth + 1);
  }
  if (node_is(L, n, K_unary_operator)) {
    const char *op = ts_node_type(lower_field(L, n, F_operator));
    Num v;
    if (op[0] != '-' || !complex_part(b, lower_field(L, n, F_argument), &v, depth) || v.kind != NUM_COMPLEX) return false;
    return *out = (Num){NUM_COMPLEX, 0, -v.f, -v.im}, true;
  }
  Num x, y;
  if (!node_is(L, n, K_binary_operator)) return complex_part(b, n, out, depth) && out->kind == NUM_COMPLEX;
  const char *op = ts_node_type(lower_field(L, n, F_operator));
  if ((op[0] != '+' && op[0] != '-') || op[1] || !complex_part(b, lower_field(L, n, F_left), &x, depth) ||
      !complex_part(b, lower_field(L, n, F_right), &y, depth) || (x.kind != NUM_COMPLEX && y.kind != NUM_COMPLEX))
    return false;
  double xr = num_as_double(x), xi = x.kind == NUM_COMPLEX ? x.im : 0;
  double yr = num_as_double(y), yi = y.kind == NUM_COMPLEX ? y.im : 0;
  *out = op[0] == '+' ? (Num){NUM_COMPLEX, 0, xr + yr, xi + yi} : (Num){NUM_COMPLEX, 0, xr - yr, xi - yi};
  return true;
}

/* A constant number argument (literals, module constants and their arithmetic), or a complex
 * number as Python writes one. */
static bool number_arg(Build *b, TSNode n, Num *out) {
  if (complex_value(b, n, out, 0)) return true;
  const Type *np;
  Expr *e = fold_const_expr(b->L, n, &np);
  /* A NumPy scalar would bring its dtype into NumPy's choice of the array's: not modelled. */
  if (np) return fail(b, "an argument is a NumPy scalar (give the dtype= instead)");
  if (!e || e->kind == EX_TUPLE) return fail(b, "an argument is not a constant number");
  *out = num_of_literal(e);
  return true;
}

/* A shape: a constant int or a tuple of them. */
static bool shape_arg(Build *b, TSNode n, int *ndim, int64_t *shape) {
  const Type *np;
  Expr *e = fold_const_expr(b->L, n, &np);
  if (!e) return fail(b, "the shape is not a constant int or tuple of ints");
  int k = e->kind == EX_TUPLE ? e->nkids : 1;
  if (k > P2C_MAX_NDIM) return fail(b, "it has more than 8 dimensions");
  int64_t total = 1;
  for (int i = 0; i < k; i++) {
    const Expr *d = e->kind == EX_TUPLE ? e->kids[i] : e;
    if (d->kind != EX_INT || d->is_unsigned_literal || d->ival < 0 || d->ival > MAX_ELEMENTS)
      return fail(b, "the shape is not a tuple of small non-negative ints");
    shape[i] = d->ival;
    total *= d->ival;
    if (total > MAX_ELEMENTS) return fail(b, "it has more elements than constant memory (64 KiB) can hold");
  }
  *ndim = k;
  return true;
}

/* ---- constructors ---- */

/* The nested list or tuple at n, at nesting depth `depth` (its extent recorded or checked). */
static bool gather(Build *b, TSNode n, int depth) {
  bool seq = node_is(b->L, n, K_list) || node_is(b->L, n, K_tuple);
  if (node_is(b->L, n, K_parenthesized_expression)) {
    TSNode inner[2];
    if (node_kids(b->L, n, inner, 2) == 1) return gather(b, inner[0], depth);
  }
  if (!seq) {
    if (depth != b->ndim) return fail(b, "its nested lists are not rectangular");
    Num v;
    if (!number_arg(b, n, &v) || !grow(b, 1)) return false;
    b->v[b->count++] = v;
    return true;
  }
  if (depth >= P2C_MAX_NDIM) return fail(b, "it has more than 8 dimensions");
  TSNode items[256];
  int k = node_kids(b->L, n, items, 256);
  if (k > 256) return fail(b, "a list literal has more than 256 elements (use np.arange or np.full)");
  if (depth == b->ndim && b->count == 0) b->shape[b->ndim++] = k;
  else if (depth >= b->ndim || b->shape[depth] != k) return fail(b, "its nested lists are not rectangular");
  for (int i = 0; i < k; i++)
    if (!gather(b, items[i], depth + 1)) return false;
  return true;
}

static bool build_array(Build *b, const Args *a) {
  if (a->npos < 1 || a->npos > 2) return fail(b, "np.array takes the values and optionally a dtype");
  return gather(b, a->pos[0], 0);   /* np.array(5.0): a 0-d array, of shape () */
}

/* np.arange(stop), (start, stop), (start, stop, step), as NumPy fills it: the first two values
 * converted to the dtype, then start + i * (second - start) in the dtype's arithmetic. */
static bool build_arange(Build *b, const Args *a, const Type **default_t) {
  Num p[3] = {{NUM_INT, 0, 0, 0}, {NUM_INT, 0, 0, 0}, {NUM_INT, 1, 0, 0}};
  if (a->npos < 1 || a->npos > 3) return fail(b, "np.arange takes 1 to 3 numbers");
  for (int i = 0; i < a->npos; i++)
    if (!number_arg(b, a->pos[i], &p[a->npos == 1 ? 1 : i])) return false;
  bool floats = false;
  for (int i = 0; i < 3; i++) {
    if (p[i].kind == NUM_UINT) return fail(b, "np.arange arguments beyond int64 are not supported");
    if (p[i].kind == NUM_COMPLEX) return fail(b, "np.arange of complex numbers is not evaluated");
    floats |= p[i].kind == NUM_FLOAT;
  }
  double start = num_as_double(p[0]), step = num_as_double(p[2]);
  if (step == 0) return fail(b, "np.arange step is zero");
  double len = ceil((num_as_double(p[1]) - start) / step);
  if (isnan(len)) return fail(b, "np.arange cannot compute its length (NumPy raises ValueError)");
  if (len > MAX_ELEMENTS) return fail(b, "it has more elements than constant memory (64 KiB) can hold");
  int64_t n = len >= 1 ? (int64_t)len : 0;   /* NumPy: an empty range is an empty array */
  *default_t = floats ? &type_float64 : &type_int64;
  const Type *t = b->dtype ? b->dtype : *default_t;
  if (t->kind == TY_COMPLEX) return fail(b, "np.arange with a complex dtype is not evaluated");
  if (!grow(b, n)) return false;
  Num second = floats ? (Num){NUM_FLOAT, 0, start + step, 0} : (Num){NUM_INT, p[0].i + p[2].i, 0, 0};
  Num v0, v1;
  if (!convert(b, p[0], t, false, &v0) || !convert(b, second, t, false, &v1)) return false;
  for (int64_t i = 0; i < n; i++) {
    Num v = v0;
    if (t == &type_float32) v.f = (float)((float)v0.f + (float)i * (float)((float)v1.f - (float)v0.f));
    else if (t->kind == TY_FLOAT) v.f = v0.f + (double)i * (v1.f - v0.f);
    else if (t->kind == TY_BOOL) v.i = i == 0 ? v0.i : v1.i;
    else v.i = wrap_int((uint64_t)v0.i + (uint64_t)i * ((uint64_t)v1.i - (uint64_t)v0.i), t);
    b->v[b->count++] = v;
  }
  b->ndim = 1;
  b->shape[0] = n;
  return true;
}

/* np.zeros(shape), np.ones(shape), np.full(shape, value): `nvals` is 0, or 1 for full's value;
 * a positional argument after them is the dtype. */
static bool build_filled(Build *b, const Args *a, int nvals, Num fill, const Type **default_t) {
  if (a->npos < 1 + nvals || a->npos > 2 + nvals) return fail(b, "the call has the wrong number of arguments");
  if (nvals && !number_arg(b, a->pos[1], &fill)) return false;
  if (a->npos == 2 + nvals && !(b->dtype = dtype_of(b, a->pos[1 + nvals])))
    return fail(b, "its dtype is not a scalar type such as np.float32");
  if (!shape_arg(b, a->pos[0], &b->ndim, b->shape)) return false;
  int64_t n = 1;
  for (int i = 0; i < b->ndim; i++) n *= b->shape[i];
  if (!grow(b, n)) return false;   /* n may be 0: an empty array, as NumPy makes it */
  for (int64_t i = 0; i < n; i++) b->v[b->count++] = fill;
  *default_t = !nvals ? &type_float64
               : fill.kind == NUM_COMPLEX ? &type_complex128
               : fill.kind == NUM_FLOAT ? &type_float64 : fill.kind == NUM_BOOL ? &type_bool
               : fill.kind == NUM_UINT ? &type_uint64 : &type_int64;
  return true;
}

/* ---- methods ---- */

static bool reshape(Build *b, const Args *a) {
  int64_t dims[P2C_MAX_NDIM];
  int nd = 0;
  if (a->has_dtype || a->npos < 1) return fail(b, ".reshape needs the new shape");
  for (int i = 0; i < a->npos; i++) {
    const Type *np;
    Expr *e = fold_const_expr(b->L, a->pos[i], &np);
    int k = e && e->kind == EX_TUPLE ? e->nkids : 1;
    for (int j = 0; e && j < k; j++) {
      const Expr *d = e->kind == EX_TUPLE ? e->kids[j] : e;
      if (nd == P2C_MAX_NDIM || d->kind != EX_INT || d->is_unsigned_literal || d->ival < -1)
        return fail(b, ".reshape needs constant non-negative ints (one may be -1)");
      dims[nd++] = d->ival;
    }
    if (!e) return fail(b, ".reshape needs a constant shape");
  }
  int64_t known = 1, unknown = -1;
  for (int i = 0; i < nd; i++) {
    if (dims[i] == -1) {
      if (unknown >= 0) return fail(b, ".reshape has more than one -1");
      unknown = i;
    } else if ((known *= dims[i]) > MAX_ELEMENTS) {
      return fail(b, ".reshape to a shape that does not match the size");
    }
  }
  if (unknown >= 0) {   /* NumPy cannot infer -1 beside a zero extent, even for an empty array */
    if (known == 0 || b->count % known != 0) return fail(b, ".reshape to a shape that does not match the size");
    dims[unknown] = b->count / known, known = b->count;
  }
  if (known != b->count) return fail(b, ".reshape to a shape that does not match the size");
  b->ndim = nd;
  memcpy(b->shape, dims, sizeof dims[0] * (size_t)nd);
  return true;
}

static bool eval_array(Build *b, TSNode n);

/* x.reshape(...), x.astype(dtype) on an array expression x. */
static bool eval_method(Build *b, TSNode callee, const Args *a) {
  char *name = node_str(b->L, ts_node_child_by_field_name(callee, "attribute", 9));
  bool is_reshape = strcmp(name, "reshape") == 0, is_astype = strcmp(name, "astype") == 0;
  if (!is_reshape && !is_astype) return fail(b, "only .reshape and .astype are evaluated on constant arrays");
  if (!eval_array(b, ts_node_child_by_field_name(callee, "object", 6))) return false;
  if (!b->dtype && !apply_dtype(b, default_dtype(b), false)) return false;
  if (is_reshape) return reshape(b, a);
  const Type *t = a->npos == 1 && !a->has_dtype ? dtype_of(b, a->pos[0]) : a->npos == 0 && a->has_dtype ? dtype_of(b, a->dtype) : NULL;
  return t ? apply_dtype(b, t, true) : fail(b, ".astype needs a scalar dtype such as np.float32");
}

/* An earlier module-level constant array, as the start of a method chain (B = A.reshape(2, 8)). */
static bool copy_const_array(Build *b, const ConstArray *ca) {
  if (ca->record) return fail(b, "an array of records is not evaluated further (reshaped, converted)");
  if (!grow(b, ca->count)) return false;
  for (int64_t k = 0; k < ca->count; k++) {
    const Type *t = ca->dtype;
    Num v = {t->kind == TY_COMPLEX ? NUM_COMPLEX : t->kind == TY_FLOAT ? NUM_FLOAT
             : t->kind == TY_BOOL ? NUM_BOOL : NUM_INT, 0, 0, 0};
    if (ca->imags) v.im = ca->imags[k];
    if (ca->floats) v.f = ca->floats[k];
    else v.i = ca->ints[k];
    if (t == &type_uint64 && v.i < 0) v.kind = NUM_UINT;
    b->v[b->count++] = v;
  }
  b->ndim = ca->ndim;
  memcpy(b->shape, ca->shape, sizeof b->shape);
  b->dtype = ca->dtype;
  return true;
}

static const ConstArray *named_const_array(Lowerer *L, TSNode n) {
  if (!node_is(L, n, K_identifier)) return NULL;
  const Const *k = find_const(L, node_str(L, n));
  return k ? k->array : NULL;
}

/* ---- arrays of records ---- */

/* Number v converted to scalar type t, written at p as NumPy stores it (little-endian, as the
 * host and the GPU are). float16 fields are not written here. */
static bool put_field_number(Build *b, Num v, const Type *t, unsigned char *p) {
  Num c;
  if (t->kind == TY_HALF) return fail(b, "a float16 field of a constant record is not supported yet");
  if (!convert(b, v, t, false, &c)) return false;
  if (t->kind == TY_COMPLEX) {
    if (t == &type_complex64) {
      float parts[2] = {(float)c.f, (float)c.im};
      memcpy(p, parts, sizeof parts);
    } else {
      double parts[2] = {c.f, c.im};
      memcpy(p, parts, sizeof parts);
    }
  } else if (t->kind == TY_FLOAT) {
    float f = (float)c.f;
    if (t == &type_float32) memcpy(p, &f, sizeof f);
    else memcpy(p, &c.f, sizeof c.f);
  } else {
    uint64_t bits = (uint64_t)c.i;
    for (int k = 0; k < t->bits / 8; k++) p[k] = (unsigned char)(bits >> (8 * k));
  }
  return true;
}

/* A record's value: a tuple of its fields' values, a nested array field's as nested lists. */
static bool put_record(Build *b, TSNode n, const RecordDtype *r, unsigned char *p) {
  TSNode items[MAX_RECORD_FIELDS + 1];
  if (!node_is(b->L, n, K_tuple)) return fail(b, "a record's value is not a tuple of its fields' values");
  int k = node_kids(b->L, n, items, MAX_RECORD_FIELDS + 1);
  if (k != r->nfields) return fail(b, "a record's tuple does not have one value per field");
  for (int i = 0; i < k; i++) {
    const RecordDtypeField *f = &r->fields[i];
    if (f->ndim == 0) {
      Num v;
      if (!number_arg(b, items[i], &v) || !put_field_number(b, v, f->scalar, p + f->offset)) return false;
      continue;
    }
    Build sub = {.L = b->L};   /* the nested array's values, in C order */
    int64_t count = 1;
    for (int d = 0; d < f->ndim; d++) count *= f->shape[d];
    if (!gather(&sub, items[i], 0)) return fail(b, sub.why);
    if (sub.ndim != f->ndim || memcmp(sub.shape, f->shape, sizeof(int64_t) * (size_t)f->ndim) != 0)
      return fail(b, "a nested array field's value does not have the field's shape");
    for (int64_t j = 0; j < count; j++)
      if (!put_field_number(b, sub.v[j], f->scalar, p + f->offset + j * (f->scalar->bits / 8))) return false;
  }
  return true;
}

/* np.array([(v0, v1, ...), ...], dtype=RECORD): a 1-d array of records. */
static bool build_record_array(Build *b, const Args *a, const RecordDtype *r) {
  TSNode items[256];
  if (a->npos < 1 || (!node_is(b->L, a->pos[0], K_list) && !node_is(b->L, a->pos[0], K_tuple)))
    return fail(b, "an array of records is built from a list of tuples");
  for (int i = 0; i < r->nfields; i++)
    if (!r->fields[i].scalar) return fail(b, "a constant array of records with string fields is not supported");
  int k = node_kids(b->L, a->pos[0], items, 256);
  if (k > 256) return fail(b, "a list literal has more than 256 elements");
  if ((int64_t)k * r->size > MAX_CONST_BYTES) return fail(b, "it is larger than constant memory (64 KiB)");
  b->record = r;
  b->bytes = arena_alloc(b->L->a, (size_t)(k ? k : 1) * (size_t)r->size);
  memset(b->bytes, 0, (size_t)(k ? k : 1) * (size_t)r->size);   /* padding is zero, as NumPy's */
  b->ndim = 1;
  b->shape[0] = b->count = k;
  for (int i = 0; i < k; i++)
    if (!put_record(b, items[i], r, b->bytes + (size_t)i * (size_t)r->size)) return false;
  return true;
}

/* One constructor call or method call; on success b holds values and shape. */
static bool eval_array(Build *b, TSNode n) {
  const ConstArray *named = named_const_array(b->L, n);
  if (named) return copy_const_array(b, named);
  if (node_is(b->L, n, K_binary_operator) || node_is(b->L, n, K_unary_operator))
    return fail(b, "arithmetic on arrays is not evaluated when the kernel is compiled");
  if (!node_is(b->L, n, K_call)) return fail(b, "it is not built by a call to np.array, np.arange, np.zeros, np.ones or np.full");
  TSNode callee = ts_node_child_by_field_name(n, "function", 8);
  Args a;
  if (!split_args(b, n, &a)) return false;
  Resolved r;
  if (node_is(b->L, callee, K_attribute) && !resolve_dotted(b->L, callee, &r)) return eval_method(b, callee, &a);
  if (!resolve_dotted(b->L, callee, &r)) return fail(b, "it is not built by a call to np.array, np.arange, np.zeros, np.ones or np.full");
  const char *p = r.path;
  bool array_call = strcmp(p, "numpy.array") == 0 || strcmp(p, "numpy.asarray") == 0;
  if (array_call && (a.has_dtype || a.npos == 2)) {   /* of records? */
    const char *why;
    const RecordDtype *rec = lower_record_dtype_arg(b->L, a.has_dtype ? a.dtype : a.pos[1], &why);
    if (why) return fail(b, why);
    if (rec) return build_record_array(b, &a, rec);
  }
  if (a.has_dtype && !(b->dtype = dtype_of(b, a.dtype))) return fail(b, "its dtype is not a scalar type such as np.float32");
  const Type *def = NULL;
  bool ok;
  if (array_call) {
    if (a.npos == 2 && !(b->dtype = dtype_of(b, a.pos[1]))) return fail(b, "its dtype is not a scalar type such as np.float32");
    ok = build_array(b, &a);
  } else if (strcmp(p, "numpy.arange") == 0) {
    ok = build_arange(b, &a, &def);
  } else if (strcmp(p, "numpy.zeros") == 0 || strcmp(p, "numpy.ones") == 0) {
    ok = build_filled(b, &a, 0, (Num){NUM_INT, strcmp(p, "numpy.ones") == 0, 0, 0}, &def);
  } else if (strcmp(p, "numpy.full") == 0) {
    ok = build_filled(b, &a, 1, (Num){NUM_INT, 0, 0, 0}, &def);
  } else if (strcmp(p, "numpy.datetime64") == 0 || strcmp(p, "numpy.timedelta64") == 0) {
    return fail(b, arena_printf(b->L->a, "%s is folded only as %s(COUNT, 'UNIT') or %s('NaT', 'UNIT'), "
                                "a count of one unit (the Python package freezes other forms so)", p, p, p));
  } else {
    return fail(b, arena_printf(b->L->a, "%s cannot be evaluated when the kernel is compiled", p));
  }
  if (!ok) return false;
  const Type *t = b->dtype ? b->dtype : def ? def : default_dtype(b);
  return t && apply_dtype(b, t, false);
}

/* ---- entry ---- */

/* Whether n is built from NumPy calls or constant arrays (arithmetic of them included, to
 * explain why it cannot be evaluated); depth bounds the walk on hostile nesting. */
static bool looks_like_array(Lowerer *L, TSNode n, int depth) {
  if (depth > P2C_MAX_NESTING) return false;
  if (node_is(L, n, K_binary_operator))
    return looks_like_array(L, lower_field(L, n, F_left), depth + 1) ||
           looks_like_array(L, lower_field(L, n, F_right), depth + 1);
  if (node_is(L, n, K_unary_operator)) return looks_like_array(L, lower_field(L, n, F_argument), depth + 1);
  for (int k = 0; node_is(L, n, K_call) && k <= P2C_MAX_NESTING; k++) {
    TSNode callee = ts_node_child_by_field_name(n, "function", 8);
    Resolved r;
    /* np.float32(x) is a scalar, not an array; so is np.sqrt(x) of a number (lower_const.c) */
    if (resolve_dotted(L, callee, &r) && r.builtin && (r.builtin->facts & BF_UFUNC)) {
      TSNode args[1];
      return node_kids(L, lower_field(L, n, F_arguments), args, 1) >= 1 && looks_like_array(L, args[0], depth + 1);
    }
    if (resolve_dotted(L, callee, &r))
      return r.path && strncmp(r.path, "numpy.", 6) == 0 && !(r.builtin && r.builtin->kind == BK_TYPE);
    if (!node_is(L, callee, K_attribute)) return false;
    n = ts_node_child_by_field_name(callee, "object", 6);
  }
  return named_const_array(L, n) != NULL;
}

ConstArray *lower_const_array(Lowerer *L, TSNode n, const char **why) {
  *why = NULL;
  if (!looks_like_array(L, n, 0)) return NULL;
  Build b = {.L = L};
  if (!eval_array(&b, n)) {
    *why = b.why;
    return NULL;
  }
  ConstArray *ca = arena_alloc(L->a, sizeof *ca);
  if (b.record) {
    *ca = (ConstArray){.record = b.record, .bytes = b.bytes, .ndim = 1, .count = b.count};
    ca->shape[0] = b.count;
    return ca;
  }
  if (b.count * (b.dtype->bits / 8 ? b.dtype->bits / 8 : 1) > MAX_CONST_BYTES) {
    *why = "it is larger than constant memory (64 KiB)";
    return NULL;
  }
  ca->dtype = b.dtype;
  ca->ndim = b.ndim;
  memcpy(ca->shape, b.shape, sizeof b.shape);
  ca->count = b.count;
  if (b.dtype->kind == TY_FLOAT || b.dtype->kind == TY_COMPLEX) ca->floats = arena_alloc(L->a, sizeof(double) * (size_t)b.count);
  else ca->ints = arena_alloc(L->a, sizeof(int64_t) * (size_t)b.count);
  if (b.dtype->kind == TY_COMPLEX) ca->imags = arena_alloc(L->a, sizeof(double) * (size_t)b.count);
  for (int64_t k = 0; k < b.count; k++) {
    if (ca->floats) ca->floats[k] = b.v[k].f;
    else ca->ints[k] = b.v[k].i;
    if (ca->imags) ca->imags[k] = b.v[k].im;
  }
  return ca;
}
