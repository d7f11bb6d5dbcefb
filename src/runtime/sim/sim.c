/* The simulator's module loader: host compile, cache, dlopen.
 *
 * sim_module_load writes the generated CUDA C and the host prelude into a work folder, runs the
 * host C++ compiler on them (fork and exec under a watcher, no shell; output captured into the
 * module's log),
 * and dlopens the shared object. Compiled objects are cached under <cache>/sim/<hash>.so with
 * the full key next to them (<hash>.key: pyk2cuda version, compiler command, prelude, source),
 * through the cache shared with the GPU runtime (runtime/cache/cache.h): a hit compares the key
 * byte for byte, so the hash only names files. Entries are written to a temporary name and
 * renamed, so a reader never sees half a file; an entry that does not load is rebuilt in place;
 * an entry whose key differs (a hash collision) is left alone and the module is built without
 * the cache. */
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cache/cache.h"
#include "runtime/sim/module.h"
#include "runtime/sim/sanitize.h"
#include "util/arena.h"

extern char **environ;

enum {
  PATH_BYTES = 4096,
  MAX_CXX_WORDS = 32,
  MAX_LOG_BYTES = 1 << 20,       /* longer compiler output is truncated */
  COMPILE_TIMEOUT_S = 600,
  MAX_OBJECT_BYTES = 1 << 30,   /* a compiled module larger than this is not cached */
};

/* Flags after the compiler's own words. -fwrapv: Numba's integers wrap. -fno-math-errno lets
 * sqrt and friends inline (errno is not observable from a kernel). -ffp-contract=off: no fused
 * multiply-add behind the program's back, the same result on every host. The kernels and the
 * entries have default visibility; -fno-semantic-interposition still lets the entry inline the
 * kernel. -fno-finite-loops: C++ lets the compiler assume that a loop without side effects ends
 * (and delete `while (a[0] == 0) {}`), which CUDA code on the GPU does not; the simulator keeps
 * such a loop, as the GPU does (GCC 10 and Clang 12 know the flag). -fstack-clash-protection:
 * a frame larger than a page (a big local array) touches its pages in order as it grows, so a
 * fiber that outgrows its stack faults in the guard page below it (a caught fault, fault.h)
 * instead of writing over the fiber stack mapped next to it (GCC 8, Clang 11). -g1 -gdwarf-4:
 * line tables only, in the format lines.c reads, so that a kernel's fault can name its line
 * (nothing of them is loaded or run; docs/simulator.md, "Faults", has their cost). */
static const char *const CXX_FLAGS[] = {
    "-std=c++17", "-O2", "-fPIC", "-shared", "-fwrapv", "-fno-strict-aliasing",
    "-fno-math-errno", "-ffp-contract=off", "-fno-semantic-interposition", "-fno-finite-loops",
    "-fstack-clash-protection", "-g1", "-gdwarf-4", "-fno-var-tracking",
};
enum { CXX_FLAG_COUNT = sizeof CXX_FLAGS / sizeof CXX_FLAGS[0] };

/* Every simulated thread reads the module's thread_local `p2c_sim_self`. With the default TLS
 * dialect that is a call to __tls_get_addr; with TLS descriptors glibc places a small module's
 * TLS in the static block when it fits, and the access costs a load. Measured: vecadd 7.3 ns
 * per simulated thread without, 4.2 ns with (docs/simulator.md). Compilers that do not know
 * the flag (clang before 19) get a second try without it. */
#if defined(__x86_64__)
static const char *const TLS_FLAG = "-mtls-dialect=gnu2";
#else
static const char *const TLS_FLAG = NULL;
#endif

/* One build's paths and command line. */
typedef struct Build {
  char *words[MAX_CXX_WORDS + 1]; /* the compiler command, split; storage in `words_buf` */
  size_t word_count;
  char words_buf[1024];
  char cache_dir[PATH_BYTES];     /* "<root>/sim", or "" when not caching */
  char hash[17];                  /* 16 hex digits of the key's hash */
  char *key;                      /* the full cache key (allocator) */
  size_t key_len;
  size_t prelude_key_len;         /* the key's bytes before the source: all the prelude depends on */
} Build;

/* One run of the compiler: `input` in `language` ("c++", or "c++-header" to precompile the
 * prelude) into `output`, with `include` read first (the prelude; a precompiled one beside it
 * as <include>.gch is used in its place when it fits the flags). */
typedef struct CompileStep {
  const char *include;
  const char *language;
  const char *input;
  const char *output;
} CompileStep;

static void set_error(SimModule *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(SimModule *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->error, sizeof m->error, fmt, ap);
  va_end(ap);
}

/* snprintf into a path buffer; false when the path does not fit. */
static bool path_printf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool path_printf(char *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, PATH_BYTES, fmt, ap);
  va_end(ap);
  return n >= 0 && n < PATH_BYTES;
}

/* ---- Files --------------------------------------------------------------------------------- */

static bool write_file(const char *path, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { close(fd); return false; }
    p += n;
    len -= (size_t)n;
  }
  return close(fd) == 0;
}

