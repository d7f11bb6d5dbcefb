/* pyk2cuda: the command line. Built only on the public API (pyk2cuda.h), so every run of it
 * exercises the embedding interface. It owns the terminal: it prints diagnostics in GCC's
 * format with the source line and a caret, and maps statuses to exit codes:
 *   0 success, 1 errors in the user's Python, 2 usage errors and unreadable files,
 *   3 runtime errors (CUDA, NVRTC, simulator). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyk2cuda.h"
#include "cli.h"

enum { EXIT_SOURCE = 1, EXIT_USAGE = 2, EXIT_RUNTIME = 3 };

int cli_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("pyk2cuda: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\n(see 'pyk2cuda --help')\n", stderr);
  va_end(ap);
  return EXIT_USAGE;
}

/* ---- files ---- */

/* Reads at most one byte past the source limit: a longer file (or /dev/zero) is refused
 * without reading the rest. NULL with errno set (EFBIG past the limit). */
char *cli_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, most = (size_t)P2C_MAX_SOURCE_BYTES + 1;
  char *buf = malloc(cap);
  while (buf && n < most) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap || n >= most) break;
    char *bigger = realloc(buf, cap = cap * 2 < most ? cap * 2 : most);
    if (!bigger) free(buf);
    buf = bigger;
  }
  int err = ferror(f) ? errno : !buf ? ENOMEM : n >= most ? EFBIG : 0;
  fclose(f);
  if (err) {
    free(buf);
    errno = err;
    return NULL;
  }
  *len = n;
  return buf;
}

int cli_read_error(const char *path) {
  if (errno == EFBIG)
    fprintf(stderr, "pyk2cuda: cannot read %s: larger than the %d MiB source limit\n", path,
            P2C_MAX_SOURCE_BYTES >> 20);
  else
    fprintf(stderr, "pyk2cuda: cannot read %s: %s\n", path, strerror(errno));
  return EXIT_USAGE;
}

int cli_write_output(const char *path, const void *data, size_t len) {
  FILE *f = (!path || strcmp(path, "-") == 0) ? stdout : fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "pyk2cuda: cannot write %s: %s\n", path, strerror(errno));
    return EXIT_USAGE;
  }
  bool ok = fwrite(data, 1, len, f) == len;
  ok &= f == stdout ? fflush(f) == 0 : fclose(f) == 0;
  if (!ok) {
    fprintf(stderr, "pyk2cuda: cannot write %s\n", path ? path : "stdout");
    return EXIT_USAGE;
  }
  return 0;
}

/* ---- diagnostics ---- */

