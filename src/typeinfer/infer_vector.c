/* CUDA vector types (cuda.float32x4, cuda.int2, ...): their constructors and their lanes, typed
 * as Numba's CUDA target types them (numba/cuda/vector_types.py). A constructor takes scalars
 * and vectors of its own base type whose lanes add up to its own: `float32x4(a, b, c, d)`,
 * `float32x4(xy, z, w)`, `float32x3(x1, yz)`; a scalar converts to the base type (Numba's
 * overloads take the base type, and its resolution allows any number conversion), a vector is
 * taken as it is (none converts to another). Lanes are read with .x .y .z .w and cannot be
 * assigned (Numba's vector types are immutable values). */
#include <string.h>

#include "typeinfer/infer.h"

/* One argument of vector constructor e: a number, or a vector of the constructor's base type.
 * Returns its lanes (1 for a number), 0 after an error. */
static int ctor_arg_lanes(Infer *I, Expr *e, int i, const Type *t, const Type *vt) {
  const char *name = builtin_display_name(e->builtin);
  if (t->kind == TY_VECTOR) {
    if (t->dtype == vt->dtype && t == type_vector_of(t->dtype, t->lanes)) return t->lanes;   /* not bfloat16_raw */
    TERR(I, e->kids[i]->loc, "E-vector", "%s() takes vectors of %s, got %s", name,
         vt->dtype->name, t->name);
    return 0;
  }
  if (!type_is_number(t)) {
    TERR(I, e->kids[i]->loc, "E-vector", "%s() takes numbers and vectors of %s, got %s", name,
         vt->dtype->name, t->name);
    return 0;
  }
  infer_coerce(I, &e->kids[i], vt->dtype);
  return 1;
}

/* cuda.float32x4(...) and its aliases (cuda.float4): the row's result is the vector type. */
const Type *infer_vector_ctor_call(Infer *I, Expr *e, const Type **t) {
  const Type *vt = e->builtin->result;
  int lanes = 0;
  for (int i = 1; i < e->nkids; i++) {
    int n = ctor_arg_lanes(I, e, i, t[i], vt);
    if (n == 0) return NULL;
    lanes += n;
  }
  if (lanes != vt->lanes) {
    TERR(I, e->loc, "E-vector", "%s() needs %d lane%s in all (numbers count 1, vectors their "
         "lanes), got %d", builtin_display_name(e->builtin), vt->lanes,
         vt->lanes == 1 ? "" : "s", lanes);
    return NULL;
  }
  return vt;
}

int infer_vector_lane_index(const char *attr) {
  static const char *const names[] = {"x", "y", "z", "w"};
  for (int k = 0; k < 4; k++)
    if (strcmp(attr, names[k]) == 0) return k;
  return -1;
}

/* v.x, v.y, v.z, v.w of a vector: its base type, for the lanes it has. */
const Type *infer_vector_lane(Infer *I, Expr *e, const Type *t) {
  int k = infer_vector_lane_index(e->str);
  if (k >= 0 && k < t->lanes) return t->dtype;
  if (k >= 0)
    TERR(I, e->loc, "E-attribute", "%s has %d lane%s, so no '%s'", t->name, t->lanes,
         t->lanes == 1 ? "" : "s", e->str);
  else
    TERR(I, e->loc, "E-attribute", "%s has no attribute '%s' (its lanes are %.*s)", t->name,
         e->str, 2 * t->lanes - 1, "x y z w");
  return NULL;
}