/* Removes what a build leaves in its work folder, then the folder. */
static void remove_work_dir(const char *dir) {
  static const char *const names[] = {"prelude.h", "prelude.h.gch", SIM_SOURCE_FILE, "mod.so", "log.txt"};
  char path[PATH_BYTES];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (path_printf(path, "%s/%s", dir, names[i])) unlink(path);
  rmdir(dir);
}

/* ---- Cache key ----------------------------------------------------------------------------- */

/* Splits the compiler command at spaces into b->words. */
static bool split_command(Build *b, const char *cxx) {
  if (strlen(cxx) >= sizeof b->words_buf) return false;
  strcpy(b->words_buf, cxx);
  b->word_count = 0;
  for (char *p = b->words_buf; *p;) {
    while (*p == ' ' || *p == '\t') *p++ = '\0';
    if (!*p) break;
    if (b->word_count == MAX_CXX_WORDS) return false;
    b->words[b->word_count++] = p;
    while (*p && *p != ' ' && *p != '\t') p++;
  }
  return b->word_count > 0;
}

static char *append(char *p, const void *data, size_t n) {
  memcpy(p, data, n);
  return p + n;
}

/* The key: everything the shared object depends on. */
static bool make_key(Build *b, const SimLoadRequest *req, const P2cAllocator *alloc) {
  size_t cmd_len = 0;
  for (size_t i = 0; i < b->word_count; i++) cmd_len += strlen(b->words[i]) + 1;
  for (size_t i = 0; i < CXX_FLAG_COUNT; i++) cmd_len += strlen(CXX_FLAGS[i]) + 1;
  if (TLS_FLAG) cmd_len += strlen(TLS_FLAG) + 1;
  char head[128];
  int head_len = snprintf(head, sizeof head, "pyk2cuda-sim %s abi %d\n", PYK2CUDA_VERSION_STRING,
                          P2C_SIM_ABI_VERSION);
  b->key_len = (size_t)head_len + cmd_len + 1 + sim_prelude_size + 1 + req->source_len;
  b->key = mem_alloc(alloc, b->key_len);
  if (!b->key) return false;
  char *p = b->key;
  p = append(p, head, (size_t)head_len);
  for (size_t i = 0; i < b->word_count + CXX_FLAG_COUNT; i++) {
    const char *w = i < b->word_count ? b->words[i] : CXX_FLAGS[i - b->word_count];
    p = append(p, w, strlen(w));
    p = append(p, " ", 1);
  }
  if (TLS_FLAG) {
    p = append(p, TLS_FLAG, strlen(TLS_FLAG));
    p = append(p, " ", 1);
  }
  p = append(p, "\n", 1);
  p = append(p, sim_prelude_text, sim_prelude_size);
  p = append(p, "", 1);  /* a NUL: the prelude cannot run into the source */
  b->prelude_key_len = (size_t)(p - b->key);
  p = append(p, req->source, req->source_len);
  assert(p == b->key + b->key_len);
  cache_hash_name(b->key, b->key_len, b->hash);
  return true;
}

/* ---- Loading ------------------------------------------------------------------------------- */

/* dlsym's answers for one module, absent names included. A launch asks for several names of its
 * kernel (its entry, its grid and region entries, its stack size), some of them absent, and
 * dlsym of an absent name formats an error message: asked at every launch, the lookups were a
 * quarter of the instructions of a 32-thread launch (callgrind, bench/launch_c sim; about 2,500
 * of 10,400 per launch), and formatting the names (snprintf) most of the rest of the
 * difference from before grid regions. A loaded module's symbols never change. Kept by prefix
 * and symbol, so that a lookup formats nothing; longer names are looked up every time. */
enum { SYMBOL_MEMO_SLOTS = 64, SYMBOL_MEMO_NAME = 120 };
typedef struct SimSymbolMemo {
  pthread_mutex_t lock;      /* launches of one module may look up from several threads */
  size_t count;
  struct {
    const char *prefix;      /* a string literal of the caller's ("p2c_sim_blocks_"), or "" */
    char symbol[SYMBOL_MEMO_NAME];
    void *addr;              /* NULL: absent */
  } slots[SYMBOL_MEMO_SLOTS];
} SimSymbolMemo;

static SimSymbolMemo *symbol_memo_new(const P2cAllocator *alloc) {
  SimSymbolMemo *memo = mem_alloc(alloc, sizeof *memo);
  if (!memo) return NULL;
  memset(memo, 0, sizeof *memo);
  pthread_mutex_init(&memo->lock, NULL);
  return memo;
}

static void symbol_memo_free(const P2cAllocator *alloc, SimSymbolMemo *memo) {
  if (!memo) return;
  pthread_mutex_destroy(&memo->lock);
  mem_free(alloc, memo, sizeof *memo);
}


