/* Unit tests for src/runtime/cuda/cudrv.c: loading libcuda, CU_CHECK, cudrv_init and cudrv_info.
 *
 * These machines usually have no GPU and no driver, so most of the table is exercised through a
 * fake driver: CuDriver is a plain struct of function pointers, and the tests fill one with the
 * functions below. The real loader is tested for what a GPU-less machine can show: a missing
 * library, an override that does not load, a library that is not libcuda, and the CUDA toolkit's
 * stub libcuda (which loads but has no driver behind it). Where a real driver and GPU exist, the
 * last test describes them.
 *
 * The first group runs before anything loads the shared table (a failed load is not cached). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/cuda/cudrv.h"

/* ---- A fake driver -------------------------------------------------------------------------- */

static struct {
  CuResult init_rc;
  int device_count;
  int fail_attribute; /* cuDeviceGetAttribute fails for this attribute; -1: never */
  int allocs, frees;
} fake;

static CuResult fake_init(unsigned int flags) {
  return flags == 0 ? fake.init_rc : CUDRV_ERROR_INVALID_VALUE;
}

static CuResult fake_driver_version(int *v) {
  *v = 13000;
  return CUDRV_SUCCESS;
}

static CuResult fake_device_count(int *n) {
  *n = fake.device_count;
  return CUDRV_SUCCESS;
}

static CuResult fake_device_get(CuDevice *d, int ordinal) {
  if (ordinal < 0 || ordinal >= fake.device_count) return CUDRV_ERROR_INVALID_VALUE;
  *d = ordinal;
  return CUDRV_SUCCESS;
}

static CuResult fake_device_name(char *name, int len, CuDevice d) {
  snprintf(name, (size_t)len, "Fake H%d00", d + 1);
  return CUDRV_SUCCESS;
}

static CuResult fake_attribute(int *v, int attribute, CuDevice d) {
  if (attribute == fake.fail_attribute) return CUDRV_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CUDRV_ATTR_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CUDRV_ATTR_COMPUTE_CAPABILITY_MINOR: *v = d; break;
    case CUDRV_ATTR_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CUDRV_ATTR_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case CUDRV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    default: return CUDRV_ERROR_INVALID_VALUE;
  }
  return CUDRV_SUCCESS;
}

static CuResult fake_total_mem(size_t *bytes, CuDevice d) {
  (void)d;
  *bytes = (size_t)80 << 30;
  return CUDRV_SUCCESS;
}

static CuResult fake_error_name(CuResult rc, const char **name) {
  switch (rc) {
    case CUDRV_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return CUDRV_SUCCESS;
    case CUDRV_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDRV_SUCCESS;
    case CUDRV_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; return CUDRV_SUCCESS;
    default: *name = NULL; return CUDRV_ERROR_INVALID_VALUE;
  }
}

static CuResult fake_error_string(CuResult rc, const char **text) {
  *text = rc == CUDRV_ERROR_OUT_OF_MEMORY ? "out of memory" : NULL;
  return *text ? CUDRV_SUCCESS : CUDRV_ERROR_INVALID_VALUE;
}

static CuResult fake_mem_alloc(CuDevicePtr *p, size_t bytes) {
  if (bytes > 1000) return CUDRV_ERROR_OUT_OF_MEMORY;
  *p = 0x1000 + (CuDevicePtr)++fake.allocs;
  return CUDRV_SUCCESS;
}

static CuResult fake_mem_free(CuDevicePtr p) {
  (void)p;
  fake.frees++;
  return CUDRV_SUCCESS;
}

static CuDriver fake_driver(void) {
  CuDriver d = {0};
  snprintf(d.dl.path, sizeof d.dl.path, "fake-libcuda");
  d.cuInit = fake_init;
  d.cuDriverGetVersion = fake_driver_version;
  d.cuDeviceGetCount = fake_device_count;
  d.cuDeviceGet = fake_device_get;
  d.cuDeviceGetName = fake_device_name;
  d.cuDeviceGetAttribute = fake_attribute;
  d.cuDeviceTotalMem = fake_total_mem;
  d.cuGetErrorName = fake_error_name;
  d.cuGetErrorString = fake_error_string;
  d.cuMemAlloc = fake_mem_alloc;
  d.cuMemFree = fake_mem_free;
  return d;
}

