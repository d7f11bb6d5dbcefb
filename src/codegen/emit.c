/* Emission of the module and its functions. codegen_run, at the end, is the driver: names,
 * definitions, kernel descriptors, then the text assembled. Each function's body is written into
 * its own buffer first, because the declarations it needs (locals, temporaries) are only known
 * at the end; the prelude comes last for the same reason (only the helpers used are written).
 * Large modules are emitted on two threads (below). */
#include <math.h>
#include <string.h>

#include "codegen/cg.h"
#include "util/side.h"

/* ---- functions ---- */

static void name_vars(Gen *G) {
  const Function *f = G->fn;
  G->vnames = arena_alloc(G->a, sizeof(char *) * (size_t)(f->nvars ? f->nvars : 1));
  for (int i = 0; i < f->nvars; i++) {
    G->vnames[i] = namer_claim(&G->local, f->vars[i].name);
  }
}

/* A parameter whose variable was widened (n = n / 2) arrives under another name and is copied
 * into a local of the variable's type. */
static const char *param_cname(Gen *G, int i) {
  const Function *f = G->fn;
  if (f->arg_types[i] == f->vars[i].ty) return G->vnames[i];
  return namer_claim(&G->local, arena_printf(G->a, "%s_arg", f->vars[i].name));
}

void emit_params(Gen *G, StrBuf *out, const char **pnames) {
  const Function *f = G->fn;
  for (int i = 0; i < f->nparams; i++)
    sb_printf(out, "%s%s %s", i ? ", " : "", ctype_of(G, f->arg_types[i]), pnames[i]);
}

/* A device function's linkage: file-local, or, exported (compile_ptx(device=True)), visible
 * under its C name (NVRTC keeps it, as a `.visible .func`, in relocatable code); with
 * forceinline=True also __forceinline__ (NVVM's alwaysinline, as Numba's forceinline). */
static const char *device_linkage(const Function *f) {
  bool inl = (f->generic ? f->generic : f)->forceinline;
  if (f->export_entry) return inl ? "extern \"C\" __device__ __forceinline__" : "extern \"C\" __device__";
  return inl ? "static __device__ __forceinline__" : "static __device__";
}

/* A kernel's __launch_bounds__(...) (its decorator's launch_bounds=), or nothing. */
static void emit_launch_bounds(const Function *f, StrBuf *out) {
  const Function *g = f->generic ? f->generic : f;
  for (int i = 0; i < g->nlaunch_bounds; i++)
    sb_printf(out, "%s%lld", i ? ", " : "__launch_bounds__(", (long long)g->launch_bounds[i]);
  if (g->nlaunch_bounds) sb_puts(out, ") ");
}

static void emit_signature(Gen *G, StrBuf *out, const char **pnames) {
  const Function *f = G->fn;
  if (f->kind == FN_KERNEL) {
    sb_puts(out, "extern \"C\" __global__ void ");
    emit_launch_bounds(f, out);
    sb_printf(out, "%s(", f->cname);
  } else {
    sb_printf(out, "%s %s %s(", device_linkage(f), ctype_of(G, f->ret_type), f->cname);
  }
  emit_params(G, out, pnames);
  sb_puts(out, ")");
}

/* A device function's declaration, so that definitions can come in any order. */
static void emit_prototype(Gen *G, const Function *f, StrBuf *out) {
  sb_printf(out, "%s %s %s(", device_linkage(f), ctype_of(G, f->ret_type), f->cname);
  for (int i = 0; i < f->nparams; i++) sb_printf(out, "%s%s", i ? ", " : "", ctype_of(G, f->arg_types[i]));
  sb_puts(out, ");\n");
}

static void emit_decl(Gen *G, StrBuf *out, const Type *t, const char *name, const char *init, int64_t align) {
  if (t->fixed_shape && t->space == MEM_CONST) {
    emit_const_array_decl(G, out, t, name);
    return;
  }
  if (t->fixed_shape) {
    sb_puts(out, "  ");
    if (align) sb_printf(out, "alignas(%lld) ", (long long)align);   /* alignment=: first, where C++ takes it */
    sb_printf(out, "%s%s %s", t->space == MEM_SHARED ? "__shared__ " : "", t->dtype->cname, name);
    for (int k = 0; k < t->ndim; k++) sb_printf(out, "[%lld]", (long long)t->fixed_shape[k]);
    sb_puts(out, ";\n");
    return;
  }
  const Type *held = t->kind == TY_ENUM ? t->dtype : t;   /* an Enum member is its value */
  if (init) sb_printf(out, "  %s %s = %s;\n", ctype_of(G, t), name, init);
  else if (held->kind == TY_ARRAY || held->kind == TY_TUPLE || held->kind == TY_HALF || held->kind == TY_VECTOR ||
           held->kind == TY_GRID_GROUP || held->kind == TY_CHARSEQ)
    sb_printf(out, "  %s %s = {};\n", ctype_of(G, t), name);
  else sb_printf(out, "  %s %s = 0;\n", ctype_of(G, t), name);
}

