/* Module-level classes a kernel may name, as Numba supports them:
 *  - exception classes (`class MyError(Exception): ...`, or derived from another one of the
 *    module): a kernel raises them by name (`raise MyError("msg")`), and the host raises the class
 *    itself after a debug=True launch; the body is the host's business, never compiled;
 *  - Enum and IntEnum classes whose members are constant numbers (`class Color(Enum): red = 1`):
 *    `Color.red` and `Color['red']` are the member, frozen as a constant. An Enum member has a
 *    type of its own (equal only to members of its class, `.value` its number); an IntEnum member
 *    is its int, which is what Numba converts it to in arithmetic, comparisons and casts.
 * Any other class stays a global that kernels cannot use. */
#include <string.h>

#include "frontend/lower.h"

/* Python's builtin exceptions a kernel may raise: Numba raises the class on the host after a
 * launch with debug=True (docs/semantics.md, "raise and assert"). */
static const char *const builtin_exceptions[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "FloatingPointError",
    "IndexError", "KeyError", "LookupError", "NotImplementedError", "OverflowError",
    "RuntimeError", "TypeError", "ValueError", "ZeroDivisionError", NULL};

const ModuleClass *find_class(const Lowerer *L, const char *name) {
  return strmap_get(&L->class_by_name, name);
}

/* Not a local, a constant, a function or an import of the same name (the last binding wins in
 * Python; a class after such a binding replaced it in class_by_name already). */
static bool name_is_free(Lowerer *L, const char *name) {
  return find_var(L, name) < 0 && !lower_find_capture(L, name) && !find_const(L, name) && !find_func(L, name) && !alias_path(L, name);
}

bool lower_is_exception_class(Lowerer *L, const char *name) {
  if (!name_is_free(L, name)) return false;
  const ModuleClass *k = find_class(L, name);
  if (k) return !k->enumc;
  for (int i = 0; builtin_exceptions[i]; i++)
    if (strcmp(builtin_exceptions[i], name) == 0) return true;
  return false;
}

/* The only base of `class NAME(BASE)`, or a null node. */
static TSNode only_base(Lowerer *L, TSNode n) {
  TSNode args = lower_field(L, n, F_superclasses);
  TSNode kids[2];
  if (ts_node_is_null(args) || node_kids(L, args, kids, 2) != 1) return (TSNode){0};
  return kids[0];
}

typedef VEC(Const *) ConstVec;

/* One statement of an Enum's body: `NAME = constant` becomes a member; a docstring or `pass` is
 * nothing; anything else makes the class unusable (returns its reason). */
static const char *enum_statement(Lowerer *L, EnumClass *ec, TSNode st, ConstVec *members) {
  if (node_is(L, st, K_pass_statement) || node_is(L, st, K_comment)) return NULL;
  if (!node_is(L, st, K_expression_statement)) return "its body holds more than members";
  TSNode e = ts_node_named_child(st, 0);
  if (node_is(L, e, K_string)) return NULL;
  TSNode left = lower_field(L, e, F_left), right = lower_field(L, e, F_right);
  if (!node_is(L, e, K_assignment) || !node_is(L, left, K_identifier) || ts_node_is_null(right))
    return "its body holds more than members";
  const Type *np;
  Expr *v = fold_const_expr(L, right, &np);
  if (!v) return "a member's value is not a constant number";
  if (v->kind == EX_TUPLE) return "a member's value is a tuple (members with tuple values are not supported)";
  if (ec->is_int && v->kind != EX_INT) return "an IntEnum member's value is not an int";
  if (members->len && members->items[0]->value->kind != v->kind)
    return "its members' values have different types (Numba needs one type)";
  Const *k = arena_alloc(L->a, sizeof *k);
  k->name = arena_printf(L->a, "%s_%s", ec->name, node_str(L, left));
  k->loc = node_loc(L, left);
  k->value = v;
  k->scalar = np;
  k->enum_of = ec;
  vec_push(L->a, members, k);
  vec_push(L->a, &L->m->consts, k);
  return NULL;
}

