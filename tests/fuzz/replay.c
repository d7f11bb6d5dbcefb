/* Runs a fuzz harness's LLVMFuzzerTestOneInput on files, as libFuzzer does when given files:
 * the regression inputs and seeds of tests/fuzz, in the ordinary test suites (built with the
 * project's compiler, no libFuzzer needed). Arguments are files or folders (their files).
 * Prints one line per input run; exits 0 when every input ran (a finding aborts). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* The mutator's fallback, unused when replaying. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
  (void)data, (void)max_size;
  return size;
}

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return perror(path), 1;
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  printf("ran %s (%zu bytes)\n", path, n);
  return 0;
}

static int run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return perror(path), 1;
  if (!S_ISDIR(st.st_mode)) return run_file(path);
  DIR *d = opendir(path);
  struct dirent *e;
  int bad = 0;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, e->d_name);
    bad |= run_path(full);
  }
  if (d) closedir(d);
  return bad;
}

int main(int argc, char **argv) {
  int bad = 0;
  for (int i = 1; i < argc; i++) bad |= run_path(argv[i]);
  return bad;
}
