/* External device functions and the CUDA C linked into kernels (docs/python.md, "CUDA C linked
 * into kernels").
 *
 * `NAME = cuda.declare_device('sym', 'ret(args)', link=[...], abi='numba'|'c')` at module level
 * declares a device function without a body (Function.extern_symbol): kernels and device
 * functions call NAME as a device function with that one signature, and codegen calls the C
 * symbol through Numba's ABI or the C ABI. A `link=` list, on it or on @cuda.jit, names the CUDA C
 * that the module compiles with its kernels (Module.links): paths of .cu files, read by the API
 * (relative to the current directory, as Numba opens them), or `cuda.CUSource('text')`. The other
 * kinds Numba links (PTX, cubins, fat binaries, objects, archives, LTO-IR) are refused here, at
 * the item, with the reason. */
#include <string.h>

#include "frontend/lower.h"

/* The kinds of file Numba's linker takes besides CUDA C, by extension (its
 * Linker.add_file_guess_ext), each with the words that name it in the refusal. */
static const struct {
  const char *ext, *what;
} other_kinds[] = {
    {".ptx", "PTX"},          {".cubin", "a cubin"},   {".fatbin", "a fat binary"},
    {".o", "an object file"}, {".a", "an archive"},    {".ltoir", "LTO-IR"},
};

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether a link names what `have` already holds: the same file, or the same text under the
 * same name (CUSource texts share numba-cuda's default name, so the name alone says nothing). */
static bool same_link(const LinkFile *have, const char *path, const char *text, size_t len) {
  if (strcmp(have->path, path) != 0 || (have->text == NULL) != (text == NULL)) return false;
  return !text || (have->len == len && memcmp(have->text, text, len) == 0);
}

/* Adds one file (path) or text (CUSource) to the module's links, once each. */
static void add_link(Lowerer *L, const char *path, const char *text, size_t len, Loc loc) {
  for (size_t i = 0; i < L->m->links.len; i++)
    if (same_link(&L->m->links.items[i], path, text, len)) return;
  LinkFile f = {path, loc, text, len};
  vec_push(L->a, &L->m->links, f);
}

/* A path in a link list: a .cu file, or a refusal naming the kind and why. */
static void add_link_path(Lowerer *L, TSNode n) {
  const char *path;
  size_t len;
  if (!lower_string_value(L, n, &path, &len)) return;
  Loc loc = node_loc(L, n);
  if (strlen(path) != len || len == 0) {
    diag_error(L->c, loc, "E-link", "a link= path must be a non-empty file name without NUL characters");
    return;
  }
  if (has_suffix(path, ".cu")) {
    add_link(L, path, NULL, 0, loc);
    return;
  }
  for (size_t i = 0; i < sizeof other_kinds / sizeof other_kinds[0]; i++)
    if (has_suffix(path, other_kinds[i].ext)) {
      diag_error(L->c, loc, "E-link", "cannot link '%s': it is %s, and pyk2cuda links only CUDA C into "
                 "kernels (.cu files or cuda.CUSource), which it compiles with the kernel's own code for "
                 "the GPU and for the simulator; link the CUDA C source instead", path, other_kinds[i].what);
      return;
    }
  const char *dot = strrchr(path, '.');
  diag_error(L->c, loc, "E-link", "Don't know how to link file with extension %s ('%s': pyk2cuda links "
             "CUDA C, .cu files or cuda.CUSource)", dot && !strchr(dot, '/') ? dot : "(none)", path);
}

/* A string literal, adjacent ones ('a' 'b') included. */
static bool is_string_literal(Lowerer *L, TSNode n) {
  return node_is(L, n, K_string) || node_is(L, n, K_concatenated_string);
}

/* cuda.CUSource('text'[, name]) in a link list: CUDA C given as text, named for its diagnostics
 * by `name` (numba-cuda's default <unnamed-cu>). */
static void add_link_source(Lowerer *L, TSNode call) {
  TSNode args[3];
  int k = node_kids(L, lower_field(L, call, F_arguments), args, 3);
  const char *text, *name = "<unnamed-cu>";
  size_t len, name_len;
  if (k < 1 || k > 2 || !is_string_literal(L, args[0]) || (k == 2 && !is_string_literal(L, args[1]))) {
    diag_error(L->c, node_loc(L, call), "E-link", "cuda.CUSource() in a link list takes the CUDA C as a "
               "string literal, and optionally its name as another");
    return;
  }
  if (!lower_string_value(L, args[0], &text, &len)) return;
  if (k == 2 && !lower_string_value(L, args[1], &name, &name_len)) return;
  add_link(L, name, text, len, node_loc(L, call));
}

/* One item of a link list. */
static void add_link_item(Lowerer *L, TSNode n) {
  if (is_string_literal(L, n)) {
    add_link_path(L, n);
    return;
  }
  Resolved r;
  if (node_is(L, n, K_call) && resolve_dotted(L, lower_field(L, n, F_function), &r) && r.builtin &&
      r.builtin->id == BI_CUSOURCE) {
    add_link_source(L, n);
    return;
  }
  diag_error(L->c, node_loc(L, n), "E-link", "an item of link= must be a path written as a string literal "
             "(a .cu file) or cuda.CUSource('...')");
}

void lower_link_list(Lowerer *L, TSNode value) {
  if (node_is(L, value, K_none)) return;
  if (!node_is(L, value, K_list) && !node_is(L, value, K_tuple)) {
    add_link_item(L, value);
    return;
  }
  TSNode items[64];
  int k = node_kids(L, value, items, 64);
  if (k > 64) diag_error(L->c, node_loc(L, value), "E-link", "more than 64 files in one link= list");
  for (int i = 0; i < k && i < 64; i++) add_link_item(L, items[i]);
}

/* ---- cuda.declare_device ---- */

/* The parts of a declare_device call: its arguments by name or position. */
typedef struct Declaration {
  TSNode symbol, sig, link, abi, cooperative;
} Declaration;

/* Binds the call's arguments as Python binds declare_device(name, sig, link=None,
 * use_cooperative=False, abi='numba'); false after a diagnostic. */
static bool bind_declaration(Lowerer *L, TSNode call, Declaration *d) {
  TSNode args[8];
  TSNode *positional[] = {&d->symbol, &d->sig, &d->link, &d->cooperative, &d->abi};
  const char *names[] = {"name", "sig", "link", "use_cooperative", "abi"};
  int k = node_kids(L, lower_field(L, call, F_arguments), args, 8), npos = 0;
  for (int i = 0; i < k && i < 8; i++) {
    if (!node_is(L, args[i], K_keyword_argument)) {
      if (npos < 5) *positional[npos] = args[i];
      npos++;
      continue;
    }
    const char *name = node_str(L, lower_field(L, args[i], F_name));
    int j = 0;
    while (j < 5 && strcmp(names[j], name) != 0) j++;
    if (j == 5) {
      diag_error(L->c, node_loc(L, args[i]), "E-decorator", "declare_device() got an unexpected keyword "
                 "argument '%s'", name);
      return false;
    }
    *positional[j] = lower_field(L, args[i], F_value);
  }
  if (k > 5 || npos > 5 || ts_node_is_null(d->symbol) || ts_node_is_null(d->sig)) {
    diag_error(L->c, node_loc(L, call), "E-decorator", "declare_device() takes the function's name and "
               "signature, then link=, use_cooperative= and abi=");
    return false;
  }
  return true;
}

/* Whether text is a C identifier (the symbol a declaration names: plain or mangled). */
static bool is_c_identifier(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

/* abi='numba' (the default) or 'c'; -1 after a diagnostic. */
static int declared_abi(Lowerer *L, TSNode abi) {
  const char *text;
  size_t len;
  if (ts_node_is_null(abi)) return 0;
  if (!node_is(L, abi, K_string) || !lower_string_value(L, abi, &text, &len) ||
      (strcmp(text, "numba") != 0 && strcmp(text, "c") != 0)) {
    diag_error(L->c, node_loc(L, abi), "E-decorator", "Unsupported ABI: %s (declare_device takes "
               "abi='numba' or abi='c')", node_str(L, abi));
    return -1;
  }
  return strcmp(text, "c") == 0;
}

/* The declared signature: one with a return type, of numbers only (what both ABIs pass in
 * registers; an array has no C spelling the linked code could share). Sets f's parameters. */
static bool declared_params(Lowerer *L, Function *f) {
  TypeTable tt;
  types_init(&tt, L->a);
  Signature sig;
  const char *err;
  size_t off;
  const SigText *st = &f->sigs[0];
  if (!sig_parse(&tt, st->text, st->len, &sig, &err, &off)) {
    diag_error(L->c, st->loc, "E-signature", "bad signature '%.*s': %s", (int)st->len, st->text, err);
    return false;
  }
  if (!sig.ret) {
    diag_error(L->c, st->loc, "E-signature", "Return type must be provided for device declarations "
               "('%.*s' gives only the arguments)", (int)st->len, st->text);
    return false;
  }
  for (int i = -1; i < sig.nargs; i++) {
    const Type *t = i < 0 ? sig.ret : sig.args[i];
    if (type_is_number(t) || (i < 0 && t->kind == TY_VOID)) continue;
    diag_error(L->c, st->loc, "E-signature", "external device function '%s': %s %s is %s; pyk2cuda passes "
               "numbers (bool, ints, float32, float64) to and from CUDA C", f->name,
               i < 0 ? "the return type" : "an argument type", t->name, t->kind == TY_ARRAY ? "an array" : "not a number");
    return false;
  }
  f->nparams = f->nvars = sig.nargs;
  f->vars = arena_alloc(L->a, sizeof *f->vars * (size_t)(sig.nargs ? sig.nargs : 1));
  for (int i = 0; i < sig.nargs; i++)
    f->vars[i] = (Var){.name = arena_printf(L->a, "arg%d", i), .loc = f->loc, .is_param = true};
  return true;
}

bool lower_declare_device(Lowerer *L, TSNode left, TSNode right) {
  Resolved r;
  if (!node_is(L, right, K_call) || !resolve_dotted(L, lower_field(L, right, F_function), &r) || !r.builtin ||
      r.builtin->id != BI_DECLARE_DEVICE)
    return false;
  Declaration d = {0};
  const char *symbol;
  size_t len;
  if (!bind_declaration(L, right, &d)) return true;
  if (!node_is(L, d.symbol, K_string) || !lower_string_value(L, d.symbol, &symbol, &len) ||
      !is_c_identifier(symbol)) {
    diag_error(L->c, node_loc(L, d.symbol), "E-decorator", "declare_device()'s name must be a string "
               "literal naming a C function (extern \"C\" in the linked CUDA C, or its mangled name)");
    return true;
  }
  if (!ts_node_is_null(d.cooperative) && !node_is(L, d.cooperative, K_false) && !node_is(L, d.cooperative, K_none)) {
    diag_error(L->c, node_loc(L, d.cooperative), "E-decorator", "declare_device(use_cooperative=...): "
               "external functions that use cooperative groups are not supported by pyk2cuda");
    return true;
  }
  int abi = declared_abi(L, d.abi);
  if (abi < 0) return true;
  Function *f = arena_alloc(L->a, sizeof *f);
  *f = (Function){.name = node_str(L, left), .loc = node_loc(L, left), .kind = FN_DEVICE,
                  .extern_symbol = symbol, .extern_c_abi = abi == 1};
  lower_add_sig(L, f, d.sig);
  if (f->nsigs != 1 || !declared_params(L, f)) return true;
  if (!ts_node_is_null(d.link)) lower_link_list(L, d.link);
  if (!strmap_add(&L->func_by_name, f->name, f)) {
    diag_error(L->c, f->loc, "E-redefined", "function '%s' is defined twice", f->name);
    return true;
  }
  vec_push(L->a, &L->externs, f);
  return true;
}
