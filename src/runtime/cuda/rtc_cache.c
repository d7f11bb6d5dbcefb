/* NVRTC behind the compile cache: the cache key of a request, the lookup that skips NVRTC, and
 * the stamp that names the NVRTC library without loading it (see rtc_cache.h). */
#include "runtime/cuda/rtc_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/cache/cache.h"
#include "util/arena.h"

enum { IDENTITY_BYTES = 1024, STAMP_BYTES = 16384 };

static const char STAMP_HEADER[] = "pyk2cuda nvrtc stamp 1\n";
static const char KIND[] = "nvrtc";
static const char EXT[] = "bin";

/* ---- The NVRTC stamp ----------------------------------------------------------------------- */

/* "DEV INO SIZE MTIME" of a file, or "" when it cannot be examined. */
static void file_identity(const char *path, char *out, size_t outlen) {
  struct stat st;
  out[0] = '\0';
  if (stat(path, &st) != 0) return;
  snprintf(out, outlen, "%llu %llu %lld %lld.%09ld", (unsigned long long)st.st_dev,
           (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
           st.st_mtim.tv_nsec);
}

/* What the library search depends on, one "NAME=VALUE" line each. */
static void search_inputs(char *out, size_t outlen) {
  size_t n = 0;
  for (size_t i = 0; rtc_search_variables[i] && n < outlen; i++) {
    const char *v = getenv(rtc_search_variables[i]);
    n += (size_t)snprintf(out + n, outlen - n, "%s=%s\n", rtc_search_variables[i], v ? v : "");
  }
  const char *ld_path = getenv("LD_LIBRARY_PATH");
  if (n < outlen) n += (size_t)snprintf(out + n, outlen - n, "LD_LIBRARY_PATH=%s\n", ld_path ? ld_path : "");
  char ld_cache[128];
  file_identity("/etc/ld.so.cache", ld_cache, sizeof ld_cache);
  if (n < outlen) snprintf(out + n, outlen - n, "ld.so.cache=%s\n", ld_cache);
}

/* Copies the value of "NAME=" at the start of `p`, up to the end of its line. */
static const char *take_line(const char *p, const char *name, char *out, size_t outlen) {
  size_t len = strlen(name);
  if (!p || strncmp(p, name, len) != 0) return NULL;
  p += len;
  size_t n = strcspn(p, "\n");
  if (p[n] != '\n' || n >= outlen) return NULL;
  memcpy(out, p, n);
  out[n] = '\0';
  return p + n + 1;
}

/* The identity from a stamp whose inputs and library file are unchanged; false otherwise. */
static bool identity_from_stamp(const char *dir, const char *inputs, char *out, size_t outlen) {
  char path[CACHE_PATH_BYTES], lib[CACHE_PATH_BYTES], file[256], now[256], version[32];
  char *stamp = NULL;
  size_t len = 0, size = 0;
  if (!cache_path(path, "%s/nvrtc.id", dir)) return false;
  if (cache_read_file(mem_default(), path, STAMP_BYTES, &stamp, &len, &size) != P2C_OK)
    return false;
  size_t head = strlen(STAMP_HEADER), in = strlen(inputs);
  bool ok = len > head + in && memcmp(stamp, STAMP_HEADER, head) == 0 &&
            memcmp(stamp + head, inputs, in) == 0;
  const char *p = ok ? stamp + head + in : NULL;
  p = take_line(p, "library=", lib, sizeof lib);
  p = take_line(p, "file=", file, sizeof file);
  p = take_line(p, "version=", version, sizeof version);
  if (p) file_identity(lib, now, sizeof now);
  ok = p && *p == '\0' && file[0] && strcmp(file, now) == 0;
  if (ok) snprintf(out, outlen, "nvrtc %s %s %s", version, lib, file);
  mem_free(mem_default(), stamp, size);
  return ok;
}

/* "nvrtc MAJOR.MINOR PATH DEV INO SIZE MTIME" of a loaded table; *file gets the file part. */
static P2cStatus lib_identity(const RtcLib *lib, char *out, size_t outlen, char *path,
                              char file[256], int *major, int *minor, char *err, size_t errlen) {
  P2cStatus st = rtc_lib_version(lib, major, minor, err, errlen);
  if (st != P2C_OK) return st;
  rtc_loaded_path(&lib->dl, path, CACHE_PATH_BYTES);
  file_identity(path, file, 256);
  snprintf(out, outlen, "nvrtc %d.%d %s %s", *major, *minor, path, file);
  return P2C_OK;
}

P2cStatus rtc_identity(const char *stamp_dir, char *out, size_t outlen, char *err, size_t errlen) {
  char inputs[6 * 1024];
  search_inputs(inputs, sizeof inputs);
  if (stamp_dir && identity_from_stamp(stamp_dir, inputs, out, outlen)) return P2C_OK;
  const RtcLib *lib;
  int major = 0, minor = 0;
  char path[CACHE_PATH_BYTES], file[256];
  P2cStatus st = rtc_load(&lib, err, errlen);
  if (st == P2C_OK) st = lib_identity(lib, out, outlen, path, file, &major, &minor, err, errlen);
  if (st != P2C_OK) return st;
  if (stamp_dir && file[0]) {
    char stamp[STAMP_BYTES];
    int n = snprintf(stamp, sizeof stamp, "%s%slibrary=%s\nfile=%s\nversion=%d.%d\n", STAMP_HEADER,
                     inputs, path, file, major, minor);
    if (n > 0 && (size_t)n < sizeof stamp) cache_write_file(stamp_dir, "nvrtc.id", stamp, (size_t)n);
  }
  return P2C_OK;
}

/* ---- The key ------------------------------------------------------------------------------- */

/* Everything that changes the image, in full. `identity` names NVRTC. */
static char *make_key(const RtcRequest *req, const char *identity, const P2cAllocator *alloc,
                      size_t *key_len, size_t *key_cap) {
  char head[IDENTITY_BYTES + 512];
  int n = snprintf(head, sizeof head,
                   "pyk2cuda image cache 1\npyk2cuda %s\n%s\ntarget %s\narch %s\noptions %s",
                   PYK2CUDA_VERSION_STRING, identity,
                   req->target == P2C_TARGET_CUBIN ? "cubin" : req->target == P2C_TARGET_LTOIR ? "ltoir" : "ptx",
                   req->arch ? req->arch : "sm_90", rtc_default_options());
  if (n < 0 || (size_t)n >= sizeof head) return NULL;
  const char *name = req->program_name ? req->program_name : "pyk2cuda.cu";
  size_t len = (size_t)n + strlen(name) + strlen(req->source) + 16;
  for (size_t i = 0; i < req->option_count; i++) len += strlen(req->options[i]) + 1;
  char *key = mem_alloc(alloc, len);
  if (!key) return NULL;
  *key_cap = len;
  size_t k = (size_t)n;
  memcpy(key, head, k);
  /* Options and the name are separated by NUL bytes: no choice of them can forge another key. */
  for (size_t i = 0; i < req->option_count; i++) {
    key[k++] = '\0';
    k += (size_t)sprintf(key + k, "%s", req->options[i]);
  }
  k += (size_t)sprintf(key + k, "%cname %s%csource%c", '\0', name, '\0', '\0');
  size_t src_len = strlen(req->source);
  memcpy(key + k, req->source, src_len);
  *key_len = k + src_len;
  return key;
}

typedef struct Entry {
  char dir[CACHE_PATH_BYTES];
  char hash[17];
  char *key;
  size_t key_len, key_cap;
  const P2cAllocator *alloc;
} Entry;

/* Names the request's entry; false when there is no usable cache or NVRTC cannot be named
 * (the caller then compiles uncached, and rtc_compile reports a missing NVRTC itself). */
static bool entry_for(const RtcRequest *req, const RtcCacheOptions *opts, Entry *e) {
  char identity[IDENTITY_BYTES], err[RTC_ERROR_MAX];
  e->alloc = req->alloc ? req->alloc : mem_default();
  e->key = NULL;
  if (!req->source || (opts && opts->no_cache)) return false;
  if (!cache_kind_dir(opts ? opts->cache_dir : NULL, KIND, e->dir)) return false;
  char path[CACHE_PATH_BYTES], file[256];
  int major, minor;
  P2cStatus st = req->lib ? lib_identity(req->lib, identity, sizeof identity, path, file, &major,
                                         &minor, err, sizeof err)
                          : rtc_identity(e->dir, identity, sizeof identity, err, sizeof err);
  if (st != P2C_OK) return false;
  e->key = make_key(req, identity, e->alloc, &e->key_len, &e->key_cap);
  if (!e->key) return false;
  cache_hash_name(e->key, e->key_len, e->hash);
  return true;
}

static void entry_free(Entry *e) {
  if (e->key) mem_free(e->alloc, e->key, e->key_cap);
  e->key = NULL;
}

/* Fills `res` from a cached image: the image gets exactly image_size + 1 bytes, as from NVRTC. */
static bool load_hit(Entry *e, RtcResult *res) {
  void *data = NULL;
  size_t len = 0, size = 0;
  P2cStatus st = cache_load_blob(e->dir, e->hash, EXT, e->alloc, &data, &len, &size);
  if (st == P2C_ERR_FORMAT) cache_remove(e->dir, e->hash, EXT); /* corrupt: rebuild */
  if (st != P2C_OK) return false;
  void *image = mem_realloc(e->alloc, data, size, len + 1);
  char *log = mem_alloc(e->alloc, 1);
  if (!image || !log) {
    mem_free(e->alloc, image ? image : data, image ? len + 1 : size);
    mem_free(e->alloc, log, 1);
    return false;
  }
  memset(res, 0, sizeof *res);
  res->alloc = e->alloc;
  res->image = image;
  res->image_size = len;
  res->log = log;
  log[0] = '\0';
  return true;
}

/* The request with the NVRTC that compiles for its arch named (rtc_lib_for_arch: an older one
 * for an older GPU), so that its entry is keyed by the library that makes the image. */
static P2cStatus resolve_lib(const RtcRequest *req, RtcRequest *out, RtcResult *res) {
  *out = *req;
  if (req->lib) return P2C_OK;
  return rtc_lib_for_arch(req->arch ? req->arch : "sm_90", &out->lib, res->error, sizeof res->error);
}

P2cStatus rtc_compile_cached(const RtcRequest *given, const RtcCacheOptions *opts, RtcResult *res,
                             bool *hit) {
  Entry e;
  RtcRequest request, *req = &request;
  *hit = false;
  memset(res, 0, sizeof *res);
  res->alloc = given->alloc ? given->alloc : mem_default();
  P2cStatus refused = resolve_lib(given, req, res);
  if (refused != P2C_OK) return refused;
  bool cached = entry_for(req, opts, &e);
  CacheLookup found = cached ? cache_key_lookup(e.dir, e.hash, e.key, e.key_len, e.alloc)
                             : CACHE_MISS;
  if (found == CACHE_HIT && load_hit(&e, res)) {
    *hit = true;
    entry_free(&e);
    return P2C_OK;
  }
  P2cStatus st = rtc_compile(req, res);
  /* A collision (another key under this hash) keeps its entry: ours is built uncached. */
  if (st == P2C_OK && cached && found != CACHE_COLLISION)
    cache_store_blob(e.dir, e.hash, EXT, res->image, res->image_size, e.key, e.key_len);
  entry_free(&e);
  return st;
}

void rtc_cache_forget(const RtcRequest *given, const RtcCacheOptions *opts) {
  Entry e;
  RtcRequest request, *req = &request;
  RtcResult unused;
  if (resolve_lib(given, req, &unused) != P2C_OK || !entry_for(req, opts, &e)) return;
  if (cache_key_lookup(e.dir, e.hash, e.key, e.key_len, e.alloc) == CACHE_HIT)
    cache_remove(e.dir, e.hash, EXT);
  entry_free(&e);
}

P2cStatus rtc_version_stamped(const char *cache_dir, int *major, int *minor, char *err,
                              size_t errlen) {
  char dir[CACHE_PATH_BYTES], identity[IDENTITY_BYTES];
  bool stamped = cache_kind_dir(cache_dir, KIND, dir);
  P2cStatus st = rtc_identity(stamped ? dir : NULL, identity, sizeof identity, err, errlen);
  if (st == P2C_OK && sscanf(identity, "nvrtc %d.%d", major, minor) != 2)
    st = rtc_version(major, minor, err, errlen);
  return st;
}
