/* Unit tests of the .npy reader and writer (src/runtime/npy).
 *
 * Covered: round trips of every dtype and of 0-d, 1-d, empty and 8-d shapes; the Fortran-order
 * flag; byte-swapping of big-endian input built by hand; format versions 1.0, 2.0 and 3.0;
 * header variants NumPy and other writers produce (key order, trailing comma, quotes, padding,
 * Python 2 'L' suffixes); refusal without a crash of malformed and hostile input (prefix,
 * header, dtypes, shapes, data length), including every truncation of a valid file and random
 * corruption; injected allocation failures (P2C_ERR_NOMEM, nothing leaked); I/O errors and the
 * atomic write; character sequences (S<n>, U<n>) alone and in records.
 *
 * Interoperability with real NumPy was checked by hand when this code was written (NumPy 1.24.2
 * under /usr/bin/python3) with a throwaway C driver: np.save wrote bool, i1, '>u2', u8, '<f4'
 * (3, 4), '>f8' (2, 3), '>i8' (2, 3, 4), Fortran-order '<i4' (2, 3), a 0-d float64, an empty
 * (0, 5) u1 array, and '<i2' files in format versions 2.0 and 3.0 (numpy.lib.format.write_array).
 * npy_read_file gave the right dtype, shape, flag and values for each (big-endian data swapped,
 * Fortran data in column order), and refused with the expected messages c16, '<f2', '<U2',
 * 'M8[D]' (loaded since, as datetime64[D]), object (pickled) and structured arrays, an .npz archive and a pickle. Each array read
 * was written back with npy_write_file and np.load gave an equal array with the same shape,
 * kind, size and Fortran flag; the header was aligned to 64 bytes, the mode 0644 under umask
 * 022, and no temporary file was left behind. Two of those NumPy-written files are embedded
 * below as hex (numpy_f8be, numpy_fortran) so that the check stays in the suite. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/npy/npy.h"

enum { BUF_CAP = 4096, ERR_CAP = 256, PATH_CAP = 512 };

/* ---- Helpers ------------------------------------------------------------------------------- */

/* Lays out a .npy file in buf: magic, version major.0, the header length field (2 bytes for
 * version 1, else 4) set to strlen(hdr), hdr verbatim, then the data. Returns the length. */
static size_t make_npy(unsigned char *buf, int major, const char *hdr, const void *data,
                       size_t ndata) {
  size_t hlen = strlen(hdr), lenbytes = major == 1 ? 2 : 4, at = 8;
  assert_true(8 + lenbytes + hlen + ndata <= BUF_CAP);
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  for (size_t i = 0; i < lenbytes; i++) buf[at++] = (unsigned char)(hlen >> (8 * i));
  memcpy(buf + at, hdr, hlen);
  if (ndata) memcpy(buf + at + hlen, data, ndata);
  return at + hlen + ndata;
}

/* Expects npy_read_buffer to refuse buf with P2C_ERR_FORMAT and a message containing `want`. */
static void expect_format(const unsigned char *buf, size_t len, const char *want) {
  NpyArray a;
  char err[ERR_CAP];
  P2cStatus st = npy_read_buffer(buf, len, NULL, &a, err, sizeof err);
  if (st != P2C_ERR_FORMAT || !strstr(err, want))
    fail_msg("status %d, message \"%s\"; wanted P2C_ERR_FORMAT and \"%s\"", st, err, want);
  assert_null(a.data);
}

/* Expects a version 1.0 file with header `hdr` and no data to be refused with `want`. */
static void expect_bad_header(const char *hdr, const char *want) {
  unsigned char buf[BUF_CAP];
  expect_format(buf, make_npy(buf, 1, hdr, NULL, 0), want);
}

/* Reads buf, expecting success. */
static void read_ok(const unsigned char *buf, size_t len, NpyArray *a) {
  char err[ERR_CAP];
  P2cStatus st = npy_read_buffer(buf, len, NULL, a, err, sizeof err);
  if (st != P2C_OK) fail_msg("status %d: %s", st, err);
}

static size_t from_hex(const char *hex, unsigned char *out) {
  size_t n = strlen(hex) / 2;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(hex + 2 * i, "%2x", &v);
    out[i] = (unsigned char)v;
  }
  return n;
}