/* dlopens a compiled module and binds its prelude functions. */
static bool load_object(SimModule *m, const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    set_error(m, "cannot load the simulator module: %s", why ? why : "unknown error");
    return false;
  }
  unsigned (*abi)(void) = (unsigned (*)(void))sim_dlsym_fn(h, "p2c_sim_abi");
  void (*bind)(P2cSimThread *) = (void (*)(P2cSimThread *))sim_dlsym_fn(h, "p2c_sim_bind");
  if (!abi || !bind || abi() != P2C_SIM_ABI_VERSION) {
    set_error(m, "the simulator module %s was not built with this prelude", path);
    dlclose(h);
    return false;
  }
  m->handle = h;
  m->bind = bind;
  m->bounds = dlsym(h, P2C_BOUNDS_SYMBOL);
  sim_lines_read(m->alloc, path, &m->lines);   /* none: its faults name no line */
  return true;
}

/* "<length> <hash>\n" of a shared object's bytes (its integrity record, <hash>.sum beside the
 * key), into out; false when the file cannot be read. */
static bool object_digest(const P2cAllocator *alloc, const char *path, char out[48]) {
  char *data;
  size_t len, size;
  if (cache_read_file(alloc, path, MAX_OBJECT_BYTES, &data, &len, &size) != P2C_OK) return false;
  snprintf(out, 48, "%zu %016llx\n", len, (unsigned long long)cache_hash(data, len));
  mem_free(alloc, data, size);
  return len < MAX_OBJECT_BYTES;
}

/* Whether the cached object's bytes are those its build recorded: a truncated object would
 * crash dlopen's reader with SIGBUS, and another module's object under this key would run. */
static bool object_intact(const P2cAllocator *alloc, const Build *b, const char *so) {
  char sum_path[PATH_BYTES], want[48], *stored;
  size_t len, size;
  if (!path_printf(sum_path, "%s/%s.sum", b->cache_dir, b->hash) || !object_digest(alloc, so, want) ||
      cache_read_file(alloc, sum_path, sizeof want, &stored, &len, &size) != P2C_OK)
    return false;
  bool same = len == strlen(want) && memcmp(stored, want, len) == 0;
  mem_free(alloc, stored, size);
  return same;
}

/* Looks the key up in b->cache_dir and loads the entry when it matches and is intact. */
static CacheLookup cache_lookup(SimModule *m, const Build *b) {
  char path[PATH_BYTES];
  CacheLookup found = cache_key_lookup(b->cache_dir, b->hash, b->key, b->key_len, m->alloc);
  if (found != CACHE_HIT) return found;
  if (!path_printf(path, "%s/%s.so", b->cache_dir, b->hash)) return CACHE_MISS;
  if (!object_intact(m->alloc, b, path)) return CACHE_MISS;   /* rebuilt in place */
  return load_object(m, path) ? CACHE_HIT : CACHE_MISS;
}

/* Moves a fresh build into the cache: the object first, then its integrity record, then its
 * key. Failure only means the next load compiles again. */
static void cache_store(const Build *b, const char *work, const P2cAllocator *alloc) {
  char from[PATH_BYTES], to[PATH_BYTES], name[32], digest[48];
  if (!path_printf(from, "%s/mod.so", work) || !path_printf(to, "%s/%s.so", b->cache_dir, b->hash) ||
      !object_digest(alloc, from, digest))
    return;
  if (rename(from, to) != 0) return;
  snprintf(name, sizeof name, "%s.sum", b->hash);
  if (!cache_write_file(b->cache_dir, name, digest, strlen(digest))) return;
  snprintf(name, sizeof name, "%s.key", b->hash);
  cache_write_file(b->cache_dir, name, b->key, b->key_len);
}

/* ---- Compiling ----------------------------------------------------------------------------- */

/* Waits for the compiler; kills it after COMPILE_TIMEOUT_S (returns -1) or when the request's
 * interrupt check says so, asked at each look (returns -2). Else returns the wait status.
 * The compiler leads its own process group, so the kill reaches what it started (cc1plus, as),
 * which would otherwise run on. */
enum { WAIT_TIMED_OUT = -1, WAIT_INTERRUPTED = -2 };
static int end_group(pid_t pid);

/* A descriptor that becomes readable when `pid` exits (Linux 5.3+), or -1 where the kernel or C
 * library lacks pidfd_open: then the wait polls. */
static int open_exit_fd(pid_t pid) {
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  return -1;
#endif
}

/* Sleeps until `exit_fd` says the child ended or `ms` milliseconds passed; a plain sleep
 * without the descriptor. A module compiles in about 0.1 s with the precompiled prelude: a
 * wait that only polls would add up to its sleep to each build. */
static void nap_or_exit(int exit_fd, int ms) {
  if (exit_fd >= 0) {
    struct pollfd p = {.fd = exit_fd, .events = POLLIN};
    if (poll(&p, 1, ms) >= 0) return;
  }
  struct timespec nap = {0, (long)ms * 1000000};
  nanosleep(&nap, NULL);
}

