/* Grid-stride loops in lockstep, for the simulator (docs/simulator.md, "Lockstep").
 *
 * A kernel without barriers whose body is a few assignments and then one grid-stride loop
 *
 *     start = cuda.grid(1)
 *     stride = cuda.gridsize(1)
 *     for k in range(start, x.size, stride):
 *         x[k] /= total[0]
 *
 * is emitted once more, under #ifdef PYK2CUDA_SIM, as a step function that runs one iteration
 * of the loop for the current thread:
 *
 *     static inline __attribute__((always_inline))
 *     void p2c_lockstep_divide(int64_t &p2c_pos, bool p2c_first, bool &p2c_more,
 *                              p2c_array<float, 1> x, p2c_array<float, 1> total) {
 *       ...declarations...
 *       p2c_more = false;
 *       start = ...;                      <- the assignments, evaluated again at every step
 *       stride = ...;
 *       if (p2c_first) {
 *         p2c_pos = start;
 *         if (!(p2c_pos < x.shape[0])) return;
 *       }
 *       k = p2c_pos;
 *       do { ...the loop's body... } while (0);    <- `continue` leaves the do
 *       p2c_pos += stride;
 *       p2c_more = p2c_pos < x.shape[0];  <- whether there is a next iteration
 *     }
 *
 * (Testing for the next iteration at the end of a step, as the C loop does after its body,
 * spares a thread that has one iteration, the usual case when the grid covers the array, a
 * second call.)
 *
 * and the prelude's P2C_SIM_LOCKSTEP runs a block's threads through it together, iteration by
 * iteration. The statements are the kernel's own, emitted by the same code as the kernel; only
 * the order of the threads' iterations changes, which is legal because nothing orders the
 * threads of a kernel without barriers.
 *
 * Running the assignments again at each step is what makes the step function stateless but for
 * the loop position: so the assignments must give the same values every time (no array
 * element, no call of a device function, no effect; `return` under an `if` ends the thread),
 * and no variable may carry a value from one iteration of the loop into the next (each step
 * starts from fresh locals): every variable the body assigns must be assigned, in that
 * iteration, before the body reads it. Loops that break out or return are left alone, as are
 * loops that are not grid-stride loops (a step that does not depend on the launch's
 * dimensions): a thread that walks its own row is faster thread after thread. */
#include <string.h>

#include "codegen/cg.h"

/* ---- the step function ---- */

const char *emit_lockstep_step(Gen *G, const Function *f, const Stmt *loop, StrBuf *out) {
  const char *name = namer_claim_temp(&G->global, arena_printf(G->a, "lockstep_%s", f->cname));
  FunctionScope fs;
  function_begin(G, f, &fs);
  const char *pos = namer_claim_temp(&G->local, "pos");
  const char *first = namer_claim_temp(&G->local, "first");
  const char *more = namer_claim_temp(&G->local, "more");
  emit_line(G, "%s = false;\n", more);
  Block before = {f->body.items, f->body.len - 1};
  emit_block(G, &before);
  emit_stmt_comment(G, loop);
  RangeLoop r = range_loop(G, loop);
  const char *test = range_loop_test(G, &r, pos);
  emit_line(G, "if (%s) {\n", first);
  emit_line(G, "  %s = %s;\n", pos, r.start);
  emit_line(G, "  if (!(%s)) return;\n", test);
  emit_line(G, "}\n");
  emit_line(G, "%s = %s;\n", G->vnames[loop->var], pos);
  emit_line(G, "do {\n");
  G->indent += 2;
  emit_block(G, &loop->body);
  G->indent -= 2;
  emit_line(G, "} while (0);\n");
  emit_line(G, "%s;\n", range_loop_advance(G, &r, pos));
  emit_line(G, "%s = %s;\n", more, test);
  StrBuf header;
  sb_init(&header, G->a);
  sb_printf(&header, "static inline __attribute__((always_inline)) void %s(%s &%s, bool %s, bool &%s", name,
            ctype_of(G, f->vars[loop->var].ty), pos, first, more);
  if (f->nparams) sb_puts(&header, ", ");
  emit_params(G, &header, fs.pnames);
  sb_putc(&header, ')');
  function_end(G, &fs, sb_str(&header), out);
  return name;
}
