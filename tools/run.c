/* pyk2cuda run and info. `run` turns its ARGs into kernel arguments (a .npy file, a new array
 * zeros:/ones:/empty:/arange:DTYPE[dims] (zeros: and empty: also of S<n>, U<n>), or a scalar 42,
 * -1.5, true, float32:1.5), launches through the public API, and writes every array parameter
 * to DIR/<parameter>.npy (DIR is pyk2cuda-out unless --out-dir says otherwise). An output that would replace one of the input
 * files is refused before the launch: the user's data is never lost. */
#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum { MAX_ARGS = 256 };

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct RunArgs {
  const char *file, *kernel, *out_dir;
  const char *values[MAX_ARGS];
  int nvalues;
  P2cLaunchOptions launch;
  bool time, grid_auto, check_bounds, sanitize;
  bool grid_given, block_given;
  double timeout_s;           /* --timeout; 0: none */
  /* explore --sanitize: the page's -o and --arch; the page is written instead of the outputs */
  bool view;
  const char *view_out, *arch;
} RunArgs;

/* Where outputs go when --out-dir is not given: a folder of its own, never the files of the
 * current directory. */
static const char DEFAULT_OUT_DIR[] = "pyk2cuda-out";

/* ---- parsing ---- */

static bool parse_dims3(const char *s, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  for (int k = 0; k < 3; k++) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || errno || v == 0 || v > 0x7fffffffUL || *s == '-') return false;
    out[k] = (uint32_t)v;
    if (*end == '\0') return true;
    if (*end != ',') return false;
    s = end + 1;
  }
  return false;
}

static const char *flag_value(int argc, char **argv, int *i, const char *flag) {
  size_t n = strlen(flag);
  if (strncmp(argv[*i], flag, n) == 0 && argv[*i][n] == '=') return argv[*i] + n + 1;
  if (strcmp(argv[*i], flag) != 0) return NULL;
  return *i + 1 < argc ? argv[++*i] : "";
}

static int parse_option(RunArgs *r, int argc, char **argv, int *i) {
  const char *v;
  if (r->view && (v = flag_value(argc, argv, i, "-o"))) {
    r->view_out = v;
  } else if (r->view && (v = flag_value(argc, argv, i, "--arch"))) {
    r->arch = v;
  } else if ((v = flag_value(argc, argv, i, "--grid"))) {
    r->grid_given = true;
    if (strcmp(v, "auto") == 0) r->grid_auto = true;
    else if (!parse_dims3(v, r->launch.grid)) return cli_usage_error("bad --grid '%s': expected X[,Y[,Z]] or auto", v);
  } else if ((v = flag_value(argc, argv, i, "--block"))) {
    r->block_given = true;
    if (!parse_dims3(v, r->launch.block)) return cli_usage_error("bad --block '%s': expected X[,Y[,Z]]", v);
  } else if ((v = flag_value(argc, argv, i, "--shared"))) {
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || end == v || n > 0xffffffffUL || *v == '-') return cli_usage_error("bad --shared '%s'", v);
    r->launch.shared_bytes = (uint32_t)n;
  } else if ((v = flag_value(argc, argv, i, "--device"))) {
    if (!strcmp(v, "auto")) r->launch.device = P2C_DEVICE_AUTO;
    else if (!strcmp(v, "gpu")) r->launch.device = P2C_DEVICE_GPU;
    else if (!strcmp(v, "sim")) r->launch.device = P2C_DEVICE_SIM;
    else return cli_usage_error("bad --device '%s': expected auto, gpu or sim", v);
  } else if ((v = flag_value(argc, argv, i, "--repeat"))) {
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > 1000000) return cli_usage_error("bad --repeat '%s'", v);
    r->launch.repeat = (int)n;
  } else if ((v = flag_value(argc, argv, i, "--timeout"))) {
    char *end;
    double t = strtod(v, &end);
    if (*end || end == v || !(t > 0) || t > 1e6) return cli_usage_error("bad --timeout '%s': expected seconds, > 0", v);
    r->timeout_s = t;
  } else if ((v = flag_value(argc, argv, i, "--out-dir"))) {
    r->out_dir = v;
  } else if (!strcmp(argv[*i], "--time")) {
    r->time = true;
  } else if (!strcmp(argv[*i], "--no-cache")) {
    r->launch.no_cache = true;
  } else if (!strcmp(argv[*i], "--check-bounds")) {
    r->check_bounds = true;
  } else if (!strcmp(argv[*i], "--sanitize")) {
    r->sanitize = true;   /* which implies bounds checking: the library's rule */
  } else {
    return cli_usage_error("unknown option '%s'", argv[*i]);
  }
  return 0;
}

