/* The compile cache on disk: naming the root, keys compared in full, atomic writes, and blobs
 * that carry their own length and hash so that a damaged file is noticed (see cache.h). */
#include "runtime/cache/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arena.h"

/* "P2CBLOB1", the payload's length and its hash, both little-endian 64-bit. */
static const char BLOB_MAGIC[8] = {'P', '2', 'C', 'B', 'L', 'O', 'B', '1'};
enum { BLOB_HEADER = 24, MAX_BLOB = 1 << 30 };

bool cache_path(char out[CACHE_PATH_BYTES], const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, CACHE_PATH_BYTES, fmt, ap);
  va_end(ap);
  return n >= 0 && n < CACHE_PATH_BYTES;
}

bool cache_root(const char *override, char out[CACHE_PATH_BYTES]) {
  const char *env;
  if (override && *override) return cache_path(out, "%s", override);
  if ((env = getenv("PYK2CUDA_CACHE_DIR")) && *env) return cache_path(out, "%s", env);
  if ((env = getenv("XDG_CACHE_HOME")) && *env) return cache_path(out, "%s/pyk2cuda", env);
  if ((env = getenv("HOME")) && *env) return cache_path(out, "%s/.cache/pyk2cuda", env);
  return false;
}

bool cache_make_dirs(const char *path) {
  char buf[CACHE_PATH_BYTES];
  if (!cache_path(buf, "%s", path) || !buf[0]) return false;
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) return false;
    *p = c;
    if (c == '\0') break;
  }
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cache_kind_dir(const char *override, const char *kind, char out[CACHE_PATH_BYTES]) {
  char root[CACHE_PATH_BYTES];
  if (!cache_root(override, root) || !cache_path(out, "%s/%s", root, kind)) return false;
  return cache_make_dirs(out);
}

/* ---- Hashing ------------------------------------------------------------------------------- */

/* Written here rather than taken from a library: the hash only names files and checks blobs
 * against accidental damage, so it needs no cryptographic strength, and the cache should not
 * add a dependency (libcrypto, xxhash) to the build. */
uint64_t cache_hash(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3u;
  }
  return h;
}

void cache_hash_name(const void *key, size_t len, char out[17]) {
  snprintf(out, 17, "%016llx", (unsigned long long)cache_hash(key, len));
}

/* ---- Files --------------------------------------------------------------------------------- */

/* Opens `path` for reading when it is a regular file. O_NONBLOCK: a FIFO put at a cache entry
 * would block open until a writer came (a `run` hung there); a device (an entry linked to
 * /dev/zero) would be read up to the limit, 1 GiB for an object. Either is a damaged entry. */
static FILE *open_regular(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return NULL;
  struct stat st;
  FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
  if (!f) close(fd);
  return f;
}

