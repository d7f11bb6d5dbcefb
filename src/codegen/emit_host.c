/* @jit functions called from the host (numba.jit, njit): each host entry (a specialization made
 * from a signature or a host call's argument types, Function.host_entry) is emitted by emit.c as
 * a device function like any other, and wrapped here in a kernel that one thread runs: it calls
 * the function with the host's arguments and stores its result, if it has one, in the bytes of
 * a last parameter `result` (a uint8 array, aligned for the result by the runtime), which the
 * runtime reads back (p2c_module_call; docs/generated-code.md). The simulator runs that kernel
 * on the host, so the function runs as native code of the host compiler. */
#include "codegen/cg.h"

const char *host_name_spec(Gen *G, const Function *spec) {
  return namer_claim(&G->global, arena_printf(G->a, "%s_host", spec->cname));
}

/* Whether a host entry stores a result (it returns something). */
bool host_has_result(const Function *spec) { return spec->ret_type && spec->ret_type->kind != TY_VOID; }

void emit_host_kernel(Gen *G, const Function *spec, const char *symbol, StrBuf *out) {
  Namer local;
  namer_init(&local, G->a, &G->global);
  const char **names = arena_alloc(G->a, sizeof(char *) * (size_t)(spec->nparams + 1));
  for (int i = 0; i < spec->nparams; i++) names[i] = namer_claim(&local, spec->vars[i].name);
  bool result = host_has_result(spec);
  const char *res = result ? namer_claim(&local, "result") : NULL;
  sb_printf(out, "/* The host's call of %s (@jit): one thread runs it%s. */\n", spec->generic->name,
            result ? " and stores its result" : "");
  sb_printf(out, "extern \"C\" __global__ void %s(", symbol);
  for (int i = 0; i < spec->nparams; i++) sb_printf(out, "%s%s %s", i ? ", " : "", ctype_of(G, spec->arg_types[i]), names[i]);
  if (result) sb_printf(out, "%sp2c_array<unsigned char, 1> %s", spec->nparams ? ", " : "", res);
  sb_puts(out, ") {\n  ");
  if (result) sb_printf(out, "*(%s *)%s.data = ", ctype_of(G, spec->ret_type), res);
  sb_printf(out, "%s(", spec->cname);
  for (int i = 0; i < spec->nparams; i++) sb_printf(out, "%s%s", i ? ", " : "", names[i]);
  sb_puts(out, ");\n}\n");
}
