/* Unit tests for the compile cache (src/runtime/cache/cache.c) and NVRTC behind it
 * (src/runtime/cuda/rtc_cache.c): where the cache lives, keys compared in full, collisions,
 * blobs that detect damage, and the key of an NVRTC compile holding everything that changes the
 * output, so that a second compile of the same request skips NVRTC and any change compiles
 * again. The NVRTC tests need libnvrtc (present on the CI machines; skipped where missing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/cache/cache.h"
#include "runtime/cuda/rtc_cache.h"
#include "util/arena.h"

static char root[512];

static int fresh_dir(void **state) {
  static char dir[600];
  snprintf(dir, sizeof dir, "%s/t-XXXXXX", root);
  assert_non_null(mkdtemp(dir));
  *state = dir;
  return 0;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* ---- cache.c -------------------------------------------------------------------------------- */

static void root_from_environment(void **state) {
  (void)state;
  char out[CACHE_PATH_BYTES], saved_home[512] = "";
  if (getenv("HOME")) snprintf(saved_home, sizeof saved_home, "%s", getenv("HOME"));
  setenv("PYK2CUDA_CACHE_DIR", "/a/b", 1);
  setenv("XDG_CACHE_HOME", "/x", 1);
  assert_true(cache_root("/given", out));
  assert_string_equal(out, "/given");
  assert_true(cache_root(NULL, out));
  assert_string_equal(out, "/a/b");
  unsetenv("PYK2CUDA_CACHE_DIR");
  assert_true(cache_root("", out));
  assert_string_equal(out, "/x/pyk2cuda");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  assert_true(cache_root(NULL, out));
  assert_string_equal(out, "/home/u/.cache/pyk2cuda");
  unsetenv("HOME");
  assert_false(cache_root(NULL, out));
  if (saved_home[0]) setenv("HOME", saved_home, 1);
  char longer[CACHE_PATH_BYTES + 10];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  assert_false(cache_root(longer, out)); /* does not fit: no cache, not a truncated path */
}