static int parse_run_args(int argc, char **argv, bool view, RunArgs *r) {
  memset(r, 0, sizeof *r);
  r->view = view;
  r->out_dir = DEFAULT_OUT_DIR;
  r->launch.block[0] = r->launch.block[1] = r->launch.block[2] = 1;
  r->launch.grid[0] = r->launch.grid[1] = r->launch.grid[2] = 1;
  for (int i = 2; i < argc; i++) {
    bool negative_number = argv[i][0] == '-' && (argv[i][1] == '.' || (argv[i][1] >= '0' && argv[i][1] <= '9'));
    if (argv[i][0] == '-' && argv[i][1] && !negative_number) {
      int rc = parse_option(r, argc, argv, &i);
      if (rc) return rc;
    } else if (!r->file) r->file = argv[i];
    else if (!r->kernel) r->kernel = argv[i];
    else if (r->nvalues == MAX_ARGS) return cli_usage_error("too many kernel arguments");
    else r->values[r->nvalues++] = argv[i];
  }
  if (!r->file || !r->kernel) return cli_usage_error("%s needs FILE.py and KERNEL", view ? "explore --sanitize" : "run");
  if (view && !r->view_out) return cli_usage_error("explore needs -o VIEW.html (- for stdout)");
  return 0;
}

/* ---- argument values ---- */

static bool scalar_type_named(const char *name, size_t len, P2cScalarType *out) {
  if (p2c_dtype_parse_charseq(name, len, out)) return true;   /* NumPy's S12, U12 */
  for (int t = 0; t < P2C_SCALAR_TYPE_COUNT; t++) {
    const char *n = p2c_scalar_name((P2cScalarType)t);
    if (strlen(n) == len && strncmp(n, name, len) == 0) return *out = (P2cScalarType)t, true;
  }
  return false;
}

static bool is_time(P2cScalarType t) { return t >= P2C_DATETIME64 && t < P2C_SCALAR_TYPE_COUNT; }

/* "DTYPE[d0,d1,...]" or "DTYPE[]" (0-d) (the last brackets: a datetime64[D]'s are its name's) */
static bool parse_array_spec(const char *s, P2cScalarType *t, int *ndim, int64_t *shape) {
  const char *br = strrchr(s, '[');
  size_t len = strlen(s);
  if (!br || len < 3 || s[len - 1] != ']' || !scalar_type_named(s, (size_t)(br - s), t)) return false;
  const char *p = br + 1;
  *ndim = 0;
  while (*p != ']') {
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || errno || v < 0 || *ndim == P2C_MAX_NDIM || *p == '-') return false;
    shape[(*ndim)++] = v;
    p = end;
    if (*p == ',') p++;
    else if (*p != ']') return false;
  }
  return true;   /* "DTYPE[]": a 0-d array */
}

static void fill_array(P2cHostArray *a, const char *kind) {
  size_t n = 1;
  for (int k = 0; k < a->ndim; k++) n *= (size_t)a->shape[k];
  for (size_t i = 0; i < n; i++) {
    double v = !strcmp(kind, "ones") ? 1.0 : (double)i;
    unsigned char *p = (unsigned char *)a->data + i * p2c_scalar_size(a->dtype);
    switch (a->dtype) {
    case P2C_BOOL: *(bool *)p = v != 0; break;
    case P2C_INT8: *(int8_t *)p = (int8_t)(int64_t)v; break;
    case P2C_INT16: *(int16_t *)p = (int16_t)(int64_t)v; break;
    case P2C_INT32: *(int32_t *)p = (int32_t)(int64_t)v; break;
    case P2C_INT64: *(int64_t *)p = (int64_t)v; break;
    case P2C_UINT8: *(uint8_t *)p = (uint8_t)(uint64_t)v; break;
    case P2C_UINT16: *(uint16_t *)p = (uint16_t)(uint64_t)v; break;
    case P2C_UINT32: *(uint32_t *)p = (uint32_t)(uint64_t)v; break;
    case P2C_UINT64: *(uint64_t *)p = (uint64_t)v; break;
    case P2C_FLOAT32: *(float *)p = (float)v; break;
    case P2C_FLOAT64: *(double *)p = v; break;
    case P2C_COMPLEX64: ((float *)p)[0] = (float)v, ((float *)p)[1] = 0; break;
    case P2C_COMPLEX128: ((double *)p)[0] = v, ((double *)p)[1] = 0; break;
    case P2C_FLOAT16: *(uint16_t *)p = p2c_float16_bits(v); break;
    default:
      if (is_time(a->dtype)) *(int64_t *)p = (int64_t)v;   /* counts of the unit */
      break;
    }
  }
}