/* The members of an Enum class; the reason it cannot be used, or NULL. */
static const char *lower_enum_body(Lowerer *L, EnumClass *ec, TSNode body) {
  ConstVec members = {0};
  uint32_t count;
  TSNode *items = node_named_children(L, body, &count);
  for (uint32_t i = 0; i < count; i++) {
    /* Errors of folding are not errors until a kernel uses the class. */
    size_t errors = L->c->error_count, ndiags = L->c->diags.len;
    const char *why = enum_statement(L, ec, items[i], &members);
    L->c->error_count = errors;
    L->c->diags.len = ndiags;
    if (why) return why;
  }
  ec->members = members.items;
  ec->nmembers = (int)members.len;
  return NULL;
}

void lower_module_class(Lowerer *L, TSNode n) {
  TSNode name = lower_field(L, n, F_name), base = only_base(L, n);
  ModuleClass *k = arena_alloc(L->a, sizeof *k);
  k->name = node_str(L, name);
  k->loc = node_loc(L, name);
  Resolved r = {0};
  if (!ts_node_is_null(base) && node_is(L, base, K_identifier) && lower_is_exception_class(L, node_str(L, base))) {
    strmap_put(&L->class_by_name, k->name, k);   /* an exception class */
    return;
  }
  bool is_enum = !ts_node_is_null(base) && resolve_dotted(L, base, &r) &&
                 (strcmp(r.path, "enum.Enum") == 0 || strcmp(r.path, "enum.IntEnum") == 0);
  if (!is_enum) {
    OtherGlobal g = {k->name, k->loc, NULL, false, false};   /* some other class: a global kernels cannot use */
    vec_push(L->a, &L->others, g);
    return;
  }
  k->enumc = arena_alloc(L->a, sizeof *k->enumc);
  k->enumc->name = k->name;
  k->enumc->loc = k->loc;
  k->enumc->is_int = strcmp(r.path, "enum.IntEnum") == 0;
  k->why = lower_enum_body(L, k->enumc, lower_field(L, n, F_body));
  strmap_put(&L->class_by_name, k->name, k);
}

static Const *enum_member(const EnumClass *ec, const char *member) {
  size_t n = strlen(ec->name);
  for (int i = 0; i < ec->nmembers; i++) {
    const char *full = ec->members[i]->name;   /* "Color_red" */
    if (strncmp(full, ec->name, n) == 0 && full[n] == '_' && strcmp(full + n + 1, member) == 0)
      return ec->members[i];
  }
  return NULL;
}

Expr *lower_enum_member(Lowerer *L, TSNode object, TSNode member, TSNode at, bool *handled) {
  *handled = false;
  if (!node_is(L, object, K_identifier)) return NULL;
  const char *cls = node_str(L, object);
  const ModuleClass *k = name_is_free(L, cls) ? find_class(L, cls) : NULL;
  if (!k || !k->enumc) return NULL;
  *handled = true;
  if (k->why) {
    diag_error(L->c, node_loc(L, object), "E-global-type", "enum '%s' cannot be used in kernels: %s", cls, k->why);
    diag_note(L->c, k->loc, "'%s' is defined here", cls);
    return NULL;
  }
  const char *name = NULL;
  size_t len = 0;
  if (node_is(L, at, K_attribute)) name = node_str(L, member);
  else if (!node_is(L, member, K_string) || !lower_string_value(L, member, &name, &len)) name = NULL;
  Const *c = name ? enum_member(k->enumc, name) : NULL;
  if (!c) {
    if (name) diag_error(L->c, node_loc(L, member), "E-attribute", "enum '%s' has no member '%s'", cls, name);
    else diag_error(L->c, node_loc(L, member), "E-unsupported", "an enum member is named by a constant string ('%s'['name'])", cls);
    return NULL;
  }
  Expr *e = ast_new_expr(L->a, EX_CONST, node_loc(L, at));
  e->konst = c;
  atomic_store_explicit(&c->used, true, memory_order_relaxed);
  return e;
}
