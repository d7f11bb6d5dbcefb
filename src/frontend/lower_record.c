/* Module-level record dtypes, evaluated at compile time:
 *
 *     POINT = np.dtype([('x', np.float32), ('v', np.float32, (3,)), ('id', 'i8')], align=True)
 *
 * the dtype that cuda.shared.array and cuda.local.array of records take (Numba builds one from
 * a global dtype). The fields' offsets and the itemsize are NumPy's: packed one after another
 * without align (its default), or each field at a multiple of its alignment and the size
 * padded to the largest with align=True, as a C struct is laid out. A field is a number type,
 * a nested array of one (a shape: an int or a tuple of ints), or a character sequence ('U12',
 * 'S5'). Records inside records, titles
 * and the dict form of np.dtype are not evaluated: the reason is kept and reported if a kernel
 * uses the name. */
#include <string.h>

#include "frontend/lower.h"

enum { MAX_FIELDS = 64 };

typedef struct RecordBuild {
  Lowerer *L;
  const char *why;
} RecordBuild;

static bool fail(RecordBuild *b, const char *why) {
  if (!b->why) b->why = why;
  return false;
}

/* Whether n is a call of numpy.dtype. */
static bool is_dtype_call(Lowerer *L, TSNode n) {
  if (!node_is(L, n, K_call)) return false;
  Resolved r;
  return resolve_dotted(L, ts_node_child_by_field_name(n, "function", 8), &r) && r.path &&
         strcmp(r.path, "numpy.dtype") == 0;
}

/* A field's shape: an int or a tuple of positive ints. */
static bool field_shape(RecordBuild *b, TSNode n, RecordDtypeField *f) {
  const Type *np;
  Expr *e = fold_const_expr(b->L, n, &np);
  if (!e) return fail(b, "a field's shape is not a constant int or tuple of ints");
  int k = e->kind == EX_TUPLE ? e->nkids : 1;
  if (k > P2C_MAX_NDIM) return fail(b, "a field's shape has more than 8 dimensions");
  for (int i = 0; i < k; i++) {
    const Expr *d = e->kind == EX_TUPLE ? e->kids[i] : e;
    if (d->kind != EX_INT || d->is_unsigned_literal || d->ival <= 0 || d->ival > (1 << 20))
      return fail(b, "a field's shape is not a tuple of positive ints");
    f->shape[i] = d->ival;
  }
  f->ndim = k;
  return true;
}

/* A character sequence field's dtype, a string 'U12', '<U12', 'S5', '|S5' (NumPy's 'a5' too):
 * its kind and length into f. */
static bool charseq_field(RecordBuild *b, TSNode n, RecordDtypeField *f) {
  const char *s;
  size_t len;
  if (!node_is(b->L, n, K_string) || !lower_string_value(b->L, n, &s, &len) || strlen(s) != len) return false;
  return type_charseq_parse(s, len, &f->unicode, &f->chars);
}

/* ('name', dtype) or ('name', dtype, shape). */
static bool field(RecordBuild *b, TSNode n, RecordDtypeField *f) {
  TSNode kids[4];
  if (!node_is(b->L, n, K_tuple)) return fail(b, "a field is not a tuple ('name', dtype[, shape])");
  int k = node_kids(b->L, n, kids, 4);
  if (k < 2 || k > 3) return fail(b, "a field is not a tuple ('name', dtype[, shape])");
  const char *name;
  size_t len;
  if (!node_is(b->L, kids[0], K_string) || !lower_string_value(b->L, kids[0], &name, &len) ||
      strlen(name) != len || !*name)
    return fail(b, "a field's name is not a plain string");
  for (const char *p = name; *p; p++)
    if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (p > name && *p >= '0' && *p <= '9')))
      return fail(b, "a field's name is not an ASCII identifier");
  *f = (RecordDtypeField){.name = name, .scalar = lower_dtype_of(b->L, kids[1])};
  if (!f->scalar && !charseq_field(b, kids[1], f))
    return fail(b, "a field's dtype is not a number type or a string ('U12', 'S5'; records inside records "
                "are not supported)");
  if (!f->scalar && k == 3) return fail(b, "a field that is an array of strings is not supported");
  return k == 2 || field_shape(b, kids[2], f);
}

/* The list of fields, into r (their names apart). */
static bool fields(RecordBuild *b, TSNode list, RecordDtype *r) {
  TSNode items[MAX_FIELDS + 1];
  int k = node_kids(b->L, list, items, MAX_FIELDS + 1);
  if (k == 0 || k > MAX_FIELDS) return fail(b, "a record dtype has 1 to 64 fields here");
  r->fields = arena_alloc(b->L->a, sizeof *r->fields * (size_t)k);
  for (int i = 0; i < k; i++) {
    if (!field(b, items[i], &r->fields[i])) return false;
    for (int j = 0; j < i; j++)
      if (strcmp(r->fields[j].name, r->fields[i].name) == 0) return fail(b, "two fields have one name");
    r->nfields = i + 1;
  }
  return true;
}