static size_t file_bytes(const char *path, unsigned char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static void write_bytes(const char *path, const void *buf, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

/* A fresh temporary directory per test (the test's state). */
typedef struct TmpDir {
  char path[PATH_CAP / 2];
} TmpDir;

static int make_tmpdir(void **state) {
  TmpDir *t = malloc(sizeof *t);
  const char *base = getenv("TMPDIR");
  snprintf(t->path, sizeof t->path, "%s/test_npy.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(t->path)) return -1;
  *state = t;
  return 0;
}

static int remove_tmpdir(void **state) {
  TmpDir *t = *state;
  DIR *d = opendir(t->path);
  struct dirent *ent;
  char p[PATH_CAP * 2];
  while (d && (ent = readdir(d))) {
    if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", t->path, ent->d_name);
    unlink(p);
  }
  if (d) closedir(d);
  rmdir(t->path);
  free(t);
  return 0;
}

static const char *in_dir(const TmpDir *t, const char *name, char out[PATH_CAP]) {
  snprintf(out, PATH_CAP, "%s/%s", t->path, name);
  return out;
}

static int count_entries(const TmpDir *t) {
  DIR *d = opendir(t->path);
  int n = 0;
  struct dirent *ent;
  while (d && (ent = readdir(d))) n += ent->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

/* An array over caller storage, C order. */
static NpyArray array_of(P2cScalarType t, size_t esize, int ndim, const int64_t *shape,
                         void *data) {
  NpyArray a = {.dtype = t, .ndim = ndim, .data = data, .nbytes = esize};
  for (int i = 0; i < ndim; i++) {
    a.shape[i] = shape[i];
    a.nbytes *= (size_t)shape[i];
  }
  return a;
}

static void assert_same_array(const NpyArray *x, const NpyArray *y) {
  assert_int_equal(x->dtype, y->dtype);
  assert_int_equal(x->ndim, y->ndim);
  for (int i = 0; i < x->ndim; i++) assert_int_equal(x->shape[i], y->shape[i]);
  assert_int_equal(x->fortran_order, y->fortran_order);
  assert_int_equal(x->nbytes, y->nbytes);
  if (x->nbytes) assert_memory_equal(x->data, y->data, x->nbytes);
}

/* Writes `a` to name in t, reads it back, compares; returns the file's header text in hdr. */
static void round_trip(const TmpDir *t, const char *name, const NpyArray *a, char *hdr) {
  char path[PATH_CAP], err[ERR_CAP];
  unsigned char raw[BUF_CAP];
  NpyArray b;
  in_dir(t, name, path);
  assert_int_equal(npy_write_file(path, a, err, sizeof err), P2C_OK);
  assert_string_equal(err, "");
  assert_int_equal(npy_read_file(path, NULL, &b, err, sizeof err), P2C_OK);
  assert_same_array(a, &b);
  npy_free(&b, NULL);
  size_t n = file_bytes(path, raw, sizeof raw);
  size_t hlen = raw[8] | (size_t)raw[9] << 8;
  assert_int_equal(raw[6], 1);
  assert_int_equal((10 + hlen) % 64, 0);
  assert_int_equal(raw[10 + hlen - 1], '\n');
  assert_int_equal(n, 10 + hlen + a->nbytes);
  memcpy(hdr, raw + 10, hlen);
  hdr[hlen] = '\0';
}

/* ---- Records ------------------------------------------------------------------------------- */

/* A record dtype as NumPy writes it for np.dtype([('a', np.int32), ('b', np.float64), ('d',
 * np.uint8, (2, 3))], align=True): fields one after another, padding as '|V' entries; read, the
 * offsets and itemsize come out, and written, the same descr goes back. */
static void test_record_descr(void **state) {
  const char *descr = "[('a', '<i4'), ('', '|V4'), ('b', '<f8'), ('d', '|u1', (2, 3)), ('', '|V2')]";
  char hdr[BUF_CAP], text[600];
  unsigned char buf[BUF_CAP], data[2 * 24];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7);
  snprintf(text, sizeof text, "{'descr': %s, 'fortran_order': False, 'shape': (2,), }\n", descr);
  NpyArray a;
  read_ok(buf, make_npy(buf, 1, text, data, sizeof data), &a);
  assert_int_equal(a.dtype, P2C_RECORD);
  assert_non_null(a.record);
  assert_int_equal(a.record->itemsize, 24);
  assert_int_equal(a.record->field_count, 3);
  assert_string_equal(a.record->fields[1].name, "b");
  assert_int_equal(a.record->fields[1].offset, 8);
  assert_int_equal(a.record->fields[1].type, P2C_FLOAT64);
  assert_int_equal(a.record->fields[2].offset, 16);
  assert_int_equal(a.record->fields[2].ndim, 2);
  assert_int_equal(a.record->fields[2].shape[1], 3);
  assert_int_equal(a.nbytes, sizeof data);
  round_trip(*state, "rec.npy", &a, hdr);
  assert_non_null(strstr(hdr, descr));
  npy_free(&a, NULL);
}

/* Records that cannot be read: nested records, a field name that is not an identifier, bad
 * padding, the dict form, big-endian fields, fields too large to be real. Nothing stays allocated (the sanitizer build). */
static void test_record_refused(void **state) {
  (void)state;
  expect_bad_header("{'descr': [('a', [('x', '<i4')])], 'fortran_order': False, 'shape': (1,), }\n", "records inside records");
  expect_bad_header("{'descr': [('a b', '<i4')], 'fortran_order': False, 'shape': (1,), }\n", "ASCII identifiers");
  expect_bad_header("{'descr': [('a', '<i4'), ('', '<i4')], 'fortran_order': False, 'shape': (1,), }\n", "padding");
  expect_bad_header("{'descr': {'names': ['a'], 'formats': ['<i4']}, 'fortran_order': False, 'shape': (1,), }\n", "dict form");
  expect_bad_header("{'descr': [('a', '>i4')], 'fortran_order': False, 'shape': (1,), }\n", "byte order");
  expect_bad_header("{'descr': [], 'fortran_order': False, 'shape': (1,), }\n", "without fields");
  /* a field's size whose product of extents overflows int64 (found by fuzz_npy) */
  expect_bad_header("{'descr': [('a', '|b1', (41, 3333333333333333333))], 'fortran_order': False, 'shape': (1,), }\n", "too large");
  expect_bad_header("{'descr': [('a', '<f8', (65536, 65536, 65536))], 'fortran_order': False, 'shape': (1,), }\n", "too large");
}

/* ---- Character sequences ------------------------------------------------------------------ */

/* NumPy's S<n> and <U<n> (np.save of np.array([b'ab', b'cde'], 'S3') and of its str
 * counterpart): the dtype carries the length, S data is read as it is, U data (UCS-4) is
 * swapped per code point from '>U', and both are written back as '|S3' and '<U3'. */
static void test_charseq(void **state) {
  const unsigned char s3[6] = {'a', 'b', 0, 'c', 'd', 'e'};
  const unsigned char u2be[8] = {0, 0, 0, 'h', 0, 0, 0x20, 0xac};   /* "h\u20ac" big-endian */
  unsigned char buf[BUF_CAP];
  char hdr[BUF_CAP];
  NpyArray a;
  read_ok(buf, make_npy(buf, 1, "{'descr': '|S3', 'fortran_order': False, 'shape': (2,), }\n", s3, 6), &a);
  assert_int_equal(a.dtype, P2C_CHARSEQ(3));
  assert_int_equal(p2c_dtype_size(a.dtype, NULL), 3);
  assert_memory_equal(a.data, s3, 6);
  round_trip(*state, "s3.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'descr': '|S3'"));
  npy_free(&a, NULL);
  read_ok(buf, make_npy(buf, 1, "{'descr': '>U2', 'fortran_order': False, 'shape': (), }\n", u2be, 8), &a);
  assert_int_equal(a.dtype, P2C_UNICHARSEQ(2));
  assert_int_equal(((uint32_t *)a.data)[0], 'h');
  assert_int_equal(((uint32_t *)a.data)[1], 0x20ac);
  round_trip(*state, "u2.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'descr': '<U2'"));
  npy_free(&a, NULL);
  read_ok(buf, make_npy(buf, 1, "{'descr': '|a2', 'fortran_order': False, 'shape': (3,), }\n", s3, 6), &a);
  assert_int_equal(a.dtype, P2C_CHARSEQ(2));   /* 'a2': NumPy's old spelling of S2 */
  npy_free(&a, NULL);
}

/* A record with character fields (np.dtype([('x', '<i4'), ('y', '<U3'), ('z', 'S5')], align=True))
 * reads with their types and writes the same descr back. */
static void test_charseq_record(void **state) {
  const char *descr = "[('x', '<i4'), ('y', '<U3'), ('z', '|S5'), ('', '|V3')]";
  char hdr[BUF_CAP], text[600];
  unsigned char buf[BUF_CAP], data[24];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 5);
  snprintf(text, sizeof text, "{'descr': %s, 'fortran_order': False, 'shape': (1,), }\n", descr);
  NpyArray a;
  read_ok(buf, make_npy(buf, 1, text, data, sizeof data), &a);
  assert_int_equal(a.record->itemsize, 24);
  assert_int_equal(a.record->fields[1].type, P2C_UNICHARSEQ(3));
  assert_int_equal(a.record->fields[1].offset, 4);
  assert_int_equal(a.record->fields[2].type, P2C_CHARSEQ(5));
  assert_int_equal(a.record->fields[2].offset, 16);
  round_trip(*state, "rec_chars.npy", &a, hdr);
  assert_non_null(strstr(hdr, descr));
  npy_free(&a, NULL);
}