/* Line `line` (1-based) of src; lines end at \n, \r\n or a lone \r, as in Python. */
static const char *find_line(const char *src, size_t len, uint32_t line, size_t *out_len) {
  size_t i = 0;
  if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) i = 3;
  for (uint32_t l = 1; l < line && i < len; i++)
    if (src[i] == '\n' || (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n'))) l++;
  size_t start = i;
  while (i < len && src[i] != '\n' && src[i] != '\r') i++;
  *out_len = i - start;
  return src + start;
}

static void print_caret(const char *s, size_t len, uint32_t col) {
  fputs("  ", stderr);
  fwrite(s, 1, len, stderr);
  fputs("\n  ", stderr);
  uint32_t c = 1;
  for (size_t i = 0; i < len && c < col; i++) {
    if (((unsigned char)s[i] & 0xC0) == 0x80) continue;   /* UTF-8 continuation */
    fputc(s[i] == '\t' ? '\t' : ' ', stderr);
    c++;
  }
  fputs("^\n", stderr);
}

void cli_print_diagnostics(const P2cModule *m, const char *src, size_t len) {
  static const char *const sev[] = {"error", "warning", "note"};
  for (size_t i = 0; i < p2c_module_diagnostic_count(m); i++) {
    P2cDiagnostic d = p2c_module_diagnostic(m, i);
    fprintf(stderr, "%s:%u:%u: %s: %s [%s]\n", d.file, d.line, d.column, sev[d.severity], d.message, d.code);
    size_t ll;
    const char *line = find_line(src, len, d.line, &ll);
    if (ll || d.line) print_caret(line, ll, d.column);
  }
}

/* ---- shared options of emit, ptx, check ---- */

typedef struct CompileArgs {
  const char *file, *out, *arch, *dump;
  const char *block, *shared;   /* explore's launch: --block N, --shared BYTES */
  const char *kernels[64], *sigs[256];
  size_t nkernels, nsigs;
  bool cubin, line_directives, check_bounds, sanitize, no_cache;
  bool with_sim;                /* build's --with-sim */
} CompileArgs;

static const char *value_of(int argc, char **argv, int *i, const char *flag) {
  size_t n = strlen(flag);
  if (strncmp(argv[*i], flag, n) == 0 && argv[*i][n] == '=') return argv[*i] + n + 1;
  if (strcmp(argv[*i], flag) != 0) return NULL;
  if (*i + 1 >= argc) return "";
  return argv[++*i];
}

static int parse_compile_args(int argc, char **argv, CompileArgs *a) {
  memset(a, 0, sizeof *a);
  for (int i = 2; i < argc; i++) {
    const char *v;
    if ((v = value_of(argc, argv, &i, "-k"))) {
      if (a->nkernels == 64) return cli_usage_error("too many -k options");
      a->kernels[a->nkernels++] = v;
    } else if ((v = value_of(argc, argv, &i, "--sig"))) {
      if (a->nsigs == 256) return cli_usage_error("too many --sig options");
      a->sigs[a->nsigs++] = v;
    } else if ((v = value_of(argc, argv, &i, "-o"))) a->out = v;
    else if ((v = value_of(argc, argv, &i, "--arch"))) a->arch = v;
    else if ((v = value_of(argc, argv, &i, "--dump"))) a->dump = v;
    else if (!strcmp(argv[1], "explore") && (v = value_of(argc, argv, &i, "--block"))) a->block = v;
    else if (!strcmp(argv[1], "explore") && (v = value_of(argc, argv, &i, "--shared"))) a->shared = v;
    else if (strcmp(argv[i], "--cubin") == 0) a->cubin = true;
    else if (strcmp(argv[i], "--line-directives") == 0) a->line_directives = true;
    else if (strcmp(argv[i], "--check-bounds") == 0) a->check_bounds = true;
    else if (strcmp(argv[i], "--sanitize") == 0 && !strcmp(argv[1], "emit")) a->sanitize = true;
    else if (strcmp(argv[i], "--no-cache") == 0) a->no_cache = true;
    else if (strcmp(argv[i], "--with-sim") == 0 && !strcmp(argv[1], "build")) a->with_sim = true;
    else if (argv[i][0] == '-' && argv[i][1]) return cli_usage_error("unknown option '%s'", argv[i]);
    else if (a->file) return cli_usage_error("more than one input file");
    else a->file = argv[i];
  }
  if (!a->file) return cli_usage_error("no input file");
  return 0;
}

int cli_exit_for(P2cStatus s) {
  switch (s) {
  case P2C_OK: return 0;
  case P2C_ERR_SOURCE: return EXIT_SOURCE;
  case P2C_ERR_USAGE:
  case P2C_ERR_IO:
  case P2C_ERR_FORMAT: return EXIT_USAGE;
  default: return EXIT_RUNTIME;
  }
}

/* Reads and translates a.file; on success *out holds the module (caller deletes). */
static int translate_file(P2cCompiler *c, const CompileArgs *a, bool skip_unsigned, bool host_calls,
                          P2cModule **out) {
  size_t len;
  char *src = cli_read_file(a->file, &len);
  if (!src) return cli_read_error(a->file);
  /* emit's own checks only: $PYK2CUDA_SANITIZE is for launches */
  P2cTranslateOptions o = {a->nkernels ? a->kernels : NULL, a->nkernels, a->sigs, a->nsigs,
                           a->line_directives, skip_unsigned, {a->check_bounds, a->sanitize, true}};
  p2c_compiler_set_host_call_signatures(c, host_calls);
  P2cStatus s = p2c_translate(c, a->file, src, len, &o, out);
  if (*out) cli_print_diagnostics(*out, src, len);
  free(src);
  if (s != P2C_OK && s != P2C_ERR_SOURCE)
    fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
  return cli_exit_for(s);
}

static bool dump_stage_known(const char *stage) {
  return !strcmp(stage, "ast") || !strcmp(stage, "types") || !strcmp(stage, "analysis") || !strcmp(stage, "cuda") ||
         !strcmp(stage, "c");   /* the first tier's C form of the @jit host functions */
}

/* emit: the CUDA C, or with --dump the form after one phase, which is written also when a
 * later phase reports errors (the exit code still says so). */
static int cmd_emit(P2cCompiler *c, const CompileArgs *a) {
  if (a->dump && !dump_stage_known(a->dump)) return cli_usage_error("unknown --dump stage '%s'", a->dump);
  P2cModule *m = NULL;
  int rc = translate_file(c, a, false, true, &m);   /* emit: @jit functions typed by the file's calls too */
  const char *dump = a->dump ? p2c_module_dump(m, a->dump) : NULL;
  if (dump) {
    int wrc = cli_write_output(a->out, dump, strlen(dump));
    rc = rc ? rc : wrc;
  } else if (rc == 0) {
    size_t len;
    const char *text = p2c_module_cuda(m, &len);
    rc = cli_write_output(a->out, text, len);
  }
  p2c_module_delete(m);
  return rc;
}

static int cmd_check(P2cCompiler *c, const CompileArgs *a) {
  P2cModule *m = NULL;
  int rc = translate_file(c, a, a->nsigs == 0, false, &m);
  p2c_module_delete(m);
  return rc;
}

static const char *default_cubin_name(const char *file) {
  static char buf[4096];
  const char *dot = strrchr(file, '.');
  size_t n = dot ? (size_t)(dot - file) : strlen(file);
  if (n > sizeof buf - 8) n = sizeof buf - 8;
  snprintf(buf, sizeof buf, "%.*s.cubin", (int)n, file);
  return buf;
}

static int cmd_ptx(P2cCompiler *c, const CompileArgs *a) {
  P2cModule *m = NULL;
  int rc = translate_file(c, a, false, true, &m);   /* as emit */
  if (rc == 0) {
    P2cStatus s = p2c_module_compile(c, m, a->arch, a->cubin ? P2C_TARGET_CUBIN : P2C_TARGET_PTX);
    if (s != P2C_OK) {
      fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
      const char *log = p2c_module_nvrtc_log(m);
      if (log[0]) fprintf(stderr, "%s", log);
      rc = cli_exit_for(s);
    } else {
      size_t size;
      const void *img = p2c_module_image(m, &size);
      rc = cli_write_output(a->out ? a->out : a->cubin ? default_cubin_name(a->file) : "-", img, size);
    }
  }
  p2c_module_delete(m);
  return rc;
}

/* A whole number in [lo, hi] from `text` (all of it), or -1. */
static long long whole_number(const char *text, long long lo, long long hi) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (!*text || *end || errno || v < lo || v > hi) return -1;
  return v;
}

