/* nvdisasm as a child process (nvdisasm.h): find it, write the CUBIN to a temporary folder, run
 * it with its output to a file there, read the file, remove the folder. posix_spawn starts it
 * (no fork of a process whose other threads may hold locks; no pthread_atfork handler runs),
 * with the usual signals at their default action and none blocked, whatever the host set. */
#include "runtime/cuda/nvdisasm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cuda/toolkit.h"
#include "util/arena.h"

extern char **environ;

/* Whether DIR/nvdisasm is an executable file; its path into out when it is. */
static bool try_dir(const char *dir, char *out, size_t outlen) {
  char path[1100];
  if (!*dir || strlen(dir) > 1000) return false;
  snprintf(path, sizeof path, "%s/nvdisasm", dir);
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) return false;
  snprintf(out, outlen, "%s", path);
  return true;
}

/* Where the search puts what it found. */
typedef struct Found {
  char *out;
  size_t outlen;
} Found;

/* toolkit_search's visit: nvdisasm in the folder? */
static bool visit(void *ctx, const char *dir, const char *place) {
  (void)place;
  Found *f = ctx;
  return try_dir(dir, f->out, f->outlen);
}

bool rtc_nvdisasm_find(char *out, size_t outlen) {
  const char *pinned = getenv("PYK2CUDA_NVDISASM");
  if (pinned && *pinned) {
    if (access(pinned, X_OK) == 0) {
      snprintf(out, outlen, "%s", pinned);
      return true;
    }
    snprintf(out, outlen, "nvdisasm was not found (tried $PYK2CUDA_NVDISASM (%s: %s))", pinned, strerror(errno));
    return false;
  }
  Found f = {out, outlen};
  if (toolkit_search(TOOLKIT_PROGRAM, "nvdisasm", visit, &f)) return true;
  char places[512];
  toolkit_places(TOOLKIT_PROGRAM, places, sizeof places);
  snprintf(out, outlen, "nvdisasm was not found (tried $PYK2CUDA_NVDISASM, %s)", places);
  return false;
}

/* Writes all of buf to a new file at path. */
static bool write_file(const char *path, const void *buf, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const char *p = buf;
  while (size > 0) {
    ssize_t w = write(fd, p, size);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      close(fd);
      return false;
    }
    p += w;
    size -= (size_t)w;
  }
  return close(fd) == 0;
}

/* Reads the file at path into *text (NUL-terminated, allocated with alloc). */
static P2cStatus read_file(const char *path, const P2cAllocator *alloc, char **text, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0) close(fd);
    return P2C_ERR_IO;
  }
  size_t size = (size_t)st.st_size, got = 0;
  char *buf = mem_alloc(alloc, size + 1);
  if (!buf) {
    close(fd);
    return P2C_ERR_NOMEM;
  }
  while (got < size) {
    ssize_t r = read(fd, buf + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  buf[got] = '\0';
  *text = buf;
  *len = got;
  return P2C_OK;
}

/* Runs `tool -c -gi in` with stdout and stderr into `out`; returns its wait status, or -1 with
 * errno set when it could not be started. */
static int run_tool(const char *tool, const char *in, const char *out) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  sigset_t none, usual;
  sigemptyset(&none);
  sigemptyset(&usual);
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&usual, sigs[i]);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &usual);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  char *argv[] = {(char *)tool, "-c", "-gi", (char *)in, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, tool, &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc != 0) {
    errno = rc;
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return status;
}

/* What nvdisasm said when it failed: the first line of its output. */
static void tool_failed(const char *text, int status, char *err, size_t errlen) {
  size_t n = text ? strcspn(text, "\n") : 0;
  if (WIFEXITED(status))
    snprintf(err, errlen, "nvdisasm failed (exit %d)%s%.*s", WEXITSTATUS(status), n ? ": " : "", (int)(n > 400 ? 400 : n),
             text ? text : "");
  else
    snprintf(err, errlen, "nvdisasm ended by signal %d", WTERMSIG(status));
}

/* The disassembly in the folder `dir`: the CUBIN written, nvdisasm run, its output read. */
static P2cStatus disassemble_in(const char *dir, const char *tool, const void *cubin, size_t size,
                                const P2cAllocator *alloc, char **text, size_t *len, char *err, size_t errlen) {
  char in[1200], out[1200];
  snprintf(in, sizeof in, "%s/k.cubin", dir);
  snprintf(out, sizeof out, "%s/k.sass", dir);
  P2cStatus s = P2C_OK;
  int status = 0;
  if (!write_file(in, cubin, size)) {
    snprintf(err, errlen, "cannot write %s: %s", in, strerror(errno));
    s = P2C_ERR_IO;
  } else if ((status = run_tool(tool, in, out)) < 0) {
    snprintf(err, errlen, "cannot run %s: %s", tool, strerror(errno));
    s = P2C_ERR_IO;
  } else if ((s = read_file(out, alloc, text, len)) != P2C_OK) {
    snprintf(err, errlen, s == P2C_ERR_NOMEM ? "out of memory for nvdisasm's output" : "cannot read %s", out);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    tool_failed(*text, status, err, errlen);
    mem_free(alloc, *text, *len + 1);
    *text = NULL;
    s = P2C_ERR_IO;
  }
  unlink(in);
  unlink(out);
  return s;
}

P2cStatus rtc_disassemble(const void *cubin, size_t size, const P2cAllocator *alloc, char **text, size_t *len,
                          char *err, size_t errlen) {
  *text = NULL;
  *len = 0;
  if (!alloc) alloc = mem_default();
  char tool[1024];
  if (!rtc_nvdisasm_find(tool, sizeof tool)) {
    snprintf(err, errlen, "%s", tool);
    return P2C_ERR_NO_CUDA;
  }
  const char *tmp = getenv("TMPDIR");
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/pyk2cuda-sass-XXXXXX", tmp && *tmp && strlen(tmp) < 1000 ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    snprintf(err, errlen, "cannot make a temporary folder %s: %s", dir, strerror(errno));
    return P2C_ERR_IO;
  }
  P2cStatus s = disassemble_in(dir, tool, cubin, size, alloc, text, len, err, errlen);
  rmdir(dir);
  return s;
}