/* ---- Round trips --------------------------------------------------------------------------- */

static void test_roundtrip_every_dtype(void **state) {
  static const char *const descr[P2C_SCALAR_TYPE_COUNT] = {
    "'|b1'", "'|i1'", "'<i2'", "'<i4'", "'<i8'", "'|u1'", "'<u2'", "'<u4'", "'<u8'", "'<f4'",
    "'<f8'", "'<c8'", "'<c16'", "'<f2'"};
  static const size_t size[P2C_SCALAR_TYPE_COUNT] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16, 2};
  const int64_t shape[2] = {2, 3};
  unsigned char data[6 * 16];
  char hdr[BUF_CAP];
  for (int t = 0; t < P2C_DATETIME64; t++) {
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 37 + (size_t)t);
    if (t == P2C_BOOL)
      for (size_t i = 0; i < 6; i++) data[i] = i % 2;
    NpyArray a = array_of((P2cScalarType)t, size[t], 2, shape, data);
    round_trip(*state, "x.npy", &a, hdr);
    assert_non_null(strstr(hdr, descr[t]));
    assert_non_null(strstr(hdr, "'shape': (2, 3)"));
  }
}

/* datetime64 and timedelta64 of every unit: NumPy's descr ('<M8[D]', '<m8[ns]'; '<M8' without a
 * unit), 8 bytes an element, read back as the same type; a big-endian file is swapped. */
static void test_roundtrip_time_dtypes(void **state) {
  static const char *const units[P2C_TIME_UNIT_COUNT] = {"[Y]", "[M]", "[W]", "[D]", "[h]", "[m]", "[s]",
                                                         "[ms]", "[us]", "[ns]", "[ps]", "[fs]", "[as]", ""};
  const int64_t shape[1] = {3};
  int64_t data[3] = {INT64_MIN, -1, 12820};   /* NaT, 1969-12-31, 2005-02-06 (in days) */
  char hdr[BUF_CAP], want[32];
  for (int t = P2C_DATETIME64; t < P2C_SCALAR_TYPE_COUNT; t++) {
    NpyArray a = array_of((P2cScalarType)t, 8, 1, shape, data);
    round_trip(*state, "t.npy", &a, hdr);
    bool datetime = t < P2C_TIMEDELTA64;
    snprintf(want, sizeof want, "'<%c8%s'", datetime ? 'M' : 'm',
             units[t - (datetime ? P2C_DATETIME64 : P2C_TIMEDELTA64)]);
    assert_non_null(strstr(hdr, want));
  }
  const unsigned char be_one[8] = {0, 0, 0, 0, 0, 0, 0, 1};
  unsigned char raw[BUF_CAP];
  NpyArray b;
  read_ok(raw, make_npy(raw, 1, "{'descr': '>m8[s]', 'fortran_order': False, 'shape': (1,)}\n", be_one, 8), &b);
  assert_int_equal(b.dtype, P2C_TIMEDELTA64 + P2C_UNIT_s);
  assert_int_equal(*(int64_t *)b.data, 1);
  npy_free(&b, NULL);
}