static int wait_compiler(pid_t pid, const SimLoadRequest *req) {
  enum { CHECK_MS = 10 };   /* how often the interrupt check is asked */
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int exit_fd = open_exit_fd(pid);
  int result;
  for (;;) {
    int status;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) { result = status; break; }
    if (r < 0 && errno != EINTR) { result = -1; break; }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > COMPILE_TIMEOUT_S) {
      end_group(pid);
      result = WAIT_TIMED_OUT;
      break;
    }
    if (req->interrupt && req->interrupt(req->interrupt_userdata)) {
      end_group(pid);
      result = WAIT_INTERRUPTED;
      break;
    }
    nap_or_exit(exit_fd, CHECK_MS);
  }
  if (exit_fd >= 0) close(exit_fd);
  return result;
}

/* Ends the compiler's process group: SIGTERM first, which lets GCC's driver remove its
 * temporary files, then SIGKILL after a second. Reaps the compiler. */
static int end_group(pid_t pid) {
  struct timespec nap = {0, 10000000};
  int status;
  kill(-pid, SIGTERM);
  for (int i = 0; i < 100; i++) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      kill(-pid, SIGKILL);   /* what it started and left behind */
      return status;
    }
    nanosleep(&nap, NULL);
  }
  kill(-pid, SIGKILL);
  waitpid(pid, &status, 0);
  return status;
}

/* The first line of the log that mentions an error, for the message. */
static void first_error_line(const char *log, char *out, size_t size) {
  out[0] = '\0';
  const char *hit = log ? strstr(log, "error") : NULL;
  if (!hit) return;
  const char *start = hit, *end = hit;
  while (start > log && start[-1] != '\n') start--;
  while (*end && *end != '\n') end++;
  snprintf(out, size, ": %.*s", (int)(end - start > 300 ? 300 : end - start), start);
}

/* ---- Starting the compiler ----------------------------------------------------------------
 *
 * The compiler must not outlive the process that asked for it: a `run` killed with SIGKILL (or
 * a Python program ended by SIGTERM, which has no handler) left GCC's driver and its cc1plus
 * running to their end, minutes for a large kernel. Linux can signal a child when its parent
 * dies (PR_SET_PDEATHSIG), but only the direct child, and fork clears it: cc1plus, the driver's
 * child, would run on. So the child is a small watcher that leads the compiler's process group
 * and asks for SIGHUP when its parent thread dies; it starts the compiler in its group and waits
 * for either. At the compiler's end it ends with the compiler's status (an exit code, or the same
 * signal), so the caller sees what it saw before; at its parent's death it ends the whole group
 * (SIGTERM, which lets GCC's driver remove its temporary files, then SIGKILL a second later). The
 * parent "dies" when the thread that forked ends, so the thread that starts the compiler waits
 * for it (wait_compiler). Between fork and exec only async-signal-safe calls run: the process
 * may have other threads holding locks; nothing in them allocates. */

enum { WATCH_GRACE_MS = 1000 };

/* fork() without the host's pthread_atfork handlers (glibc's _Fork): the host may call the
 * loader while holding a lock that its own handler takes (the CUDA driver stand-in loads a
 * module under its state lock, and its prefork handler takes that lock: fork() never returned),
 * and neither the watcher nor the compiler's child runs anything those handlers prepare. */
static pid_t fork_plain(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return _Fork();
#else
  return (pid_t)syscall(SYS_fork);
#endif
}

/* In the compiler's process: no signal blocked and the usual ones at their default action,
 * whatever the host blocked or ignores (the CLI blocks SIGINT and SIGTERM); stdin from
 * /dev/null, stdout and stderr into the log. Reports exec's errno through `report` (closed on
 * exec) and exits 127 when the program cannot run. */