static int new_array_arg(P2cCompiler *c, const char *kind, const char *spec, P2cValue *v) {
  int64_t shape[P2C_MAX_NDIM];
  int ndim;
  if (!parse_array_spec(spec, &v->type, &ndim, shape))
    return cli_usage_error("bad array argument '%s:%s': expected %s:DTYPE[d0,d1,...]", kind, spec, kind);
  if (p2c_dtype_charseq(v->type, NULL, NULL) && strcmp(kind, "zeros") && strcmp(kind, "empty"))
    return cli_usage_error("bad array argument '%s:%s': strings are made by zeros: or empty: only", kind, spec);
  P2cStatus s = p2c_host_array_new(c, v->type, ndim, shape, &v->array);
  if (s != P2C_OK) return fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c)), cli_exit_for(s);
  v->is_array = true;
  if (strcmp(kind, "zeros") && strcmp(kind, "empty")) fill_array(&v->array, kind);
  return 0;
}

/* Whether the parsed value fits its type: integers in their width, finite floats in float32's
 * range (an infinity or NaN written as such is kept). */
static bool in_range(P2cScalarType t, const P2cValue *v) {
  int bits = (int)p2c_scalar_size(t) * 8;
  if (t == P2C_FLOAT32) return !isfinite(v->scalar.f) || fabs(v->scalar.f) <= FLT_MAX;
  if (t == P2C_FLOAT16) return !isfinite(v->scalar.f) || (p2c_float16_bits(v->scalar.f) & 0x7fff) != 0x7c00;
  if (t == P2C_FLOAT64 || bits == 64) return true;
  if (t >= P2C_UINT8 && t <= P2C_UINT64) return v->scalar.u < (1ull << bits);
  int64_t lim = (int64_t)1 << (bits - 1);
  return v->scalar.i >= -lim && v->scalar.i < lim;
}

typedef enum { NUM_OK, NUM_BAD, NUM_RANGE } NumParse;

static NumParse parse_number(const char *s, P2cScalarType t, P2cValue *v) {
  char *end;
  errno = 0;
  v->type = t;
  if (t == P2C_BOOL) {
    if (strcmp(s, "true") && strcmp(s, "false") && strcmp(s, "True") && strcmp(s, "False")) return NUM_BAD;
    v->scalar.b = s[0] == 't' || s[0] == 'T';
    return NUM_OK;
  }
  if (is_time(t) && strcmp(s, "NaT") == 0) {
    v->scalar.i = INT64_MIN;
    return NUM_OK;
  }
  bool negative = s[strspn(s, " \t")] == '-';
  if (t == P2C_FLOAT16 || t == P2C_FLOAT32 || t == P2C_FLOAT64) v->scalar.f = strtod(s, &end);
  else if (t >= P2C_UINT8 && t <= P2C_UINT64) v->scalar.u = strtoull(s, &end, 0);
  else v->scalar.i = strtoll(s, &end, 0);
  if (end == s || *end != '\0' || isspace((unsigned char)*s)) return NUM_BAD;
  if (t >= P2C_UINT8 && t <= P2C_UINT64 && negative && v->scalar.u != 0) return NUM_RANGE;
  /* strtod's ERANGE on underflow is no error: 5e-324 is a double (a subnormal), as in Python. */
  bool is_float = t == P2C_FLOAT16 || t == P2C_FLOAT32 || t == P2C_FLOAT64;
  if (errno == ERANGE && is_float && fabs(v->scalar.f) <= DBL_MIN) errno = 0;
  return errno == ERANGE || !in_range(t, v) ? NUM_RANGE : NUM_OK;
}

static int scalar_arg(const char *s, P2cValue *v) {
  const char *colon = strchr(s, ':');
  P2cScalarType t;
  if (colon) {
    if (!scalar_type_named(s, (size_t)(colon - s), &t))
      return cli_usage_error("bad argument '%s': unknown type '%.*s'", s, (int)(colon - s), s);
    NumParse np = parse_number(colon + 1, t, v);
    if (np == NUM_RANGE) return cli_usage_error("bad argument '%s': %s is out of range for %s", s, colon + 1, p2c_scalar_name(t));
    if (np == NUM_BAD) return cli_usage_error("bad argument '%s': '%s' is not a value of type %s", s, colon + 1, p2c_scalar_name(t));
    return 0;
  }
  if (parse_number(s, P2C_BOOL, v) == NUM_OK) return 0;
  NumParse np = parse_number(s, P2C_INT64, v);
  if (np == NUM_OK) return 0;
  if (np == NUM_RANGE)
    return cli_usage_error("bad argument '%s': an integer outside int64 (write uint64:%s, or float64:%s for a float)", s, s, s);
  if (parse_number(s, P2C_FLOAT64, v) == NUM_OK) return 0;
  return cli_usage_error("bad argument '%s': expected FILE.npy, zeros:DTYPE[dims], a number, true/false, or TYPE:VALUE", s);
}

