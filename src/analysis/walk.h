/* Internal to the analysis phase: the walks built on the AST's walker (frontend/ast_walk.h). */
#ifndef P2C_ANALYSIS_WALK_H
#define P2C_ANALYSIS_WALK_H

#include "analysis/analysis.h"
#include "frontend/ast_walk.h"

/* Calls visit(s, value, ctx) for each statement s in block b, at any depth, that binds variable
 * var, in source order, until a call returns true (an_each_binding then returns true). value is
 * what an assignment gives var (the matching element of a tuple literal, else the whole value),
 * an augmented assignment's operand, and NULL for a loop's target. */
typedef bool (*BindingVisit)(const Stmt *s, const Expr *value, void *ctx);
bool an_each_binding(const Block *b, int var, BindingVisit visit, void *ctx);
/* Whether variable var is read anywhere in block b outside statement `loop`. */
bool an_used_outside(const Block *b, const Stmt *loop, int var);

typedef VEC(Stmt *) StmtList;
/* Sets f->nonneg and f->positive; appends f's range() loops to *loops (nonneg.c). */
void an_nonneg(Function *f, Arena *a, StmtList *loops);
/* Whether a range step (NULL: the implicit 1) is known to be > 0 in function f; the sign of a
 * constant one (1, -1, 0) or 2 when it is not a constant (ranges.c). */
bool an_step_is_positive(const Function *f, const Expr *step);
int an_const_sign(const Expr *e);
/* An upper bound on the bits of |value| of integer expression e of function f (64 when nothing
 * smaller is known): types, CUDA's limits, array extents, constants, local variables'
 * assignments (value_bits.c). */
int an_value_bits(const Function *f, const Expr *e);
/* The grid-stride loop that ends kernel f when the simulator may run f's threads through it in
 * lockstep; NULL when it may not (lockstep.c). */
const Stmt *an_lockstep_loop(const Function *f, Arena *a);
/* The simulator's regions of kernel f, a kernel with barriers, or NULL with f->regions_refused
 * saying why it keeps its fibers (regions.c, after an_ranges). */
const RegionPlan *an_region_plan(Function *f, Arena *a, bool fibers);
/* A copy of kernel f whose calls of device functions that reach a barrier are replaced by their
 * bodies, for the simulator's regions; *inlined names the functions inlined. NULL with *why
 * when a call cannot be inlined (inline.c). */
Function *an_inline_barriers(const Function *f, Arena *a, const char **inlined, const char **why);
/* The RangeFacts of f's range() loops, after an_nonneg (ranges.c). */
void an_ranges(const Function *f, const StmtList *loops);
/* Sets Stmt.par on the prange loops of f, a host entry of a parallel=True function, that may run
 * over the cores (parallel.c). */
void an_parallel_loops(Function *f, Arena *a);
/* Records Expr.facts on every expression of f, after an_nonneg (facts.c). */
void an_record_facts(Function *f, Arena *a);
/* Per parameter of f, whether f may store to it (an array: its elements, directly, through views,
 * atomics or the device functions it is passed to); conservative. Computed once and kept in
 * f->param_written (writes.c). */
const bool *an_param_writes(Function *f, Arena *a);
/* Per parameter of kernel f, the PrivateAtomic the simulator may run its atomics with; NULL when
 * no parameter qualifies (private_atomics.c). */
const uint8_t *an_private_atomics(Function *f, Arena *a);
/* Whether the simulator should run kernel f's threads (and blocks) y fastest: its subscripts
 * walk memory in order so, and no thread can observe the order (thread_order.c; after
 * an_lockstep_loop and an_region_plan, and checked_functions' checks_bounds). */
bool an_threads_yx(const Function *f, Arena *a);
/* Whether e reads variable var. */
bool an_reads_var(const Expr *e, int var);
/* Whether assignment target t (a name, or a tuple of targets) binds variable var. */
bool an_target_names(const Expr *t, int var);
/* Whether block b rebinds variable var (assignments and loop targets; not subscripts). */
bool an_assigns_var(const Block *b, int var);
/* Whether e (an expression of function f) is known to be >= 0 / > 0: the rules behind
 * EF_NONNEG and EF_POSITIVE, over the variables' facts (nonneg.c). */
bool an_expr_nonneg(const Function *f, const Expr *e);
bool an_expr_positive(const Function *f, const Expr *e);

#endif