static void exec_compiler(char **argv, const char *log, int report) {
  static const int usual[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (size_t i = 0; i < sizeof usual / sizeof usual[0]; i++) sigaction(usual[i], &dfl, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
    int e = errno;
    ssize_t w = write(report, &e, sizeof e);
    (void)w;
    _exit(127);
  }
  execvp(argv[0], argv);
  int e = errno;
  ssize_t w = write(report, &e, sizeof e);
  (void)w;
  _exit(127);
}

/* The watcher's end once the compiler has ended with `status`: the same exit code, or the same
 * signal (at its default action, unblocked). */
static void end_like(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WTERMSIG(status);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, NULL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  sigprocmask(SIG_UNBLOCK, &one, NULL);
  kill(getpid(), sig);
  _exit(128 + sig);
}

/* Ends the watcher's group (the compiler and what it started) after its parent died. */
static void end_orphaned_group(pid_t compiler) {
  kill(0, SIGTERM);   /* the watcher has SIGTERM blocked */
  struct timespec nap = {0, 10000000};
  for (int waited = 0; waited < WATCH_GRACE_MS && waitpid(compiler, NULL, WNOHANG) == 0; waited += 10)
    nanosleep(&nap, NULL);
  kill(0, SIGKILL);
  _exit(128 + SIGKILL);
}

/* Closes every descriptor above stderr but `keep`: the compiler needs none of the host's, and a
 * watcher of another thread's compile, which never execs, would hold this one's `report` pipe
 * open (and its reader waiting) for as long as that compile runs. */
static void close_other_files(int keep) {
  if (keep > 3 && close_range(3, (unsigned)keep - 1, 0) == 0 && close_range((unsigned)keep + 1, ~0U, 0) == 0)
    return;
  for (int fd = 3; fd < 65536; fd++)
    if (fd != keep) close(fd);
}

/* The watcher (the forked child): leads a new process group, starts the compiler in it, and
 * waits for the compiler's end or its parent's. SIGTERM sent to the group (end_group) reaches
 * the compiler; the watcher then ends as the compiler did. */
static void watch_compiler(char **argv, const char *log, int report, pid_t parent) {
  setpgid(0, 0);
  close_other_files(report);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &dfl, NULL);   /* a host that ignores SIGCHLD would leave nothing to wait for */
  sigset_t wait_for;
  sigemptyset(&wait_for);
  sigaddset(&wait_for, SIGCHLD);
  sigaddset(&wait_for, SIGHUP);
  sigaddset(&wait_for, SIGTERM);
  sigaddset(&wait_for, SIGINT);
  sigprocmask(SIG_BLOCK, &wait_for, NULL);
  if (prctl(PR_SET_PDEATHSIG, SIGHUP) != 0 || getppid() != parent) _exit(128 + SIGHUP);
  pid_t compiler = fork_plain();
  if (compiler == 0) exec_compiler(argv, log, report);
  close(report);
  if (compiler < 0) _exit(127);
  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(&wait_for, &info);
    int status;
    if (sig == SIGHUP && getppid() != parent) end_orphaned_group(compiler);
    if (waitpid(compiler, &status, WNOHANG) == compiler) end_like(status);
  }
}

/* Starts the compiler under its watcher; returns the watcher's pid (the compiler's process
 * group), or -1 with errno. *exec_errno receives exec's error when the program could not be run
 * (the watcher then exits with 127). */
static pid_t start_compiler(char **argv, const char *log, int *exec_errno) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return -1;
  pid_t parent = getpid();
  pid_t pid = fork_plain();
  if (pid == 0) {
    close(report[0]);
    watch_compiler(argv, log, report[1], parent);
  }
  int saved = errno;
  close(report[1]);
  if (pid > 0) {
    setpgid(pid, pid);   /* also here, so that end_group reaches the group at once */
    ssize_t r;
    while ((r = read(report[0], exec_errno, sizeof *exec_errno)) < 0 && errno == EINTR) {}
    if (r != (ssize_t)sizeof *exec_errno) *exec_errno = 0;
  }
  close(report[0]);
  errno = saved;
  return pid;
}

/* Runs the compiler in `work` for one step, messages into the module's log (replacing an
 * earlier one). P2C_OK, P2C_ERR_SIM, P2C_ERR_INTERRUPTED or P2C_ERR_NOMEM; *rejected is set when
 * the compiler ran to its end and failed (the one failure worth another try with other input). */
static P2cStatus run_compiler(SimModule *m, const Build *b, const SimLoadRequest *req, const char *work,
                              const CompileStep *step, const char *extra, bool *rejected) {
  char log[PATH_BYTES];
  *rejected = false;
  if (!path_printf(log, "%s/log.txt", work)) {
    set_error(m, "the simulator's work folder path is too long: %s", work);
    return P2C_ERR_SIM;
  }
  char *argv[MAX_CXX_WORDS + CXX_FLAG_COUNT + 10];
  size_t n = 0;
  for (size_t i = 0; i < b->word_count; i++) argv[n++] = b->words[i];
  for (size_t i = 0; i < CXX_FLAG_COUNT; i++) argv[n++] = (char *)CXX_FLAGS[i];
  if (extra) argv[n++] = (char *)extra;
  if (step->include) {
    argv[n++] = "-include";
    argv[n++] = (char *)step->include;
  }
  char *tail[] = {"-x", (char *)step->language, (char *)step->input, "-o", (char *)step->output, NULL};
  memcpy(argv + n, tail, sizeof tail);

  int exec_errno = 0;
  pid_t pid = start_compiler(argv, log, &exec_errno);
  if (pid < 0 || exec_errno != 0) {
    if (pid > 0) waitpid(pid, NULL, 0);
    set_error(m, "cannot run the host C++ compiler '%s': %s (set PYK2CUDA_CXX to another one)",
              argv[0], strerror(pid < 0 ? errno : exec_errno));
    return P2C_ERR_SIM;
  }
  int status = wait_compiler(pid, req);
  size_t len;
  mem_free(m->alloc, m->log, m->log_size);
  m->log = NULL;
  if (cache_read_file(m->alloc, log, MAX_LOG_BYTES, &m->log, &len, &m->log_size) == P2C_ERR_NOMEM) {
    set_error(m, "out of memory reading the host compiler's output");
    return P2C_ERR_NOMEM;
  }
  if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return P2C_OK;
  if (status == WAIT_INTERRUPTED) {
    set_error(m, "interrupted while the host C++ compiler '%s' ran (it was ended)", argv[0]);
    return P2C_ERR_INTERRUPTED;
  }

  char first[320];
  first_error_line(m->log, first, sizeof first);
  if (status == WAIT_TIMED_OUT)
    set_error(m, "the host C++ compiler '%s' did not finish", argv[0]);
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && (!m->log || !m->log[0]))
    /* the watcher could not start the compiler (exec reports its own error above) */
    set_error(m, "cannot run the host C++ compiler '%s' (exit status 127) (set PYK2CUDA_CXX to "
              "another one)", argv[0]);
  else if (WIFEXITED(status)) {
    *rejected = true;
    set_error(m, "the host C++ compiler '%s' failed with exit status %d%s", argv[0],
              WEXITSTATUS(status), first);
  }
  else
    set_error(m, "the host C++ compiler '%s' was killed by signal %d", argv[0], WTERMSIG(status));
  return P2C_ERR_SIM;
}

