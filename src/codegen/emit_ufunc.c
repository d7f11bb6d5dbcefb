/* @vectorize ufuncs: each signature's specialization is emitted as a device function of
 * scalars (by emit.c, like any device function), and wrapped here in an elementwise kernel.
 *
 * The kernel's ABI (docs/generated-code.md): every input and the output arrive as
 * p2c_array<T, P2C_UFUNC_NDIM> broadcast views prepared by the runtime. All views have the
 * output's extents (right-aligned, leading extents 1); an input's stride is 0 along a dimension
 * it is broadcast over, and a scalar argument is a one-element view with all strides 0. So one
 * kernel per signature serves every shape and every mix of arrays and scalars: it unravels the
 * flat output index over the extents (stopping once the rest is 0, so a 1-D launch does one
 * division) and adds each view's strides. A grid-stride loop covers any grid. */
#include "codegen/cg.h"

/* Dimensions of every ufunc view: P2C_MAX_NDIM, the most the runtime handles. */
enum { UFUNC_NDIM = 8 };

const char *ufunc_name_spec(Gen *G, Function *spec, bool many) {
  const char *symbol = spec->generic->name;
  if (many) {
    StrBuf sb;
    sb_init(&sb, G->a);
    sb_puts(&sb, symbol);
    for (int i = 0; i < spec->nparams; i++) sb_printf(&sb, "_%s", type_suffix(G, spec->arg_types[i]));
    symbol = sb_str(&sb);
  }
  symbol = namer_claim(&G->global, symbol);
  spec->cname = namer_claim(&G->global, arena_printf(G->a, "%s_element", symbol));
  return symbol;
}

/* The C names of the views: the Python parameter names, and `out` for the result. */
static const char **view_names(Gen *G, const Function *spec, Namer *local) {
  const char **names = arena_alloc(G->a, sizeof(char *) * (size_t)(spec->nparams + 1));
  for (int i = 0; i < spec->nparams; i++) names[i] = namer_claim(local, spec->vars[i].name);
  names[spec->nparams] = namer_claim(local, "out");
  return names;
}

static void emit_ufunc_header(Gen *G, const Function *spec, const char *symbol, const char **names,
                              StrBuf *out) {
  sb_printf(out, "/* The ufunc %s, elementwise over broadcast views (see docs/generated-code.md). */\n",
            spec->generic->name);
  sb_printf(out, "extern \"C\" __global__ void %s(", symbol);
  for (int i = 0; i <= spec->nparams; i++) {
    const Type *t = i < spec->nparams ? spec->arg_types[i] : spec->ret_type;
    sb_printf(out, "%sp2c_array<%s, %d> %s", i ? ", " : "", t->cname, UFUNC_NDIM, names[i]);
  }
  sb_puts(out, ") {\n");
}

/* The loop: i over the output's elements, offsets from unravelling i. */
static void emit_ufunc_loop(Gen *G, const Function *spec, const char **names, Namer *local, StrBuf *out) {
  const char *o = names[spec->nparams];
  const char *n = namer_claim(local, "n"), *i = namer_claim(local, "i"), *k = namer_claim(local, "k");
  const char *rest = namer_claim(local, "rest"), *j = namer_claim(local, "j");
  const char **off = arena_alloc(G->a, sizeof(char *) * (size_t)(spec->nparams + 1));
  for (int p = 0; p <= spec->nparams; p++) off[p] = namer_claim(local, arena_printf(G->a, "%s_at", names[p]));
  sb_printf(out, "  int64_t %s = 1;\n", n);
  sb_printf(out, "  for (int %s = 0; %s < %d; %s++) %s *= %s.shape[%s];\n", k, k, UFUNC_NDIM, k, n, o, k);
  sb_printf(out, "  for (int64_t %s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; %s < %s;\n", i, i, n);
  sb_printf(out, "       %s += (int64_t)gridDim.x * blockDim.x) {\n", i);
  sb_puts(out, "    int64_t");
  for (int p = 0; p <= spec->nparams; p++) sb_printf(out, "%s %s = 0", p ? "," : "", off[p]);
  sb_puts(out, ";\n");
  sb_printf(out, "    int64_t %s = %s;\n", rest, i);
  sb_printf(out, "    for (int %s = %d; %s >= 0 && %s > 0; %s--) {\n", k, UFUNC_NDIM - 1, k, rest, k);
  sb_printf(out, "      int64_t %s = %s %% %s.shape[%s];\n", j, rest, o, k);
  sb_printf(out, "      %s /= %s.shape[%s];\n", rest, o, k);
  for (int p = 0; p <= spec->nparams; p++)
    sb_printf(out, "      %s += %s * %s.strides[%s];\n", off[p], j, names[p], k);
  sb_puts(out, "    }\n");
  sb_printf(out, "    *(%s *)((char *)%s.data + %s) = %s(", spec->ret_type->cname, o, off[spec->nparams],
            spec->cname);
  for (int p = 0; p < spec->nparams; p++)
    sb_printf(out, "%s*(const %s *)((const char *)%s.data + %s)", p ? ", " : "",
              spec->arg_types[p]->cname, names[p], off[p]);
  sb_puts(out, ");\n  }\n}\n");
}

void emit_ufunc_kernel(Gen *G, const Function *spec, const char *symbol, StrBuf *out) {
  Namer local;
  namer_init(&local, G->a, &G->global);
  const char **names = view_names(G, spec, &local);
  emit_ufunc_header(G, spec, symbol, names, out);
  emit_ufunc_loop(G, spec, names, &local, out);
}

void describe_ufunc(Gen *G, const Function *spec, const char *symbol, KernelDesc *k) {
  k->spec = spec;
  k->symbol = symbol;
  k->is_ufunc = true;
  k->nparams = spec->nparams + 1;
  k->params = arena_alloc(G->a, sizeof(P2cParam) * (size_t)k->nparams);
  for (int i = 0; i <= spec->nparams; i++) {
    const Type *t = i < spec->nparams ? spec->arg_types[i] : spec->ret_type;
    k->params[i] = (P2cParam){.name = i < spec->nparams ? spec->vars[i].name : "out", .is_array = true,
                              .type = t->scalar, .ndim = UFUNC_NDIM, .layout = 'A',
                              .written = i == spec->nparams,   /* only out is written */
                              .size = p2c_array_arg_size(UFUNC_NDIM), .align = 8};
  }
  Signature sig = {spec->ret_type, spec->arg_types, spec->nparams};
  k->signature = sig_format(G->a, &sig);
  k->static_shared_bytes = 0;
}