void emit_var_decl(Gen *G, StrBuf *out, int v) {
  const Var *var = &G->fn->vars[v];
  emit_decl(G, out, var->ty, G->vnames[v], NULL, var->align);
}

void function_begin(Gen *G, const Function *f, FunctionScope *fs) {
  G->fn = f;
  namer_init(&G->local, G->a, &G->global);
  memset(&G->temps, 0, sizeof G->temps);
  name_vars(G);
  fs->pnames = arena_alloc(G->a, sizeof(char *) * (size_t)(f->nparams ? f->nparams : 1));
  for (int i = 0; i < f->nparams; i++) fs->pnames[i] = param_cname(G, i);
  sb_init(&fs->body, G->a);
  G->body = &fs->body;
  G->indent = 2;
  fs->first_mark = G->marks.len;
}

/* --sanitize: the storage of the function's shared and local arrays, told to the simulator's
 * checker when the function starts (a local array starts unwritten at every call). */
static void emit_san_regions(Gen *G, StrBuf *out) {
  const Function *f = G->fn;
  for (int i = 0; i < f->nvars; i++) {
    const Type *t = f->vars[i].ty;
    if (!t || t->kind != TY_ARRAY || !t->fixed_shape || (t->space != MEM_SHARED && t->space != MEM_LOCAL))
      continue;
    sb_printf(out, "  p2c_sim_san_region(%s, sizeof %s, %s);\n", G->vnames[i], G->vnames[i],
              t->space == MEM_SHARED ? "P2C_SAN_SHARED" : "P2C_SAN_LOCAL");
  }
}

void function_end(Gen *G, FunctionScope *fs, const char *header, StrBuf *out) {
  const Function *f = G->fn;
  sb_puts(out, header);
  sb_puts(out, " {\n");
  for (int i = 0; i < f->nvars; i++) {
    const Var *v = &f->vars[i];
    if (!v->ty) continue;
    if (i < f->nparams && fs->pnames[i] == G->vnames[i]) continue;
    emit_decl(G, out, v->ty, G->vnames[i], i < f->nparams ? fs->pnames[i] : NULL, v->align);
  }
  for (size_t i = 0; i < G->temps.len; i++)
    sb_printf(out, "  %s %s;\n", G->temps.items[i].ctype, G->temps.items[i].name);
  if (f->nvars > f->nparams || G->temps.len) sb_putc(out, '\n');
  if (G->sanitize) emit_san_regions(G, out);
  for (size_t i = fs->first_mark; i < G->marks.len; i++) G->marks.items[i].offset += out->len;
  sb_puts(out, sb_str(&fs->body));
  sb_puts(out, "}\n");
  LineMark end = {out->len, 0};
  vec_push(G->a, &G->marks, end);
}

static void emit_function(Gen *G, const Function *f, StrBuf *out) {
  FunctionScope fs;
  function_begin(G, f, &fs);
  if (f->extern_symbol) emit_extern_body(G, f, fs.pnames);   /* cuda.declare_device (emit_link.c) */
  else emit_block(G, &f->body);
  StrBuf header;
  sb_init(&header, G->a);
  emit_signature(G, &header, fs.pnames);
  function_end(G, &fs, sb_str(&header), out);
}

/* The Python line of every line of text, from the marks (offsets in text, in order). */
static void map_python_lines(Gen *G, const StrBuf *text, CodegenResult *out) {
  const char *t = text->data, *end = text->data + text->len;
  size_t nlines = 0;
  for (const char *p = t; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) nlines++;
  uint32_t *map = arena_alloc(G->a, sizeof *map * (nlines ? nlines : 1));
  size_t next = 0;
  uint32_t current = 0;
  const char *s = t;
  for (size_t line = 0; line < nlines; line++) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t first = (size_t)(s - t), last = (size_t)(nl - t);
    while (next < G->marks.len && G->marks.items[next].offset <= first)
      current = G->marks.items[next++].python_line;
    uint32_t python_line = current;   /* a line takes the first statement's that touches it */
    while (next < G->marks.len && G->marks.items[next].offset <= last) {
      size_t at = G->marks.items[next].offset;   /* of marks at one offset, the last counts */
      while (next < G->marks.len && G->marks.items[next].offset == at) current = G->marks.items[next++].python_line;
      if (!python_line) python_line = current;
    }
    map[line] = python_line;
    s = nl + 1;
  }
  out->python_line = map;
  out->nlines = nlines;
}