/* ---- tuples: "(ARG, ARG, ...)" ---- */

enum { MAX_TUPLE_DEPTH = 16 };

static int make_value(P2cCompiler *c, const char *s, P2cValue *v, int depth);

/* Releases what make_value made for v: an array's data, a tuple's elements (and theirs). */
static void free_arg(P2cCompiler *c, P2cValue *v) {
  if (v->is_array) p2c_host_array_free(c, &v->array);
  if (v->type != P2C_TUPLE) return;
  P2cValue *elems = (P2cValue *)v->elems;
  for (size_t i = 0; i < v->elem_count; i++) free_arg(c, &elems[i]);
  free(elems);
}

/* The end of the tuple element starting at s: its comma, or the tuple's closing parenthesis,
 * outside nested parentheses; NULL when the parentheses do not balance. */
static const char *element_end(const char *s) {
  int depth = 0;
  for (; *s; s++)
    if (*s == '(') depth++;
    else if ((*s == ')' || *s == ',') && depth == 0) return s;
    else if (*s == ')') depth--;
  return NULL;
}

/* The elements' texts of tuple text s ("(1, (2, 3))": "1", "(2, 3)"), each a copy without the
 * spaces around it; Python's forms: "()" is empty, "(7,)" one element. -1 when malformed. */
static int tuple_elements(const char *s, char ***out) {
  const char *p = s + 1;
  int n = 0;
  bool comma = false;   /* "(7)" is 7 in Python, "(7,)" a tuple */
  char **texts = NULL;
  for (;;) {
    while (*p == ' ') p++;
    if (*p == ')' && (n > 0 || p == s + 1 + strspn(s + 1, " "))) break;   /* "()" or a trailing comma */
    const char *end = element_end(p);
    if (!end) break;
    size_t len = (size_t)(end - p);
    while (len && p[len - 1] == ' ') len--;
    char **grown = len ? realloc(texts, sizeof *texts * (size_t)(n + 1)) : NULL;
    if (!grown) break;
    texts = grown;
    texts[n++] = strndup(p, len);
    comma = comma || *end == ',';
    p = end + (*end == ',');
    if (*end == ')') break;
  }
  bool ok = *p == ')' && p[1] == '\0' && (n != 1 || comma);
  if (ok) return *out = texts, n;
  while (n) free(texts[--n]);
  free(texts);
  return -1;
}

/* "(1, 2.5)", "(int32:7, (true, 0))", "(7,)", "()": a tuple of the values its elements spell,
 * scalars or tuples, each typed as it would be alone (a bare integer int64, as Numba types a
 * Python int); the library's dispatcher types the tuple as Numba does, the tuple of its
 * elements' types, and takes or refuses it with the same words as for Python's tuples. Arrays
 * in a tuple are refused: `run` writes back only array arguments. */
static int tuple_arg(P2cCompiler *c, const char *s, P2cValue *v, int depth) {
  char **texts = NULL;
  int n = depth < MAX_TUPLE_DEPTH ? tuple_elements(s, &texts) : -1;
  if (n < 0)
    return cli_usage_error("bad tuple argument '%s': expected (VALUE, VALUE, ...) of scalars and tuples, "
                           "(VALUE,) for one, () for none, at most %d deep", s, MAX_TUPLE_DEPTH);
  P2cValue *elems = calloc((size_t)n + 1, sizeof *elems);
  int rc = elems ? 0 : 3, made = 0;
  for (; rc == 0 && made < n; made++) {
    rc = make_value(c, texts[made], &elems[made], depth + 1);
    if (rc == 0 && elems[made].is_array)
      rc = cli_usage_error("bad tuple argument '%s': '%s' is an array, which run does not take inside a "
                           "tuple (arrays are written back only as arguments of their own)", s, texts[made]);
  }
  for (int i = 0; i < n; i++) free(texts[i]);
  free(texts);
  v->type = P2C_TUPLE;
  v->elems = elems;
  v->elem_count = (size_t)made;
  return rc;
}

static int make_arg(P2cCompiler *c, const char *s, P2cValue *v) { return make_value(c, s, v, 0); }

