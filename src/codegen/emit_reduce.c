/* NumPy's reductions of a whole array (typeinfer/infer_reduce.c): a call of the prelude's
 * template (TH_NP_REDUCE), which walks the elements in row-major order as Numba's np.nditer
 * does, on the array as a p2c_array value:
 *
 *     np.sum(a)       p2c_np_sum<int64_t>(a)            the result type as the template argument
 *     np.min(a)       p2c_np_min<REPORT>(a, LINE, COL)  an empty array raises ValueError
 *
 * min, max, nanmin and nanmax of an empty array raise Numba's ValueError: reported with
 * debug=True (p2c_raise), else the thread ends quietly, as a raise in a device function ends
 * it. */
#include "codegen/cg.h"

/* Whether reduction r raises for an empty array. */
static bool raises_when_empty(NpReduce r) {
  return r == NPR_MIN || r == NPR_MAX || r == NPR_NANMIN || r == NPR_NANMAX;
}

/* numpy.sum(a) and the other BI_NP_REDUCE rows */
void emit_np_reduce_call(Gen *G, const Expr *e, StrBuf *sb, int prec) {
  (void)prec;
  const Builtin *b = e->kids[0]->builtin;
  type_helper_use(&G->helpers, TH_VIEW_WALK);
  type_helper_use(&G->helpers, TH_REDUCE_WALK);
  bool raises = raises_when_empty((NpReduce)b->reduce);
  if (raises) {
    type_helper_use(&G->helpers, TH_NP_EXTREMUM);
    helper_use(&G->helpers, H_BOUNDS);   /* p2c_raise's record */
    helper_use(&G->helpers, H_RAISE);
    helper_use(&G->helpers, H_EXIT);
  }
  if (raises) sb_printf(sb, "%s<%s>(", b->c64, G->fn->reports_raises ? "true" : "false");
  else sb_printf(sb, "%s<%s>(", b->c64, ctype_of(G, e->ty));
  emit_array_value(G, e->kids[1], sb);
  if (raises) sb_printf(sb, ", %u, %u", e->loc.line, e->loc.col);
  sb_putc(sb, ')');
}