/* ---- the module ---- */

/* A specialization's C name: the function's name; for an instance (static_args.c), then two
 * underscores and the values its parameters were given (atomic_op__atomic_add_uint32_32); for
 * one of several specializations of a device function, then its argument types. An exported
 * one keeps its name where it can (namer_claim_symbol: it is the symbol callers link to). */
static void name_function(Gen *G, Function *f, bool many) {
  const Function *g = f->generic;
  const char *want = g->static_suffix ? arena_printf(G->a, "%s__%s", g->name, g->static_suffix) : g->name;
  if (many && f->kind == FN_DEVICE) {
    StrBuf sb;
    sb_init(&sb, G->a);
    sb_puts(&sb, want);
    for (int i = 0; i < f->nparams; i++) sb_printf(&sb, "_%s", type_suffix(G, f->arg_types[i]));
    want = sb_str(&sb);
  }
  f->cname = f->export_entry && !many ? namer_claim_symbol(&G->global, want) : namer_claim(&G->global, want);
}

/* A tuple constant indexed at run time becomes a device table. */
static void emit_const_table(Gen *G, Const *k, StrBuf *out) {
  const Expr *v = k->value;
  const Type *t = v->kids[0]->kind == EX_FLOAT ? &type_float64 : v->kids[0]->kind == EX_BOOL ? &type_bool : &type_int64;
  k->cname = namer_claim(&G->global, k->name);
  sb_printf(out, "static __device__ const %s %s[%d] = {", t->cname, k->cname, v->nkids);
  for (int i = 0; i < v->nkids; i++) {
    if (i) sb_puts(out, ", ");
    emit_expr(G, v->kids[i], out, P_ASSIGN);
  }
  sb_puts(out, "};\n");
}

static void emit_constants(Gen *G, StrBuf *out) {
  bool any = false;
  emit_const_arrays(G, out);
  emit_captured_arrays(G, out);
  for (size_t i = 0; i < G->m->consts.len; i++) {
    Const *k = G->m->consts.items[i];
    if (k->used && k->indexed) {
      sb_puts(out, any ? "" : "\n");
      emit_const_table(G, k, out);
      any = true;
    }
    if (!k->used || k->value->kind == EX_TUPLE || const_names_itself(k)) continue;
    /* inf and NaN are p2c_inf/p2c_nan, which C cannot evaluate in a constexpr: such a
     * constant is written where it is used (emit_expr). */
    if (k->value->kind == EX_FLOAT && !isfinite(k->value->fval)) continue;
    if (k->value->kind == EX_IMAG) continue;   /* p2c_complex128 is no literal type: the same */
    k->cname = namer_claim(&G->global, k->name);
    const Type *t = k->scalar ? k->scalar : k->value->kind == EX_FLOAT ? &type_float64
                    : k->value->kind == EX_BOOL ? &type_bool : k->value->is_unsigned_literal ? &type_uint64
                    : &type_int64;
    sb_printf(out, "%s%s %s %s = ", any ? "" : "\n", G->c_form ? "static const" : "constexpr", t->cname, k->cname);
    emit_expr(G, k->value, out, P_ASSIGN);
    sb_puts(out, ";\n");
    any = true;
  }
}

/* The launch ABI of a value of type t (a parameter, or an element of a tuple parameter):
 * what it is, its bytes and alignment in parameter space, and a tuple's elements at their
 * offsets in its struct (types.c's type_value_size lays out the structs emit_tuple.c prints). */