/* A cache folder whose file system has less room than this is not built in: the host compiler's
 * linker then failed with a misleading "collect2: ld returned 1" when the disk filled up. The
 * module is built in $TMPDIR instead, and not cached. */
enum { CACHE_MIN_FREE_BYTES = 64 << 20 };

static bool has_room(const char *dir) {
  struct statvfs fs;
  return statvfs(dir, &fs) != 0 || (uint64_t)fs.f_bavail * fs.f_frsize >= CACHE_MIN_FREE_BYTES;
}

/* Work folders left in the cache by a process that was killed while its compiler ran (SIGKILL
 * leaves no chance to clean up) are removed by a later build once they are older than the
 * longest a compile may take. */
enum { STALE_WORK_SECONDS = COMPILE_TIMEOUT_S + 60 };


static void remove_stale_work_dirs(const char *cache_dir) {
  DIR *d = opendir(cache_dir);
  if (!d) return;
  time_t now = time(NULL);
  struct dirent *e;
  char path[PATH_BYTES];
  struct stat st;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, "tmp-", 4) && path_printf(path, "%s/%s", cache_dir, e->d_name) &&
        lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && now - st.st_mtime > STALE_WORK_SECONDS)
      remove_work_dir(path);
  closedir(d);
}

/* Makes a private work folder holding the sources: inside `cache_dir` when it is given (so that
 * the result can be renamed into place), else under $TMPDIR. False, with errno, when the folder
 * cannot be made or written (a read-only or full cache folder). */
static bool make_work_dir(const char *cache_dir, const SimLoadRequest *req, char *work) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  char path[PATH_BYTES];
  bool ok = cache_dir ? path_printf(work, "%s/tmp-XXXXXX", cache_dir)
                      : path_printf(work, "%s/pyk2cuda-sim-XXXXXX", tmp);
  if (!ok || !mkdtemp(work)) return false;
  if (path_printf(path, "%s/prelude.h", work) && write_file(path, sim_prelude_text, sim_prelude_size) &&
      path_printf(path, "%s/" SIM_SOURCE_FILE, work) && write_file(path, req->source, req->source_len))
    return true;
  int saved = errno;
  remove_work_dir(work);
  errno = saved;
  return false;
}

/* ---- The precompiled prelude -------------------------------------------------------------- */

/* Most of a small module's compile is parsing the prelude (53 KB and the C++ headers it
 * includes): the prelude is compiled once per compiler command and prelude text and kept in the
 * cache as prelude-<hash>.h with its precompiled form prelude-<hash>.h.gch beside it, where both
 * GCC and Clang look for it when the header is given to -include. The precompiled form is only
 * a faster way to read the same header: a compiler that finds it unfit for the flags reads the
 * header instead, and a build that fails with it (a damaged file) is tried again without it. */

static bool pch_paths(const Build *b, char header[PATH_BYTES], char gch[PATH_BYTES]) {
  char hash[17];
  cache_hash_name(b->key, b->prelude_key_len, hash);
  return path_printf(header, "%s/prelude-%s.h", b->cache_dir, hash) &&
         path_printf(gch, "%s.gch", header);
}

/* Whether the cache holds this prelude's header, byte for byte (the text a compiler falls back
 * to), and a non-empty precompiled form beside it. */