static int make_value(P2cCompiler *c, const char *s, P2cValue *v, int depth) {
  memset(v, 0, sizeof *v);
  if (s[0] == '(') return tuple_arg(c, s, v, depth);
  size_t len = strlen(s);
  if (len > 4 && strcmp(s + len - 4, ".npy") == 0) {
    P2cStatus st = p2c_npy_load(c, s, &v->array);
    if (st != P2C_OK) return fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c)), cli_exit_for(st);
    v->is_array = true;
    v->type = v->array.dtype;
    return 0;
  }
  static const char *const kinds[] = {"zeros", "ones", "empty", "arange"};
  for (size_t k = 0; k < 4; k++) {
    size_t n = strlen(kinds[k]);
    if (strncmp(s, kinds[k], n) == 0 && s[n] == ':') return new_array_arg(c, kinds[k], s + n + 1, v);
  }
  return scalar_arg(s, v);
}

/* ---- faults in a kernel ---- */

/* A kernel without --check-bounds can index far outside its arrays; on the simulator that is a
 * fault in this process. Rather than die with a bare SIGSEGV, `run` says which kernel faulted
 * and how to find the access, and exits with 3 (a runtime error). The message is made before
 * the launch, since a handler may only write and exit. The one static buffer is the CLI's
 * (never the library's): a process runs one launch. */
static char fault_tail[512];
static size_t fault_tail_len;

static void on_fault(int sig) {
  /* Several simulator threads may fault at once: the first one reports, the others wait for
   * its exit. */
  static atomic_flag reported = ATOMIC_FLAG_INIT;
  if (atomic_flag_test_and_set(&reported))
    for (;;) pause();
  const char *what = sig == SIGFPE ? "pyk2cuda: arithmetic fault" : sig == SIGILL ? "pyk2cuda: illegal instruction"
                                                                                   : "pyk2cuda: memory fault";
  ssize_t ignored = write(2, what, strlen(what));
  ignored = write(2, fault_tail, fault_tail_len);
  (void)ignored;
  _exit(3);
}

/* Installs (or, with kernel NULL, removes) the handlers for the launch of `kernel`. */
static void watch_faults(const char *kernel, bool check_bounds) {
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigfillset(&sa.sa_mask);
  sa.sa_handler = kernel ? on_fault : SIG_DFL;
  sa.sa_flags = SA_ONSTACK;
  if (kernel) {
    int n = snprintf(fault_tail, sizeof fault_tail,
                     " while kernel '%s' ran: %s; no output was written\n", kernel,
                     check_bounds ? "not an array index (every index is checked): a bug of pyk2cuda to report"
                                  : "probably an array index out of bounds; rerun with --check-bounds to find it");
    fault_tail_len = n < 0 ? 0 : (size_t)n < sizeof fault_tail ? (size_t)n : sizeof fault_tail - 1;
    static char alt[1 << 16];   /* a stack for the handler, should the kernel overflow its own */
    stack_t st = {.ss_sp = alt, .ss_size = sizeof alt};
    sigaltstack(&st, NULL);
  }
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
}

/* ---- interrupts and --timeout ---- */

/* SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken by one watcher, which also
 * keeps the --timeout. Either sets a flag that the library's interrupt check reads
 * (p2c_compiler_set_interrupt): the library then ends the simulator's host compiler (its whole
 * process group) and removes its work folder, or stops the launch (between blocks, or at a
 * poll in the kernel's loops: docs/simulator.md, "Stopping a launch"), and `run`
 * exits writing nothing: 128 + the signal, or 3 after the timeout. If the main thread does not
 * come back within two seconds (a kernel thread that never ends, NVRTC, the GPU), the watcher
 * ends the process itself: nothing is on disk then either. The CLI's statics: a process runs
 * one `run`. */
static atomic_int interrupted_by;
static atomic_bool timed_out;

typedef struct Watch {
  sigset_t set;
  double timeout_s;
  const char *kernel;
} Watch;
static Watch watch;

static bool interrupt_check(void *userdata) {
  (void)userdata;
  return atomic_load(&interrupted_by) != 0 || atomic_load(&timed_out);
}

static void say_timed_out(void) {
  fprintf(stderr, "pyk2cuda: '%s' did not finish within %g s (--timeout); nothing was written\n",
          watch.kernel, watch.timeout_s);
}

static void *watch_signals(void *arg) {
  (void)arg;
  int sig = 0;
  if (watch.timeout_s > 0) {
    struct timespec limit = {(time_t)watch.timeout_s,
                             (long)((watch.timeout_s - (double)(time_t)watch.timeout_s) * 1e9)};
    sig = sigtimedwait(&watch.set, NULL, &limit);
    while (sig < 0 && errno == EINTR) sig = sigtimedwait(&watch.set, NULL, &limit);
  } else if (sigwait(&watch.set, &sig) != 0) {
    return NULL;
  }
  if (sig > 0) atomic_store(&interrupted_by, sig);
  else atomic_store(&timed_out, true);
  struct timespec grace = {2, 0};
  nanosleep(&grace, NULL);
  if (sig > 0) _exit(128 + sig);
  say_timed_out();
  _exit(3);
}