static void test_roundtrip_shapes(void **state) {
  double d[4] = {3.25, -1, 0.5, 7};
  const int64_t one[1] = {4}, empty[2] = {0, 5}, eight[8] = {1, 2, 1, 2, 1, 1, 1, 1};
  char hdr[BUF_CAP];
  NpyArray a = array_of(P2C_FLOAT64, 8, 0, NULL, d);
  round_trip(*state, "scalar.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'shape': ()"));
  a = array_of(P2C_FLOAT64, 8, 1, one, d);
  round_trip(*state, "vec.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'shape': (4,)"));
  a = array_of(P2C_FLOAT64, 8, 2, empty, NULL);
  round_trip(*state, "empty.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'shape': (0, 5)"));
  a = array_of(P2C_FLOAT64, 8, 8, eight, d);
  round_trip(*state, "eight.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'shape': (1, 2, 1, 2, 1, 1, 1, 1)"));
}

static void test_roundtrip_fortran_flag(void **state) {
  int32_t d[6] = {0, 3, 1, 4, 2, 5};
  const int64_t shape[2] = {2, 3};
  char hdr[BUF_CAP];
  NpyArray a = array_of(P2C_INT32, 4, 2, shape, d);
  a.fortran_order = true;
  round_trip(*state, "f.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'fortran_order': True"));
  a.fortran_order = false;
  round_trip(*state, "c.npy", &a, hdr);
  assert_non_null(strstr(hdr, "'fortran_order': False"));
}

/* ---- Reading real and hand-made files ------------------------------------------------------ */

/* np.save("f8be.npy", (np.arange(6).reshape(2, 3) * 1.5).astype('>f8')), NumPy 1.24.2. */
static const char numpy_f8be[] =
  "934e554d5059010076007b276465736372273a20273e6638272c2027666f727472616e5f6f72646572273a20"
  "46616c73652c20277368617065273a2028322c2033292c207d20202020202020202020202020202020202020"
  "2020202020202020202020202020202020202020202020202020202020202020202020202020200a00000000"
  "000000003ff8000000000000400800000000000040120000000000004018000000000000401e000000000000";

/* np.save("fort.npy", np.asfortranarray(np.arange(6, dtype='i4').reshape(2, 3))). */
static const char numpy_fortran[] =
  "934e554d5059010076007b276465736372273a20273c6934272c2027666f727472616e5f6f72646572273a20"
  "547275652c20277368617065273a2028322c2033292c207d2020202020202020202020202020202020202020"
  "2020202020202020202020202020202020202020202020202020202020202020202020202020200a00000000"
  "0300000001000000040000000200000005000000";

static void test_numpy_written_files(void **state) {
  unsigned char buf[BUF_CAP];
  NpyArray a;
  read_ok(buf, from_hex(numpy_f8be, buf), &a);
  const double want[6] = {0, 1.5, 3, 4.5, 6, 7.5};
  assert_int_equal(a.dtype, P2C_FLOAT64);
  assert_int_equal(a.ndim, 2);
  assert_int_equal(a.shape[0], 2);
  assert_int_equal(a.shape[1], 3);
  assert_false(a.fortran_order);
  assert_memory_equal(a.data, want, sizeof want);
  npy_free(&a, NULL);
  read_ok(buf, from_hex(numpy_fortran, buf), &a);
  const int32_t column_major[6] = {0, 3, 1, 4, 2, 5};
  assert_int_equal(a.dtype, P2C_INT32);
  assert_true(a.fortran_order);
  assert_memory_equal(a.data, column_major, sizeof column_major);
  npy_free(&a, NULL);
}

static void test_big_endian_swapped(void **state) {
  /* 1.5 and -2.0 as big-endian doubles, then 0x01020304 as a big-endian int32 */
  const unsigned char f8[16] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0};
  const unsigned char i4[4] = {1, 2, 3, 4};
  const unsigned char u2[4] = {0x01, 0x02, 0xff, 0xfe};
  unsigned char buf[BUF_CAP];
  NpyArray a;
  read_ok(buf, make_npy(buf, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }\n",
                        f8, 16), &a);
  assert_true(((double *)a.data)[0] == 1.5 && ((double *)a.data)[1] == -2.0);
  npy_free(&a, NULL);
  read_ok(buf, make_npy(buf, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': ()}\n", i4,
                        4), &a);
  assert_int_equal(*(int32_t *)a.data, 0x01020304);
  npy_free(&a, NULL);
  read_ok(buf, make_npy(buf, 1, "{'descr': '>u2', 'fortran_order': False, 'shape': (2,)}\n", u2,
                        4), &a);
  assert_int_equal(((uint16_t *)a.data)[0], 0x0102);
  assert_int_equal(((uint16_t *)a.data)[1], 0xfffe);
  npy_free(&a, NULL);
  /* complex64 1.5-2j: each float32 part is swapped on its own, not the 8 bytes as a whole */
  const unsigned char c8[8] = {0x3f, 0xc0, 0, 0, 0xc0, 0, 0, 0};
  read_ok(buf, make_npy(buf, 1, "{'descr': '>c8', 'fortran_order': False, 'shape': ()}\n", c8, 8),
          &a);
  assert_int_equal(a.dtype, P2C_COMPLEX64);
  assert_true(((float *)a.data)[0] == 1.5f && ((float *)a.data)[1] == -2.0f);
  npy_free(&a, NULL);
}

