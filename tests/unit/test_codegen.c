/* Unit tests for codegen (src/codegen), driven through the public API (p2c_translate): the
 * emitted CUDA C must contain what each Python construct requires.
 *
 * Covered: Python names that collide with C, C++, CUDA, library or generator names are renamed
 * and the result compiles with NVRTC (skipped, with a message, where NVRTC cannot be loaded);
 * print() writes a printf whose literal cannot be misread (no raw % conversions, no trigraphs,
 * escapes kept); a Python comment ending in a backslash does not splice the next line; negative
 * and unknown-sign indices wrap with p2c_wrap while cuda.grid(1) indices do not; // and % on
 * non-negative integers are C's / and %; chained comparisons evaluate a device-function call
 * once; tuple swaps go through temporaries; a range loop variable read after the loop uses a
 * hidden counter; float32 arithmetic stays float32; two signatures give two extern "C" kernels
 * with distinct symbols and correct parameter descriptors; CUDA intrinsics take Numba's result
 * types, atomics call CUDA's function where it exists and a helper otherwise, and warp
 * operations (also through device functions) mark a kernel as needing the simulator's fibers.
 * Tests named known_bug_* are skipped
 * unless P2C_RUN_KNOWN_BUGS=1 is set in the environment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/api.h"
#include "codegen/codegen.h"
#include "util/diag.h"
#include "codegen/names.h"
#include "frontend/frontend.h"
#include "typeinfer/typeinfer.h"
#include "pyk2cuda.h"
#include "runtime/cuda/nvrtc.h"

typedef struct Fixture {
  P2cCompiler *compiler;
  P2cModule *module;
} Fixture;

static int setup(void **state) {
  Fixture *fx = calloc(1, sizeof *fx);
  if (!fx) return -1;
  fx->compiler = p2c_compiler_new(NULL);
  *state = fx;
  return fx->compiler ? 0 : -1;
}

static int teardown(void **state) {
  Fixture *fx = *state;
  p2c_module_delete(fx->module);
  p2c_compiler_delete(fx->compiler);
  free(fx);
  return 0;
}


/* Translates `src` and returns the CUDA C; fails the test with the diagnostics otherwise. */
static const char *translate(void **state, const char *src) {
  Fixture *fx = *state;
  p2c_module_delete(fx->module);
  fx->module = NULL;
  P2cStatus s = p2c_translate(fx->compiler, "t.py", src, strlen(src), NULL, &fx->module);
  if (s != P2C_OK) {
    for (size_t i = 0; i < p2c_module_diagnostic_count(fx->module); i++) {
      P2cDiagnostic d = p2c_module_diagnostic(fx->module, i);
      print_message("t.py:%u:%u: %s [%s]\n", d.line, d.column, d.message, d.code);
    }
    fail_msg("p2c_translate: %s (%s)", p2c_status_string(s), p2c_compiler_last_error(fx->compiler));
  }
  const char *text = p2c_module_cuda(fx->module, NULL);
  assert_non_null(text);
  return text;
}

static void print_text(const char *text) { print_message("---- generated CUDA C ----\n%s\n", text); }

/* Fails unless `needle` occurs in `text`. */
static void expect_contains(const char *text, const char *needle) {
  if (strstr(text, needle)) return;
  print_text(text);
  fail_msg("expected the generated code to contain: %s", needle);
}

static void expect_absent(const char *text, const char *needle) {
  if (!strstr(text, needle)) return;
  print_text(text);
  fail_msg("expected the generated code not to contain: %s", needle);
}

/* The line that follows the first line containing `marker` (a Python source comment), without
 * its indentation, in a static buffer. */
