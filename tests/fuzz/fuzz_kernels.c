/* libFuzzer harness: structurally valid kernels, generated from the input, must translate and
 * their CUDA C must compile with NVRTC.
 *
 * The input is not Python: its bytes are the choices of a generator that writes a kernel of
 * the dialect pyk2cuda accepts (statements: assignments, stores, augmented stores, if/else,
 * range and while loops, shared and local arrays, atomics, a device function, barriers, return;
 * expressions: int and float arithmetic with every operator, comparisons and boolean logic,
 * conditional expressions, math functions, min/max/abs, casts, thread indices, array reads,
 * literals at the edges of their types), typed so that it should type-check: int and float
 * expressions are kept apart where Numba's rules would reject a mix, each variable keeps one
 * kind, and a name is only used inside the block that assigned it. libFuzzer's byte mutations
 * then change choices, so every mutant is again a kernel (fuzz_nvrtc's mutator edits text, and
 * most of its mutants do not translate).
 *
 * A finding: a generated kernel that translates and that NVRTC rejects (a translator bug; the
 * harness traps with NVRTC's log and the source), or a crash, sanitizer report, leak or hang.
 * A kernel that does not translate is not one (the generator may still produce what the
 * dialect refuses, such as a value too large for its type); P2C_FUZZ_SHOW=1 in the environment
 * prints each generated kernel and whether it translated. Without NVRTC the harness only
 * translates. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyk2cuda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_TEXT = 1 << 16, MAX_VARS = 64, MAX_DEPTH = 4, MAX_NEST = 3, MAX_STMTS = 48 };

typedef enum Kind { K_INT, K_FLOAT } Kind;

typedef struct Var {
  char name[16];
  Kind kind;
} Var;

/* An array parameter: its name, dtype, ndim. */
typedef struct Arr {
  const char *name;
  const char *dtype;
  Kind kind;
  int ndim;
} Arr;

typedef struct Gen {
  const uint8_t *data;
  size_t size, pos;
  char *text;
  size_t len;
  bool full;                 /* the text reached MAX_TEXT: the kernel is cut off */
  Var vars[MAX_VARS];
  int nvars;
  int next_name;
  int stmts;
  Arr arrs[4];
  int narrs;
  bool has_shared, has_local, has_device;
} Gen;

/* The next choice among n (0 when the input is used up, so every input ends). */
static unsigned pick(Gen *g, unsigned n) {
  if (g->pos >= g->size || n <= 1) return 0;
  return g->data[g->pos++] % n;
}

static void put(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Gen *g, const char *fmt, ...) {
  if (g->full) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(g->text + g->len, MAX_TEXT - g->len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= MAX_TEXT - g->len) g->full = true;
  else g->len += (size_t)n;
}

static void indent(Gen *g, int level) { put(g, "%*s", 4 * level, ""); }

static const char *const int_literals[] = {"0", "1", "2", "3", "7", "-1", "255", "65535", "2147483647",
                                           "-2147483648", "4294967296", "9223372036854775807", "(-9223372036854775807 - 1)"};
static const char *const float_literals[] = {"0.0", "1.5", "-0.0", "0.1", "1e30", "-2.5", "1e-310",
                                             "3.4028234663852886e38", "1.7976931348623157e308", "math.inf",
                                             "math.nan", "math.pi"};
static const char *const int_ops[] = {"+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"};
static const char *const float_ops[] = {"+", "-", "*", "/", "//", "%"};
static const char *const float_funcs[] = {"math.sqrt", "math.sin", "math.cos", "math.exp", "math.log",
                                          "math.fabs", "math.tanh", "math.atan", "math.erf"};
static const char *const compare_ops[] = {"<", "<=", ">", ">=", "==", "!="};
/* No uint64: with an int64 it makes a float64, as in Numba, which int operators then refuse. */
static const char *const int_dtypes[] = {"int32", "int64", "uint32", "int8", "uint8", "int16"};
static const char *const float_dtypes[] = {"float32", "float64"};
#define COUNT(a) (sizeof(a) / sizeof *(a))

static void expr(Gen *g, Kind k, int depth);
static void cond(Gen *g, int depth);