static void start_watcher(const RunArgs *r) {
  pthread_t watcher;
  sigemptyset(&watch.set);
  sigaddset(&watch.set, SIGINT);
  sigaddset(&watch.set, SIGTERM);
  sigaddset(&watch.set, SIGHUP);
  watch.timeout_s = r->timeout_s;
  watch.kernel = r->kernel;
  pthread_sigmask(SIG_BLOCK, &watch.set, NULL);
  if (pthread_create(&watcher, NULL, watch_signals, NULL) == 0) pthread_detach(watcher);
}

/* After an interrupt: 128 + the signal, or 3 after --timeout (saying so); else 0. Nothing more
 * is written then. */
static int interrupted(void) {
  int sig = atomic_load(&interrupted_by);
  if (sig) return 128 + sig;
  if (!atomic_load(&timed_out)) return 0;
  say_timed_out();
  return 3;
}

/* ---- the command ---- */

/* --grid auto: enough blocks to cover the first array argument's extents in each block dim. */
static void auto_grid(RunArgs *r, const P2cValue *vals) {
  for (int i = 0; i < r->nvalues; i++) {
    if (!vals[i].is_array) continue;
    for (int k = 0; k < 3 && k < vals[i].array.ndim; k++) {
      int64_t n = vals[i].array.shape[k];
      uint32_t b = r->launch.block[k];
      r->launch.grid[k] = (uint32_t)((n + b - 1) / b ? (n + b - 1) / b : 1);
    }
    return;
  }
}

static bool output_path(const RunArgs *r, const char *param, char *path, size_t cap) {
  return (size_t)snprintf(path, cap, "%s/%s.npy", r->out_dir, param) < cap;
}

/* Refuses (usage error) an output that would replace a file given as an input, before anything
 * runs: the same file (device and inode) as an input .npy argument. */
static int check_outputs(const RunArgs *r, const P2cKernelInfo *k, const P2cValue *vals) {
  for (size_t i = 0; i < k->param_count; i++) {
    char path[4096];
    struct stat out;
    if (!vals[i].is_array) continue;
    if (!output_path(r, k->params[i].name, path, sizeof path)) return cli_usage_error("--out-dir is too long");
    if (stat(path, &out) != 0) continue;
    for (int j = 0; j < r->nvalues; j++) {
      struct stat in;
      if (stat(r->values[j], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
        return cli_usage_error("the output %s would replace the input %s: give another --out-dir",
                               path, r->values[j]);
    }
  }
  return 0;
}

static int write_outputs(P2cCompiler *c, const RunArgs *r, const P2cKernelInfo *k, const P2cValue *vals) {
  if (mkdir(r->out_dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "pyk2cuda: cannot create %s: %s\n", r->out_dir, strerror(errno));
    return 2;
  }
  for (size_t i = 0; i < k->param_count; i++) {
    if (!vals[i].is_array) continue;
    char path[4096];
    output_path(r, k->params[i].name, path, sizeof path);
    P2cStatus s = p2c_npy_save(c, path, &vals[i].array);
    if (s != P2C_OK) return fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c)), cli_exit_for(s);
  }
  return 0;
}


static void print_times(const P2cLaunchReport *rep, int repeat) {
  fprintf(stderr, "%-22s %10s\n", "phase", "ms");
  fprintf(stderr, "%-22s %10.3f\n", rep->cache_hit ? "compile (cache hit)" : "compile", rep->compile_ms);
  if (rep->device == P2C_DEVICE_GPU) fprintf(stderr, "%-22s %10.3f\n", "module load", rep->load_ms);
  fprintf(stderr, "%-22s %10.3f\n", "host to device", rep->h2d_ms);
  if (repeat > 1) {
    fprintf(stderr, "%-22s %10.3f\n", "kernel (min)", rep->kernel_ms_min);
    fprintf(stderr, "%-22s %10.3f\n", "kernel (median)", rep->kernel_ms_median);
  } else {
    fprintf(stderr, "%-22s %10.3f\n", "kernel", rep->kernel_ms_min);
  }
  fprintf(stderr, "%-22s %10.3f\n", "device to host", rep->d2h_ms);
  if (rep->sim_path) fprintf(stderr, "%-22s %10s\n", "simulator path", rep->sim_path);
}

/* The checker's findings of the last launch (p2c_compiler_finding), *n of them; NULL with *n 0
 * when there are none (or no memory for them). The caller frees the array. */