static void test_big_endian_file(void **state) {
  const unsigned char i8[16] = {0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                0xfe};
  unsigned char buf[BUF_CAP];
  char path[PATH_CAP], err[ERR_CAP];
  NpyArray a;
  size_t n = make_npy(buf, 1, "{'descr': '>i8', 'fortran_order': True, 'shape': (1, 2)}\n", i8,
                      16);
  write_bytes(in_dir(*state, "be.npy", path), buf, n);
  assert_int_equal(npy_read_file(path, NULL, &a, err, sizeof err), P2C_OK);
  assert_true(a.fortran_order);
  assert_int_equal(((int64_t *)a.data)[0], 5);
  assert_int_equal(((int64_t *)a.data)[1], -2);
  npy_free(&a, NULL);
}

static void test_native_and_one_byte_orders(void **state) {
  const int32_t v = 0x01020304;
  const unsigned char b[3] = {1, 0, 1};
  unsigned char buf[BUF_CAP];
  NpyArray a;
  read_ok(buf, make_npy(buf, 1, "{'descr': '=i4', 'fortran_order': False, 'shape': ()}\n", &v,
                        4), &a);
  assert_int_equal(*(int32_t *)a.data, v);
  npy_free(&a, NULL);
  read_ok(buf, make_npy(buf, 1, "{'descr': '?', 'fortran_order': False, 'shape': (3,)}\n", b, 3),
          &a);
  assert_int_equal(a.dtype, P2C_BOOL);
  npy_free(&a, NULL);
  read_ok(buf, make_npy(buf, 1, "{'descr': '>i1', 'fortran_order': False, 'shape': (3,)}\n", b,
                        3), &a);
  assert_int_equal(a.dtype, P2C_INT8);
  assert_memory_equal(a.data, b, 3);
  npy_free(&a, NULL);
}

static void test_versions_2_and_3(void **state) {
  const int16_t d[3] = {1, -2, 300};
  const char *hdr = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }\n";
  unsigned char buf[BUF_CAP];
  NpyArray a;
  for (int major = 2; major <= 3; major++) {
    read_ok(buf, make_npy(buf, major, hdr, d, sizeof d), &a);
    assert_int_equal(a.dtype, P2C_INT16);
    assert_memory_equal(a.data, d, sizeof d);
    npy_free(&a, NULL);
  }
  size_t n = make_npy(buf, 1, hdr, d, sizeof d);
  buf[6] = 4;
  expect_format(buf, n, "unsupported .npy format version 4.0");
  buf[6] = 1;
  buf[7] = 1;
  expect_format(buf, n, "unsupported .npy format version 1.1");
}

static void test_header_variants(void **state) {
  static const char *const headers[] = {
    "{'shape': (2,), 'descr': '<f4', 'fortran_order': False}\n",
    "{\"fortran_order\": False, \"shape\": (2,), \"descr\": \"<f4\", }          \n",
    "{ 'descr' : '<f4' ,\t'fortran_order':False,'shape':( 2 , ) , }\n",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }\n",
    "{'descr': 'f4', 'fortran_order': False, 'shape': (2,)}\r\n",
    "{'descr': '<f4',\n 'fortran_order': False,\n 'shape': (2,)}\n",
  };
  const float d[2] = {1, 2};
  unsigned char buf[BUF_CAP];
  NpyArray a;
  for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
    read_ok(buf, make_npy(buf, 1, headers[i], d, sizeof d), &a);
    assert_int_equal(a.dtype, P2C_FLOAT32);
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.shape[0], 2);
    npy_free(&a, NULL);
  }
}

/* ---- Hostile input ------------------------------------------------------------------------- */

static void test_bad_prefix(void **state) {
  const char *hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': ()}\n";
  unsigned char buf[BUF_CAP];
  size_t n = make_npy(buf, 1, hdr, "abcd", 4);
  expect_format(buf, 0, "it is empty");
  expect_format(buf, 4, "ends inside the magic string");
  expect_format(buf, 7, "ends inside the format version");
  expect_format(buf, 9, "ends inside the header length");
  expect_format(buf, 20, "the header length is 54 bytes, but only 10 bytes follow");
  expect_format((const unsigned char *)"\x80\x04\x95", 3, "looks like a Python pickle");
  expect_format((const unsigned char *)"PK\3\4rest", 8, "looks like a .npz archive");
  buf[1] = 'n';
  expect_format(buf, n, "bad magic string");
  n = make_npy(buf, 2, hdr, "abcd", 4);
  memset(buf + 8, 0xff, 4);
  expect_format(buf, n, "header length 4294967295 exceeds the limit");
  n = make_npy(buf, 1, hdr, "abcd", 4);
  buf[8] = 200;
  expect_format(buf, n, "the header length is 200 bytes, but only 58 bytes follow");
}