/* explore: the page of FILE.py's kernels. Written also when the Python has errors (the page
 * shows them at their lines) or NVRTC rejects the CUDA C (the page says why); the exit code
 * still says so. */
static int cmd_explore(P2cCompiler *c, const CompileArgs *a) {
  if (!a->out) return cli_usage_error("explore needs -o VIEW.html (- for stdout)");
  long long block = a->block ? whole_number(a->block, 1, 1 << 20) : 256;
  if (block < 0) return cli_usage_error("bad --block '%s': expected a number of threads, e.g. 256", a->block);
  long long shared = a->shared ? whole_number(a->shared, 0, UINT32_MAX) : 0;
  if (shared < 0) return cli_usage_error("bad --shared '%s': expected a number of bytes", a->shared);
  P2cModule *m = NULL;
  int rc = translate_file(c, a, false, false, &m);
  if (!m) return rc;
  P2cExploreOptions o = {.arch = a->arch, .block_threads = (int)block, .dynamic_shared_bytes = (uint32_t)shared};
  const char *html = NULL;
  size_t len = 0;
  P2cStatus s = p2c_module_explore(c, m, &o, &html, &len);
  if (s != P2C_OK) fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
  if (html) {
    int wrc = cli_write_output(a->out, html, len);
    rc = rc ? rc : wrc;
  }
  p2c_module_delete(m);
  return rc ? rc : cli_exit_for(s);
}

