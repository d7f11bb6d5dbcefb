/* @jit functions called from the host (numba.jit, njit): each host entry (a specialization made
 * from a signature or a host call's argument types, Function.host_entry) is emitted by emit.c as
 * a device function like any other, and wrapped here in a kernel that one thread runs: it calls
 * the function with the host's arguments and stores its result, if it has one, in the bytes of
 * a last parameter `result` (a uint8 array, aligned for the result by the runtime), which the
 * runtime reads back (p2c_module_call; docs/generated-code.md). The simulator runs that kernel
 * on the host, so the function runs as native code of the host compiler.
 *
 * A function that creates arrays (np.zeros, ...: Function.heap_alloc) allocates them on the
 * call's heap (emit_alloc.c); its kernel empties the heap first and, after storing the result,
 * hands the blocks holding the result's arrays to the caller (their addresses follow the result,
 * one per array) and frees the rest (p2c_heap_end). */
#include "codegen/cg.h"

const char *host_name_spec(Gen *G, const Function *spec) {
  return namer_claim(&G->global, arena_printf(G->a, "%s_host", spec->cname));
}

/* Whether a host entry stores a result (it returns something). */
bool host_has_result(const Function *spec) { return spec->ret_type && spec->ret_type->kind != TY_VOID; }

int host_result_arrays(Gen *G, const Type *t, const char *path, const char **paths) {
  if (t->kind == TY_ARRAY) {
    if (paths) paths[0] = path;
    return 1;
  }
  if (t->kind != TY_TUPLE) return 0;
  int n = 0;
  for (int k = 0; k < t->nelems; k++) {
    StrBuf sb;
    sb_init(&sb, G->a);
    sb_puts(&sb, path);
    put_member(&sb, t, k);
    n += host_result_arrays(G, t->elems[k], sb_str(&sb), paths ? paths + n : NULL);
  }
  return n;
}

size_t host_owners_offset(const Function *spec) { return ((size_t)type_value_size(spec->ret_type) + 7) / 8 * 8; }

/* After the result is stored: the blocks of the call's heap that hold the result's arrays pass
 * to the caller (their addresses at byte host_owners_offset of `res`), the others are freed.
 * `local` names the array of their addresses (NULL: the C form's entry, whose only other name
 * is p2c_args). Both tiers' entries end so. */
void emit_heap_end(Gen *G, Namer *local, const Function *spec, const char *res, StrBuf *out) {
  int n = host_has_result(spec) ? host_result_arrays(G, spec->ret_type, "", NULL) : 0;
  if (!n) {
    sb_puts(out, "  p2c_heap_end(0, 0, 0);\n");
    return;
  }
  const char **paths = arena_alloc(G->a, sizeof *paths * (size_t)n);
  host_result_arrays(G, spec->ret_type, "", paths);
  const char *r = ctype_of(G, spec->ret_type), *held = local ? namer_claim(local, "held") : "p2c_held";
  sb_printf(out, "  void *const %s[] = {", held);
  for (int i = 0; i < n; i++) sb_printf(out, "%s(void *)(*(%s *)%s.data)%s.data", i ? ", " : "", r, res, paths[i]);
  sb_printf(out, "};\n  p2c_heap_end(%s, %d, (void **)(%s.data + %zu));\n", held, n, res, host_owners_offset(spec));
}

void emit_host_kernel(Gen *G, const Function *spec, const char *symbol, StrBuf *out) {
  Namer local;
  namer_init(&local, G->a, &G->global);
  const char **names = arena_alloc(G->a, sizeof(char *) * (size_t)(spec->nparams + 1));
  for (int i = 0; i < spec->nparams; i++) names[i] = namer_claim(&local, spec->vars[i].name);
  bool result = host_has_result(spec), heap = spec->heap_alloc != NULL;
  const char *res = result ? namer_claim(&local, "result") : NULL;
  sb_printf(out, "/* The host's call of %s (@jit): one thread runs it%s%s. */\n", spec->generic->name,
            result ? " and stores its result" : "", heap ? "; its arrays live on the call's heap" : "");
  sb_printf(out, "extern \"C\" __global__ void %s(", symbol);
  for (int i = 0; i < spec->nparams; i++) sb_printf(out, "%s%s %s", i ? ", " : "", ctype_of(G, spec->arg_types[i]), names[i]);
  if (result) sb_printf(out, "%sp2c_array<unsigned char, 1> %s", spec->nparams ? ", " : "", res);
  sb_puts(out, ") {\n");
  if (heap) {
    helper_use(&G->helpers, H_NP_ALLOC);
    sb_puts(out, "  p2c_heap_begin();\n");
  }
  sb_puts(out, "  ");
  if (result) sb_printf(out, "*(%s *)%s.data = ", ctype_of(G, spec->ret_type), res);
  sb_printf(out, "%s(", spec->cname);
  for (int i = 0; i < spec->nparams; i++) sb_printf(out, "%s%s", i ? ", " : "", names[i]);
  sb_puts(out, ");\n");
  if (heap) emit_heap_end(G, &local, spec, res, out);
  sb_puts(out, "}\n");
}