static void test_bad_headers(void **state) {
  static const char *const cases[][2] = {
    {"{'descr': '<f4', 'fortran_order': False}\n", "lacks the key 'shape'"},
    {"{'shape': (), 'fortran_order': False}\n", "lacks the key 'descr'"},
    {"{'descr': '<f4', 'shape': ()}\n", "lacks the key 'fortran_order'"},
    {"{}\n", "lacks the key 'descr'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}\n", "unknown key 'extra'"},
    {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}\n",
     "duplicate key 'descr'"},
    {"{'descr': '|O', 'fortran_order': False, 'shape': (3,)}\n", "unsupported dtype '|O' (object"},
    {"{'descr': [('a', '<i4'), ('b', [('c', '<f8')])], 'fortran_order': False, 'shape': ()}\n",
     "records inside records are not supported"},
    {"{'descr': '<c32', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<c32'"},
    {"{'descr': '<U0', 'fortran_order': False, 'shape': ()}\n", "'<U0' (strings have 1 to"},
    {"{'descr': '|S', 'fortran_order': False, 'shape': ()}\n", "'|S' (strings have 1 to"},
    {"{'descr': '|S2x', 'fortran_order': False, 'shape': ()}\n", "'|S2x' (strings have 1 to"},
    {"{'descr': '<U1048577', 'fortran_order': False, 'shape': ()}\n", "'<U1048577' (strings have 1 to"},
    {"{'descr': '<U99999999999999999999', 'fortran_order': False, 'shape': ()}\n", "(strings have 1 to"},
    {"{'descr': '|U3', 'fortran_order': False, 'shape': ()}\n", "has no byte order"},
    {"{'descr': [('a', '<U2', (3,))], 'fortran_order': False, 'shape': (1,), }\n", "array of strings"},
    {"{'descr': '<M8[10D]', 'fortran_order': False, 'shape': ()}\n", "'<M8[10D]' (datetime64 and timedelta64 take one unit"},
    {"{'descr': '<m8[B]', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<m8[B]'"},
    {"{'descr': '<M4[D]', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<M4[D]'"},
    {"{'descr': '<M8[D', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<M8[D'"},
    {"{'descr': '|M8[D]', 'fortran_order': False, 'shape': ()}\n", "has no byte order"},
    {"{'descr': '<f16', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<f16'"},
    {"{'descr': '<i3', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<i3'"},
    {"{'descr': '', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype ''"},
    {"{'descr': '<f4x', 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<f4x'"},
    {"{'descr': '|i4', 'fortran_order': False, 'shape': ()}\n", "has no byte order"},
    {"{'descr': 5, 'fortran_order': False, 'shape': ()}\n", "expected a string, found '5'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1)}\n", "negative dimension -1"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}\n",
     "the shape is too large"},
    {"{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775807,)}\n",
     "the shape is too large"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}\n",
     "dimension 99999999999999999999 in the shape is too large"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1)}\n",
     "more than 8 dimensions"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (5)}\n", "is not a tuple"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (5,,)}\n", "expected an integer"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (5 6)}\n", "expected ',' or ')'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': 5}\n", "expected a shape tuple"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}\n", "expected ',' or ')'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': ((((((((((((1,),),),),),),),),),),),)}\n",
     "expected an integer dimension, found '('"},
    {"{'descr': '<f4, 'fortran_order': False, 'shape': ()}\n", "unsupported dtype '<f4, ' (supp"},
    {"{'descr': '<f4', 'fortran_order: False, 'shape': ()}\n", "unknown key 'fortran_order: F"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape\n", "unterminated string at byte 41"},
    {"{'descr': \"<f4', 'fortran_order': False, 'shape': ()}\n", "unterminated string at byte 10"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': ()", "does not end with a newline"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': ()}", "does not end with a newline"},
    {"", "does not end with a newline"},
    {"{'descr': '<f4', 'fortran_order': Fals, 'shape': ()}\n", "expected True or False"},
    {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': ()}\n", "expected True or False"},
    {"{'descr': '<f4', 'fortran_order': 0, 'shape': ()}\n", "expected True or False"},
    {"{'descr': '<\\x66', 'fortran_order': False, 'shape': ()}\n", "escape sequences"},
    {"{'descr': '<f4' 'fortran_order': False, 'shape': ()}\n", "byte 16: expected ',' or '}'"},
    {"{'descr': '<f4', 'fortran_order': False 'shape': ()}\n", "expected ',' or '}'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': ()}}\n", "expected the end of the header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': ()\n", "expected ',' or '}'"},
    {"[1, 2]\n", "expected '{' starting the header dict, found '['"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} x\n", "found 'x'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (),\1}\n", "found byte 0x01"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    expect_bad_header(cases[i][0], cases[i][1]);
}

static void test_nul_byte_in_header(void **state) {
  char hdr[] = "{'descr': '<f4', 'fortran_order': False, 'shape': ()}\n";
  unsigned char buf[BUF_CAP];
  size_t n = make_npy(buf, 1, hdr, "abcd", 4);
  buf[10 + 20] = '\0';   /* inside "fortran_order" */
  expect_format(buf, n, "unknown key 'fo?tran_order'");
  buf[10 + 1] = '\0';    /* before the first key */
  expect_format(buf, n, "found byte 0x00");
}

static void test_data_length(void **state) {
  const char *hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,)}\n";
  unsigned char buf[BUF_CAP] = {0};
  size_t n = make_npy(buf, 1, hdr, buf + 2000, 12);
  expect_format(buf, n, "truncated: header says 4000 bytes of data, file has 12");
  hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n";
  n = make_npy(buf, 1, hdr, buf + 2000, 9);
  expect_format(buf, n, "1 bytes of trailing data after the array (header says 8 bytes");
  hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3)}\n";
  n = make_npy(buf, 1, hdr, buf + 2000, 1);
  expect_format(buf, n, "trailing data");
}

/* Every proper prefix of a valid file is refused; the whole file is accepted. */
static void test_every_truncation(void **state) {
  const double d[3] = {1, 2, 3};
  unsigned char buf[BUF_CAP];
  size_t n = make_npy(buf, 3, "{'descr': '<f8', 'fortran_order': True, 'shape': (3,), }\n", d,
                      sizeof d);
  for (size_t k = 0; k < n; k++) {
    NpyArray a;
    char err[ERR_CAP];
    unsigned char *copy = malloc(k ? k : 1);   /* exact size, so ASan sees any overread */
    memcpy(copy, buf, k);
    assert_int_equal(npy_read_buffer(copy, k, NULL, &a, err, sizeof err), P2C_ERR_FORMAT);
    assert_null(a.data);
    free(copy);
  }
  NpyArray a;
  read_ok(buf, n, &a);
  npy_free(&a, NULL);
}