/* build: OUT/NAME.h and OUT/NAME.c (and OUT/NAME_sim.cc with --with-sim), an ahead-of-time
 * bundle of the kernels (docs/aot.md). --arch takes a comma-separated list. */
static int cmd_build(P2cCompiler *c, const CompileArgs *a) {
  if (!a->out || !a->out[0]) return cli_usage_error("build needs -o OUT/NAME (the files are OUT/NAME.h and OUT/NAME.c)");
  const char *slash = strrchr(a->out, '/');
  const char *name = slash ? slash + 1 : a->out;
  char archbuf[512];
  const char *archs[16];
  size_t narchs = 0;
  if (a->arch) {
    if (strlen(a->arch) >= sizeof archbuf) return cli_usage_error("--arch list too long");
    strcpy(archbuf, a->arch);
    for (char *tok = strtok(archbuf, ","); tok; tok = strtok(NULL, ","))
      if (narchs < 16) archs[narchs++] = tok;
      else return cli_usage_error("more than 16 architectures in --arch");
    if (!narchs) return cli_usage_error("empty --arch list");
  }
  P2cModule *m = NULL;
  int rc = translate_file(c, a, false, false, &m);
  P2cBundle *b = NULL;
  if (rc == 0) {
    P2cBundleOptions o = {name, narchs ? archs : NULL, narchs, a->with_sim};
    P2cStatus s = p2c_module_bundle(c, m, &o, &b);
    if (s != P2C_OK) {
      fprintf(stderr, "pyk2cuda: %s\n", p2c_compiler_last_error(c));
      const char *log = p2c_module_nvrtc_log(m);
      if (s == P2C_ERR_NVRTC && log[0]) fprintf(stderr, "%s", log);
      rc = cli_exit_for(s);
    }
  }
  for (size_t i = 0; rc == 0 && i < p2c_bundle_file_count(b); i++) {
    const char *suffix;
    size_t len;
    const char *text = p2c_bundle_file(b, i, &suffix, &len);
    char path[4096];
    if (snprintf(path, sizeof path, "%s%s", a->out, suffix) >= (int)sizeof path) rc = cli_usage_error("-o path too long");
    else rc = cli_write_output(path, text, len);
  }
  p2c_bundle_delete(b);
  p2c_module_delete(m);
  return rc;
}

/* Whether `flag` is among the arguments after the command. */
static bool has_flag(int argc, char **argv, const char *flag) {
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], flag) == 0) return true;
  return false;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    cli_print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_USAGE : 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("pyk2cuda %s\n", p2c_version());
    return 0;
  }
  const char *cmd = argv[1];
  if (!cli_is_command(cmd)) return cli_usage_error("unknown command '%s'", cmd);
  if (cli_wants_help(argc, argv)) return cli_print_help(cmd);
  if (strcmp(cmd, "run") == 0) return cli_run(argc, argv);
  if (strcmp(cmd, "explore") == 0 && has_flag(argc, argv, "--sanitize")) return cli_explore_sanitized(argc, argv);
  if (strcmp(cmd, "info") == 0) return cli_info(argc, argv);
  CompileArgs a;
  int rc = parse_compile_args(argc, argv, &a);
  if (rc) return rc;
  P2cCompiler *c = p2c_compiler_new(NULL);
  if (!c) return EXIT_RUNTIME;
  p2c_compiler_set_cache(c, !a.no_cache);
  if (!strcmp(cmd, "emit")) rc = cmd_emit(c, &a);
  else if (!strcmp(cmd, "ptx")) rc = cmd_ptx(c, &a);
  else if (!strcmp(cmd, "explore")) rc = cmd_explore(c, &a);
  else if (!strcmp(cmd, "build")) rc = cmd_build(c, &a);
  else rc = cmd_check(c, &a);
  p2c_compiler_delete(c);
  return rc;
}