/* A variable of kind k in scope, or NULL. */
static const Var *some_var(Gen *g, Kind k) {
  int n = 0;
  for (int i = 0; i < g->nvars; i++) n += g->vars[i].kind == k;
  if (n == 0) return NULL;
  int want = (int)pick(g, (unsigned)n);
  for (int i = 0; i < g->nvars; i++)
    if (g->vars[i].kind == k && want-- == 0) return &g->vars[i];
  return NULL;
}

/* An array parameter of kind k, or NULL. */
static const Arr *some_arr(Gen *g, Kind k) {
  int n = 0;
  for (int i = 0; i < g->narrs; i++) n += g->arrs[i].kind == k;
  if (n == 0) return NULL;
  int want = (int)pick(g, (unsigned)n);
  for (int i = 0; i < g->narrs; i++)
    if (g->arrs[i].kind == k && want-- == 0) return &g->arrs[i];
  return NULL;
}

/* An index into arr: in range (modulo its extent) or, one time in six, any int. */
static void index_of(Gen *g, const Arr *a, int depth) {
  for (int d = 0; d < a->ndim; d++) {
    if (d) put(g, ", ");
    if (pick(g, 6) == 0) expr(g, K_INT, depth + 1);
    else {
      put(g, "(");
      expr(g, K_INT, depth + 1);
      put(g, ") %% %s.shape[%d]", a->name, d);
    }
  }
}

static void int_leaf(Gen *g) {
  const Var *v;
  switch (pick(g, 8)) {
  case 0: put(g, "%s", int_literals[pick(g, COUNT(int_literals))]); break;
  case 1: put(g, "i"); break;
  case 2: put(g, "cuda.threadIdx.x"); break;
  case 3: put(g, "cuda.blockIdx.x * cuda.blockDim.x"); break;
  case 4: put(g, "k"); break;
  case 5: put(g, "%s.size", g->arrs[pick(g, (unsigned)g->narrs)].name); break;
  default:
    if ((v = some_var(g, K_INT))) put(g, "%s", v->name);
    else put(g, "%s", int_literals[pick(g, COUNT(int_literals))]);
  }
}

static void float_leaf(Gen *g) {
  const Var *v;
  switch (pick(g, 4)) {
  case 0: put(g, "%s", float_literals[pick(g, COUNT(float_literals))]); break;
  case 1: put(g, "x"); break;
  default:
    if ((v = some_var(g, K_FLOAT))) put(g, "%s", v->name);
    else put(g, "%s", float_literals[pick(g, COUNT(float_literals))]);
  }
}

static void array_read(Gen *g, Kind k, int depth) {
  const Arr *a = some_arr(g, k);
  if (!a) {
    k == K_INT ? int_leaf(g) : float_leaf(g);
    return;
  }
  put(g, "%s[", a->name);
  index_of(g, a, depth);
  put(g, "]");
}

/* An int expression. */
static void int_expr(Gen *g, int depth) {
  if (depth >= MAX_DEPTH) {
    int_leaf(g);
    return;
  }
  switch (pick(g, 12)) {
  case 0: case 1: int_leaf(g); break;
  case 2: array_read(g, K_INT, depth); break;
  case 3: {
    const char *op = int_ops[pick(g, COUNT(int_ops))];
    put(g, "(");
    expr(g, K_INT, depth + 1);
    put(g, " %s ", op);
    if (op[0] == '<' || op[0] == '>') put(g, "%u", pick(g, 70));   /* shifts by >= 64 too */
    else expr(g, K_INT, depth + 1);
    put(g, ")");
    break;
  }
  case 4: put(g, "(-"); expr(g, K_INT, depth + 1); put(g, ")"); break;
  case 5: put(g, "(~"); expr(g, K_INT, depth + 1); put(g, ")"); break;
  case 6:
    put(g, "%s(", pick(g, 2) ? "min" : "max");
    expr(g, K_INT, depth + 1);
    put(g, ", ");
    expr(g, K_INT, depth + 1);
    put(g, ")");
    break;
  case 7: put(g, "abs("); expr(g, K_INT, depth + 1); put(g, ")"); break;
  case 8: put(g, "int("); expr(g, K_FLOAT, depth + 1); put(g, ")"); break;
  case 9: put(g, "math.floor("); expr(g, K_FLOAT, depth + 1); put(g, ")"); break;
  case 10:
    put(g, "(");
    expr(g, K_INT, depth + 1);
    put(g, " if ");
    cond(g, depth + 1);
    put(g, " else ");
    expr(g, K_INT, depth + 1);
    put(g, ")");
    break;
  default: put(g, "numba.%s(", int_dtypes[pick(g, COUNT(int_dtypes))]); expr(g, K_INT, depth + 1); put(g, ")");
  }
}

