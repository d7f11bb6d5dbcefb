/* NumPy's loop types: the type in which a ufunc computes a call's elements, from the types of
 * its inputs' elements. Typing checks calls with it and codegen writes the element function
 * with it, so both read the rule here. */
#include "builtins/builtins.h"

const Type *builtin_ufunc_loop(const Builtin *b, const Type **elems) {
  int n = b->min_args;
  const Type *p = elems[0];
  for (int i = 0; i < n && p; i++) p = type_promote(p, elems[i]);
  if (!p || type_is_alone(p)) return NULL;   /* NumPy has no bfloat16 or fp8 loops */
  if (b->id == BI_NP_ELEMENTWISE) {
    bool bitwise = b->elementwise == NPE_BITWISE;
    return bitwise && p->kind != TY_INT && p->kind != TY_BOOL ? NULL : p;
  }
  /* a math function: its float type, or for complex numbers the complex type where NumPy has
   * a complex loop (the row's complex_row) */
  if (type_is_complex(p)) return b->complex_row ? p : NULL;
  return type_math_float(elems, n);
}