static const char *line_after(const char *text, const char *marker) {
  static char buf[1024];
  const char *p = strstr(text, marker);
  if (!p || !(p = strchr(p, '\n'))) {
    print_text(text);
    fail_msg("no line after '%s'", marker);
  }
  p++;
  while (*p == ' ') p++;
  size_t n = strcspn(p, "\n");
  if (n >= sizeof buf) n = sizeof buf - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

static size_t count_occurrences(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* Compiles with NVRTC for sm_90. Returns false (and says so) when NVRTC is not available. */
static bool nvrtc_compiles(const char *text) {
  RtcRequest req = {.source = text, .program_name = "t.py", .arch = "sm_90", .target = P2C_TARGET_PTX};
  RtcResult res;
  P2cStatus s = rtc_compile(&req, &res);
  if (s == P2C_ERR_NO_CUDA) {
    print_message("NVRTC not available, compile check skipped: %s\n", res.error);
    rtc_result_free(&res);
    return false;
  }
  if (s != P2C_OK) {
    char error[RTC_ERROR_MAX];
    snprintf(error, sizeof error, "%s", res.error);
    print_text(text);
    print_message("NVRTC log:\n%s\n", res.log ? res.log : "");
    rtc_result_free(&res);
    fail_msg("NVRTC rejected the generated code: %s", error);
  }
  rtc_result_free(&res);
  return true;
}

/* ---- names ---------------------------------------------------------------------------------- */

static const char hostile_src[] =
    "from numba import cuda\n"
    "import math\n"
    "\n"
    "@cuda.jit(device=True)\n"
    "def f(v):\n"
    "    return v + 1\n"
    "\n"
    "@cuda.jit(\"void(float64[::1], int64)\")\n"
    "def main(a, int):\n"
    "    new = 1\n"
    "    this = 2\n"
    "    printf = 3\n"
    "    threadIdx = 4\n"
    "    main = 5\n"
    "    sqrt = a[0]\n"
    "    __x = 6\n"
    "    p2c_t = 7\n"
    "    p2c_wrap = 8\n"
    "    a[0] = math.sqrt(sqrt) + new + this + printf + threadIdx + main + __x + p2c_t + int + p2c_wrap\n"
    "    if 0 < f(int) < 3:\n"
    "        a[1] = a[-1]\n";

/* The C name the statement after comment `marker` assigns to (the text before " = "). */
static const char *assigned_name(const char *text, const char *marker) {
  static char name[256];
  const char *line = line_after(text, marker);
  size_t n = strcspn(line, " ");
  assert_true(n < sizeof name);
  memcpy(name, line, n);
  name[n] = '\0';
  return name;
}

static void colliding_names_are_renamed(void **state) {
  const char *text = translate(state, hostile_src);
  static const struct {
    const char *marker, *python;
  } locals[] = {
      {"// new = 1", "new"},           {"// this = 2", "this"},
      {"// printf = 3", "printf"},     {"// threadIdx = 4", "threadIdx"},
      {"// main = 5", "main"},         {"// sqrt = a[0]", "sqrt"},
      {"// __x = 6", "__x"},           {"// p2c_t = 7", "p2c_t"},
      {"// p2c_wrap = 8", "p2c_wrap"},
  };
  const char *seen[sizeof locals / sizeof locals[0]];
  for (size_t i = 0; i < sizeof locals / sizeof locals[0]; i++) {
    const char *c = assigned_name(text, locals[i].marker);
    if (strcmp(c, locals[i].python) == 0) {
      print_text(text);
      fail_msg("Python local '%s' kept its name in C", locals[i].python);
    }
    if (strncmp(c, "p2c_", 4) == 0 || strncmp(c, "__", 2) == 0)
      fail_msg("'%s' became '%s'", locals[i].python, c);
    seen[i] = strdup(c);
    for (size_t j = 0; j < i; j++) assert_string_not_equal(seen[j], seen[i]);
  }
  expect_contains(text, "int64_t int_");        /* the parameter */
  expect_contains(text, "sqrt(sqrt_)");         /* math.sqrt still reaches the library */
  expect_contains(text, "p2c_wrap(-1, ");       /* the helper is not shadowed */
  for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) free((void *)seen[i]);
}

static void colliding_kernel_name_is_renamed(void **state) {
  Fixture *fx = *state;
  const char *text = translate(state, hostile_src);
  assert_int_equal(p2c_module_kernel_count(fx->module), 1);
  P2cKernelInfo k = p2c_module_kernel(fx->module, 0);
  assert_string_equal(k.python_name, "main");
  assert_string_not_equal(k.symbol, "main");
  char decl[128];
  snprintf(decl, sizeof decl, "extern \"C\" __global__ void %s(", k.symbol);
  expect_contains(text, decl);
  assert_string_equal(k.params[1].name, "int");   /* descriptors keep the Python names */
}

static void renamed_code_compiles_with_nvrtc(void **state) {
  const char *text = translate(state, hostile_src);
  nvrtc_compiles(text);
}

/* ---- strings and comments ------------------------------------------------------------------- */

static const char print_src[] =
    "from numba import cuda\n"
    "@cuda.jit(\"void(int64)\")\n"
    "def k(x):\n"
    "    print(\"%n %d \\\\x41BC ?\?/ */\", x)\n"
    "    print(\"%n %d \\x41BC ?\?/ */\", x)\n"
    "    print('tab\\there \"quoted\"', x > 0, 1.5)\n";

static void print_format_cannot_be_misread(void **state) {
  const char *text = translate(state, print_src);
  /* The Python value has a real backslash before x41BC. */
  assert_string_equal(line_after(text, "print(\"%n %d \\\\x41BC"),
                      "printf(\"%%n %%d \\\\x41BC ?\\?/ */ %lld\\n\", (long long)x);");
  /* Here \x41 is Python's escape for 'A'. */
  assert_string_equal(line_after(text, "print(\"%n %d \\x41BC"),
                      "printf(\"%%n %%d ABC ?\\?/ */ %lld\\n\", (long long)x);");
  assert_string_equal(line_after(text, "print('tab"),
                      "printf(\"tab\\there \\\"quoted\\\" %s %f\\n\", "
                      "x > 0 ? \"True\" : \"False\", (double)1.5);");
}

static void print_code_compiles_with_nvrtc(void **state) {
  nvrtc_compiles(translate(state, print_src));
}

static const char comment_src[] =
    "from numba import cuda\n"
    "@cuda.jit(\"void(int64[::1])\")\n"
    "def k(a):\n"
    "    x = a[0]  # a comment that ends in a backslash \\\n"
    "    a[1] = x\n"
    "    y = (x +  # inside parentheses \\\n"
    "         1)\n"
    "    a[2] = y  # trigraph-like ?\?/\n";

static void comment_ending_in_backslash_does_not_splice(void **state) {
  const char *text = translate(state, comment_src);
  for (const char *p = text; (p = strchr(p, '\n')); p++)
    if (p > text && p[-1] == '\\') {
      print_text(text);
      fail_msg("a generated line ends in a backslash");
    }
  assert_string_equal(line_after(text, "// a[1] = x"), "a.data[1] = x;");
  assert_string_equal(line_after(text, "// 1)"), "y = x + 1;");
  expect_absent(text, "?\?/");
}

static void comment_code_compiles_with_nvrtc(void **state) {
  nvrtc_compiles(translate(state, comment_src));
}

/* ---- indices and integer division ----------------------------------------------------------- */

static const char index_src[] =
    "from numba import cuda\n"
    "@cuda.jit(\"void(float32[::1], int64)\")\n"
    "def k(a, n):\n"
    "    i = cuda.grid(1)\n"
    "    a[i] = a[-1]\n"
    "    a[0] = a[n]\n"
    "    j = i // 2\n"
    "    r = i % 4\n"
    "    q = n // 2\n"
    "    a[j] = a[r] + a[q]\n";

static void negative_index_wraps_and_grid_index_does_not(void **state) {
  const char *text = translate(state, index_src);
  assert_string_equal(line_after(text, "// a[i] = a[-1]"), "a.data[i] = a.data[p2c_wrap(-1, a.shape[0])];");
  assert_string_equal(line_after(text, "// a[0] = a[n]"), "a.data[0] = a.data[p2c_wrap(n, a.shape[0])];");
  expect_contains(text, "p2c_wrap(int64_t i, int64_t n)");   /* the helper is emitted */
}

/* The longest chain the frontend accepts goes through every later phase (typed by the
 * signature, analysed, emitted) and NVRTC, whose walks recurse along it. */
static void longest_operator_chain_compiles(void **state) {
  static const char head[] = "from numba import cuda\n@cuda.jit('void(float64[::1])')\ndef k(a):\n    a[0] = a[1]";
  static const char term[] = " + a[2]";
  size_t cap = sizeof head + (size_t)P2C_MAX_CHAIN * (sizeof term - 1) + 2;
  char *src = malloc(cap);
  assert_non_null(src);
  size_t len = (size_t)snprintf(src, cap, "%s", head);
  for (int i = 0; i < P2C_MAX_CHAIN; i++) len += (size_t)snprintf(src + len, cap - len, "%s", term);
  snprintf(src + len, cap - len, "\n");
  const char *text = translate(state, src);
  free(src);
  assert_true(count_occurrences(text, "a.data[2]") >= P2C_MAX_CHAIN);  /* every term emitted */
  nvrtc_compiles(text);
}

static void floordiv_and_mod_of_nonnegative_are_plain(void **state) {
  const char *text = translate(state, index_src);
  assert_string_equal(line_after(text, "// j = i // 2"), "j = i / 2;");
  assert_string_equal(line_after(text, "// r = i % 4"), "r = i % 4;");
  assert_string_equal(line_after(text, "// q = n // 2"), "q = p2c_floordiv(n, 2);");
  /* j and r are non-negative, q is not: only q's index wraps. */
  assert_string_equal(line_after(text, "// a[j] = a[r] + a[q]"),
                      "a.data[j] = a.data[r] + a.data[p2c_wrap(q, a.shape[0])];");
}

static void index_code_compiles_with_nvrtc(void **state) {
  nvrtc_compiles(translate(state, index_src));
}

/* ---- evaluation order and temporaries ------------------------------------------------------- */

static const char order_src[] =
    "from numba import cuda\n"
    "@cuda.jit(device=True)\n"
    "def f(a, v):\n"
    "    a[0] += 1\n"
    "    return v * 2\n"
    "\n"
    "@cuda.jit(\"void(int64[::1], int64)\")\n"
    "def k(a, n):\n"
    "    x = a[1]\n"
    "    y = a[2]\n"
    "    for q in range(n):\n"   /* the swap reads its own results: one variable each (webs.c) */
    "        x, y = y, x\n"
    "    a[1] = x\n"
    "    a[2] = y\n"
    "    if 0 < f(a, n) < 10:\n"
    "        a[3] = 1\n"
    "    for i in range(n):\n"
    "        a[i] = i\n"
    "    a[4] = i\n"
    "    for j in range(n):\n"
    "        a[j] = j\n";

static void chained_comparison_calls_the_middle_once(void **state) {
  const char *text = translate(state, order_src);
  const char *cond = line_after(text, "// if 0 < f(a, n) < 10:");
  if (count_occurrences(cond, "f(a, n)") != 1) fail_msg("f is called other than once: %s", cond);
  expect_contains(cond, " = f(a, n)");   /* into a temporary */
}

static void tuple_swap_goes_through_temporaries(void **state) {
  const char *text = translate(state, order_src);
  const char *p = strstr(text, "// x, y = y, x\n");
  assert_non_null(p);
  char t1[64], t2[64], t3[64], t4[64];
  int n = sscanf(p, "// x, y = y, x\n %63[^ ] = y;\n %63[^ ] = x;\n x = %63[^;];\n y = %63[^;];",
                 t1, t2, t3, t4);
  if (n != 4) {
    print_text(text);
    fail_msg("the swap is not written through two temporaries");
  }
  assert_string_equal(t1, t3);
  assert_string_equal(t2, t4);
  assert_string_not_equal(t1, t2);
}

static void loop_variable_read_after_the_loop_uses_a_hidden_counter(void **state) {
  const char *text = translate(state, order_src);
  char ctr[64];
  const char *head = line_after(text, "// for i in range(n):");
  if (sscanf(head, "for (%63[^ ] = 0;", ctr) != 1) fail_msg("unexpected loop header: %s", head);
  assert_string_not_equal(ctr, "i");
  char expect_head[256], expect_copy[128];
  snprintf(expect_head, sizeof expect_head, "for (%s = 0; %s < n; ++%s) {", ctr, ctr, ctr);
  snprintf(expect_copy, sizeof expect_copy, "i = %s;", ctr);
  assert_string_equal(head, expect_head);
  assert_string_equal(line_after(text, expect_head), expect_copy);
  /* j is not read after its loop: it is the C loop variable itself. */
  assert_string_equal(line_after(text, "// for j in range(n):"), "for (j = 0; j < n; ++j) {");
}

static void order_code_compiles_with_nvrtc(void **state) {
  nvrtc_compiles(translate(state, order_src));
}

/* ---- float32 -------------------------------------------------------------------------------- */

static const char float32_src[] =
    "from numba import cuda\n"
    "import numpy as np\n"
    "import math\n"
    "@cuda.jit(\"void(float32[::1], float32)\")\n"
    "def k(x, s):\n"
    "    i = cuda.grid(1)\n"
    "    x[i] = x[i] * np.float32(2)\n"
    "    x[i] += np.float32(0.5) * s\n"
    "    t = math.sqrt(x[i]) + s\n"
    "    x[i] = t\n";

static void float32_arithmetic_stays_float32(void **state) {
  const char *text = translate(state, float32_src);
  assert_string_equal(line_after(text, "// x[i] = x[i] * np.float32(2)"), "x.data[i] = x.data[i] * 2.0f;");
  assert_string_equal(line_after(text, "// x[i] += np.float32(0.5) * s"), "x.data[i] += 0.5f * s;");
  assert_string_equal(line_after(text, "// t = math.sqrt(x[i]) + s"), "t = sqrtf(x.data[i]) + s;");
  expect_contains(text, "float t = 0;");
  expect_absent(text, "double");
}

/* ---- specializations and descriptors -------------------------------------------------------- */

static const char two_sigs_src[] =
    "from numba import cuda\n"
    "@cuda.jit([\"void(float32[:, ::1], int64)\", \"void(float64[::1, :], int32)\"])\n"
    "def k(a, n):\n"
    "    a[0, 1] = n\n";

static void expect_param(P2cParam p, const char *name, bool is_array, P2cScalarType type, int ndim,
                         char layout) {
  assert_string_equal(p.name, name);
  assert_int_equal(p.is_array, is_array);
  assert_int_equal(p.type, type);
  if (is_array) {
    assert_int_equal(p.ndim, ndim);
    assert_int_equal(p.layout, layout);
  }
}

static void two_signatures_give_two_kernels(void **state) {
  Fixture *fx = *state;
  const char *text = translate(state, two_sigs_src);
  assert_int_equal(p2c_module_kernel_count(fx->module), 2);
  P2cKernelInfo k0 = p2c_module_kernel(fx->module, 0), k1 = p2c_module_kernel(fx->module, 1);
  assert_string_equal(k0.python_name, "k");
  assert_string_equal(k1.python_name, "k");
  assert_string_not_equal(k0.symbol, k1.symbol);
  for (int i = 0; i < 2; i++) {
    char decl[128];
    snprintf(decl, sizeof decl, "extern \"C\" __global__ void %s(", i ? k1.symbol : k0.symbol);
    if (count_occurrences(text, decl) != 1) fail_msg("'%s' is not declared exactly once", decl);
  }
  assert_string_equal(k0.signature, "void(float32[:, ::1], int64)");
  assert_string_equal(k1.signature, "void(float64[::1, :], int32)");
  assert_int_equal(k0.param_count, 2);
  expect_param(k0.params[0], "a", true, P2C_FLOAT32, 2, 'C');
  expect_param(k0.params[1], "n", false, P2C_INT64, 0, 0);
  assert_int_equal(k1.param_count, 2);
  expect_param(k1.params[0], "a", true, P2C_FLOAT64, 2, 'F');
  expect_param(k1.params[1], "n", false, P2C_INT32, 0, 0);
  assert_false(k0.uses_barrier);
  assert_int_equal(k0.static_shared_bytes, 0);
}

static void specializations_compile_with_nvrtc(void **state) {
  nvrtc_compiles(translate(state, two_sigs_src));
}

static void shared_memory_and_barrier_are_described(void **state) {
  Fixture *fx = *state;
  translate(state,
            "from numba import cuda, float32\n"
            "@cuda.jit(\"void(float32[::1])\")\n"
            "def k(a):\n"
            "    buf = cuda.shared.array((16, 8), dtype=float32)\n"
            "    buf[0, 0] = a[0]\n"
            "    cuda.syncthreads()\n"
            "    a[1] = buf[0, 0]\n");
  P2cKernelInfo k = p2c_module_kernel(fx->module, 0);
  assert_true(k.uses_barrier);
  assert_int_equal(k.static_shared_bytes, 16 * 8 * 4);
  expect_param(k.params[0], "a", true, P2C_FLOAT32, 1, 'C');
}

/* ---- CUDA intrinsics ------------------------------------------------------------------------- */

static const char intrinsics_src[] =
    "from numba import cuda\n"
    "import numpy as np\n"
    "@cuda.jit(\"void(int64[::1], int32[::1], uint32[::1], uint64[::1], float32[::1])\")\n"
    "def k(x, a, u, w, f):\n"
    "    i = cuda.grid(1)\n"
    "    rb = cuda.brev(x[i])\n"
    "    rb64 = cuda.brev(w[i])\n"
    "    pc = cuda.popc(np.int8(x[i]))\n"
    "    fs = cuda.ffs(x[i])\n"
    "    f32 = cuda.fma(f[i], np.int16(1), f[i])\n"
    "    f64 = cuda.fma(f[i], 1, f[i])\n"
    "    cb = cuda.cbrt(np.uint8(3))\n"
    "    ma = cuda.match_any_sync(0xffffffff, w[i])\n"
    "    bl = cuda.ballot_sync(0xffffffff, x[i] > 0)\n"
    "    am = cuda.activemask()\n"
    "    cuda.atomic.add(a, 0, 1)\n"
    "    cuda.atomic.add(x, 0, 1)\n"
    "    cuda.atomic.sub(f, 0, 1.5)\n"
    "    cuda.atomic.inc(u, 0, 9)\n"
    "    cuda.atomic.inc(w, 0, 9)\n"
    "    cuda.atomic.max(a, 1, 2)\n"
    "    cuda.atomic.max(f, 1, 2)\n";

/* The result types of Numba's overloads, seen in the declarations. */
static void intrinsic_types_follow_numba(void **state) {
  const char *text = translate(state, intrinsics_src);
  expect_contains(text, "uint32_t rb = 0;");     /* brev of an int64 picks the uint32 overload */
  expect_contains(text, "uint64_t rb64 = 0;");
  expect_contains(text, "int8_t pc = 0;");
  expect_contains(text, "uint32_t fs = 0;");
  expect_contains(text, "float f32 = 0;");       /* int16 converts to float32 exactly */
  expect_contains(text, "double f64 = 0;");      /* an int64 literal does not */
  expect_contains(text, "float cb = 0;");
  expect_contains(text, "int32_t ma = 0;");
  expect_contains(text, "__match_any_sync(0xffffffffu, (double)w.data[i])");   /* uint64 -> f64 */
  expect_contains(text, "int32_t bl = 0;");
  expect_contains(text, "uint32_t am = 0;");
}

/* CUDA's function where it exists for the type, a prelude helper otherwise. */
static void atomics_use_cuda_functions_where_they_exist(void **state) {
  const char *text = translate(state, intrinsics_src);
  expect_contains(text, "atomicAdd(&a.data[0], (int32_t)1)");
  expect_contains(text, "p2c_atomic_add(&x.data[0], 1)");          /* int64 */
  expect_contains(text, "p2c_atomic_sub(&f.data[0], 1.5f)");
  expect_contains(text, "atomicInc(&u.data[0], (uint32_t)9)");
  expect_contains(text, "p2c_atomic_inc(&w.data[0], (uint64_t)9)");
  expect_contains(text, "atomicMax(&a.data[1], (int32_t)2)");
  expect_contains(text, "p2c_atomic_max(&f.data[1], 2.0f)");       /* Numba's NaN rules */
  expect_absent(text, "p2c_laneid");                               /* helpers only when used */
}

static void intrinsic_code_compiles_with_nvrtc(void **state) {
  nvrtc_compiles(translate(state, intrinsics_src));
}

/* Warp operations need the simulator's fibers like barriers do, also through device functions;
 * atomics, lane numbers and bit functions do not. */
static void warp_operations_are_described_as_needing_fibers(void **state) {
  Fixture *fx = *state;
  translate(state,
            "from numba import cuda\n"
            "@cuda.jit(device=True)\n"
            "def vote(v):\n"
            "    return cuda.ballot_sync(0xffffffff, v > 0)\n"
            "@cuda.jit(\"void(int32[::1])\")\n"
            "def calls_vote(a):\n"
            "    a[0] = vote(a[1])\n"
            "@cuda.jit(\"void(int32[::1])\")\n"
            "def no_warp(a):\n"
            "    cuda.atomic.add(a, cuda.laneid, cuda.popc(a[0]))\n"
            "@cuda.jit(\"void(int32[::1])\")\n"
            "def shuffles(a):\n"
            "    a[0] = cuda.shfl_sync(0xffffffff, a[1], 0)\n");
  assert_true(p2c_module_kernel(fx->module, 0).uses_barrier);
  assert_false(p2c_module_kernel(fx->module, 1).uses_barrier);
  assert_true(p2c_module_kernel(fx->module, 2).uses_barrier);
}

/* ---- KNOWN BUGS (skipped unless P2C_RUN_KNOWN_BUGS=1) --------------------------------------- */

/* emit.c emit_print: the user's text and the conversion placeholders (bytes 1..4, escaped to
 * \001..\004, then replaced) share one channel, so a string holding byte 1, or a backslash
 * followed by "001", becomes a %s conversion with no argument. */
static void regression_print_text_never_becomes_a_conversion(void **state) {
  const char *text = translate(state,
                               "from numba import cuda\n"
                               "@cuda.jit(\"void(int64)\")\n"
                               "def k(x):\n"
                               "    print(\"\\x01\", x)\n"
                               "    print(\"\\\\001 \\\\002\", x)\n");
  const char *l1 = line_after(text, "print(\"\\x01\", x)");
  const char *l1c = strdup(l1);
  const char *l2 = line_after(text, "print(\"\\\\001");
  if (strstr(l1c, "%s") || strstr(l1c, "%f")) fail_msg("text became a conversion: %s", l1c);
  if (strstr(l2, "%s") || strstr(l2, "%f")) fail_msg("text became a conversion: %s", l2);
  free((void *)l1c);
}

/* emit_expr.c emit_compare: every impure middle operand is evaluated up front, before the
 * first operand and before the comparisons that should short-circuit it:
 *   `h(a) < f(a) < 3` evaluates f before h, and `1 < f(a) < g(a) < 10` calls g even when
 *   1 < f(a) is false. Numba's simulator and CPython evaluate left to right and stop early. */
static void regression_chained_comparison_keeps_python_order(void **state) {
  const char *text = translate(state,
                               "from numba import cuda\n"
                               "@cuda.jit(device=True)\n"
                               "def f(a):\n"
                               "    a[0] = -5\n"
                               "    return 0\n"
                               "@cuda.jit(device=True)\n"
                               "def g(a):\n"
                               "    a[1] += 1\n"
                               "    return 5\n"
                               "@cuda.jit(device=True)\n"
                               "def h(a):\n"
                               "    return a[0]\n"
                               "@cuda.jit(\"void(int64[::1])\")\n"
                               "def k(a):\n"
                               "    if h(a) < f(a) < 3:\n"
                               "        a[2] = 1\n"
                               "    if 1 < f(a) < g(a) < 10:\n"
                               "        a[2] = 2\n");
  const char *c1 = strdup(line_after(text, "// if h(a) < f(a) < 3:"));
  const char *c2 = line_after(text, "// if 1 < f(a) < g(a) < 10:");
  if (strstr(c1, "h(a)") > strstr(c1, "f(a)")) fail_msg("f is evaluated before h: %s", c1);
  const char *first_and = strstr(c2, "&&");
  assert_non_null(first_and);
  if (strstr(c2, "g(a)") < first_and) fail_msg("g is evaluated before 1 < f(a) is known: %s", c2);
  free((void *)c1);
}

/* names.c reserved[]: CUDA math functions missing from the list (exp10, rsqrt, sincos, norm3d,
 * ...) are declared extern "C" by CUDA's headers, so a kernel with such a name is a second
 * extern "C" declaration and NVRTC fails ("more than one instance of overloaded function
 * "exp10" has "C" linkage"). */
static void regression_kernel_named_like_a_cuda_math_function(void **state) {
  nvrtc_compiles(translate(state,
                           "from numba import cuda\n"
                           "@cuda.jit(\"void(float64[::1])\")\n"
                           "def exp10(a):\n"
                           "    a[0] = 1.0\n"));
}

/* name_is_reserved looks words up with bsearch: an unsorted table would silently miss names. */
static void reserved_word_tables_are_sorted(void **state) {
  (void)state;
  assert_true(names_reserved_lists_sorted());
  const char *reserved[] = {"EOF", "xor_eq", "int", "threadIdx", "atomicAdd", "warpSize",
                            "int8_t", "uint8_t", "abs", "exp10", "yn", "__x", "_X",
                            "p2c_t", "PYK2CUDA_X"};
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
    if (!name_is_reserved(reserved[i]))
      fail_msg("%s is not reserved", reserved[i]);
  const char *free_names[] = {"x", "ynf_not", "_x", "a_", "Int", "maxval", "threadidx"};
  for (size_t i = 0; i < sizeof free_names / sizeof *free_names; i++)
    if (name_is_reserved(free_names[i])) fail_msg("%s is reserved", free_names[i]);
}

/* ---- Python lines of the CUDA C (for NVRTC's errors) ----------------------------------------- */

static const char line_map_src[] =
    "from numba import cuda\n"                      /* 1 */
    "@cuda.jit(device=True)\n"                      /* 2 */
    "def twice(x):\n"                               /* 3 */
    "    return 2 * x\n"                            /* 4 */
    "@cuda.jit(\"void(float32[::1], int64)\")\n"    /* 5 */
    "def k(a, n):\n"                                /* 6 */
    "    i = cuda.grid(1)\n"                        /* 7 */
    "    if i < n:\n"                               /* 8 */
    "        a[i] = twice(a[i])\n";                 /* 9 */

/* The 1-based number of the first line of text containing needle. */
static size_t line_containing(const char *text, const char *needle) {
  const char *at = strstr(text, needle);
  if (!at) fail_msg("'%s' is not in the generated code", needle);
  size_t line = 1;
  for (const char *p = text; p < at; p++) line += *p == '\n';
  return line;
}

static void every_statement_maps_to_its_python_line(void **state) {
  const char *text = translate(state, line_map_src);
  const P2cModule *m = ((Fixture *)*state)->module;
  const CodegenResult *cg = &m->cg;
  size_t total = 1;
  for (const char *p = text; *p; p++) total += *p == '\n';
  assert_int_equal(cg->nlines, total - 1);   /* the text ends with a newline */
  assert_int_equal(cg->python_line[line_containing(text, "return 2.0 * (double)x;") - 1], 4);
  assert_int_equal(cg->python_line[line_containing(text, "// i = cuda.grid(1)") - 1], 7);
  assert_int_equal(cg->python_line[line_containing(text, "if (i < n)") - 1], 8);
  assert_int_equal(cg->python_line[line_containing(text, "// a[i] = twice(a[i])") - 1], 9);
  assert_int_equal(cg->python_line[line_containing(text, "/* Generated by pyk2cuda") - 1], 0);
  assert_int_equal(cg->python_line[line_containing(text, "extern \"C\" __global__") - 1], 0);
  assert_int_equal(cg->python_line[line_containing(text, "int64_t i = 0;") - 1], 0);
}

static void nvrtc_log_names_python_lines(void **state) {
  (void)state;
  const uint32_t map[] = {0, 0, 7, 7, 9, 0};
  const char log[] =
      "t.py(5): error: identifier \"nope\" is undefined\n"
      "        a[i] = nope;\n"
      "               ^\n"
      "t.py(1): warning: in the prelude\n"
      "t.py(6): error: past the map's end is kept as it is\n"
      "t.py(60): error: so is a line past the text\n"
      "other.cu(3): error: another file is left alone\n"
      "t.py(x): not a line number\n"
      "1 error detected in the compilation of \"t.py\".";
  size_t len;
  char *out = nvrtc_log_with_python_lines(log, "t.py", map, 6, NULL, &len);
  assert_non_null(out);
  assert_int_equal(len, strlen(out));
  assert_string_equal(out,
                      "t.py:9: [CUDA C line 5] error: identifier \"nope\" is undefined\n"
                      "        a[i] = nope;\n"
                      "               ^\n"
                      "t.py(1): warning: in the prelude\n"
                      "t.py(6): error: past the map's end is kept as it is\n"
                      "t.py(60): error: so is a line past the text\n"
                      "other.cu(3): error: another file is left alone\n"
                      "t.py(x): not a line number\n"
                      "1 error detected in the compilation of \"t.py\".");
  mem_free(NULL, out, len + 1);
}

/* End to end: an error NVRTC finds in a statement's code is reported at the statement's
 * Python line. Generated code that NVRTC rejects is a bug, so the error is planted. */
static void nvrtc_error_is_reported_at_the_python_line(void **state) {
  const char *text = translate(state, line_map_src);
  P2cModule *m = ((Fixture *)*state)->module;
  const char *stmt = strstr(text, "return 2.0 * (double)x;");
  assert_non_null(stmt);
  size_t at = (size_t)(stmt - text), len = strlen(text);
  char *planted = malloc(len + 32);
  assert_non_null(planted);
  snprintf(planted, len + 32, "%.*sreturn 2 * planted_error;%s", (int)at, text, stmt + strlen("return 2.0 * (double)x;"));
  m->cg.text = planted;
  P2cStatus s = p2c_module_compile(((Fixture *)*state)->compiler, m, "sm_90", P2C_TARGET_PTX);
  if (s == P2C_ERR_NO_CUDA) {
    print_message("NVRTC not available, skipped\n");
    free(planted);
    skip();
  }
  assert_int_equal(s, P2C_ERR_NVRTC);
  const char *log = p2c_module_nvrtc_log(m);
  if (!strstr(log, "t.py:4: [CUDA C line ") || !strstr(log, "planted_error"))
    fail_msg("the log does not name Python line 4:\n%s", log);
  m->cg.text = text;
  free(planted);
}

/* Non-ASCII names get an ASCII spelling; a Python name that is already spelled that way must
 * not capture it. */
static void non_ascii_names_get_distinct_ascii_spellings(void **state) {
  const char *text = translate(state,
                               "from numba import cuda\n"
                               "@cuda.jit(\"void(float64[::1])\")\n"
                               "def k(a):\n"
                               "    u00e9 = 1.0\n"
                               "    \xc3\xa9 = 2.0\n"                /* é */
                               "    \xef\xac\x81 = 3.0\n"            /* U+FB01, NFKC "fi" */
                               "    a[0] = u00e9 + \xc3\xa9 + fi\n");
  expect_contains(text, "u00e9 = 1.0;");
  expect_contains(text, "u00e9_2 = 2.0;");
  expect_contains(text, "fi = 3.0;");
  expect_contains(text, "a.data[0] = u00e9 + u00e9_2 + fi;");
  nvrtc_compiles(text);
}

/* A kernel with no parameters and no locals (the GPU runtime's empty-kernel benchmark): its
 * specialization clones an empty variable array. */
static void kernel_without_parameters_or_locals(void **state) {
  const char *text = translate(state,
                               "from numba import cuda\n"
                               "@cuda.jit(\"void()\")\n"
                               "def empty():\n"
                               "    pass\n");
  expect_contains(text, "extern \"C\" __global__ void empty()");
  nvrtc_compiles(text);
}

/* ---- functions, dtypes and literals as arguments (typeinfer's static_args.c) --------------- */

static const char func_args_src[] =
    "import operator\n"
    "from numba import cuda, float64, int64\n"
    "@cuda.jit(device=True)\n"
    "def twice(x):\n"
    "    return 2 * x\n"
    "@cuda.jit(device=True)\n"
    "def apply(f, x, scale, flag):\n"
    "    if flag:\n"
    "        x = x * 1000\n"
    "    return f(x) * scale\n"
    "@cuda.jit(device=True)\n"
    "def total(f, n):\n"
    "    if n <= 0:\n"
    "        return 0\n"
    "    return f(n, total(f, n - 1))\n"
    "@cuda.jit(device=True)\n"
    "def local_sum(dt, n):\n"
    "    t = cuda.local.array(n, dt)\n"
    "    for k in range(n):\n"
    "        t[k] = k\n"
    "    return t[n - 1]\n"
    "@cuda.jit(\"void(float64[::1], int64[::1])\")\n"
    "def k(a, b):\n"
    "    a[0] = apply(twice, a[0], 2, False)\n"
    "    a[1] = apply(twice, a[1], 3, False)\n"
    "    b[0] = apply(twice, b[0], 2, False)\n"
    "    b[1] = total(operator.add, b[1])\n"
    "    a[2] = local_sum(float64, 4)\n"
    "    b[2] = local_sum(int64, 4)\n";

/* One instance per tuple of values, specialized per argument types; a literal the function
 * does not need as a constant stays a parameter; the branch on a literal False is gone; a call
 * through the parameter is a direct call, also in a recursive function. */
static void function_arguments_make_one_instance_per_value(void **state) {
  const char *text = translate(state, func_args_src);
  /* scale (2, 3) is not needed as a constant: one instance for both calls */
  expect_contains(text, "static __device__ double apply__twice_False_f64_i64(double x, int64_t scale) {");
  expect_contains(text, "static __device__ int64_t apply__twice_False_i64_i64(int64_t x, int64_t scale) {");
  assert_int_equal(count_occurrences(text, "apply__twice_False_f64_i64("), 4);   /* prototype, definition, 2 calls */
  expect_absent(text, "1000");
  expect_contains(text, "return twice_f64(x) * (double)scale;");
  expect_contains(text, "static __device__ int64_t total__operator_add(int64_t n) {");
  expect_contains(text, "return n + total__operator_add(n - 1);");
  expect_contains(text, "static __device__ double local_sum__float64_4() {");
  expect_contains(text, "double t[4];");
  expect_contains(text, "int64_t t[4];");
  nvrtc_compiles(text);
}

/* --dump=types names the values an instance's parameters were given. */
static void instance_dump_names_its_values(void **state) {
  Fixture *fx = *state;
  translate(state, func_args_src);
  const char *dump = p2c_module_dump(fx->module, "types");
  assert_non_null(dump);
  if (!strstr(dump, "DeviceFunction local_sum(int64) ") && !strstr(dump, "DeviceFunction local_sum() ")) {
    print_message("%s\n", dump);
    fail_msg("no specialization of local_sum's instance");
  }
  expect_contains(dump, "  static dt = float64\n  static n = 4\n");
  expect_contains(dump, "  static f = operator_add\n");
}

/* ---- emitting on two threads (codegen's split_min) ---------------------------------------- */

/* What codegen_run gives for src with the given split_min: the text, the Python line of each
 * line, the kernels' symbols, and the diagnostics, as one string to compare. */
static char *emitted_with_split(const char *src, size_t split_min, bool check_bounds, bool line_directives) {
  Compilation c = {0};
  Module m = {0};
  TypeTable tt;
  arena_init(&c.arena, NULL);
  c.file = "t.py";
  assert_true(source_prepare(&c, src, strlen(src)));
  bool ok = frontend_run(&c, &m);
  frontend_finish(&c);
  assert_true(ok);
  types_init(&tt, &c.arena);
  TypeinferOptions tio = {0};
  assert_true(typeinfer_run(&c, &m, &tt, &tio));
  AnalysisOptions ao = {.check_bounds = check_bounds};
  Analysis an;
  analysis_run(&c, &m, &ao, &an);
  CodegenOptions cgo = {.line_directives = line_directives, .split_min = split_min};
  CodegenResult r = {0};
  bool emitted = codegen_run(&c, &m, &an, &cgo, &r);
  StrBuf sb;
  sb_init(&sb, &c.arena);
  sb_printf(&sb, "ok=%d errors=%zu too_many=%d\n", emitted, c.error_count, c.too_many_errors);
  for (size_t i = 0; i < c.diags.len; i++)
    sb_printf(&sb, "%u:%u %s %s\n", c.diags.items[i].line, c.diags.items[i].column,
              c.diags.items[i].code, c.diags.items[i].message);
  if (emitted) {
    for (int i = 0; i < r.nkernels; i++) sb_printf(&sb, "kernel %s %s\n", r.kernels[i].symbol, r.kernels[i].signature);
    for (size_t i = 0; i < r.nlines; i++) sb_printf(&sb, "%u,", r.python_line[i]);
    sb_printf(&sb, "\n%.*s", (int)r.len, r.text);
  }
  char *out = strdup(sb_str(&sb));
  arena_free(&c.arena);
  return out;
}

/* n kernels, each calling a device function; `body` is each kernel's last line (%d: its number). */
static char *split_module(int n, const char *body) {
  size_t cap = 1024 + (size_t)n * (512 + strlen(body));
  char *s = malloc(cap);
  assert_non_null(s);
  int k = snprintf(s, cap, "from numba import cuda\nimport math\nTPB = 128\n");
  for (int i = 0; i < n; i++) {
    k += snprintf(s + k, cap - (size_t)k,
                  "@cuda.jit(device=True)\n"
                  "def dev%d(x, y):\n"
                  "    return math.sqrt(x * x + y * y) // 2\n"
                  "@cuda.jit(\"void(float64[:], int64)\")\n"
                  "def kern%d(a, n):\n"
                  "    i = cuda.grid(1)\n"
                  "    if i < a.size:\n"
                  "        a[i] = dev%d(n, i - TPB)\n"
                  "    ",
                  i, i, i);
    k += snprintf(s + k, cap - (size_t)k, body, i);
    k += snprintf(s + k, cap - (size_t)k, "\n");
  }
  return s;
}

static void expect_same_text_on_two_threads(const char *src, bool check_bounds) {
  for (int directives = 0; directives < 2; directives++) {
    char *one = emitted_with_split(src, SIZE_MAX, check_bounds, directives);
    char *two = emitted_with_split(src, 2, check_bounds, directives);
    if (strcmp(one, two) != 0) {
      size_t i = 0;
      while (one[i] == two[i]) i++;
      fail_msg("two-thread codegen differs at byte %zu: '%.60s' against '%.60s'", i, one + i, two + i);
    }
    free(one);
    free(two);
  }
}

static void two_thread_codegen_writes_what_one_thread_writes(void **state) {
  (void)state;
  char *src = split_module(80, "a[0] = a[-1] + %d");
  expect_same_text_on_two_threads(src, false);
  expect_same_text_on_two_threads(src, true);   /* the bounds helpers used on both threads */
  /* Helpers that only the second half uses (the lane index, Python's float modulo) are kept. */
  size_t len = strlen(src);
  char *more = malloc(len + 256);
  assert_non_null(more);
  snprintf(more, len + 256, "%s@cuda.jit(\"void(float64[:])\")\ndef lanes(a):\n    a[0] = cuda.laneid + a[1] %% 3.0\n", src);
  char *two = emitted_with_split(more, 2, false, false);
  assert_non_null(strstr(two, "p2c_laneid"));
  free(two);
  expect_same_text_on_two_threads(more, false);
  free(more);
  free(src);
}

/* Tuple structs are named in order of first use: functions of the second half that use one
 * are emitted again on the first thread, with the same result. */
static void two_thread_codegen_with_tuples(void **state) {
  (void)state;
  char *src = split_module(40, "t = (n, %d.5)\n    a[1] = t[0] + t[1]");
  expect_same_text_on_two_threads(src, false);
  free(src);
  char *late = split_module(40, "a[2] = %d");   /* tuples only in the last kernel */
  size_t len = strlen(late);
  char *more = malloc(len + 256);
  assert_non_null(more);
  snprintf(more, len + 256, "%s@cuda.jit(\"void(int64[:])\")\ndef tup(a):\n    p = (a[0], 1.5, 2)\n    a[0] = p[2]\n", late);
  char *two = emitted_with_split(more, 2, false, false);
  assert_non_null(strstr(two, "struct p2c_tuple"));
  free(two);
  expect_same_text_on_two_threads(more, false);
  free(more);
  free(late);
}

/* Warnings found while emitting (print() of more than 32 items) come out in source order, the
 * first P2C_MAX_WARNINGS of them, and the module still compiles. */
static void two_thread_codegen_reports_warnings_in_order(void **state) {
  (void)state;
  char *src = split_module(60, "print(%d, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n)");
  char *one = emitted_with_split(src, SIZE_MAX, false, false);
  assert_non_null(strstr(one, "ok=1 errors=0 too_many=0\n"));
  size_t warnings = 0;
  for (const char *p = one; (p = strstr(p, "W-print-items")) != NULL; p++) warnings++;
  assert_int_equal(warnings, P2C_MAX_WARNINGS);
  free(one);
  expect_same_text_on_two_threads(src, false);
  free(src);
}

/* The simulator runs a kernel's threads through its grid-stride loop in lockstep only where a
 * step function can keep what the loop needs (emit_lockstep.c); tests/diff/cases/lockstep.py
 * runs these kernels against the oracle. */
static char *lockstep_source(void) {
  FILE *f = fopen(P2C_SOURCE_DIR "/tests/diff/cases/lockstep.py", "rb");
  assert_non_null(f);
  static char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  assert_true(n > 0 && n < sizeof buf - 1);
  buf[n] = '\0';
  return buf;
}

static void grid_stride_loops_run_in_lockstep_where_they_can(void **state) {
  Fixture *fx = *state;
  static const char *const sigs[] = {
      "guard_then_stride(int64[::1], int64[::1])", "stride_2d(int64[:, ::1], int64[:, ::1])",
      "reverse_stride(int64[::1], int64[::1])",    "rebinding(int64[::1], int64[::1])",
      "block_stride_3d(int64[::1], int64[::1])",   "atomic_stride(int64[::1], int64[::1])",
      "inner_break(int64[:, ::1], int64[::1])",    "carried(int64[::1], int64[::1])",
      "breaks_out(int64[::1], int64[::1])",        "row_loop(int64[:, ::1], int64[:, ::1])"};
  P2cTranslateOptions o = {.signatures = sigs, .signature_count = sizeof sigs / sizeof sigs[0]};
  const char *src = lockstep_source();
  assert_int_equal(p2c_translate(fx->compiler, "lockstep.py", src, strlen(src), &o, &fx->module), P2C_OK);
  const char *text = p2c_module_cuda(fx->module, NULL);
  static const char *const lockstep[] = {"guard_then_stride", "stride_2d", "reverse_stride", "rebinding",
                                         "block_stride_3d", "atomic_stride", "inner_break"};
  static const char *const apart[] = {"carried", "breaks_out", "row_loop"};
  char want[128];
  for (size_t i = 0; i < sizeof lockstep / sizeof lockstep[0]; i++) {
    snprintf(want, sizeof want, "P2C_SIM_LOCKSTEP(%s, p2c_lockstep_%s)\n", lockstep[i], lockstep[i]);
    expect_contains(text, want);
  }
  for (size_t i = 0; i < sizeof apart / sizeof apart[0]; i++) {
    snprintf(want, sizeof want, "P2C_SIM_BLOCKS(%s)\n", apart[i]);
    expect_contains(text, want);
    snprintf(want, sizeof want, "p2c_lockstep_%s", apart[i]);
    expect_absent(text, want);
  }
  /* The step function starts, advances and tests the position as the kernel's loop does. */
  expect_contains(text, "  if (p2c_first) {\n    p2c_pos = i;\n    if (!(p2c_pos < n)) return;\n  }\n  k = p2c_pos;\n");
  expect_contains(text, "  } while (0);\n  p2c_pos += p2c_t;\n  p2c_more = p2c_pos < n;\n}\n");
}

static void lockstep_needs_settled_assignments_and_no_carried_values(void **state) {
  static const struct {
    const char *body;
    bool lockstep;
  } cases[] = {
      /* the idiom, and a stride from blockDim * gridDim */
      {"    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        x[k] = 1\n", true},
      {"    s = cuda.blockDim.x * cuda.gridDim.x\n    for k in range(cuda.grid(1), x.size, s):\n        x[k] = 1\n", true},
      /* a step that is not the launch's: each thread walks its own elements */
      {"    for k in range(cuda.grid(1), x.size, 2):\n        x[k] = 1\n", false},
      /* an assignment that reads an array element, or calls a device function */
      {"    n = x[0]\n    for k in range(cuda.grid(1), n, cuda.gridsize(1)):\n        x[k] = 1\n", false},
      {"    n = dev(3)\n    for k in range(cuda.grid(1), n, cuda.gridsize(1)):\n        x[k] = 1\n", false},
      /* a statement after the loop, a loop that is not last, a while loop */
      {"    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        x[k] = 1\n    x[0] = 2\n", false},
      {"    i = cuda.grid(1)\n    while i < x.size:\n        x[i] = 1\n        i += cuda.gridsize(1)\n", false},
      /* a value read before it is assigned in the iteration, on one path or in a nested loop */
      {"    t = 0\n    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        if k > 3:\n            t = k\n        x[k] = t\n", false},
      {"    t = 0\n    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        for j in range(3):\n            x[k] = t\n            t = j\n", false},
      {"    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        if k > 3:\n            t = k\n        else:\n            t = 1\n        x[k] = t\n", true},
      /* augmented assignment reads its target */
      {"    t = 0\n    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        t += 1\n        x[k] = t\n", false},
      /* return in the loop */
      {"    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        if k > 3:\n            return\n        x[k] = 1\n", false},
      /* a local array made before the loop */
      {"    tmp = cuda.local.array(4, numba.int64)\n    for k in range(cuda.grid(1), x.size, cuda.gridsize(1)):\n        tmp[0] = k\n        x[k] = tmp[0]\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[2048];
    snprintf(src, sizeof src,
             "import numba\nfrom numba import cuda\n\n@cuda.jit(device=True)\ndef dev(a):\n    return a\n\n"
             "@cuda.jit('void(int64[::1])')\ndef k(x):\n%s",
             cases[i].body);
    const char *text = translate(state, src);
    bool got = strstr(text, "P2C_SIM_LOCKSTEP(k, ") != NULL;
    if (got != cases[i].lockstep) {
      print_text(text);
      fail_msg("case %zu: expected %s:\n%s", i, cases[i].lockstep ? "lockstep" : "no lockstep", cases[i].body);
    }
  }
}

/* The simulator runs a kernel's threads and blocks y fastest (P2C_SIM_YX) where its subscripts
 * walk memory in order so, `i, j = cuda.grid(2)` then `a[i, j]`, and nothing a thread does can
 * show the order (analysis/thread_order.c); elsewhere x fastest. The diff suite's thread_order
 * cases run such kernels against the oracle. */
static void threads_run_y_fastest_where_subscripts_walk_rows(void **state) {
  static const struct {
    const char *sig, *body;
    bool yx;
  } cases[] = {
      /* Numba's documented 2-D spelling: x indexes rows */
      {"float32[:, ::1], float32[:, ::1]", "    i, j = cuda.grid(2)\n    if i < a.shape[0] and j < a.shape[1]:\n"
       "        b[i, j] = a[i, j - 1] + a[i, j]\n", true},
      /* through threadIdx and blockIdx, and a local name */
      {"float32[:, ::1], float32[:, ::1]", "    r = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x\n"
       "    c = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y\n    b[r, c] = a[r, c]\n", true},
      /* already in order: x indexes the contiguous dimension */
      {"float32[:, ::1], float32[:, ::1]", "    j, i = cuda.grid(2)\n    b[i, j] = a[i, j]\n", false},
      /* Fortran order: the first index is the contiguous one */
      {"float32[::1, :], float32[::1, :]", "    i, j = cuda.grid(2)\n    b[i, j] = a[i, j]\n", false},
      /* one subscript in order with x fastest is enough to keep it */
      {"float32[:, ::1], float32[:, ::1]", "    i, j = cuda.grid(2)\n    b[i, j] = a[j, i]\n", false},
      /* threads that can see the order: an atomic's result, a print, a raise, a local array */
      {"float32[:, ::1], float32[:, ::1]", "    i, j = cuda.grid(2)\n    b[i, j] = cuda.atomic.add(a, (i, j), 1)\n", false},
      {"float32[:, ::1], float32[:, ::1]", "    i, j = cuda.grid(2)\n    b[i, j] = a[i, j]\n    print(i)\n", false},
      {"float32[:, ::1], float32[:, ::1]", "    i, j = cuda.grid(2)\n    if a[i, j] < 0:\n        raise ValueError\n"
       "    b[i, j] = a[i, j]\n", false},
      {"float32[:, ::1], float32[:, ::1]", "    i, j = cuda.grid(2)\n    t = cuda.local.array(2, numba.float32)\n"
       "    t[0] = a[i, j]\n    b[i, j] = t[0]\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[2048];
    snprintf(src, sizeof src, "import numba\nfrom numba import cuda\n\n@cuda.jit('void(%s)')\ndef k(a, b):\n%s",
             cases[i].sig, cases[i].body);
    const char *text = translate(state, src);
    bool got = strstr(text, "P2C_SIM_YX(k)\nP2C_SIM_BLOCKS(k)\n") != NULL;
    if (got != cases[i].yx) {
      print_text(text);
      fail_msg("case %zu: expected %s:\n%s", i, cases[i].yx ? "y fastest" : "x fastest", cases[i].body);
    }
  }
}

/* The simulator runs a kernel with barriers as regions only where every thread of a block takes
 * the same path through each barrier's control (analysis/regions.c); elsewhere it keeps the
 * fibers. tests/diff/fuzz.py --kind barriers runs both against the oracle. */
static void barriers_run_as_regions_where_control_is_uniform(void **state) {
  static const struct {
    const char *body;
    bool regions;
  } cases[] = {
      /* barriers at the top level: a tile, then a fixed sequence */
      {"    sh[t] = x[t]\n    cuda.syncthreads()\n    x[t] = sh[63 - t]\n", true},
      {"    sh[t] = x[t]\n    cuda.syncthreads()\n    v = sh[0]\n    cuda.syncthreads()\n    sh[t] = v\n"
       "    cuda.syncthreads()\n    x[t] = sh[t] + v\n", true},
      /* a tree reduction over a uniform stride, and a uniform range loop (blockIdx, n, shapes) */
      {"    s = cuda.blockDim.x // 2\n    while s > 0:\n        if t < s:\n            sh[t] += sh[t + s]\n"
       "        cuda.syncthreads()\n        s //= 2\n    x[t] = sh[0]\n", true},
      {"    for k in range(x.size // 64 + cuda.blockIdx.x + n):\n        sh[t] = k\n        cuda.syncthreads()\n"
       "        x[t] += sh[63 - t]\n        cuda.syncthreads()\n", true},
      /* a uniform branch around a barrier, and a return after the last barrier */
      {"    if n > 2:\n        sh[t] = 1\n        cuda.syncthreads()\n    if t > 3:\n        return\n    x[t] = sh[t]\n", true},
      /* a barrier under a thread's condition, in a loop of a thread's count or of a bound read from memory */
      {"    if t < 32:\n        cuda.syncthreads()\n", false},
      {"    for k in range(t):\n        cuda.syncthreads()\n", false},
      {"    for k in range(x[0]):\n        cuda.syncthreads()\n", false},
      /* a stride that becomes thread-dependent, a return before a barrier, a loop that breaks */
      {"    s = 4\n    if t > 2:\n        s = 3\n    while s > 0:\n        cuda.syncthreads()\n        s -= 1\n", false},
      {"    if t > 3:\n        return\n    cuda.syncthreads()\n", false},
      {"    for k in range(4):\n        cuda.syncthreads()\n        if k == n:\n            break\n", false},
      /* syncthreads_count, a warp operation of a partial mask, an assert, a rebound parameter */
      {"    x[t] = cuda.syncthreads_count(t > 3)\n", false},
      {"    cuda.syncthreads()\n    x[t] = cuda.shfl_down_sync(0xffff, t, 1)\n", false},
      {"    cuda.syncthreads()\n    assert x[t] >= 0\n", false},
      {"    n += 1\n    cuda.syncthreads()\n    x[t] = n\n", false},   /* += : one web (webs.c) */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[2048];
    snprintf(src, sizeof src,
             "import numba\nfrom numba import cuda\n\n"
             "@cuda.jit('void(int64[::1], int64)')\ndef k(x, n):\n"
             "    sh = cuda.shared.array(64, numba.int64)\n    t = cuda.threadIdx.x\n%s",
             cases[i].body);
    const char *text = translate(state, src);
    bool got = strstr(text, "P2C_SIM_REGIONS(k, p2c_regions_k)\n") != NULL;
    bool fibers = strstr(text, "P2C_SIM_FIBERS(k)\n") != NULL;
    if (got != cases[i].regions || got == fibers) {
      print_text(text);
      fail_msg("case %zu: expected %s:\n%s", i, cases[i].regions ? "regions" : "fibers", cases[i].body);
    }
  }
}

/* A device function that reaches a barrier is inlined into the simulator's block function
 * (analysis/inline.c) where its call is a statement or an assignment's value, and its return is
 * its last statement; elsewhere the kernel keeps the fibers, and --dump=analysis says why. The diff
 * suite's dev_* cases (tests/diff/cases/device_barriers.py) run such kernels against the oracle. */
static void device_barriers_inline_into_regions(void **state) {
  static const char *devices =
      "@cuda.jit(device=True)\ndef tree(sh, t):\n    s = cuda.blockDim.x // 2\n    while s > 0:\n"
      "        if t < s:\n            sh[t] += sh[t + s]\n        cuda.syncthreads()\n        s //= 2\n"
      "    return sh[0]\n\n"
      "@cuda.jit(device=True)\ndef outer(sh, t):\n    v = tree(sh, t)\n    cuda.syncthreads()\n    return v + 1\n\n"
      "@cuda.jit(device=True)\ndef early(sh, t):\n    if t > 3:\n        return 1\n    cuda.syncthreads()\n    return 2\n\n"
      "@cuda.jit(device=True)\ndef rebinds(sh, t, n):\n    while n > 1:\n        sh[t] = n\n"
      "        cuda.syncthreads()\n        n //= 2\n    return n\n\n";
  static const struct {
    const char *body;
    bool regions;
  } cases[] = {
      {"    x[t] = tree(sh, t)\n", true},
      {"    v = outer(sh, t)\n    x[t] = v\n", true},
      {"    tree(sh, t)\n", true},
      {"    for k in range(n):\n        x[t] += tree(sh, t)\n", false},   /* inside an expression */
      {"    for k in range(n):\n        v = tree(sh, t)\n        x[t] += v\n", true},
      {"    x[t] = rebinds(sh, t, n)\n", true},
      {"    x[t] = 1 + tree(sh, t)\n", false},
      {"    x[t] = early(sh, t)\n", false},
      {"    if t < 3:\n        tree(sh, t)\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[4096];
    snprintf(src, sizeof src,
             "import numba\nfrom numba import cuda\n\n%s"
             "@cuda.jit('void(int64[::1], int64)')\ndef k(x, n):\n"
             "    sh = cuda.shared.array(64, numba.int64)\n    t = cuda.threadIdx.x\n%s",
             devices, cases[i].body);
    const char *text = translate(state, src);
    bool got = strstr(text, "P2C_SIM_REGIONS(k, p2c_regions_k)\n") != NULL;
    bool fibers = strstr(text, "P2C_SIM_FIBERS(k)\n") != NULL;
    if (got != cases[i].regions || got == fibers) {
      print_text(text);
      fail_msg("case %zu: expected %s:\n%s", i, cases[i].regions ? "regions" : "fibers", cases[i].body);
    }
  }
}

/* Warp operations cut the regions where every lane reaches them together (uniform control, the
 * full mask, evaluated on every path of their statement, pure arguments, one per statement);
 * elsewhere the fibers. tests/diff/fuzz.py --kind warps runs both paths against each other. */
static void warp_operations_run_as_regions_where_lanes_meet(void **state) {
  static const struct {
    const char *body;
    bool regions;
  } cases[] = {
      {"    x[t] = cuda.shfl_down_sync(0xffffffff, t, 1)\n", true},
      {"    v = x[t]\n    o = 16\n    while o > 0:\n        v += cuda.shfl_down_sync(0xffffffff, v, o)\n"
       "        o //= 2\n    x[t] = v\n", true},
      {"    x[t] = cuda.ballot_sync(0xffffffff, t > 3) + cuda.laneid\n", true},
      {"    sh[t] = t\n    cuda.syncwarp()\n    x[t] = sh[t ^ 1]\n", true},
      {"    m, p = cuda.match_all_sync(0xffffffff, t // 8)\n    x[t] = m\n", true},
      {"    for k in range(n):\n        x[t] += cuda.shfl_xor_sync(-1, x[t], k)\n", true},
      {"    x[t] = cuda.shfl_down_sync(0xffff, t, 1)\n", false},
      {"    if t < 16:\n        x[t] = cuda.shfl_down_sync(0xffffffff, t, 1)\n", false},
      {"    x[t] = cuda.shfl_down_sync(0xffffffff, t, 1) if n > 0 else 0\n", false},
      {"    x[t] = cuda.shfl_down_sync(0xffffffff, t, 1) + cuda.shfl_up_sync(0xffffffff, t, 1)\n", false},
      {"    x[t] = cuda.shfl_down_sync(0xffffffff, cuda.atomic.add(x, 0, 1), 1)\n", false},
      {"    for k in range(x[0]):\n        x[t] += cuda.shfl_xor_sync(0xffffffff, x[t], 1)\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[2048];
    snprintf(src, sizeof src,
             "import numba\nfrom numba import cuda\n\n"
             "@cuda.jit('void(int64[::1], int64)')\ndef k(x, n):\n"
             "    sh = cuda.shared.array(64, numba.int64)\n    t = cuda.threadIdx.x\n%s",
             cases[i].body);
    const char *text = translate(state, src);
    bool got = strstr(text, "P2C_SIM_REGIONS(k, p2c_regions_k)\n") != NULL;
    bool fibers = strstr(text, "P2C_SIM_FIBERS(k)\n") != NULL;
    if (got != cases[i].regions || got == fibers) {
      print_text(text);
      fail_msg("case %zu: expected %s:\n%s", i, cases[i].regions ? "regions" : "fibers", cases[i].body);
    }
  }
}

/* A tree reduction as regions: `tid = cuda.threadIdx.x` is computed again in each region (no
 * slot), the uniform stride is kept once per block, `s //= 2` runs once per block, and the loops
 * over the threads of `if tid < s:` and `if tid == 0:` run only those threads. */
static void tree_reduction_regions_are_lean(void **state) {
  const char *text = translate(state,
      "import numba\nfrom numba import cuda\n\n"
      "@cuda.jit('void(float32[::1], float32[::1])')\ndef k(x, out):\n"
      "    buf = cuda.shared.array(256, numba.float32)\n    tid = cuda.threadIdx.x\n"
      "    buf[tid] = x[cuda.grid(1)]\n    cuda.syncthreads()\n    s = cuda.blockDim.x // 2\n"
      "    while s > 0:\n        if tid < s:\n            buf[tid] += buf[tid + s]\n"
      "        cuda.syncthreads()\n        s //= 2\n    if tid == 0:\n        out[cuda.blockIdx.x] = buf[0]\n");
  const char *fn = strstr(text, "p2c_regions_k(");
  assert_non_null(fn);
  assert_null(strstr(fn, "p2c_slots"));
  assert_non_null(strstr(fn, "} p2c_block = {}, p2c_in;"));
  assert_non_null(strstr(fn, "once per block"));
  assert_non_null(strstr(fn, "p2c_sim_each_thread_below(p2c_d, "));
  assert_non_null(strstr(fn, "p2c_sim_each_thread_at(p2c_d, "));
  /* the loops over the threads below s, and at 0, run the ifs' bodies without their tests */
  assert_null(strstr(fn, "if ((int64_t)tid < s)"));
  assert_null(strstr(fn, "if ((int64_t)tid == 0)"));
  assert_non_null(strstr(fn, "buf[tid] += buf[(int64_t)tid + s];"));
  /* blockIdx, blockDim and gridDim are constants of the block function */
  assert_non_null(strstr(fn, "P2C_SIM_BLOCK_CONSTANTS();"));
}

/* Which array parameters the simulator may give each worker a private copy of for their atomics
 * (analysis/private_atomics.c, P2C_SIM_PRIVATE): only arrays used by atomic statements of one
 * integer operation (add and sub are one) and by their extents; not a float array, one whose
 * old value is used, one also read, one of mixed operations, one passed to a device function;
 * nothing for a kernel with a tuple parameter, nor under --sanitize. tests/diff/cases/
 * atomics_private.py runs such kernels against Numba's simulator. */
static void atomics_on_private_copies(void **state) {
  static const char src[] =
      "from numba import cuda\n\n"
      "@cuda.jit(device=True)\ndef bump(a, i):\n    cuda.atomic.add(a, i, 1)\n\n"
      "@cuda.jit('void(int32[::1], int32[::1], int64[::1], int32[::1], float32[::1], int32[::1], "
      "uint32[::1], int32[::1], int64)')\n"
      "def k(x, h, g, mixed, f, old, m, dev, n):\n"
      "    i = cuda.grid(1)\n"
      "    if i < x.size:\n"
      "        cuda.atomic.add(h, x[i] % h.shape[0], 1)\n"
      "        cuda.atomic.add(h, x[i] % len(h), n)\n"
      "        cuda.atomic.add(g, 0, 1)\n        cuda.atomic.sub(g, 1, n)\n"
      "        cuda.atomic.add(mixed, 0, 1)\n        cuda.atomic.max(mixed, 1, 1)\n"
      "        cuda.atomic.add(f, 0, 1.0)\n"
      "        x[i] = cuda.atomic.add(old, 0, 1)\n"
      "        cuda.atomic.max(m, 0, 7)\n        x[0] = m[1]\n"
      "        bump(dev, 0)\n\n"
      "@cuda.jit('void(UniTuple(int32[::1], 2), int32[::1])')\n"
      "def t(pair, h):\n    cuda.atomic.add(h, 0, pair[0][0])\n";
  const char *text = translate(state, src);
  assert_non_null(strstr(text, "P2C_SIM_PRIVATE(k, P2C_PRIVATE_SHARED, P2C_PRIVATE_ADD, P2C_PRIVATE_ADD, "
                               "P2C_PRIVATE_SHARED, P2C_PRIVATE_SHARED, P2C_PRIVATE_SHARED, "
                               "P2C_PRIVATE_SHARED, P2C_PRIVATE_SHARED, P2C_PRIVATE_NO)\n"));
  assert_null(strstr(text, "P2C_SIM_PRIVATE(t"));
  const char *cuda_part = strstr(text, "#ifdef PYK2CUDA_SIM");
  assert_non_null(cuda_part);
  assert_true(strstr(text, "P2C_SIM_PRIVATE") > cuda_part);   /* the GPU's text is unchanged */
  Fixture *fx = *state;
  const P2cTranslateOptions checked = {.checks = {.sanitize = true}};
  p2c_module_delete(fx->module);
  fx->module = NULL;
  assert_int_equal(p2c_translate(fx->compiler, "t.py", src, strlen(src), &checked, &fx->module), P2C_OK);
  text = p2c_module_cuda(fx->module, NULL);
  assert_non_null(strstr(text, "p2c_san_"));   /* translated for the checker */
  assert_null(strstr(text, "P2C_SIM_PRIVATE("));
}

/* Grid syncs cut a cooperative kernel into phases (grid regions, docs/simulator.md) where every
 * loop or branch holding one is the same in every block: a parameter's or a shape's bound, a
 * uniform variable; a bound from blockIdx (the same in a block, not in the grid), a thread's
 * condition, a grid sync in a device function or with a device function's shared array keep
 * the fibers. Block barriers in loops of a block's own count are fine inside a phase. */
static void grid_syncs_cut_kernels_where_control_is_the_same_in_every_block(void **state) {
  static const struct {
    const char *body;
    bool grid;
  } cases[] = {
      {"    sh[t] = x[t]\n    g.sync()\n    x[t] = sh[63 - t]\n", true},
      {"    for k in range(n):\n        x[t] += k\n        g.sync()\n        cuda.syncthreads()\n", true},
      {"    s = 1\n    while s < x.shape[0]:\n        g.sync()\n        s *= 2\n    x[t] = s\n", true},
      {"    if n > 2:\n        g.sync()\n    for k in range(cuda.blockIdx.x):\n        cuda.syncthreads()\n", true},
      {"    for k in range(cuda.blockIdx.x):\n        g.sync()\n", false},
      {"    if cuda.blockIdx.x > 0:\n        g.sync()\n", false},
      {"    if t > 0:\n        g.sync()\n", false},
      {"    s = 1\n    if cuda.blockIdx.x == 3:\n        s = 2\n    while s < 4:\n        g.sync()\n        s += 1\n", false},
      {"    dev(g)\n", false},
      {"    x[t] = tile()\n    g.sync()\n", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[2048];
    snprintf(src, sizeof src,
             "import numba\nfrom numba import cuda\n\n"
             "@cuda.jit(device=True)\ndef dev(g):\n    g.sync()\n\n"
             "@cuda.jit(device=True)\ndef tile():\n    a = cuda.shared.array(4, numba.int64)\n    return a[0]\n\n"
             "@cuda.jit('void(int64[::1], int64)')\ndef k(x, n):\n"
             "    sh = cuda.shared.array(64, numba.int64)\n    t = cuda.threadIdx.x\n"
             "    g = cuda.cg.this_grid()\n%s",
             cases[i].body);
    const char *text = translate(state, src);
    bool got = strstr(text, "P2C_SIM_GRID(k, p2c_regions_k)\n") != NULL;
    bool fibers = strstr(text, "P2C_SIM_FIBERS(k)\n") != NULL;
    if (got != cases[i].grid || got == fibers) {
      print_text(text);
      fail_msg("case %zu: expected %s:\n%s", i, cases[i].grid ? "grid regions" : "fibers", cases[i].body);
    }
  }
}

/* A range loop's counter must not step past the range's end into an overflow: `k += step`
 * where stop and step are known to be far from the counter type's limit (value_bits.c),
 * p2c_range_next elsewhere. tests/diff/cases/loops.py (range_near_limits) runs the limits. */
static void range_advance_cannot_overflow(void **state) {
  const char *text = translate(state,
      "from numba import cuda\n"
      "@cuda.jit('void(int64[::1], int64, int64, int32)')\n"
      "def k(x, n, s, m):\n"
      "    start = cuda.grid(1)\n"
      "    stride = cuda.blockDim.x * cuda.gridDim.x\n"
      "    for i in range(start, x.size, stride):\n"   /* extent and launch dimensions */
      "        x[i] = 1\n"
      "    for j in range(0, n):\n"                     /* unit step */
      "        x[0] = j\n"
      "    for a in range(0, m, 7):\n"                  /* int32 stop, small constant step */
      "        x[0] = a\n"
      "    for b in range(n, 0, -1):\n"                 /* unit step down */
      "        x[0] = b\n"
      "    for c in range(0, n, 3):\n"                  /* an int64 stop could be near the top */
      "        x[0] = c\n"
      "    for d in range(0, x.size, s):\n"             /* an int64 step */
      "        x[0] = d\n"
      "    for e in range(0, (start - 2) & (stride - 3), 3):\n"   /* & of negatives grows */
      "        x[0] = e\n");
  expect_contains(text, "for (i = start; i < x.shape[0]; i += stride) {");
  expect_contains(text, "for (j = 0; j < n; ++j) {");
  expect_contains(text, "a += 7) {");
  expect_contains(text, "for (b = n; b > 0; b += -1) {");   /* -1 is a literal: CPython folds it */
  expect_contains(text, "c = p2c_range_next<int64_t>(c, 3, n)) {");
  expect_contains(text, "d = p2c_range_next<int64_t>(d, s, x.shape[0])) {");
  expect_contains(text, "e = p2c_range_next<int64_t>(e, 3, ");
  expect_contains(text, "static __device__ __forceinline__ T p2c_range_next(T k, T step, T stop) {");
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(reserved_word_tables_are_sorted),
      cmocka_unit_test(two_thread_codegen_writes_what_one_thread_writes),
      cmocka_unit_test(two_thread_codegen_with_tuples),
      cmocka_unit_test(two_thread_codegen_reports_warnings_in_order),
      T(every_statement_maps_to_its_python_line),
      cmocka_unit_test(nvrtc_log_names_python_lines),
      T(longest_operator_chain_compiles),
      T(nvrtc_error_is_reported_at_the_python_line),
      T(non_ascii_names_get_distinct_ascii_spellings),
      T(kernel_without_parameters_or_locals),
      T(function_arguments_make_one_instance_per_value),
      T(instance_dump_names_its_values),
      T(colliding_names_are_renamed),
      T(colliding_kernel_name_is_renamed),
      T(renamed_code_compiles_with_nvrtc),
      T(print_format_cannot_be_misread),
      T(print_code_compiles_with_nvrtc),
      T(comment_ending_in_backslash_does_not_splice),
      T(comment_code_compiles_with_nvrtc),
      T(negative_index_wraps_and_grid_index_does_not),
      T(floordiv_and_mod_of_nonnegative_are_plain),
      T(index_code_compiles_with_nvrtc),
      T(chained_comparison_calls_the_middle_once),
      T(tuple_swap_goes_through_temporaries),
      T(loop_variable_read_after_the_loop_uses_a_hidden_counter),
      T(order_code_compiles_with_nvrtc),
      T(float32_arithmetic_stays_float32),
      T(two_signatures_give_two_kernels),
      T(specializations_compile_with_nvrtc),
      T(shared_memory_and_barrier_are_described),
      T(intrinsic_types_follow_numba),
      T(atomics_use_cuda_functions_where_they_exist),
      T(intrinsic_code_compiles_with_nvrtc),
      T(warp_operations_are_described_as_needing_fibers),
      T(regression_print_text_never_becomes_a_conversion),
      T(regression_chained_comparison_keeps_python_order),
      T(regression_kernel_named_like_a_cuda_math_function),
      T(grid_stride_loops_run_in_lockstep_where_they_can),
      T(lockstep_needs_settled_assignments_and_no_carried_values),
      T(barriers_run_as_regions_where_control_is_uniform),
      T(device_barriers_inline_into_regions),
      T(warp_operations_run_as_regions_where_lanes_meet),
      T(tree_reduction_regions_are_lean),
      T(grid_syncs_cut_kernels_where_control_is_the_same_in_every_block),
      T(range_advance_cannot_overflow),
      T(atomics_on_private_copies),
      T(threads_run_y_fastest_where_subscripts_walk_rows),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