/* A float expression. */
static void float_expr(Gen *g, int depth) {
  if (depth >= MAX_DEPTH) {
    float_leaf(g);
    return;
  }
  switch (pick(g, 11)) {
  case 0: case 1: float_leaf(g); break;
  case 2: array_read(g, K_FLOAT, depth); break;
  case 3: {
    const char *op = float_ops[pick(g, COUNT(float_ops))];
    put(g, "(");
    expr(g, K_FLOAT, depth + 1);
    put(g, " %s ", op);
    expr(g, pick(g, 4) ? K_FLOAT : K_INT, depth + 1);   /* int operands promote */
    put(g, ")");
    break;
  }
  case 4: put(g, "%s(", float_funcs[pick(g, COUNT(float_funcs))]); expr(g, K_FLOAT, depth + 1); put(g, ")"); break;
  case 5: put(g, "float("); expr(g, K_INT, depth + 1); put(g, ")"); break;
  case 6: put(g, "("); expr(g, K_INT, depth + 1); put(g, " / "); expr(g, K_INT, depth + 1); put(g, ")"); break;
  case 7: put(g, "("); expr(g, K_FLOAT, depth + 1); put(g, " ** %u)", pick(g, 4)); break;
  case 8:
    put(g, "%s(", pick(g, 2) ? "min" : "max");
    expr(g, K_FLOAT, depth + 1);
    put(g, ", ");
    expr(g, K_FLOAT, depth + 1);
    put(g, ")");
    break;
  case 9:
    if (g->has_device) {
      put(g, "helper(");
      expr(g, K_FLOAT, depth + 1);
      put(g, ", ");
      expr(g, K_INT, depth + 1);
      put(g, ")");
    } else {
      put(g, "abs(");
      expr(g, K_FLOAT, depth + 1);
      put(g, ")");
    }
    break;
  default: put(g, "numba.%s(", float_dtypes[pick(g, COUNT(float_dtypes))]); expr(g, K_FLOAT, depth + 1); put(g, ")");
  }
}

static void expr(Gen *g, Kind k, int depth) {
  if (k == K_INT) int_expr(g, depth);
  else float_expr(g, depth);
}

/* A condition. */
static void cond(Gen *g, int depth) {
  switch (depth >= MAX_DEPTH ? 0 : pick(g, 6)) {
  case 0: case 1: {
    Kind k = pick(g, 2) ? K_INT : K_FLOAT;
    expr(g, k, depth + 1);
    put(g, " %s ", compare_ops[pick(g, COUNT(compare_ops))]);
    expr(g, k, depth + 1);
    break;
  }
  case 2: put(g, "not ("); cond(g, depth + 1); put(g, ")"); break;
  case 3: put(g, "("); cond(g, depth + 1); put(g, pick(g, 2) ? " and " : " or "); cond(g, depth + 1); put(g, ")"); break;
  case 4: put(g, "math.isnan("); expr(g, K_FLOAT, depth + 1); put(g, ")"); break;
  default:   /* a chained comparison */
    expr(g, K_INT, depth + 1);
    put(g, " < ");
    expr(g, K_INT, depth + 1);
    put(g, " <= ");
    expr(g, K_INT, depth + 1);
  }
}

/* The dtypes cuda.atomic.add and .max take on every architecture the harness compiles for. */
static bool atomic_dtype(const char *dtype) {
  return !strcmp(dtype, "int32") || !strcmp(dtype, "uint32") || !strcmp(dtype, "int64") ||
         !strcmp(dtype, "float32") || !strcmp(dtype, "float64");
}

static const Var *new_var(Gen *g, Kind k) {
  if (g->nvars == MAX_VARS) return NULL;
  Var *v = &g->vars[g->nvars++];
  snprintf(v->name, sizeof v->name, "%s%d", k == K_INT ? "n" : "f", g->next_name++);
  v->kind = k;
  return v;
}

static void block(Gen *g, int level, bool in_loop);