static void describe_value(Gen *G, const Type *t, P2cParam *p) {
  if (t->enum_class) {   /* an Enum member: passed as its value */
    describe_value(G, t->dtype, p);
    p->enum_class = t->enum_class;
    p->enum_is_int = t->kind == TY_INT;
    return;
  }
  p->is_array = t->kind == TY_ARRAY;
  const Type *elem = p->is_array ? t->dtype : t;
  p->type = elem->kind == TY_TUPLE ? P2C_TUPLE : elem->scalar;
  p->ndim = p->is_array ? t->ndim : 0;
  p->layout = p->is_array ? t->layout : 0;
  p->size = (size_t)type_value_size(t);
  p->align = (size_t)type_value_align(t);
  if (elem->kind == TY_RECORD) {
    P2cRecord *r = arena_alloc(G->a, sizeof *r);
    *r = type_record_desc(G->a, elem);
    p->type = P2C_RECORD;
    p->record = r;
  }
  if (t->kind != TY_TUPLE) return;
  P2cParam *elems = arena_alloc(G->a, sizeof *elems * (size_t)(t->nelems ? t->nelems : 1));
  memset(elems, 0, sizeof *elems * (size_t)(t->nelems ? t->nelems : 1));
  for (int k = 0; k < t->nelems; k++) {
    describe_value(G, t->elems[k], &elems[k]);
    elems[k].name = t->field_names ? t->field_names[k] : NULL;
    elems[k].offset = (size_t)type_tuple_offset(t, k);
    elems[k].written = elems[k].is_array || elems[k].written;
    p->written |= elems[k].written;
  }
  p->elems = elems;
  p->elem_count = (size_t)t->nelems;
  p->tuple_class = t->tuple_class;
}

static void describe_param(Gen *G, const Function *f, int i, P2cParam *p) {
  memset(p, 0, sizeof *p);
  describe_value(G, f->arg_types[i], p);
  p->name = f->vars[i].name;
  if (p->is_array) p->written = f->param_written && f->param_written[i];
}