static void kind_dir_is_private(void **state) {
  char out[CACHE_PATH_BYTES], file[CACHE_PATH_BYTES];
  const char *dir = *state;
  char nested[CACHE_PATH_BYTES];
  snprintf(nested, sizeof nested, "%s/x/y", dir);
  assert_true(cache_kind_dir(nested, "nvrtc", out));
  struct stat st;
  assert_int_equal(stat(out, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(st.st_mode & 077, 0);
  /* A file where the folder should be: no cache. */
  snprintf(file, sizeof file, "%s/plain", dir);
  write_text(file, "x");
  assert_false(cache_kind_dir(file, "nvrtc", out));
}

static void keys_compare_in_full(void **state) {
  const char *dir = *state;
  const char key[] = "key with\0a NUL";
  char hash[17];
  cache_hash_name(key, sizeof key, hash);
  assert_int_equal(strlen(hash), 16);
  assert_int_equal(cache_key_lookup(dir, hash, key, sizeof key, mem_default()),
                   CACHE_MISS);
  assert_true(cache_store_blob(dir, hash, "bin", "data", 4, key, sizeof key));
  assert_int_equal(cache_key_lookup(dir, hash, key, sizeof key, mem_default()), CACHE_HIT);
  /* A prefix, a longer key and a different byte are all another key stored under this hash. */
  assert_int_equal(cache_key_lookup(dir, hash, key, sizeof key - 1, mem_default()), CACHE_COLLISION);
  char longer[sizeof key + 1];
  memcpy(longer, key, sizeof key);
  longer[sizeof key] = 'z';
  assert_int_equal(cache_key_lookup(dir, hash, longer, sizeof longer, mem_default()), CACHE_COLLISION);
  char other[sizeof key];
  memcpy(other, key, sizeof key);
  other[10] ^= 1;
  assert_int_equal(cache_key_lookup(dir, hash, other, sizeof other, mem_default()), CACHE_COLLISION);
  /* No temporary files are left behind. */
  char path[CACHE_PATH_BYTES];
  snprintf(path, sizeof path, "%s/%s.key", dir, hash);
  assert_int_equal(access(path, R_OK), 0);
  cache_remove(dir, hash, "bin");
  assert_int_equal(access(path, F_OK), -1);
  assert_int_equal(cache_key_lookup(dir, hash, key, sizeof key, mem_default()), CACHE_MISS);
}

static void blobs_detect_damage(void **state) {
  const char *dir = *state;
  const char *hash = "0123456789abcdef";
  unsigned char data[300];
  for (int i = 0; i < 300; i++) data[i] = (unsigned char)(i * 7);
  assert_true(cache_store_blob(dir, hash, "bin", data, sizeof data, "k", 1));
  void *got = NULL;
  size_t len = 0, size = 0;
  assert_int_equal(cache_load_blob(dir, hash, "bin", mem_default(), &got, &len, &size), P2C_OK);
  assert_int_equal(len, sizeof data);
  assert_memory_equal(got, data, sizeof data);
  assert_int_equal(((char *)got)[len], '\0');
  mem_free(mem_default(), got, size);

  char path[CACHE_PATH_BYTES];
  snprintf(path, sizeof path, "%s/%s.bin", dir, hash);
  /* One flipped byte of the payload. */
  FILE *f = fopen(path, "r+b");
  fseek(f, 100, SEEK_SET);
  fputc(0x55, f);
  fclose(f);
  assert_int_equal(cache_load_blob(dir, hash, "bin", mem_default(), &got, &len, &size),
                   P2C_ERR_FORMAT);
  /* Truncated, down to inside the header. */
  assert_true(cache_store_blob(dir, hash, "bin", data, sizeof data, "k", 1));
  assert_int_equal(truncate(path, 200), 0);
  assert_int_equal(cache_load_blob(dir, hash, "bin", mem_default(), &got, &len, &size),
                   P2C_ERR_FORMAT);
  assert_int_equal(truncate(path, 10), 0);
  assert_int_equal(cache_load_blob(dir, hash, "bin", mem_default(), &got, &len, &size),
                   P2C_ERR_FORMAT);
  /* Not a blob at all, and no file. */
  write_text(path, "#!/bin/sh\necho not a blob, but long enough to have a header\n");
  assert_int_equal(cache_load_blob(dir, hash, "bin", mem_default(), &got, &len, &size),
                   P2C_ERR_FORMAT);
  unlink(path);
  assert_int_equal(cache_load_blob(dir, hash, "bin", mem_default(), &got, &len, &size), P2C_ERR_IO);
  /* An empty payload is a valid blob. */
  assert_true(cache_store_blob(dir, hash, "bin", "", 0, "k", 1));
  assert_int_equal(cache_load_blob(dir, hash, "bin", mem_default(), &got, &len, &size), P2C_OK);
  assert_int_equal(len, 0);
  mem_free(mem_default(), got, size);
}

/* ---- rtc_cache.c ---------------------------------------------------------------------------- */

static bool have_nvrtc(void) {
  char err[1024];
  int major, minor;
  return rtc_version(&major, &minor, err, sizeof err) == P2C_OK;
}

static const char KERNEL[] = "extern \"C\" __global__ void k(int *p) { p[0] = 42; }\n";

/* Compiles through the cache rooted at `dir`; returns whether it was a hit. */
static bool compile(const char *dir, const RtcRequest *req) {
  RtcCacheOptions o = {dir, false};
  RtcResult res;
  bool hit = true;
  assert_int_equal(rtc_compile_cached(req, &o, &res, &hit), P2C_OK);
  assert_non_null(res.image);
  assert_true(res.image_size > 0);
  assert_memory_equal(res.image, "\x7f" "ELF", 4);
  rtc_result_free(&res);
  return hit;
}

static void key_holds_everything(void **state) {
  if (!have_nvrtc()) skip();
  const char *dir = *state;
  RtcRequest req = {.source = KERNEL, .program_name = "k.cu", .arch = "sm_90",
                    .target = P2C_TARGET_CUBIN};
  assert_false(compile(dir, &req));
  assert_true(compile(dir, &req)); /* the same request: NVRTC is skipped */

  RtcRequest changed = req;
  changed.arch = "sm_80";
  assert_false(compile(dir, &changed));
  changed = req;
  changed.program_name = "other.cu";
  assert_false(compile(dir, &changed));
  changed = req;
  const char *opt[] = {"-DX=1"}, *opt2[] = {"-DX=2"};
  changed.options = opt;
  changed.option_count = 1;
  assert_false(compile(dir, &changed));
  changed.options = opt2;
  assert_false(compile(dir, &changed));
  changed = req;
  changed.source = "extern \"C\" __global__ void k(int *p) { p[0] = 43; }\n";
  assert_false(compile(dir, &changed));
  /* Every one of them is now a hit, and the first still is. */
  assert_true(compile(dir, &req));
  changed.options = opt2;
  changed.source = KERNEL;
  changed.option_count = 1;
  assert_true(compile(dir, &changed));

  /* no_cache neither reads nor writes. */
  RtcCacheOptions none = {dir, true};
  RtcResult res;
  bool hit = true;
  assert_int_equal(rtc_compile_cached(&req, &none, &res, &hit), P2C_OK);
  assert_false(hit);
  assert_true(res.log != NULL);
  rtc_result_free(&res);
}

/* PTX for a real architecture is compiled for its virtual one: ptxas does not run (its -v report
 * is absent), where a CUBIN of the same request runs it. */
static void ptx_skips_ptxas(void **state) {
  (void)state;
  if (!have_nvrtc()) skip();
  const char *verbose[] = {"--ptxas-options=-v"};
  RtcRequest req = {.source = KERNEL, .program_name = "k.cu", .arch = "sm_90",
                    .target = P2C_TARGET_PTX, .options = verbose, .option_count = 1};
  RtcResult res;
  assert_int_equal(rtc_compile(&req, &res), P2C_OK);
  assert_null(strstr(res.log, "ptxas"));
  assert_non_null(strstr(res.image, ".target sm_90"));
  rtc_result_free(&res);
  req.target = P2C_TARGET_CUBIN;
  assert_int_equal(rtc_compile(&req, &res), P2C_OK);
  assert_non_null(strstr(res.log, "ptxas info"));
  rtc_result_free(&res);
}

static void compile_errors_are_not_cached(void **state) {
  if (!have_nvrtc()) skip();
  const char *dir = *state;
  RtcRequest req = {.source = "this is not CUDA", .arch = "sm_90", .target = P2C_TARGET_CUBIN};
  RtcCacheOptions o = {dir, false};
  for (int i = 0; i < 2; i++) {
    RtcResult res;
    bool hit = true;
    assert_int_equal(rtc_compile_cached(&req, &o, &res, &hit), P2C_ERR_NVRTC);
    assert_false(hit);
    assert_non_null(strstr(res.log, "error"));
    rtc_result_free(&res);
  }
}

/* An entry under our hash whose key is another's: compiled without the cache, left alone. */
static void collision_left_alone(void **state) {
  if (!have_nvrtc()) skip();
  const char *dir = *state;
  RtcRequest req = {.source = KERNEL, .arch = "sm_90", .target = P2C_TARGET_CUBIN};
  assert_false(compile(dir, &req));
  char sub[CACHE_PATH_BYTES], path[CACHE_PATH_BYTES + 40];
  snprintf(sub, sizeof sub, "%s/nvrtc", dir);
  /* Find the entry, give it another key. */
  char cmd[CACHE_PATH_BYTES + 64];
  snprintf(cmd, sizeof cmd, "ls %s/*.key", sub);
  FILE *p = popen(cmd, "r");
  assert_non_null(fgets(path, sizeof path, p));
  pclose(p);
  path[strcspn(path, "\n")] = '\0';
  write_text(path, "someone else's key");
  assert_false(compile(dir, &req));
  assert_false(compile(dir, &req));
  FILE *f = fopen(path, "rb");
  char back[64] = "";
  assert_non_null(fgets(back, sizeof back, f));
  fclose(f);
  assert_string_equal(back, "someone else's key");
}

/* The NVRTC stamp: written on first use, trusted while nothing it depends on changes. */
static void nvrtc_stamp(void **state) {
  if (!have_nvrtc()) skip();
  const char *dir = *state;
  char id[1024], id2[1024], err[512], path[CACHE_PATH_BYTES];
  assert_int_equal(rtc_identity(dir, id, sizeof id, err, sizeof err), P2C_OK);
  assert_int_equal(strncmp(id, "nvrtc ", 6), 0);
  snprintf(path, sizeof path, "%s/nvrtc.id", dir);
  assert_int_equal(access(path, R_OK), 0);
  assert_int_equal(rtc_identity(dir, id2, sizeof id2, err, sizeof err), P2C_OK);
  assert_string_equal(id, id2);
  /* A stamp that lies about the library's file is not trusted: it is rewritten. */
  write_text(path, "pyk2cuda nvrtc stamp 1\nnonsense\n");
  assert_int_equal(rtc_identity(dir, id2, sizeof id2, err, sizeof err), P2C_OK);
  assert_string_equal(id, id2);
  char *text = NULL;
  size_t len = 0, size = 0;
  assert_int_equal(cache_read_file(mem_default(), path, 1 << 16, &text, &len, &size), P2C_OK);
  assert_non_null(strstr(text, "\nlibrary="));
  assert_non_null(strstr(text, "\nversion="));
  mem_free(mem_default(), text, size);
  /* Another CUDA_HOME is another search: the stamp is rewritten with it. */
  const char *home = getenv("CUDA_HOME");
  char saved[512];
  snprintf(saved, sizeof saved, "%s", home ? home : "");
  setenv("CUDA_HOME", "/somewhere/else", 1);
  assert_int_equal(rtc_identity(dir, id2, sizeof id2, err, sizeof err), P2C_OK);
  assert_int_equal(cache_read_file(mem_default(), path, 1 << 16, &text, &len, &size), P2C_OK);
  assert_non_null(strstr(text, "CUDA_HOME=/somewhere/else\n"));
  mem_free(mem_default(), text, size);
  if (home) setenv("CUDA_HOME", saved, 1);
  else unsetenv("CUDA_HOME");
}

int main(void) {
  snprintf(root, sizeof root, "%s/cache-test-XXXXXX", P2C_BUILD_DIR);
  if (!mkdtemp(root)) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(root_from_environment),
      cmocka_unit_test_setup(kind_dir_is_private, fresh_dir),
      cmocka_unit_test_setup(keys_compare_in_full, fresh_dir),
      cmocka_unit_test_setup(blobs_detect_damage, fresh_dir),
      cmocka_unit_test_setup(key_holds_everything, fresh_dir),
      cmocka_unit_test_setup(compile_errors_are_not_cached, fresh_dir),
      cmocka_unit_test(ptx_skips_ptxas),
      cmocka_unit_test_setup(collision_left_alone, fresh_dir),
      cmocka_unit_test_setup(nvrtc_stamp, fresh_dir),
  };
  return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