static int reset_fake(void **state) {
  (void)state;
  memset(&fake, 0, sizeof fake);
  fake.device_count = 2;
  fake.fail_attribute = -1;
  return 0;
}

/* ---- The real loader, before anything loaded (runs first) ----------------------------------- */

static void env_override_missing_fails(void **state) {
  (void)state;
  const CuDriver *drv = NULL;
  char err[1024] = "";
  char *text = NULL;
  setenv("PYK2CUDA_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  assert_int_equal(cudrv_load(&drv, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(drv);
  assert_non_null(strstr(err, "no CUDA driver found: PYK2CUDA_LIBCUDA=/nonexistent/libcuda.so.1"));
  err[0] = '\0';
  assert_int_equal(cudrv_info(NULL, NULL, &text, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(text);
  assert_non_null(strstr(err, "PYK2CUDA_LIBCUDA"));
  unsetenv("PYK2CUDA_LIBCUDA");
}

static void open_missing_path(void **state) {
  (void)state;
  CuDriver drv;
  char err[1024] = "";
  assert_int_equal(cudrv_open(&drv, "/nonexistent", err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(drv.dl.handle);
  assert_non_null(strstr(err, "PYK2CUDA_LIBCUDA=/nonexistent could not be loaded"));
}

static void open_wrong_library(void **state) {
  (void)state;
  CuDriver drv;
  char err[1024] = "";
  assert_int_equal(cudrv_open(&drv, "libm.so.6", err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(drv.dl.handle);
  assert_non_null(strstr(err, "lacks cuInit"));
}

/* The CUDA toolkit ships a stub libcuda for linking: it loads and binds, but cuInit says there is
 * no driver behind it. */
static void toolkit_stub(void **state) {
  (void)state;
  const char *home = getenv("CUDA_HOME");
  char path[512];
  snprintf(path, sizeof path, "%s/lib64/stubs/libcuda.so",
           home && *home ? home : "/usr/local/cuda");
  if (access(path, R_OK) != 0) skip();
  CuDriver drv;
  char err[1024] = "";
  char *text = NULL;
  assert_int_equal(cudrv_open(&drv, path, err, sizeof err), P2C_OK);
  assert_non_null(drv.cuInit);
  assert_non_null(drv.cuLaunchKernel);
  assert_non_null(drv.cuEventElapsedTime);
  /* What the GPU runtime needs beyond the basics: async copies, memset, pinned memory, kernel
   * attributes, module globals. All required: a driver without them is refused at load. */
  assert_non_null(drv.cuFuncGetAttribute);
  assert_non_null(drv.cuFuncSetAttribute);
  assert_non_null(drv.cuModuleGetGlobal);
  assert_non_null(drv.cuMemcpyHtoDAsync);
  assert_non_null(drv.cuMemcpyDtoHAsync);
  assert_non_null(drv.cuMemcpyDtoDAsync);
  assert_non_null(drv.cuMemsetD8);
  assert_non_null(drv.cuMemsetD8Async);
  assert_non_null(drv.cuMemHostAlloc);
  assert_non_null(drv.cuMemFreeHost);
  assert_non_null(drv.cuMemHostRegister);
  assert_non_null(drv.cuMemHostUnregister);
  assert_int_equal(cudrv_init(&drv, NULL, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_non_null(strstr(err, "no CUDA driver found"));
  assert_non_null(strstr(err, "stub library"));
  assert_int_equal(cudrv_info(&drv, NULL, &text, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(text);
  cudrv_close(&drv);
  assert_null(drv.dl.handle);
  cudrv_close(&drv); /* twice is harmless */
}

/* ---- CU_CHECK and cudrv_fail ---------------------------------------------------------------- */

static int check_line; /* the line of the CU_CHECK expected to fail */

/* Allocates two buffers, the second too big for the fake driver; frees what it got. */
static P2cStatus alloc_two(const CuDriver *drv, size_t second, char *err, size_t errlen) {
  P2cStatus status = P2C_OK;
  CuDevicePtr a = 0, b = 0;
  CU_CHECK(drv, cuMemAlloc(&a, 16), err, errlen);
  check_line = __LINE__ + 1;
  CU_CHECK(drv, cuMemAlloc(&b, second), err, errlen);
cleanup:
  if (b) drv->cuMemFree(b);
  if (a) drv->cuMemFree(a);
  return status;
}

static void check_macro_records_and_cleans_up(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[512] = "";
  assert_int_equal(alloc_two(&drv, 32, err, sizeof err), P2C_OK);
  assert_int_equal(fake.allocs, 2);
  assert_int_equal(fake.frees, 2);
  assert_string_equal(err, "");

  assert_int_equal(alloc_two(&drv, 4096, err, sizeof err), P2C_ERR_CUDA);
  assert_int_equal(fake.allocs, 3);
  assert_int_equal(fake.frees, 3); /* the first buffer was released on the error path */
  char where[64];
  snprintf(where, sizeof where, "test_cudrv.c:%d)", check_line);
  assert_non_null(
      strstr(err, "cuMemAlloc(&b, second) failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory ("));
  assert_non_null(strstr(err, where));
}

static void fail_names_unknown_codes(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[256];
  assert_int_equal(cudrv_fail(&drv, 12345, "cuFoo()", "x.c", 7, err, sizeof err), P2C_ERR_CUDA);
  assert_string_equal(err, "cuFoo() failed: CUresult 12345 (x.c:7)");
  assert_int_equal(cudrv_fail(NULL, CUDRV_ERROR_NO_DEVICE, "cuInit(0)", "x.c", 8, err, sizeof err),
                   P2C_ERR_NO_CUDA);
  assert_string_equal(err, "cuInit(0) failed: CUresult 100 (x.c:8)");
  /* A short buffer truncates, never overflows. */
  char tiny[8];
  cudrv_fail(&drv, CUDRV_ERROR_OUT_OF_MEMORY, "cuMemAlloc(&p, n)", "x.c", 9, tiny, sizeof tiny);
  assert_string_equal(tiny, "cuMemAl");
}

/* ---- cudrv_init and cudrv_info on the fake driver ------------------------------------------- */

static void init_counts_devices(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[256] = "";
  int count = -1;
  assert_int_equal(cudrv_init(&drv, &count, err, sizeof err), P2C_OK);
  assert_int_equal(count, 2);
}

static void no_device(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[256] = "";
  char *text = NULL;
  int count = -1;
  fake.init_rc = CUDRV_ERROR_NO_DEVICE;
  assert_int_equal(cudrv_init(&drv, &count, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_string_equal(err, "no CUDA device found");
  assert_int_equal(count, 0);
  assert_int_equal(cudrv_info(&drv, NULL, &text, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_null(text);
  assert_string_equal(err, "no CUDA device found");
  /* cuInit succeeds but there are no devices. */
  fake.init_rc = CUDRV_SUCCESS;
  fake.device_count = 0;
  assert_int_equal(cudrv_info(&drv, NULL, &text, err, sizeof err), P2C_ERR_NO_CUDA);
  assert_string_equal(err, "no CUDA device found");
}

static void init_other_failure(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[256] = "";
  fake.init_rc = CUDRV_ERROR_INVALID_VALUE;
  assert_int_equal(cudrv_init(&drv, NULL, err, sizeof err), P2C_ERR_CUDA);
  assert_non_null(strstr(err, "cuInit(0) failed: CUDA_ERROR_INVALID_VALUE"));
}

static void info_describes_devices(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[256] = "";
  char *text = NULL;
  assert_int_equal(cudrv_info(&drv, NULL, &text, err, sizeof err), P2C_OK);
  assert_non_null(text);
  assert_string_equal(text,
                      "CUDA driver: 13.0 (fake-libcuda)\n"
                      "devices: 2\n"
                      "device 0: Fake H100\n"
                      "  compute capability: 9.0 (sm_90)\n"
                      "  total memory: 80.0 GiB (85899345920 bytes)\n"
                      "  multiprocessors: 132\n"
                      "  max threads per block: 1024\n"
                      "  max shared memory per block: 49152 bytes (232448 bytes opt-in)\n"
                      "device 1: Fake H200\n"
                      "  compute capability: 9.1 (sm_91)\n"
                      "  total memory: 80.0 GiB (85899345920 bytes)\n"
                      "  multiprocessors: 132\n"
                      "  max threads per block: 1024\n"
                      "  max shared memory per block: 49152 bytes (232448 bytes opt-in)\n");
  cudrv_text_free(NULL, text);
  cudrv_text_free(NULL, NULL);
}

static void info_reports_failed_query(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[512] = "";
  char *text = NULL;
  fake.fail_attribute = CUDRV_ATTR_MULTIPROCESSOR_COUNT;
  assert_int_equal(cudrv_info(&drv, NULL, &text, err, sizeof err), P2C_ERR_CUDA);
  assert_null(text);
  assert_non_null(
      strstr(err, "cuDeviceGetAttribute(&f->sm_count, CUDRV_ATTR_MULTIPROCESSOR_COUNT, dev)"));
  assert_non_null(strstr(err, "CUDA_ERROR_INVALID_VALUE"));
  assert_non_null(strstr(err, "cudrv.c:"));
}

/* ---- The host allocator --------------------------------------------------------------------- */

typedef struct CountingAlloc {
  long live, calls, fail_at; /* fail_at: fail the n-th allocation (1-based); 0: never */
} CountingAlloc;

static void *counting_realloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  CountingAlloc *c = ud;
  (void)old_size;
  if (new_size == 0) {
    if (ptr) c->live--;
    free(ptr);
    return NULL;
  }
  if (!ptr) {
    c->calls++;
    if (c->fail_at && c->calls == c->fail_at) return NULL;
    c->live++;
  }
  return realloc(ptr, new_size);
}

static void info_allocation_failures(void **state) {
  (void)state;
  CuDriver drv = fake_driver();
  char err[256];
  char *text = NULL;
  CountingAlloc c = {0};
  P2cAllocator alloc = {counting_realloc, &c};
  assert_int_equal(cudrv_info(&drv, &alloc, &text, err, sizeof err), P2C_OK);
  long needed = c.calls;
  assert_int_equal(c.live, 1); /* the text */
  cudrv_text_free(&alloc, text);
  assert_int_equal(c.live, 0);
  for (long n = 1; n <= needed; n++) {
    c = (CountingAlloc){.fail_at = n};
    text = NULL;
    assert_int_equal(cudrv_info(&drv, &alloc, &text, err, sizeof err), P2C_ERR_NOMEM);
    assert_null(text);
    assert_non_null(strstr(err, "out of memory"));
    assert_int_equal(c.live, 0);
  }
}

/* ---- The real driver, whatever this machine has --------------------------------------------- */

static void real_driver(void **state) {
  (void)state;
  const CuDriver *drv = NULL;
  char err[1024] = "";
  char *text = NULL;
  P2cStatus st = cudrv_load(&drv, err, sizeof err);
  if (st != P2C_OK) {
    assert_int_equal(st, P2C_ERR_NO_CUDA);
    assert_string_equal(err, "no CUDA driver found (libcuda.so.1 could not be loaded)");
    return;
  }
  st = cudrv_info(NULL, NULL, &text, err, sizeof err);
  if (st == P2C_ERR_NO_CUDA) {
    assert_null(text);
    assert_true(strncmp(err, "no CUDA device found", 20) == 0 ||
                strncmp(err, "no CUDA driver found", 20) == 0);
    return;
  }
  assert_int_equal(st, P2C_OK);
  assert_non_null(strstr(text, "device 0: "));
  print_message("%s", text);
  cudrv_text_free(NULL, text);
}

int main(void) {
  const struct CMUnitTest loader[] = {
      cmocka_unit_test(env_override_missing_fails),
      cmocka_unit_test(open_missing_path),
      cmocka_unit_test(open_wrong_library),
      cmocka_unit_test(toolkit_stub),
  };
  const struct CMUnitTest with_fake[] = {
      cmocka_unit_test_setup(check_macro_records_and_cleans_up, reset_fake),
      cmocka_unit_test_setup(fail_names_unknown_codes, reset_fake),
      cmocka_unit_test_setup(init_counts_devices, reset_fake),
      cmocka_unit_test_setup(no_device, reset_fake),
      cmocka_unit_test_setup(init_other_failure, reset_fake),
      cmocka_unit_test_setup(info_describes_devices, reset_fake),
      cmocka_unit_test_setup(info_reports_failed_query, reset_fake),
      cmocka_unit_test_setup(info_allocation_failures, reset_fake),
  };
  const struct CMUnitTest real[] = {
      cmocka_unit_test(real_driver),
  };
  int failed = cmocka_run_group_tests_name("cudrv: loader", loader, NULL, NULL);
  failed += cmocka_run_group_tests_name("cudrv: fake driver", with_fake, NULL, NULL);
  failed += cmocka_run_group_tests_name("cudrv: this machine", real, NULL, NULL);
  return failed;
}