/* Random byte changes in the prefix and header: each result is success or a format error. */
static void test_random_corruption(void **state) {
  const int32_t d[4] = {1, 2, 3, 4};
  unsigned char good[BUF_CAP];
  size_t n = make_npy(good, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }\n",
                      d, sizeof d);
  uint32_t rng = 12345;
  for (int iter = 0; iter < 20000; iter++) {
    unsigned char *copy = malloc(n);
    memcpy(copy, good, n);
    for (int k = 0; k < 1 + iter % 4; k++) {
      rng = rng * 1103515245u + 12345u;
      copy[(rng >> 8) % (n - sizeof d)] = (unsigned char)(rng >> 20);
    }
    NpyArray a;
    char err[ERR_CAP];
    P2cStatus st = npy_read_buffer(copy, n, NULL, &a, err, sizeof err);
    assert_true(st == P2C_OK || st == P2C_ERR_FORMAT);
    if (st == P2C_OK) assert_true(a.nbytes <= sizeof d);
    npy_free(&a, NULL);
    free(copy);
  }
}

/* ---- Allocation failures ------------------------------------------------------------------- */

/* An allocator whose fail_at-th allocation (1-based) fails, counting live blocks and bytes. */
typedef struct FailAlloc {
  int calls, fail_at;
  long live_blocks, live_bytes;
} FailAlloc;

static void *fail_realloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
  FailAlloc *fa = ud;
  if (new_size == 0) {
    if (ptr) {
      fa->live_blocks--;
      fa->live_bytes -= (long)old_size;
    }
    free(ptr);
    return NULL;
  }
  if (++fa->calls == fa->fail_at) return NULL;
  void *p = realloc(ptr, new_size);
  if (p && !ptr) fa->live_blocks++;
  if (p) fa->live_bytes += (long)new_size - (long)old_size;
  return p;
}

/* Runs `read` with allocation n failing for n = 1, 2, ... until it succeeds: every failure must
 * be P2C_ERR_NOMEM leaving nothing allocated; returns how many allocations success took. */
static int count_until_success(const char *path, const unsigned char *buf, size_t len) {
  for (int fail_at = 1;; fail_at++) {
    FailAlloc fa = {0, fail_at, 0, 0};
    P2cAllocator alloc = {fail_realloc, &fa};
    NpyArray a;
    char err[ERR_CAP];
    P2cStatus st = path ? npy_read_file(path, &alloc, &a, err, sizeof err)
                        : npy_read_buffer(buf, len, &alloc, &a, err, sizeof err);
    if (st == P2C_OK) {
      npy_free(&a, &alloc);
      assert_int_equal(fa.live_blocks, 0);
      assert_int_equal(fa.live_bytes, 0);
      return fail_at;
    }
    assert_int_equal(st, P2C_ERR_NOMEM);
    assert_non_null(strstr(err, "out of memory"));
    assert_null(a.data);
    assert_int_equal(fa.live_blocks, 0);
    assert_int_equal(fa.live_bytes, 0);
  }
}

static void test_allocation_failures(void **state) {
  const float d[3] = {1, 2, 3};
  unsigned char buf[BUF_CAP];
  char path[PATH_CAP];
  size_t n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}\n", d,
                      sizeof d);
  write_bytes(in_dir(*state, "a.npy", path), buf, n);
  assert_int_equal(count_until_success(NULL, buf, n), 2);    /* the data */
  assert_int_equal(count_until_success(path, NULL, 0), 3);   /* the header text, the data */
}

/* ---- Files --------------------------------------------------------------------------------- */

static void test_file_errors(void **state) {
  const TmpDir *t = *state;
  char path[PATH_CAP], err[ERR_CAP];
  unsigned char buf[BUF_CAP] = {0};
  NpyArray a;
  assert_int_equal(npy_read_file(in_dir(t, "missing.npy", path), NULL, &a, err, sizeof err),
                   P2C_ERR_IO);
  assert_non_null(strstr(err, "missing.npy: cannot open: "));
  assert_int_equal(npy_read_file(t->path, NULL, &a, err, sizeof err), P2C_ERR_IO);
  assert_non_null(strstr(err, "is a directory"));
  size_t n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,)}\n",
                      buf + 2000, 12);
  write_bytes(in_dir(t, "short.npy", path), buf, n);
  assert_int_equal(npy_read_file(path, NULL, &a, err, sizeof err), P2C_ERR_FORMAT);
  assert_non_null(strstr(err, "short.npy: truncated: header says 4000 bytes of data, file has 12"));
  n = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}\n", buf + 2000,
               5);
  write_bytes(in_dir(t, "long.npy", path), buf, n);
  assert_int_equal(npy_read_file(path, NULL, &a, err, sizeof err), P2C_ERR_FORMAT);
  assert_non_null(strstr(err, "long.npy: 1 bytes of trailing data"));
  write_bytes(path, buf, 30);
  assert_int_equal(npy_read_file(path, NULL, &a, err, sizeof err), P2C_ERR_FORMAT);
  assert_non_null(strstr(err, "but only 20 bytes follow"));
}