/* One statement at `level`. */
static void stmt(Gen *g, int level, bool in_loop) {
  g->stmts++;
  const Var *v;
  const Arr *a;
  Kind k = pick(g, 2) ? K_INT : K_FLOAT;
  unsigned choice = pick(g, level >= MAX_NEST + 1 ? 5 : 12);
  indent(g, level);
  switch (choice) {
  case 0: {   /* a new variable, in scope after its assignment */
    int mark = g->nvars;
    if (!(v = new_var(g, k))) {
      put(g, "pass\n");
      break;
    }
    put(g, "%s = ", v->name);
    g->nvars = mark;
    expr(g, k, 0);
    g->nvars = mark + 1;
    put(g, "\n");
    break;
  }
  case 1:   /* an assignment to one in scope, or an augmented one */
    if (!(v = some_var(g, k))) {
      put(g, "pass\n");
      break;
    }
    put(g, "%s %s ", v->name, pick(g, 2) ? "=" : k == K_INT ? "+=" : "*=");
    expr(g, k, 0);
    put(g, "\n");
    break;
  case 2: case 3:   /* a store */
    a = &g->arrs[pick(g, (unsigned)g->narrs)];
    put(g, "%s[", a->name);
    index_of(g, a, 0);
    put(g, "] %s ", pick(g, 4) ? "=" : "+=");
    expr(g, a->kind == K_INT ? K_INT : pick(g, 3) ? K_FLOAT : K_INT, 0);
    put(g, "\n");
    break;
  case 4:
    if (in_loop && pick(g, 2)) put(g, "%s\n", pick(g, 2) ? "break" : "continue");
    else if (pick(g, 3) == 0) put(g, "return\n");
    else if (atomic_dtype((a = &g->arrs[pick(g, (unsigned)g->narrs)])->dtype)) {
      put(g, "cuda.atomic.%s(%s, ", pick(g, 2) ? "add" : "max", a->name);
      if (a->ndim == 1) {
        put(g, "(");
        int_expr(g, 1);
        put(g, ") %% %s.size, ", a->name);
      } else {
        put(g, "(0, 0), ");
      }
      expr(g, a->kind, 1);
      put(g, ")\n");
    } else {
      put(g, "pass\n");
    }
    break;
  case 5: case 6: {   /* if / else */
    int mark = g->nvars;
    put(g, "if ");
    cond(g, 0);
    put(g, ":\n");
    block(g, level + 1, in_loop);
    g->nvars = mark;
    if (pick(g, 2)) {
      indent(g, level);
      put(g, "else:\n");
      block(g, level + 1, in_loop);
      g->nvars = mark;
    }
    break;
  }
  case 7: {   /* for ... in range */
    int mark = g->nvars;
    const Var *iv = new_var(g, K_INT);
    if (!iv) {
      put(g, "pass\n");
      break;
    }
    put(g, "for %s in range(", iv->name);
    switch (pick(g, 3)) {
    case 0: put(g, "%u", pick(g, 9)); break;
    case 1: put(g, "%u, k %% 5", pick(g, 3)); break;
    default: put(g, "%u, -1, -%u", pick(g, 6), 1 + pick(g, 2));
    }
    put(g, "):\n");
    block(g, level + 1, true);
    g->nvars = mark;
    break;
  }
  case 8: {   /* a bounded while loop */
    int mark = g->nvars;
    const Var *w = new_var(g, K_INT);
    if (!w) {
      put(g, "pass\n");
      break;
    }
    put(g, "%s = 0\n", w->name);
    indent(g, level);
    put(g, "while %s < %u and ", w->name, 1 + pick(g, 4));
    cond(g, 1);
    put(g, ":\n");
    indent(g, level + 1);
    put(g, "%s += 1\n", w->name);
    block(g, level + 1, true);
    g->nvars = mark;
    break;
  }
  case 9:   /* shared and local arrays, made once at the top */
    if (g->has_shared) {
      put(g, "sh[(");
      int_expr(g, 1);
      put(g, ") %% 32] = ");
      float_expr(g, 1);
      put(g, "\n");
    } else {
      put(g, "pass\n");
    }
    break;
  case 10:
    if (g->has_local) {
      put(g, "lo[(");
      int_expr(g, 1);
      put(g, ") %% 4] += ");
      int_expr(g, 1);
      put(g, "\n");
    } else {
      put(g, "pass\n");
    }
    break;
  default:
    put(g, level == 1 ? "cuda.syncthreads()\n" : "pass\n");
  }
}