static bool pch_present(const SimModule *m, const char *header, const char *gch) {
  struct stat st;
  if (stat(gch, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
  char *text;
  size_t len, size;
  if (cache_read_file(m->alloc, header, sim_prelude_size + 1, &text, &len, &size) != P2C_OK)
    return false;
  bool same = len == sim_prelude_size && memcmp(text, sim_prelude_text, len) == 0;
  mem_free(m->alloc, text, size);
  return same;
}

/* Precompiles the work folder's prelude and moves it into the cache: the header first, then
 * the .gch, each by rename, so a reader never sees half of either. A failed precompile only
 * means building without it; an interrupt is passed on. */
static P2cStatus pch_build(SimModule *m, const Build *b, const SimLoadRequest *req, const char *work,
                           const char *header, const char *gch) {
  char in[PATH_BYTES], out[PATH_BYTES];
  if (!path_printf(in, "%s/prelude.h", work) || !path_printf(out, "%s/prelude.h.gch", work))
    return P2C_OK;
  CompileStep step = {.include = NULL, .language = "c++-header", .input = in, .output = out};
  bool rejected;
  P2cStatus st = run_compiler(m, b, req, work, &step, TLS_FLAG, &rejected);
  if (st != P2C_OK) {
    unlink(out);
    if (st == P2C_ERR_INTERRUPTED || st == P2C_ERR_NOMEM) return st;
    m->error[0] = '\0';   /* not the module's error: it builds without */
    return P2C_OK;
  }
  const char *name = strrchr(header, '/') + 1;
  if (!cache_write_file(b->cache_dir, name, sim_prelude_text, sim_prelude_size) || rename(out, gch) != 0)
    unlink(out);
  return P2C_OK;
}

/* The header to give -include: the cache's precompiled prelude, built first when missing, or
 * the work folder's plain copy (no cache, or no precompiled form could be made). */
static P2cStatus choose_prelude(SimModule *m, const Build *b, const SimLoadRequest *req,
                                const char *work, bool in_cache, char header[PATH_BYTES]) {
  char gch[PATH_BYTES];
  if (in_cache && pch_paths(b, header, gch)) {
    if (pch_present(m, header, gch)) return P2C_OK;
    P2cStatus st = pch_build(m, b, req, work, header, gch);
    if (st != P2C_OK) return st;
    if (pch_present(m, header, gch)) return P2C_OK;
  }
  return path_printf(header, "%s/prelude.h", work) ? P2C_OK : P2C_ERR_SIM;
}

/* Compiles the work folder's src.cu into mod.so with `prelude` read first, with the TLS flag
 * and, where the compiler does not know it, without. */
static P2cStatus compile_module(SimModule *m, const Build *b, const SimLoadRequest *req,
                                const char *work, const char *prelude, bool *rejected) {
  char src[PATH_BYTES], out[PATH_BYTES];
  if (!path_printf(src, "%s/" SIM_SOURCE_FILE, work) || !path_printf(out, "%s/mod.so", work)) {
    set_error(m, "the simulator's work folder path is too long: %s", work);
    return P2C_ERR_SIM;
  }
  CompileStep step = {.include = prelude, .language = "c++", .input = src, .output = out};
  P2cStatus st = run_compiler(m, b, req, work, &step, TLS_FLAG, rejected);
  if (st == P2C_ERR_SIM && TLS_FLAG && m->log && strstr(m->log, TLS_FLAG))
    st = run_compiler(m, b, req, work, &step, NULL, rejected);
  return st;
}

/* Compiles with the precompiled prelude when there is one; a compile it fails (a damaged .gch
 * makes the compiler stop) is tried again with the plain prelude, and the damaged one goes. */
static P2cStatus compile_in_work_dir(SimModule *m, const Build *b, const SimLoadRequest *req,
                                     const char *work, bool in_cache) {
  char prelude[PATH_BYTES], plain[PATH_BYTES];
  P2cStatus st = choose_prelude(m, b, req, work, in_cache, prelude);
  if (st != P2C_OK) return st;
  if (!path_printf(plain, "%s/prelude.h", work)) return P2C_ERR_SIM;
  bool rejected;
  st = compile_module(m, b, req, work, prelude, &rejected);
  if (st == P2C_ERR_SIM && rejected && strcmp(prelude, plain) != 0) {
    char gch[PATH_BYTES];
    if (path_printf(gch, "%s.gch", prelude)) unlink(gch);
    st = compile_module(m, b, req, work, plain, &rejected);
  }
  return st;
}

/* Compiles the source in a work folder, loads the result, and stores it in the cache when
 * `store`. A cache folder that cannot be built in (read-only, full) only costs the cache: the
 * build moves to $TMPDIR, as the cache's contract says. */
static P2cStatus build_and_load(SimModule *m, const Build *b, const SimLoadRequest *req,
                                bool store) {
  char work[PATH_BYTES], path[PATH_BYTES];
  bool in_cache = b->cache_dir[0] && has_room(b->cache_dir);
  if (in_cache) remove_stale_work_dirs(b->cache_dir);
  if (!(in_cache && make_work_dir(b->cache_dir, req, work))) {
    in_cache = false;
    if (!make_work_dir(NULL, req, work)) {
      set_error(m, "cannot make a work folder for the simulator in $TMPDIR: %s", strerror(errno));
      return P2C_ERR_IO;
    }
  }
  P2cStatus st = compile_in_work_dir(m, b, req, work, in_cache);
  if (st != P2C_OK) goto done;
  st = P2C_ERR_SIM;
  /* Load from the work folder, whose name is unique: dlopen never confuses it with an object
   * this process loaded earlier under the cache's name. */
  if (!path_printf(path, "%s/mod.so", work) || !load_object(m, path)) goto done;
  if (store && in_cache) cache_store(b, work, m->alloc);
  st = P2C_OK;
done:
  remove_work_dir(work);
  return st;
}

/* Chooses the compiler, the key and the cache folder for a request. */
static P2cStatus prepare_build(SimModule *m, Build *b, const SimLoadRequest *req) {
  const char *cxx = req->cxx;
  if (!cxx || !*cxx) cxx = getenv("PYK2CUDA_CXX");
  if (!cxx || !*cxx) cxx = "c++";
  if (!split_command(b, cxx)) {
    set_error(m, "bad host compiler command '%.200s'", cxx);
    return P2C_ERR_SIM;
  }
  if (!make_key(b, req, m->alloc)) return P2C_ERR_NOMEM;
  b->cache_dir[0] = '\0';
  if (!req->no_cache && !cache_kind_dir(req->cache_dir, "sim", b->cache_dir))
    b->cache_dir[0] = '\0';  /* unusable cache: build in a temporary folder */
  return P2C_OK;
}

P2cStatus sim_module_load(const SimLoadRequest *req, SimModule **out) {
  if (!out) return P2C_ERR_USAGE;
  *out = NULL;
  if (!req || !req->source) return P2C_ERR_USAGE;
  const P2cAllocator *alloc = req->allocator ? req->allocator : mem_default();
  SimModule *m = mem_alloc(alloc, sizeof *m);
  if (!m) return P2C_ERR_NOMEM;
  memset(m, 0, sizeof *m);
  m->alloc = alloc;
  m->python_lines = req->python_lines;
  m->python_line_count = req->python_lines ? req->python_line_count : 0;
  m->python_file = req->python_file;
  pthread_mutex_init(&m->launch_lock, NULL);
  m->symbols = symbol_memo_new(alloc);   /* none: every lookup asks dlsym */

  Build b;
  memset(&b, 0, sizeof b);
  P2cStatus st = prepare_build(m, &b, req);
  if (st == P2C_OK) {
    CacheLookup found = b.cache_dir[0] ? cache_lookup(m, &b) : CACHE_MISS;
    m->cache_hit = found == CACHE_HIT;
    m->error[0] = '\0';  /* a failed lookup is not the caller's error */
    if (!m->cache_hit && req->cache_only) st = P2C_ERR_SIM;
    else if (!m->cache_hit) st = build_and_load(m, &b, req, b.cache_dir[0] && found == CACHE_MISS);
  }
  mem_free(alloc, b.key, b.key_len);
  if (st == P2C_ERR_NOMEM || (req->cache_only && st != P2C_OK)) {
    sim_module_delete(m);
    return st;
  }
  *out = m;
  return st;
}

void sim_module_delete(SimModule *m) {
  if (!m) return;
  sim_release_workers(m);
  sim_altstack_free(&m->altstack);
  sim_san_delete(m->san);
  if (m->handle) dlclose(m->handle);
  sim_lines_free(m->alloc, &m->lines);
  mem_free(m->alloc, m->log, m->log_size);
  pthread_mutex_destroy(&m->launch_lock);
  symbol_memo_free(m->alloc, m->symbols);
  mem_free(m->alloc, m, sizeof *m);
}

bool sim_module_cache_hit(const SimModule *m) { return m && m->cache_hit; }

const char *sim_module_log(const SimModule *m) { return m && m->log ? m->log : ""; }

const char *sim_module_error(const SimModule *m) { return m ? m->error : ""; }

void *sim_module_symbol_of(const SimModule *m, const char *prefix, const char *symbol) {
  if (!m || !m->handle || !prefix || !symbol) return NULL;
  SimSymbolMemo *memo = m->symbols;
  size_t lp = strlen(prefix), ls = strlen(symbol);
  char name[SYMBOL_MEMO_NAME + 32];
  if (!memo || ls >= SYMBOL_MEMO_NAME || lp + ls >= sizeof name) {
    char *joined = mem_alloc(m->alloc, lp + ls + 1);
    if (!joined) return NULL;
    memcpy(joined, prefix, lp);
    memcpy(joined + lp, symbol, ls + 1);
    void *addr = dlsym(m->handle, joined);
    mem_free(m->alloc, joined, lp + ls + 1);
    return addr;
  }
  pthread_mutex_lock(&memo->lock);
  for (size_t i = 0; i < memo->count; i++)
    if (strcmp(memo->slots[i].symbol, symbol) == 0 && strcmp(memo->slots[i].prefix, prefix) == 0) {
      void *addr = memo->slots[i].addr;
      pthread_mutex_unlock(&memo->lock);
      return addr;
    }
  memcpy(name, prefix, lp);
  memcpy(name + lp, symbol, ls + 1);
  void *addr = dlsym(m->handle, name);
  if (memo->count < SYMBOL_MEMO_SLOTS) {
    memo->slots[memo->count].prefix = prefix;
    memcpy(memo->slots[memo->count].symbol, symbol, ls + 1);
    memo->slots[memo->count++].addr = addr;
  }
  pthread_mutex_unlock(&memo->lock);
  return addr;
}

void *sim_module_symbol(const SimModule *m, const char *name) { return sim_module_symbol_of(m, "", name); }
