/* Records (NumPy structured dtypes, Numba's Record): one C struct per record type in use, laid
 * out exactly as NumPy lays it out. Fields go in offset order with explicit padding arrays in
 * every gap, and static_asserts check the itemsize (NVRTC and the host compiler) and each
 * offset (the host compiler), so that a layout differing from NumPy's does not compile. typeinfer's record_layout_error has already
 * refused the layouts C cannot hold (an unaligned field, an itemsize that is not a multiple of
 * the widest field's alignment). The expressions are in emit_expr.c (emit_field,
 * emit_record_ref). */
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

/* The C member name of field `name`: the name itself, unless C, CUDA or the prelude reserve
 * it (a field called `int` or `threadIdx`), then a variant the namer picks. Each record's
 * members are one scope. */
const char *record_member(Gen *G, const Type *r, const char *name) {
  Namer n;
  namer_init(&n, G->a, NULL);
  const char *found = name;
  for (int i = 0; i < r->nfields; i++) {
    const char *c = namer_claim(&n, r->fields[i].name);
    if (strcmp(r->fields[i].name, name) == 0) found = c;
  }
  return found;
}

static int by_offset(const void *a, const void *b) {
  const RecordField *x = *(const RecordField *const *)a, *y = *(const RecordField *const *)b;
  return (x->offset > y->offset) - (x->offset < y->offset);
}

/* One member: `double b;`, `uint8_t d[5];`, `float j[3][2];`. */
static void emit_member(Gen *G, const Type *r, const RecordField *f, StrBuf *out) {
  const Type *t = f->type;
  sb_printf(out, "  %s %s", t->kind == TY_ARRAY ? t->dtype->cname : t->cname, record_member(G, r, f->name));
  for (int k = 0; t->kind == TY_ARRAY && k < t->ndim; k++) sb_printf(out, "[%lld]", (long long)t->fixed_shape[k]);
  sb_puts(out, ";\n");
}

static void emit_record_struct(Gen *G, const Type *r, StrBuf *out) {
  const RecordField **order = arena_alloc(G->a, sizeof *order * (size_t)r->nfields);
  for (int i = 0; i < r->nfields; i++) order[i] = &r->fields[i];
  qsort(order, (size_t)r->nfields, sizeof *order, by_offset);
  int64_t size = r->bits / 8, at = 0;
  sb_printf(out, "\n/* %s */\nstruct %s {\n", r->name, r->cname);
  for (int i = 0; i < r->nfields; i++) {
    if (order[i]->offset > at)
      sb_printf(out, "  unsigned char p2c_pad_%lld[%lld];\n", (long long)at, (long long)(order[i]->offset - at));
    emit_member(G, r, order[i], out);
    at = order[i]->offset + type_byte_size(order[i]->type);
  }
  if (size > at) sb_printf(out, "  unsigned char p2c_pad_%lld[%lld];\n", (long long)at, (long long)(size - at));
  sb_puts(out, "};\n");
  sb_printf(out, "static_assert(sizeof(%s) == %lld, \"NumPy's itemsize\");\n", r->cname, (long long)size);
  /* NVRTC has no offsetof; the host compiler checks the offsets, and the GPU lays structs out
   * as the host does (CUDA's rule for types shared by host and device). */
  sb_puts(out, "#ifdef PYK2CUDA_SIM\n");
  for (int i = 0; i < r->nfields; i++)
    sb_printf(out, "static_assert(__builtin_offsetof(%s, %s) == %lld, \"NumPy's offset of '%s'\");\n", r->cname,
              record_member(G, r, order[i]->name), (long long)order[i]->offset, order[i]->name);
  sb_puts(out, "#endif\n");
}

/* r.v = value (an array of the field's dimensions): each element copied and converted, in C
 * order over the field's shape, reading the value through its strides (as a view); the value's
 * shape is taken to be the field's, as Numba takes it. */
void emit_nested_copy(Gen *G, const Expr *target, const Expr *value) {
  const Type *ft = target->ty, *vt = value->ty;
  const char *src = new_temp(G, vt);   /* a view (p2c_array), also of a fixed-shape array */
  sb_indent(G->body, G->indent);
  sb_printf(G->body, "%s = ", src);
  emit_array_value(G, value, G->body);
  sb_puts(G->body, ";\n");
  const char *ix[P2C_MAX_NDIM];
  for (int k = 0; k < ft->ndim; k++) {
    ix[k] = namer_claim_temp(&G->local, "k");
    TempDecl d = {"int64_t", ix[k]};
    vec_push(G->a, &G->temps, d);
    emit_line(G, "for (%s = 0; %s < %lld; ++%s)\n", ix[k], ix[k], (long long)ft->fixed_shape[k], ix[k]);
    G->indent += 2;
  }
  sb_indent(G->body, G->indent);
  emit_expr(G, target, G->body, P_POSTFIX);
  for (int k = 0; k < ft->ndim; k++) sb_printf(G->body, "[%s]", ix[k]);
  if (ft->dtype != vt->dtype) sb_printf(G->body, " = (%s)", ft->dtype->cname);   /* converted as a store converts */
  else sb_puts(G->body, " = ");
  sb_printf(G->body, "*(%s *)((char *)%s.data", vt->dtype->cname, src);
  for (int k = 0; k < ft->ndim; k++) sb_printf(G->body, " + %s * %s.strides[%d]", ix[k], src, k);
  sb_puts(G->body, ");\n");
  G->indent -= 2 * ft->ndim;
}

void emit_record_structs(Gen *G, const Analysis *an, StrBuf *out) {
  for (size_t i = 0; i < an->records.len; i++) emit_record_struct(G, an->records.items[i], out);
}