/* A block of one to a few statements at `level`. */
static void block(Gen *g, int level, bool in_loop) {
  unsigned n = 1 + pick(g, 4);
  for (unsigned s = 0; s < n; s++) {
    if (g->stmts >= MAX_STMTS) {
      if (s == 0) {
        indent(g, level);
        put(g, "pass\n");
      }
      return;
    }
    stmt(g, level, in_loop);
  }
}

static void params(Gen *g) {
  static const char *const names[] = {"a", "b", "c"};
  g->narrs = 3;
  for (int i = 0; i < 3; i++) {
    Arr *a = &g->arrs[i];
    a->name = names[i];
    a->kind = pick(g, 2) ? K_INT : K_FLOAT;
    a->dtype = a->kind == K_INT ? int_dtypes[pick(g, COUNT(int_dtypes))] : float_dtypes[pick(g, COUNT(float_dtypes))];
    a->ndim = i == 2 ? 2 : 1;
  }
}

/* Writes the whole module: its signature line, imports, a device function maybe, the kernel. */
static void generate(Gen *g) {
  params(g);
  const char *xt = float_dtypes[pick(g, COUNT(float_dtypes))];
  const char *kt = int_dtypes[pick(g, 2)];
  put(g, "# sig: kern(%s[:], %s[:], %s[:, :], %s, %s)\n", g->arrs[0].dtype, g->arrs[1].dtype,
      g->arrs[2].dtype, xt, kt);
  put(g, "import math\nimport numba\nfrom numba import cuda\n\n\n");
  g->has_device = pick(g, 2);
  if (g->has_device)
    put(g, "@cuda.jit(device=True)\ndef helper(u, m):\n    if m > %u:\n        return u * m\n"
           "    return u - %s\n\n\n", pick(g, 5), float_literals[pick(g, COUNT(float_literals))]);
  put(g, "@cuda.jit\ndef kern(a, b, c, x, k):\n    i = cuda.grid(1)\n");
  g->has_shared = pick(g, 2);
  g->has_local = pick(g, 2);
  if (g->has_shared) put(g, "    sh = cuda.shared.array(32, numba.float32)\n");
  if (g->has_local) put(g, "    lo = cuda.local.array(4, numba.int64)\n    for z in range(4):\n        lo[z] = z\n");
  while (g->stmts < MAX_STMTS && g->pos < g->size && !g->full) stmt(g, 1, false);
  if (g->stmts == 0) put(g, "    pass\n");
}

/* The "# sig: " line's signature, copied out. */
static void sig_of(const char *text, char *out, size_t cap) {
  const char *eol = strchr(text, '\n');
  size_t n = (size_t)(eol - text) - 7;
  if (n >= cap) n = cap - 1;
  memcpy(out, text + 7, n);
  out[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Gen *g = calloc(1, sizeof *g);
  char *text = malloc(MAX_TEXT);
  if (!g || !text) {
    free(g);
    free(text);
    return 0;
  }
  *g = (Gen){.data = data, .size = size, .text = text};
  generate(g);
  char sig[256];
  sig_of(text, sig, sizeof sig);
  const char *sigs[1] = {sig};
  P2cCompiler *c = p2c_compiler_new(NULL);
  P2cModule *m = NULL;
  P2cTranslateOptions o = {NULL, 0, sigs, 1, false, true, {0}};
  if (c) p2c_compiler_set_cache(c, false);
  P2cStatus s = c ? p2c_translate(c, "kernels.py", text, g->len, &o, &m) : P2C_ERR_NOMEM;
  if (getenv("P2C_FUZZ_SHOW"))
    fprintf(stderr, "---- %s\n%.*s", s == P2C_OK ? "translated" : "refused", (int)g->len, text);
  if (s == P2C_OK && p2c_module_kernel_count(m) > 0) {
    P2cStatus cs = p2c_module_compile(c, m, "sm_75", P2C_TARGET_PTX);
    if (cs == P2C_ERR_NVRTC) {
      fprintf(stderr, "emit accepted what NVRTC rejects: %s\n%s\n--- Python ---\n%.*s--- CUDA C ---\n%s\n",
              p2c_compiler_last_error(c), p2c_module_nvrtc_log(m), (int)g->len, text, p2c_module_cuda(m, NULL));
      __builtin_trap();
    }
  }
  p2c_module_delete(m);
  p2c_compiler_delete(c);
  free(text);
  free(g);
  return 0;
}