static void test_file_truncations(void **state) {
  const uint16_t d[2] = {7, 9};
  unsigned char buf[BUF_CAP];
  char path[PATH_CAP], err[ERR_CAP];
  size_t n = make_npy(buf, 2, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,)}\n", d,
                      sizeof d);
  in_dir(*state, "t.npy", path);
  for (size_t k = 0; k <= n; k++) {
    NpyArray a;
    write_bytes(path, buf, k);
    P2cStatus st = npy_read_file(path, NULL, &a, err, sizeof err);
    assert_int_equal(st, k == n ? P2C_OK : P2C_ERR_FORMAT);
    npy_free(&a, NULL);
  }
}

static void test_write_atomic_and_errors(void **state) {
  const TmpDir *t = *state;
  int64_t shape[1] = {3};
  uint8_t d[3] = {1, 2, 3};
  char path[PATH_CAP], err[ERR_CAP];
  NpyArray a = array_of(P2C_UINT8, 1, 1, shape, d), b;
  in_dir(t, "out.npy", path);
  write_bytes(path, "old contents", 12);
  assert_int_equal(npy_write_file(path, &a, err, sizeof err), P2C_OK);
  assert_int_equal(count_entries(t), 1);   /* replaced, no temporary file left */
  assert_int_equal(npy_read_file(path, NULL, &b, err, sizeof err), P2C_OK);
  assert_same_array(&a, &b);
  npy_free(&b, NULL);
  assert_int_equal(npy_write_file(in_dir(t, "no/such/dir.npy", path), &a, err, sizeof err),
                   P2C_ERR_IO);
  assert_non_null(strstr(err, "no/such/dir.npy: cannot create"));
  assert_int_equal(npy_write_file(t->path, &a, err, sizeof err), P2C_ERR_IO);   /* a directory */
  assert_non_null(strstr(err, "cannot rename"));
  assert_int_equal(count_entries(t), 1);
}

static void test_write_usage_errors(void **state) {
  const TmpDir *t = *state;
  int64_t shape[2] = {2, 2};
  float d[4] = {0};
  char path[PATH_CAP], err[ERR_CAP];
  in_dir(t, "bad.npy", path);
  NpyArray a = array_of(P2C_FLOAT32, 4, 2, shape, d);
  a.nbytes = 12;
  assert_int_equal(npy_write_file(path, &a, err, sizeof err), P2C_ERR_USAGE);
  assert_non_null(strstr(err, "nbytes is 12, but the shape and dtype make 16"));
  a = array_of(P2C_FLOAT32, 4, 2, shape, NULL);
  assert_int_equal(npy_write_file(path, &a, err, sizeof err), P2C_ERR_USAGE);
  a = array_of(P2C_FLOAT32, 4, 2, shape, d);
  a.ndim = 9;
  assert_int_equal(npy_write_file(path, &a, err, sizeof err), P2C_ERR_USAGE);
  a = array_of(P2C_FLOAT32, 4, 2, shape, d);
  a.dtype = P2C_SCALAR_TYPE_COUNT;
  assert_int_equal(npy_write_file(path, &a, err, sizeof err), P2C_ERR_USAGE);
  a = array_of(P2C_FLOAT32, 4, 2, shape, d);
  a.shape[1] = -2;
  a.nbytes = 0;
  assert_int_equal(npy_write_file(path, &a, err, sizeof err), P2C_ERR_USAGE);
  assert_non_null(strstr(err, "negative dimension -2"));
  assert_int_equal(count_entries(t), 0);
}

static void test_error_buffer(void **state) {
  unsigned char buf[BUF_CAP];
  char small[8];
  NpyArray a;
  size_t n = make_npy(buf, 1, "{'descr': '|O', 'fortran_order': False, 'shape': ()}\n", NULL, 0);
  assert_int_equal(npy_read_buffer(buf, n, NULL, &a, NULL, 0), P2C_ERR_FORMAT);
  assert_int_equal(npy_read_buffer(buf, n, NULL, &a, small, sizeof small), P2C_ERR_FORMAT);
  assert_string_equal(small, "unsuppo");
  assert_int_equal(npy_read_file("/nonexistent/x.npy", NULL, &a, small, 1), P2C_ERR_IO);
  assert_string_equal(small, "");
  npy_free(NULL, NULL);
  npy_free(&a, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_charseq, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_charseq_record, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_roundtrip_every_dtype, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_roundtrip_time_dtypes, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_roundtrip_shapes, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_roundtrip_fortran_flag, make_tmpdir, remove_tmpdir),
    cmocka_unit_test(test_numpy_written_files),
    cmocka_unit_test(test_big_endian_swapped),
    cmocka_unit_test_setup_teardown(test_big_endian_file, make_tmpdir, remove_tmpdir),
    cmocka_unit_test(test_native_and_one_byte_orders),
    cmocka_unit_test(test_versions_2_and_3),
    cmocka_unit_test(test_header_variants),
    cmocka_unit_test(test_bad_prefix),
    cmocka_unit_test(test_bad_headers),
    cmocka_unit_test(test_nul_byte_in_header),
    cmocka_unit_test(test_data_length),
    cmocka_unit_test(test_every_truncation),
    cmocka_unit_test(test_random_corruption),
    cmocka_unit_test_setup_teardown(test_allocation_failures, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_file_errors, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_file_truncations, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_write_atomic_and_errors, make_tmpdir, remove_tmpdir),
    cmocka_unit_test_setup_teardown(test_write_usage_errors, make_tmpdir, remove_tmpdir),
    cmocka_unit_test(test_error_buffer),
    cmocka_unit_test_setup_teardown(test_record_descr, make_tmpdir, remove_tmpdir),
    cmocka_unit_test(test_record_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