static P2cFinding *last_findings(P2cCompiler *c, size_t *n) {
  P2cFindings all;
  *n = 0;
  P2cFinding *found = p2c_compiler_last_findings(c, &all) && all.count ? calloc(all.count, sizeof *found) : NULL;
  for (size_t i = 0; found && i < all.count; i++)
    if (p2c_compiler_finding(c, i, &found[*n])) ++*n;
  return found;
}

/* explore --sanitize: the page of the specialization that ran, made again for the same
 * arguments by the same dispatcher without the checker (so that it has its PTX, resources and
 * occupancy, at the launch's block and dynamic shared memory), with the checker's findings at
 * their lines. 0, or the exit code of what failed (the page is still written where
 * p2c_module_explore gives one). */
static int write_view(P2cCompiler *c, const RunArgs *r, const P2cValue *vals, const char *src, size_t len) {
  size_t nfound;
  P2cFinding *found = last_findings(c, &nfound);
  P2cTranslateOptions o = {.checks = {r->check_bounds, false, true}};
  P2cModule *m = NULL;
  P2cStatus s = p2c_specialize_with(c, r->file, src, len, r->kernel, vals, (size_t)r->nvalues, &o, &m);
  const uint32_t *b = r->launch.block;
  P2cExploreOptions eo = {.arch = r->arch, .block_threads = (int)(b[0] * b[1] * b[2]),
                          .dynamic_shared_bytes = r->launch.shared_bytes, .findings = found, .finding_count = nfound};
  const char *html = NULL;
  size_t hlen = 0;
  if (s == P2C_OK) s = p2c_module_explore(c, m, &eo, &html, &hlen);
  if (s != P2C_OK) fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
  int rc = html ? cli_write_output(r->view_out, html, hlen) : 0;
  p2c_module_delete(m);
  free(found);
  return rc ? rc : cli_exit_for(s);
}

/* A scalar given for a parameter of another type is converted by the library's dispatcher, as
 * a launch from Python converts it (2 for a float32 parameter is 2.0; 2.5 for an int32 one is
 * refused with a message naming the parameter). */
static int launch_and_save(P2cCompiler *c, RunArgs *r, P2cValue *vals, const char *src, size_t len) {
  P2cModule *m = NULL;
  int rc = 0;
  P2cLaunchReport rep = {0};
  double t0 = now_ms();
  P2cTranslateOptions o = {.checks = r->launch.checks};
  P2cStatus s = p2c_specialize_with(c, r->file, src, len, r->kernel, vals, (size_t)r->nvalues, &o, &m);
  rep.compile_ms = now_ms() - t0; /* translation counts as compilation; the launch adds the rest */
  if (m) cli_print_diagnostics(m, src, len);
  P2cKernelInfo k = p2c_module_kernel(m, 0);
  if (s == P2C_OK && (rc = check_outputs(r, &k, vals)) != 0) {
    p2c_module_delete(m);
    return rc;
  }
  if (s == P2C_OK) {
    if (r->grid_auto) auto_grid(r, vals);
    watch_faults(r->kernel, k.checks_bounds);
    s = p2c_module_launch(c, m, 0, vals, (size_t)r->nvalues, &r->launch, &rep);
    watch_faults(NULL, false);
    if (rep.message[0]) fprintf(stderr, "pyk2cuda: %s\n", rep.message);
  }
  if ((rc = interrupted()) != 0) {
    if (rc != 3) fprintf(stderr, "pyk2cuda: interrupted; nothing was written\n");
    p2c_module_delete(m);
    return rc;
  }
  rc = cli_exit_for(s);
  /* A bounds failure is a diagnostic of its own: "FILE:LINE:COL: error: index ..."; the
   * checker's findings are one each, then the summary line */
  if (s == P2C_ERR_BOUNDS || s == P2C_ERR_SANITIZE) fprintf(stderr, "%s\n", p2c_compiler_last_error(c));
  else if (s != P2C_OK && s != P2C_ERR_SOURCE) fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
  if (r->view && (s == P2C_OK || s == P2C_ERR_SANITIZE)) {
    int vrc = write_view(c, r, vals, src, len);
    rc = vrc ? vrc : rc;
  } else if (s == P2C_OK) {
    rc = write_outputs(c, r, &k, vals);
    if (r->time) print_times(&rep, r->launch.repeat);
  }
  p2c_module_delete(m);
  return rc;
}

/* ---- @vectorize ufuncs: the runtime allocates the output, written to DIR/out.npy ---- */

/* The kernel's specializations from its decorator's signatures (none for an unsigned kernel),
 * or NULL when the source does not translate; the caller deletes it. */