/* align=True or align=False. */
static bool align_arg(RecordBuild *b, TSNode kw, bool *aligned) {
  const char *name = node_str(b->L, ts_node_child_by_field_name(kw, "name", 4));
  TSNode v = ts_node_child_by_field_name(kw, "value", 5);
  if (strcmp(name, "align") != 0) return fail(b, "np.dtype() has a keyword other than dtype= and align=");
  if (!node_is(b->L, v, K_true) && !node_is(b->L, v, K_false)) return fail(b, "align= is not True or False");
  *aligned = node_is(b->L, v, K_true);
  return true;
}

/* NumPy's offsets and itemsize of the fields: packed, or with align=True each field at a
 * multiple of its alignment and the itemsize at one of the largest. A layout a GPU cannot load
 * (a packed field off its alignment) is refused by the rule record signatures follow
 * (types.c's record_places_error; Numba's CUDA target refuses them too). */
static bool lay_out(RecordBuild *b, RecordDtype *r) {
  int64_t at = 0, max_align = 1;
  FieldPlace *places = arena_alloc(b->L->a, sizeof *places * (size_t)(r->nfields ? r->nfields : 1));
  for (int i = 0; i < r->nfields; i++) {
    RecordDtypeField *f = &r->fields[i];
    /* A character sequence is laid out as its characters: uint8 for S<n>, uint32 (NumPy's
     * alignment 4) for U<n>. */
    const Type *item = f->scalar ? f->scalar : f->unicode ? &type_uint32 : &type_uint8;
    int64_t align = type_alignment(item), count = f->scalar ? 1 : f->chars;
    for (int d = 0; d < f->ndim; d++) count *= f->shape[d];
    if (r->aligned && at % align) at += align - at % align;
    if (!f->scalar && at % align) {   /* named as the string it is, not as its characters */
      b->why = arena_printf(b->L->a, "field '%s' of type U%lld is not aligned (offset %lld; use "
                            "np.dtype(..., align=True))", f->name, (long long)f->chars, (long long)at);
      return false;
    }
    if (align > max_align) max_align = align;
    f->offset = at;
    places[i] = (FieldPlace){f->name, item, count, at};
    at += type_byte_size(item) * count;
  }
  if (r->aligned && at % max_align) at += max_align - at % max_align;
  r->size = at;
  b->why = record_places_error(b->L->a, places, r->nfields, r->size);
  return !b->why;
}

/* A keyword argument named `name`'s value, or a null node. */
static TSNode keyword_value(Lowerer *L, TSNode kw, const char *name) {
  TSNode none = {0};
  if (!node_is(L, kw, K_keyword_argument) ||
      strcmp(node_str(L, ts_node_child_by_field_name(kw, "name", 4)), name) != 0)
    return none;
  return ts_node_child_by_field_name(kw, "value", 5);
}

/* np.dtype(FIELDS[, align=B]) or np.dtype(dtype=FIELDS[, align=B]), FIELDS a list. */
static void dtype_call(RecordBuild *b, TSNode n, RecordDtype *r) {
  Lowerer *L = b->L;
  TSNode args[4];
  int nargs = node_kids(L, ts_node_child_by_field_name(n, "arguments", 9), args, 4);
  if (nargs < 1 || nargs > 2) {
    fail(b, "np.dtype() is not of a list of fields ('name', dtype[, shape]) (with align=)");
    return;
  }
  TSNode list = ts_node_is_null(keyword_value(L, args[0], "dtype")) ? args[0] : keyword_value(L, args[0], "dtype");
  if (!node_is(L, list, K_list))
    fail(b, "np.dtype() is not of a list of fields ('name', dtype[, shape]) (with align=)");
  else if (nargs == 1 || align_arg(b, args[1], &r->aligned))
    fields(b, list, r);
}

/* The record dtype at n: a list of fields, an np.dtype() call, or the name of a module-level
 * record dtype; NULL with *why NULL when n is none of those. */
static RecordDtype *record_spec(Lowerer *L, TSNode n, const char **why, bool list_ok) {
  *why = NULL;
  if (node_is(L, n, K_identifier)) {
    const Const *k = strmap_get(&L->const_by_name, node_str(L, n));
    return k ? k->record : NULL;
  }
  bool list = list_ok && node_is(L, n, K_list);
  if (!list && !is_dtype_call(L, n)) return NULL;
  RecordBuild b = {L, NULL};
  RecordDtype *r = arena_alloc(L->a, sizeof *r);
  *r = (RecordDtype){0};
  if (list) fields(&b, n, r);
  else dtype_call(&b, n, r);
  if (b.why || !lay_out(&b, r)) {
    *why = b.why;
    return NULL;
  }
  return r;
}

RecordDtype *lower_record_dtype(Lowerer *L, TSNode n, const char **why) {
  *why = NULL;
  return is_dtype_call(L, n) ? record_spec(L, n, why, false) : NULL;   /* NAME = np.dtype(...) only */
}

RecordDtype *lower_record_dtype_arg(Lowerer *L, TSNode n, const char **why) {
  return record_spec(L, n, why, true);
}