P2cStatus cache_read_file(const P2cAllocator *alloc, const char *path, size_t limit, char **data,
                          size_t *len, size_t *alloc_size) {
  FILE *f = open_regular(path);
  if (!f) return P2C_ERR_IO;
  size_t cap = 4096, n = 0;
  char *buf = mem_alloc(alloc, cap);
  P2cStatus st = buf ? P2C_OK : P2C_ERR_NOMEM;
  while (st == P2C_OK && n < limit) {
    if (n + 1 == cap) {
      char *bigger = mem_realloc(alloc, buf, cap, cap * 2);
      if (!bigger) {
        st = P2C_ERR_NOMEM;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
    size_t want = cap - 1 - n < limit - n ? cap - 1 - n : limit - n;
    size_t got = fread(buf + n, 1, want, f);
    n += got;
    if (got < want) {
      if (ferror(f)) st = P2C_ERR_IO;
      break;
    }
  }
  fclose(f);
  if (st != P2C_OK) {
    mem_free(alloc, buf, cap);
    return st;
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  *alloc_size = cap;
  return P2C_OK;
}

static bool write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

/* Writes `head` then `data` to a fresh temporary file in `dir` and renames it to `name`. */
static bool write_atomic(const char *dir, const char *name, const void *head, size_t head_len,
                         const void *data, size_t len) {
  char tmp[CACHE_PATH_BYTES], final[CACHE_PATH_BYTES];
  if (!cache_path(tmp, "%s/.tmp-%s-XXXXXX", dir, name) ||
      !cache_path(final, "%s/%s", dir, name))
    return false;
  int fd = mkstemp(tmp);
  if (fd < 0) return false;
  bool ok = write_all(fd, head, head_len) && write_all(fd, data, len);
  ok = close(fd) == 0 && ok;
  if (ok) ok = rename(tmp, final) == 0;
  if (!ok) unlink(tmp);
  return ok;
}

bool cache_write_file(const char *dir, const char *name, const void *data, size_t len) {
  return write_atomic(dir, name, "", 0, data, len);
}

/* ---- Keys and blobs ------------------------------------------------------------------------ */

CacheLookup cache_key_lookup(const char *dir, const char *hash, const void *key, size_t key_len,
                             const P2cAllocator *alloc) {
  char path[CACHE_PATH_BYTES];
  char *stored = NULL;
  size_t len = 0, size = 0;
  if (!cache_path(path, "%s/%s.key", dir, hash)) return CACHE_MISS;
  /* One byte more than the key: a longer stored key must not compare equal to its prefix. */
  if (cache_read_file(alloc, path, key_len + 1, &stored, &len, &size) != P2C_OK) return CACHE_MISS;
  bool same = len == key_len && memcmp(stored, key, len) == 0;
  mem_free(alloc, stored, size);
  return same ? CACHE_HIT : CACHE_COLLISION;
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

bool cache_store_blob(const char *dir, const char *hash, const char *ext, const void *data,
                      size_t len, const void *key, size_t key_len) {
  char data_name[64], key_name[64];
  unsigned char head[BLOB_HEADER];
  memcpy(head, BLOB_MAGIC, 8);
  put_u64(head + 8, len);
  put_u64(head + 16, cache_hash(data, len));
  snprintf(data_name, sizeof data_name, "%s.%s", hash, ext);
  snprintf(key_name, sizeof key_name, "%s.key", hash);
  return write_atomic(dir, data_name, head, sizeof head, data, len) &&
         write_atomic(dir, key_name, "", 0, key, key_len);
}

P2cStatus cache_load_blob(const char *dir, const char *hash, const char *ext,
                          const P2cAllocator *alloc, void **data, size_t *len, size_t *alloc_size) {
  char path[CACHE_PATH_BYTES];
  char *buf = NULL;
  size_t n = 0, size = 0;
  if (!cache_path(path, "%s/%s.%s", dir, hash, ext)) return P2C_ERR_IO;
  P2cStatus st = cache_read_file(alloc, path, (size_t)MAX_BLOB + BLOB_HEADER + 1, &buf, &n, &size);
  if (st != P2C_OK) return st;
  const unsigned char *u = (const unsigned char *)buf;
  bool ok = n >= BLOB_HEADER && memcmp(buf, BLOB_MAGIC, 8) == 0 &&
            get_u64(u + 8) == n - BLOB_HEADER &&
            get_u64(u + 16) == cache_hash(buf + BLOB_HEADER, n - BLOB_HEADER);
  if (!ok) {
    mem_free(alloc, buf, size);
    return P2C_ERR_FORMAT;
  }
  /* The payload moves to the front; the NUL cache_read_file put after the file follows it. */
  memmove(buf, buf + BLOB_HEADER, n - BLOB_HEADER + 1);
  *data = buf;
  *len = n - BLOB_HEADER;
  *alloc_size = size;
  return P2C_OK;
}

void cache_remove(const char *dir, const char *hash, const char *ext) {
  char path[CACHE_PATH_BYTES];
  if (cache_path(path, "%s/%s.key", dir, hash)) unlink(path);
  if (cache_path(path, "%s/%s.%s", dir, hash, ext)) unlink(path);
}