static uint32_t static_shared_bytes(const Function *f) {
  uint64_t n = 0;
  for (int i = 0; i < f->nvars; i++) {
    const Type *t = f->vars[i].ty;
    if (!t || t->kind != TY_ARRAY || t->space != MEM_SHARED || !t->fixed_shape) continue;   /* dynamic: sized at launch */
    uint64_t b = (uint64_t)t->dtype->bits / 8;
    for (int k = 0; k < t->ndim; k++) b *= (uint64_t)t->fixed_shape[k];
    n += b;
  }
  return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* P2C_SIM_PRIVATE(symbol, op...): per parameter, how the simulator's entries without fibers may
 * run its atomics (Function.private_atomics; a worker's copy of the array, docs/simulator.md,
 * "Atomics"): P2C_PRIVATE_NO for a parameter that is no array, P2C_PRIVATE_SHARED for an array
 * kept shared, else the operation that merges the copies. Nothing for a kernel without such
 * arrays, nor under --sanitize (its checker follows addresses). */
static void emit_sim_private(const KernelDesc *k, StrBuf *out) {
  static const char *const ops[] = {"SHARED", "ADD", "AND", "OR", "XOR", "MAX", "MIN"};
  const Function *f = k->spec;
  if (!f->private_atomics) return;
  sb_printf(out, "P2C_SIM_PRIVATE(%s", k->symbol);
  for (int i = 0; i < f->nparams; i++)
    sb_printf(out, ", P2C_PRIVATE_%s", f->arg_types[i]->kind == TY_ARRAY ? ops[f->private_atomics[i]] : "NO");
  sb_puts(out, ")\n");
}

/* The simulator's entry for a kernel, defined by the host prelude (docs/simulator.md): its block
 * function for a kernel with barriers run as regions (emit_regions.c), fibers for the other
 * kernels with barriers or warp operations, its step function in lockstep for a kernel that ends
 * in a grid-stride loop (emit_lockstep.c), plain loops over blocks otherwise (y fastest where
 * the analysis chose so, Function.sim_threads_yx). Only the one the
 * runtime will look up, so that the kernel's body is compiled once. */
static void emit_sim_entry(const KernelDesc *k, const char *step, bool sanitize, StrBuf *out) {
  bool grid = step && !k->is_ufunc && k->spec->regions && k->spec->regions->grid;
  /* a grid function's entry has no chunks of blocks to give private copies to */
  if (!k->is_ufunc && (step || !k->spec->uses_barrier) && !sanitize && !grid) emit_sim_private(k, out);
  if (grid)
    sb_printf(out, "P2C_SIM_GRID(%s, %s)\n", k->symbol, step);
  else if (step && !k->is_ufunc && k->spec->regions)
    sb_printf(out, "P2C_SIM_REGIONS(%s, %s)\nP2C_SIM_BLOCKS(%s)\n", k->symbol, step, k->symbol);
  else if (step) sb_printf(out, "P2C_SIM_LOCKSTEP(%s, %s)\n", k->symbol, step);
  else {
    /* threads and blocks y fastest where the kernel's subscripts walk memory in order so */
    if (!k->is_ufunc && k->spec->sim_threads_yx) sb_printf(out, "P2C_SIM_YX(%s)\n", k->symbol);
    sb_printf(out, "%s(%s)\n", k->spec->uses_barrier ? "P2C_SIM_FIBERS" : "P2C_SIM_BLOCKS", k->symbol);
  }
  /* a fiber's stack holds the thread's local arrays: the simulator sizes it from this */
  if (!step && k->spec->uses_barrier && k->spec->local_bytes)
    sb_printf(out, "P2C_SIM_STACK(%s, %llu)\n", k->symbol, (unsigned long long)k->spec->local_bytes);
}

/* The block functions of the kernels that the simulator runs as regions, then the step functions
 * of those it runs in lockstep, into out, with their line marks relative to out in *marks;
 * steps[i] names kernel i's (NULL: none). */
static void emit_lockstep_steps(Gen *G, const CodegenResult *r, const char **steps, StrBuf *out,
                                LineMarks *marks) {
  LineMarks kept = G->marks;
  memset(&G->marks, 0, sizeof G->marks);
  for (int i = 0; i < r->nkernels; i++) {
    const KernelDesc *k = &r->kernels[i];
    steps[i] = NULL;
    if (k->is_ufunc || !k->spec->regions) continue;
    if (out->len == 0)
      sb_puts(out, "/* Kernels with barriers, one block per call, each run of statements between barriers a\n"
                   " * loop over the block's threads (docs/simulator.md, \"Regions\"). */\n");
    sb_putc(out, '\n');
    steps[i] = emit_regions_fn(G, k->spec, out);
  }
  bool lockstep_header = false;
  for (int i = 0; i < r->nkernels; i++) {
    const KernelDesc *k = &r->kernels[i];
    const Stmt *loop = k->is_ufunc ? NULL : k->spec->lockstep_loop;
    if (!loop) continue;
    if (!lockstep_header) {
      if (out->len) sb_putc(out, '\n');
      sb_puts(out, "/* Kernels that end in a grid-stride loop, one iteration per call: the simulator runs\n"
                   " * a block's threads through the loop together (docs/simulator.md, \"Lockstep\"). */\n");
      lockstep_header = true;
    }
    sb_putc(out, '\n');
    steps[i] = emit_lockstep_step(G, k->spec, loop, out);
  }
  *marks = G->marks;
  G->marks = kept;
}

/* The definitions of funcs[first, end), each after a blank line. */
static void emit_functions(Gen *G, const Function *const *funcs, size_t first, size_t end, StrBuf *out) {
  for (size_t i = first; i < end; i++) {
    sb_putc(out, '\n');
    emit_function(G, funcs[i], out);
  }
}

/* ---- emitting on two threads ----
 * A large module's function definitions are written in two halves at once: this thread the
 * first, a second thread the second into a text of its own, appended after the join. Functions
 * are emitted independently: what they share was settled before (the C names of functions and
 * constants, the global namer, which the second thread reads through a copy) or is merged after
 * (helpers used, line marks, diagnostics). The tuple structs are the exception: their names are
 * claimed in order of first use, so the second thread makes none; if its functions need one,
 * its text is dropped and they are emitted again here. Either way the text is the one a single
 * thread writes. */
typedef struct EmitRange {
  Gen *G;
  const Function *const *funcs;
  size_t first, end;
  StrBuf *out;
} EmitRange;

static void emit_range(void *arg) {
  EmitRange *r = arg;
  emit_functions(r->G, r->funcs, r->first, r->end, r->out);
}

/* The side's Gen: G's settled state, nothing of what emitting adds to it. */
static void prepare_side_gen(Gen *side_gen, const Gen *G, Side *side) {
  *side_gen = *G;
  side_gen->c = &side->c;
  side_gen->a = &side->c.arena;
  side_gen->helpers = (HelperSet){0};
  side_gen->marks.items = NULL;
  side_gen->marks.len = side_gen->marks.cap = 0;
  side_gen->tuple_ctypes.items = NULL;
  side_gen->tuple_ctypes.len = side_gen->tuple_ctypes.cap = 0;
  side_gen->libdevice.items = NULL;
  side_gen->libdevice.len = side_gen->libdevice.cap = 0;
  side_gen->on_second_thread = true;
  side_gen->needs_tuples = false;
  strmap_copy(&side_gen->global.taken, &G->global.taken, G->a);   /* this thread may add to G's */
}

/* Appends the side's text, line marks and helpers after this thread's. */
static void merge_side_text(Gen *G, const Gen *side_gen, const StrBuf *side_out, StrBuf *out) {
  for (size_t i = 0; i < side_gen->marks.len; i++) {
    LineMark mark = side_gen->marks.items[i];
    mark.offset += out->len;
    vec_push(G->a, &G->marks, mark);
  }
  sb_putn(out, sb_str(side_out), side_out->len);
  G->helpers.bits |= side_gen->helpers.bits;
  G->helpers.type_bits |= side_gen->helpers.type_bits;
  G->helpers.cuda_bits |= side_gen->helpers.cuda_bits;
  libdevice_merge(G, side_gen);
}

static void emit_on_two_threads(Gen *G, const Function *const *funcs, size_t n, StrBuf *out) {
  size_t half = n / 2;
  Side side;
  Gen side_gen;
  StrBuf side_out;
  EmitRange here = {G, funcs, 0, half, out}, there = {&side_gen, funcs, half, n, &side_out};
  side_prepare(&side, G->c, emit_range, &there);
  prepare_side_gen(&side_gen, G, &side);
  sb_init(&side_out, &side.c.arena);
  side_run(&side, G->c, emit_range, &here);
  /* A tuple struct was needed there: the side's text is dropped, its functions emitted here. */
  bool redo = side_gen.needs_tuples;
  side_finish(&side, G->c, !redo);
  if (redo) emit_functions(G, funcs, half, n, out);
  else merge_side_text(G, &side_gen, &side_out, out);
}

/* ---- the driver ---- */

/* Claims the C names of the kernels, the device functions and the ufuncs' element functions
 * (which join the device functions in *devs); returns the ufuncs' kernel symbols. */
static const char **name_functions(Gen *G, const Analysis *an, FunctionList *devs) {
  for (size_t i = 0; i < an->devices.len; i++) vec_push(G->a, devs, an->devices.items[i]);
  for (size_t i = 0; i < an->kernels.len; i++) name_function(G, an->kernels.items[i], false);
  for (size_t i = 0; i < devs->len; i++) name_function(G, devs->items[i], devs->items[i]->generic->specs.len > 1);
  const FunctionList *ufuncs = &an->ufuncs;
  const char **symbols = arena_alloc(G->a, sizeof(char *) * (ufuncs->len ? ufuncs->len : 1));
  for (size_t i = 0; i < ufuncs->len; i++) {
    symbols[i] = ufunc_name_spec(G, ufuncs->items[i], ufuncs->items[i]->generic->specs.len > 1);
    vec_push(G->a, devs, ufuncs->items[i]);
  }
  return symbols;
}

/* The device functions' prototypes (so that any call order compiles), then the definitions:
 * device functions (the last collected first), then kernels; on two threads when there are
 * many. */
static void emit_definitions(Gen *G, const FunctionList *devs, const FunctionList *kernels, const CodegenOptions *o,
                             StrBuf *defs) {
  if (devs->len) sb_putc(defs, '\n');
  for (size_t i = devs->len; i-- > 0;) {
    G->fn = devs->items[i];
    emit_prototype(G, devs->items[i], defs);
  }
  size_t nfuncs = devs->len + kernels->len;
  const Function **order = arena_alloc(G->a, sizeof *order * (nfuncs ? nfuncs : 1));
  for (size_t i = 0; i < devs->len; i++) order[i] = devs->items[devs->len - 1 - i];
  for (size_t i = 0; i < kernels->len; i++) order[devs->len + i] = kernels->items[i];
  size_t split_min = o->split_min ? o->split_min : P2C_EMIT_SPLIT_MIN;
  if (nfuncs >= split_min && nfuncs >= 2) emit_on_two_threads(G, order, nfuncs, defs);
  else emit_functions(G, order, 0, nfuncs, defs);
}

/* The runtime's descriptor of kernel f. */
static void describe_kernel(Gen *G, Function *f, KernelDesc *k) {
  k->spec = f;
  k->symbol = f->cname;
  k->nparams = f->nparams;
  k->params = arena_alloc(G->a, sizeof(P2cParam) * (size_t)(f->nparams ? f->nparams : 1));
  for (int j = 0; j < f->nparams; j++) describe_param(G, f, j, &k->params[j]);
  Signature sig = {&type_void, f->arg_types, f->nparams};
  k->signature = sig_format(G->a, &sig);
  k->static_shared_bytes = static_shared_bytes(f);
}

/* The runtime's descriptor of a host entry's kernel: the function's parameters, then the bytes
 * its result is stored in (emit_host.c), and that result's description. Its signature is the function's, with its result. */
static void describe_host(Gen *G, Function *f, const char *symbol, KernelDesc *k) {
  describe_kernel(G, f, k);
  k->symbol = symbol;
  k->is_host = true;
  k->has_result = host_has_result(f);
  Signature sig = {f->ret_type, f->arg_types, f->nparams};
  k->signature = sig_format(G->a, &sig);
  if (!k->has_result) return;
  describe_value(G, f->ret_type, &k->result_type);
  k->result_type.name = "result";
  k->result_arrays = (size_t)host_result_arrays(G, f->ret_type, "", NULL);
  k->result_owners = host_owners_offset(f);
  k->result_bytes = k->result_arrays ? k->result_owners + 8 * k->result_arrays : k->result_type.size;
  P2cParam *params = arena_alloc(G->a, sizeof(P2cParam) * (size_t)(f->nparams + 1));
  if (f->nparams) memcpy(params, k->params, sizeof(P2cParam) * (size_t)f->nparams);
  params[f->nparams] = (P2cParam){.name = "result", .is_array = true, .type = P2C_UINT8,
                                  .ndim = 1, .layout = 'C', .written = true,
                                  .size = p2c_array_arg_size(1), .align = 8};
  k->params = params;
  k->nparams = f->nparams + 1;
}

/* The descriptor of an exported device function: its parameters, and its signature with its
 * result. It is not launched: the runtime's launches refuse it (P2cKernelInfo.exported). */
static void describe_export(Gen *G, Function *f, KernelDesc *k) {
  describe_kernel(G, f, k);
  k->is_export = true;
  Signature sig = {f->ret_type, f->arg_types, f->nparams};
  k->signature = sig_format(G->a, &sig);
}

/* The kernels' descriptors, the ufuncs' elementwise kernels and the host entries' kernels with
 * theirs; the exported device functions' descriptors apart (out->exports). */
static void emit_kernel_descs(Gen *G, const Analysis *an, const char **ufunc_symbols, StrBuf *defs,
                              CodegenResult *out) {
  size_t nkernels = an->kernels.len + an->ufuncs.len + an->hosts.len;
  out->kernels = arena_alloc(G->a, sizeof(KernelDesc) * (nkernels ? nkernels : 1));
  memset(out->kernels, 0, sizeof(KernelDesc) * (nkernels ? nkernels : 1));
  out->nkernels = (int)nkernels;
  for (size_t i = 0; i < an->kernels.len; i++) describe_kernel(G, an->kernels.items[i], &out->kernels[i]);
  for (size_t i = 0; i < an->ufuncs.len; i++) {
    sb_putc(defs, '\n');
    emit_ufunc_kernel(G, an->ufuncs.items[i], ufunc_symbols[i], defs);
    describe_ufunc(G, an->ufuncs.items[i], ufunc_symbols[i], &out->kernels[an->kernels.len + i]);
  }
  for (size_t i = 0; i < an->hosts.len; i++) {
    const char *symbol = host_name_spec(G, an->hosts.items[i]);
    sb_putc(defs, '\n');
    emit_host_kernel(G, an->hosts.items[i], symbol, defs);
    describe_host(G, an->hosts.items[i], symbol, &out->kernels[an->kernels.len + an->ufuncs.len + i]);
  }
  out->nexports = (int)an->exports.len;
  out->exports = arena_alloc(G->a, sizeof(KernelDesc) * (an->exports.len ? an->exports.len : 1));
  memset(out->exports, 0, sizeof(KernelDesc) * (an->exports.len ? an->exports.len : 1));
  for (size_t i = 0; i < an->exports.len; i++) describe_export(G, an->exports.items[i], &out->exports[i]);
}

/* The prelude's helpers for the types in use: complex wherever a complex type is named (values,
 * arrays, members), float16 and bfloat16 likewise. */
static void use_type_helpers(Gen *G, const Analysis *an) {
  if (an->uses_complex) type_helper_use(&G->helpers, TH_COMPLEX);
  if (an->uses_charseq) type_helper_use(&G->helpers, TH_CHARSEQ);
  if (an->uses_half) {
    type_helper_use(&G->helpers, TH_HALF);
    type_helper_use(&G->helpers, TH_HALF_SIM);
    type_helper_use(&G->helpers, TH_HALF_OPS);
  }
  if (an->uses_bf16) {
    type_helper_use(&G->helpers, TH_BF16);
    type_helper_use(&G->helpers, TH_BF16_INT);
    type_helper_use(&G->helpers, TH_BF16_OPS);
    type_helper_use(&G->helpers, TH_BF16_EXT);
  }
  if (an->uses_fp8) {
    type_helper_use(&G->helpers, TH_FP8);
    type_helper_use(&G->helpers, TH_FP8_BITS);
    type_helper_use(&G->helpers, TH_FP8_CVT);
  }
}

/* The module's text: header, prelude, tuple structs, definitions, then the simulator's part
 * (lockstep steps and entries); the line marks follow the text. */
static void assemble_text(Gen *G, const Analysis *an, const StrBuf *defs, CodegenResult *out) {
  int nkernels = out->nkernels;
  const char **steps = arena_alloc(G->a, sizeof(char *) * (size_t)(nkernels ? nkernels : 1));
  StrBuf sim, text, structs;
  sb_init(&sim, G->a);
  LineMarks sim_marks;
  emit_lockstep_steps(G, out, steps, &sim, &sim_marks);
  sb_init(&text, G->a);
  sb_printf(&text, "/* Generated by pyk2cuda %s from %s. */\n\n", PYK2CUDA_VERSION_STRING, G->c->file);
  sb_init(&structs, G->a);
  emit_record_structs(G, an, &structs);
  emit_tuple_structs(G, &structs);
  use_type_helpers(G, an);
  prelude_emit(&text, G->helpers);
  emit_libdevice_decls(G, &text);
  emit_links(G, &text);
  sb_puts(&text, sb_str(&structs));
  for (size_t i = 0; i < G->marks.len; i++) G->marks.items[i].offset += text.len;
  sb_puts(&text, sb_str(defs));
  if (nkernels) sb_puts(&text, "\n#ifdef PYK2CUDA_SIM\n");
  for (size_t i = 0; i < sim_marks.len; i++) {
    LineMark m = sim_marks.items[i];
    m.offset += text.len;
    vec_push(G->a, &G->marks, m);
  }
  if (sim.len) {
    sb_puts(&text, sb_str(&sim));
    sb_putc(&text, '\n');
  }
  for (int i = 0; i < nkernels; i++) emit_sim_entry(&out->kernels[i], steps[i], G->sanitize, &text);
  if (nkernels) sb_puts(&text, "#endif\n");
  out->text = sb_str(&text);
  out->len = text.len;
  map_python_lines(G, &text, out);
}

/* The C form's host entries, under the symbols codegen_run gave them (the same names are
 * claimed in the same order); a symbol that came out otherwise refuses the C form. */
static void emit_host_entries_c(Gen *G, const Analysis *an, const CodegenResult *cg, StrBuf *defs) {
  for (size_t i = 0; i < an->hosts.len; i++) {
    const char *symbol = host_name_spec(G, an->hosts.items[i]);
    const KernelDesc *k = &cg->kernels[an->kernels.len + an->ufuncs.len + i];
    if (strcmp(symbol, k->symbol) != 0) c_form_refuse(G, "its entry's name differs from the CUDA C's");
    sb_putc(defs, '\n');
    emit_host_entry_c(G, an->hosts.items[i], k->symbol, defs);
  }
}

bool codegen_c_form(Compilation *c, Module *m, const Analysis *an, const CodegenResult *cg, CodegenResult *out) {
  Gen G = {.c = c, .a = &c->arena, .m = m, .c_form = true};
  memset(out, 0, sizeof *out);
  namer_init(&G.global, G.a, NULL);
  StrBuf defs;
  sb_init(&defs, G.a);
  emit_constants(&G, &defs);
  FunctionList devs = {0}, no_kernels = {0};
  name_functions(&G, an, &devs);
  for (size_t i = 0; i < an->ufuncs.len; i++) c_form_refuse(&G, "a @vectorize ufunc in the module");
  CodegenOptions one_thread = {.split_min = SIZE_MAX};
  emit_definitions(&G, &devs, &no_kernels, &one_thread, &defs);
  emit_host_entries_c(&G, an, cg, &defs);
  c_form_assemble(&G, &defs, out);
  return !diag_has_errors(c);
}

bool codegen_run(Compilation *c, Module *m, const Analysis *an, const CodegenOptions *o, CodegenResult *out) {
  Gen G = {.c = c, .a = &c->arena, .m = m, .line_directives = o->line_directives,
           .sanitize = o->sanitize};
  namer_init(&G.global, G.a, NULL);
  emit_take_link_names(&G);
  StrBuf defs;
  sb_init(&defs, G.a);
  emit_constants(&G, &defs);
  FunctionList devs = {0};
  const char **ufunc_symbols = name_functions(&G, an, &devs);
  emit_definitions(&G, &devs, &an->kernels, o, &defs);
  emit_kernel_descs(&G, an, ufunc_symbols, &defs, out);
  assemble_text(&G, an, &defs, out);
  out->reports_raises = G.helpers.bits >> H_RAISE & 1;
  out->defines_bounds_record = G.helpers.bits >> H_BOUNDS & 1;
  return !diag_has_errors(c);
}