static P2cModule *declared_specializations(P2cCompiler *c, const RunArgs *r, const char *src, size_t len) {
  const char *kernels[1] = {r->kernel};
  P2cTranslateOptions o = {kernels, 1, NULL, 0, false, true, r->launch.checks};
  P2cModule *m = NULL;
  if (p2c_translate(c, r->file, src, len, &o, &m) == P2C_OK) return m;
  p2c_module_delete(m);
  return NULL;
}

static int run_ufunc(P2cCompiler *c, RunArgs *r, P2cValue *vals, const char *src, size_t len) {
  P2cModule *diags = NULL;
  P2cLaunchReport rep = {0};
  P2cHostArray out = {0};
  P2cStatus s = p2c_ufunc_launch(c, r->file, src, len, r->kernel, vals, (size_t)r->nvalues,
                                 &r->launch, &rep, &diags, &out);
  int rc = interrupted();
  if (rc) {
    p2c_module_delete(diags);
    p2c_host_array_free(c, &out);
    return rc;
  }
  if (diags) cli_print_diagnostics(diags, src, len);
  p2c_module_delete(diags);
  if (rep.message[0]) fprintf(stderr, "pyk2cuda: %s\n", rep.message);
  if (s != P2C_OK && s != P2C_ERR_SOURCE) fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
  if (s != P2C_OK) return cli_exit_for(s);
  P2cParam param = {.name = "out", .is_array = true};
  P2cKernelInfo k = {.param_count = 1, .params = &param};
  P2cValue v = {.is_array = true, .type = out.dtype, .array = out};
  rc = check_outputs(r, &k, &v);
  if (rc == 0) rc = write_outputs(c, r, &k, &v);
  if (rc == 0 && r->time) print_times(&rep, r->launch.repeat);
  p2c_host_array_free(c, &out);
  return rc;
}

/* run, or with `view` explore --sanitize (the same arguments, then -o and --arch for the page). */
static int run_command(int argc, char **argv, bool view) {
  RunArgs r;
  int rc = parse_run_args(argc, argv, view, &r);
  if (rc) return rc;
  start_watcher(&r);
  size_t len;
  char *src = cli_read_file(r.file, &len);
  if (!src) return cli_read_error(r.file);
  P2cCompiler *c = p2c_compiler_new(NULL);
  /* the translations' checks; not exact: $PYK2CUDA_SANITIZE's default is added */
  r.launch.checks = (P2cChecks){r.check_bounds, r.sanitize, false};
  p2c_compiler_set_interrupt(c, interrupt_check, NULL);
  P2cValue *vals = calloc((size_t)r.nvalues + 1, sizeof *vals);
  int made = 0;
  rc = c && vals ? 0 : 3;
  for (; rc == 0 && made < r.nvalues; made++) rc = make_arg(c, r.values[made], &vals[made]);
  P2cModule *declared = rc == 0 ? declared_specializations(c, &r, src, len) : NULL;
  bool ufunc = p2c_module_kernel(declared, 0).is_ufunc;
  if (rc == 0 && !ufunc && (!r.grid_given || !r.block_given))
    rc = cli_usage_error("run needs a launch configuration, as %s[grid, block](...) does in Numba: "
                         "--grid X[,Y[,Z]] (or --grid auto) and --block X[,Y[,Z]]", r.kernel);
  if (rc == 0 && ufunc && view) rc = cli_usage_error("explore --sanitize launches kernels, not @vectorize ufuncs");
  else if (rc == 0 && ufunc) rc = run_ufunc(c, &r, vals, src, len);
  else if (rc == 0) rc = launch_and_save(c, &r, vals, src, len);
  p2c_module_delete(declared);
  for (int i = 0; i < made; i++) free_arg(c, &vals[i]);
  free(vals);
  p2c_compiler_delete(c);
  free(src);
  return rc;
}

int cli_run(int argc, char **argv) { return run_command(argc, argv, false); }

int cli_explore_sanitized(int argc, char **argv) { return run_command(argc, argv, true); }

int cli_info(int argc, char **argv) {
  if (argc > 2) return cli_usage_error("info takes no arguments");
  (void)argv;
  P2cCompiler *c = p2c_compiler_new(NULL);
  char *text = NULL;
  if (!c) return 3;
  P2cStatus s = p2c_environment_info(c, &text);
  /* No GPU is a fact to report, not a failure: the report says why and that the simulator
   * runs kernels, once. Only a report that could not be made is an error. */
  int rc = text ? 0 : cli_exit_for(s);
  if (text) fputs(text, stdout);
  else fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
  p2c_text_free(c, text);
  p2c_compiler_delete(c);
  return rc;
}
