/* .npy reader and writer: see npy.h.
 *
 * A .npy file is the magic "\x93NUMPY", a major and a minor version byte, the header length
 * (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0), the header, then the raw
 * array data. The header is a Python dict literal padded with spaces and ending in '\n':
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * Version 3.0 only allows UTF-8 in it, which only field names of structured dtypes use; those
 * are refused anyway.
 *
 * Reading has three steps shared by the file and the buffer paths: check the fixed prefix
 * (check_prefix); parse the header into an NpyArray without data (parse_header, a strict
 * parser that never recurses: a shape is a flat tuple of integers, so nested input cannot
 * exhaust the stack); then check the data length against the shape, copy or read the data and
 * byte-swap it when the file's byte order is not the host's. The file path compares the data
 * length with the file's size before allocating, so a hostile shape cannot make us allocate
 * memory that the file does not back.
 *
 * Writing lays out the header in a stack buffer and writes header and data to a temporary file
 * that is then renamed over the destination. */
#include "runtime/npy/npy.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "types/types.h"   /* the units of datetime64 and timedelta64 */

#include "util/arena.h"

enum {
  MAGIC_LEN = 6,
  PREFIX_FIXED = 8,            /* magic and the two version bytes */
  MAX_HEADER_LEN = 1 << 20,    /* far above the header of any supported array */
  HEADER_ALIGN = 64,           /* magic + length + header is padded to a multiple of this */
  WRITE_HEADER_CAP = 16384,    /* a scalar dtype's header is about 230 bytes; records need more */
  MAX_FIELDS = 256,            /* fields of a record dtype */
  NAME_CAP = 64,               /* bytes of a field name, with its NUL */
  TMP_PATH_CAP = 4096 + 32,
  TMP_TRIES = 100,
  SHOW_MAX = 32,               /* bytes of a string from the file quoted in a message */
};

/* The header we write is short, so version 1.0 (2-byte length) always suffices. */
_Static_assert(WRITE_HEADER_CAP <= 65535, "header needs format version 2.0");

static const unsigned char magic[MAGIC_LEN] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* ---- Errors -------------------------------------------------------------------------------- */

/* Where a message goes: the caller's buffer, prefixed with the file name when there is one. */
typedef struct Err {
  char *buf;
  size_t len;
  const char *name;
} Err;

static void clear_error(Err *e) {
  if (e->buf && e->len) e->buf[0] = '\0';
}

__attribute__((format(printf, 3, 4)))
static P2cStatus fail(Err *e, P2cStatus status, const char *fmt, ...) {
  if (!e->buf || e->len == 0) return status;
  int n = e->name ? snprintf(e->buf, e->len, "%s: ", e->name) : 0;
  if (n < 0) n = 0;
  if ((size_t)n < e->len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->buf + n, e->len - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* Copies s[0..n) into out for quoting in a message: at most SHOW_MAX bytes, others as '?'. */
static const char *show(const char *s, size_t n, char out[SHOW_MAX + 4]) {
  size_t k = n > SHOW_MAX ? SHOW_MAX : n;
  for (size_t i = 0; i < k; i++) {
    unsigned char c = (unsigned char)s[i];
    out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  strcpy(out + k, n > k ? "..." : "");
  return out;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_word_char(char c) {
  return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* ---- Dtypes -------------------------------------------------------------------------------- */

/* Scalars and character sequences (S<n>, U<n>: p2c_dtype_charseq). */
static bool valid_dtype(P2cScalarType t) { return type_dtype_swap_size(t) > 0; }

static size_t dtype_size(P2cScalarType t) { return p2c_dtype_size(t, NULL); }

/* The size of one element of a: a scalar's, or the record's itemsize. */
static size_t item_size(const NpyArray *a) {
  if (a->dtype == P2C_RECORD) return a->record ? (size_t)a->record->itemsize : 0;
  return dtype_size(a->dtype);
}

/* The message for a descr the library's typestr reader refuses (types/dtype.c). */
static P2cStatus refuse_descr(DtypeProblem p, const char *s, size_t n, Err *e) {
  char shown[SHOW_MAX + 4];
  show(s, n, shown);
  P2cScalarType t;
  bool swap;
  if (p == DTYPE_NO_ORDER && type_dtype_parse(s + 1, n - 1, &t, &swap) == DTYPE_OK)   /* '|' removed */
    return fail(e, P2C_ERR_FORMAT, "dtype '%s' has no byte order, but its elements have %zu "
                "bytes", shown, type_dtype_swap_size(t));
  switch (p) {
  case DTYPE_NO_ORDER:
  case DTYPE_OBJECT:
    return fail(e, P2C_ERR_FORMAT, "unsupported dtype '%s' (object arrays hold pickled Python "
                "objects and are never loaded)", shown);
  case DTYPE_VOID: return fail(e, P2C_ERR_FORMAT, "unsupported dtype '%s' (void and record dtypes are not supported)", shown);
  case DTYPE_FLOAT_SIZE:
    return fail(e, P2C_ERR_FORMAT, "unsupported dtype '%s' (of the floats, only float16, float32 "
                "and float64 are supported)", shown);
  case DTYPE_CHARS:
    return fail(e, P2C_ERR_FORMAT, "unsupported dtype '%s' (strings have 1 to %d characters)", shown, P2C_MAX_CHARS);
  case DTYPE_TIME_UNIT:
    return fail(e, P2C_ERR_FORMAT, "unsupported dtype '%s' (datetime64 and timedelta64 take one unit: "
                "Y M W D h m s ms us ns ps fs as, or none)", shown);
  case DTYPE_UNKNOWN:
  case DTYPE_OK: break;
  }
  return fail(e, P2C_ERR_FORMAT, "unsupported dtype '%s' (supported: bool, int8..int64, "
              "uint8..uint64, float16, float32, float64, complex64, complex128, S<n>, U<n>, M8[unit], m8[unit])", shown);
}

/* Decodes a descr string ("<f4", "|b1", "?") into a->dtype, and whether the data needs a byte
 * swap to reach the host's order: the library's one typestr reader. */
static P2cStatus decode_descr(const char *s, size_t n, NpyArray *a, bool *swap, Err *e) {
  DtypeProblem p = type_dtype_parse(s, n, &a->dtype, swap);
  return p == DTYPE_OK ? P2C_OK : refuse_descr(p, s, n, e);
}

/* The descr we write for a dtype: the library's typestr of it ("<f4", "|b1", "|S12", "<U12",
 * "<M8[D]", "<m8"). */
enum { DESCR_CAP = 16 };
static void format_descr(P2cScalarType t, char out[DESCR_CAP]) { type_dtype_str(t, out, DESCR_CAP); }

/* Number of data bytes of a's shape and dtype; false when it exceeds PTRDIFF_MAX. Dimensions
 * must be non-negative. An empty array has 0 bytes whatever its other dimensions. */
static bool shape_bytes(const NpyArray *a, size_t *nbytes) {
  uint64_t count = 1;
  bool empty = false;
  for (int i = 0; i < a->ndim; i++) {
    uint64_t d = (uint64_t)a->shape[i];
    if (d == 0) {
      empty = true;
      continue;
    }
    if (count > (uint64_t)PTRDIFF_MAX / d) return false;
    count *= d;
  }
  size_t size = item_size(a);
  if (size == 0 || count > (uint64_t)PTRDIFF_MAX / size) return false;
  *nbytes = empty ? 0 : (size_t)count * size;
  return true;
}

/* ---- Header parser ------------------------------------------------------------------------- */

/* A cursor over the header text. */
typedef struct Parser {
  const char *start, *p, *end;
  Err *e;
  const P2cAllocator *alloc;   /* for a record's description */
} Parser;

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static void skip_space(Parser *ps) {
  while (ps->p < ps->end && is_space(*ps->p)) ps->p++;
}

/* Skips spaces, then consumes `c` when it comes next. */
static bool accept(Parser *ps, char c) {
  skip_space(ps);
  if (ps->p == ps->end || *ps->p != c) return false;
  ps->p++;
  return true;
}

/* Fails with "expected <what>", naming what was found at the cursor. */
static P2cStatus syntax(Parser *ps, const char *what) {
  skip_space(ps);
  size_t off = (size_t)(ps->p - ps->start);
  if (ps->p == ps->end)
    return fail(ps->e, P2C_ERR_FORMAT, "malformed header: expected %s, found its end", what);
  unsigned char c = (unsigned char)*ps->p;
  if (c >= 0x20 && c < 0x7f)
    return fail(ps->e, P2C_ERR_FORMAT, "malformed header at byte %zu: expected %s, found '%c'",
                off, what, c);
  return fail(ps->e, P2C_ERR_FORMAT, "malformed header at byte %zu: expected %s, found byte "
              "0x%02x", off, what, c);
}

static P2cStatus expect(Parser *ps, char c, const char *what) {
  return accept(ps, c) ? P2C_OK : syntax(ps, what);
}

/* A string literal in single or double quotes, without escapes; *s, *n get its contents. */
static P2cStatus parse_string(Parser *ps, const char **s, size_t *n) {
  skip_space(ps);
  if (ps->p == ps->end || (*ps->p != '\'' && *ps->p != '"')) return syntax(ps, "a string");
  const char *open = ps->p;
  char quote = *ps->p++;
  while (ps->p < ps->end && *ps->p != quote && *ps->p != '\n') {
    if (*ps->p == '\\')
      return fail(ps->e, P2C_ERR_FORMAT, "malformed header at byte %zu: escape sequences are "
                  "not supported", (size_t)(ps->p - ps->start));
    ps->p++;
  }
  if (ps->p == ps->end || *ps->p != quote)
    return fail(ps->e, P2C_ERR_FORMAT, "malformed header: unterminated string at byte %zu",
                (size_t)(open - ps->start));
  *s = open + 1;
  *n = (size_t)(ps->p - *s);
  ps->p++;
  return P2C_OK;
}

/* A Python bool literal: True or False. */
static P2cStatus parse_bool(Parser *ps, bool *out) {
  skip_space(ps);
  size_t left = (size_t)(ps->end - ps->p);
  const char *word = left >= 4 && !memcmp(ps->p, "True", 4) ? "True"
                     : left >= 5 && !memcmp(ps->p, "False", 5) ? "False" : NULL;
  const char *after = word ? ps->p + strlen(word) : NULL;
  if (!word || (after < ps->end && is_word_char(*after)))
    return syntax(ps, "True or False for 'fortran_order'");
  *out = word[0] == 'T';
  ps->p = after;
  return P2C_OK;
}

/* One dimension of the shape: a non-negative decimal integer that fits in int64 (an 'L'
 * suffix, written by NumPy under Python 2, is allowed). */
static P2cStatus parse_dim(Parser *ps, int64_t *out) {
  skip_space(ps);
  const char *begin = ps->p;
  bool negative = ps->p < ps->end && *ps->p == '-';
  if (negative) ps->p++;
  if (ps->p == ps->end || !is_digit(*ps->p)) {
    ps->p = begin;
    return syntax(ps, "an integer dimension");
  }
  uint64_t v = 0;
  bool big = false;
  for (; ps->p < ps->end && is_digit(*ps->p); ps->p++) {
    unsigned d = (unsigned)(*ps->p - '0');
    big = big || v > ((uint64_t)INT64_MAX - d) / 10;
    v = big ? v : v * 10 + d;
  }
  char text[SHOW_MAX + 4];
  show(begin, (size_t)(ps->p - begin), text);
  if (ps->p < ps->end && *ps->p == 'L') ps->p++;
  if (negative && (v || big))
    return fail(ps->e, P2C_ERR_FORMAT, "negative dimension %s in the shape", text);
  if (big) return fail(ps->e, P2C_ERR_FORMAT, "dimension %s in the shape is too large", text);
  *out = (int64_t)v;
  return P2C_OK;
}

/* The shape: a tuple of dimensions, "()", "(5,)" or "(3, 4)". */
static P2cStatus parse_shape(Parser *ps, NpyArray *a) {
  P2cStatus st = expect(ps, '(', "a shape tuple");
  bool comma = true;   /* whether another dimension may follow */
  a->ndim = 0;
  while (!st && !accept(ps, ')')) {
    if (!comma) return syntax(ps, "',' or ')' in the shape");
    if (a->ndim == P2C_MAX_NDIM)
      return fail(ps->e, P2C_ERR_FORMAT, "the shape has more than %d dimensions", P2C_MAX_NDIM);
    st = parse_dim(ps, &a->shape[a->ndim++]);
    comma = accept(ps, ',');
  }
  if (!st && a->ndim == 1 && !comma)
    return fail(ps->e, P2C_ERR_FORMAT, "shape (%lld) is not a tuple: a 1-d shape is written "
                "(%lld,)", (long long)a->shape[0], (long long)a->shape[0]);
  return st;
}

/* ---- Records: the list form of a structured dtype's descr ---- */

/* The largest record accepted, in bytes: far beyond any real one, and small enough that a
 * field's size and the running offset are added without overflow. */
#define RECORD_BYTES_MAX ((int64_t)1 << 40)

/* A loaded record's description, its fields and their names in one allocation. */
typedef struct RecordBlock {
  P2cRecord record;
  P2cRecordField fields[MAX_FIELDS];
  char names[MAX_FIELDS][NAME_CAP];
} RecordBlock;

static bool is_identifier(const char *s, size_t n) {
  if (n == 0 || n >= NAME_CAP || is_digit(s[0])) return false;
  for (size_t i = 0; i < n; i++)
    if (!is_word_char(s[i]) || (unsigned char)s[i] >= 0x80) return false;
  return true;
}

/* One field's dtype string and optional shape, into f (its offset and name already set). */
static P2cStatus parse_field_type(Parser *ps, P2cRecordField *f) {
  const char *s;
  size_t n;
  NpyArray t = {0};
  bool swap = false;
  P2cStatus st = parse_string(ps, &s, &n);
  if (!st) st = decode_descr(s, n, &t, &swap, ps->e);
  if (st) return st;
  if (swap) return fail(ps->e, P2C_ERR_FORMAT, "record fields in the other byte order are not supported");
  f->type = t.dtype;
  f->ndim = 0;
  if (!accept(ps, ',') || (skip_space(ps), ps->p < ps->end && *ps->p == ')')) return P2C_OK;
  if ((st = parse_shape(ps, &t))) return st;
  if (t.ndim > 0 && p2c_dtype_charseq(f->type, NULL, NULL))
    return fail(ps->e, P2C_ERR_FORMAT, "a record field that is an array of strings is not supported");
  f->ndim = t.ndim;
  for (int k = 0; k < t.ndim; k++) {
    if (t.shape[k] == 0) return fail(ps->e, P2C_ERR_FORMAT, "a nested array field needs elements");
    f->shape[k] = t.shape[k];
  }
  return P2C_OK;
}

/* The size of a padding entry's '|V<n>'. */
static P2cStatus parse_padding(Parser *ps, int64_t *bytes) {
  const char *s;
  size_t n;
  P2cStatus st = parse_string(ps, &s, &n);
  if (st) return st;
  bool ok = n >= 3 && n <= 11 && s[0] == '|' && s[1] == 'V';
  *bytes = 0;
  for (size_t i = 2; ok && i < n; i++) {
    ok = is_digit(s[i]);
    *bytes = *bytes * 10 + (s[i] - '0');
  }
  if (!ok || *bytes <= 0)
    return fail(ps->e, P2C_ERR_FORMAT, "a record's unnamed entry must be padding ('|V<bytes>')");
  return P2C_OK;
}

/* ('name', 'descr'[, shape]) or ('', '|V<n>'): a field or padding at *offset, which advances. */
static P2cStatus parse_record_entry(Parser *ps, RecordBlock *b, int64_t *offset) {
  const char *name;
  size_t n;
  P2cStatus st = expect(ps, '(', "a (name, dtype) tuple in the record");
  if (!st) st = parse_string(ps, &name, &n);
  if (!st) st = expect(ps, ',', "',' after the field name");
  if (st) return st;
  if (n == 0) {
    int64_t pad = 0;
    if ((st = parse_padding(ps, &pad))) return st;
    *offset += pad;
  } else {
    if (!is_identifier(name, n))
      return fail(ps->e, P2C_ERR_FORMAT, "record field names must be ASCII identifiers of at most %d bytes", NAME_CAP - 1);
    if (b->record.field_count == MAX_FIELDS) return fail(ps->e, P2C_ERR_FORMAT, "more than %d record fields", MAX_FIELDS);
    P2cRecordField *f = &b->fields[b->record.field_count];
    char *dst = b->names[b->record.field_count++];
    memcpy(dst, name, n);
    dst[n] = '\0';
    f->name = dst;
    f->offset = *offset;
    if (skip_space(ps), ps->p < ps->end && *ps->p == '[')
      return fail(ps->e, P2C_ERR_FORMAT, "records inside records are not supported");
    if ((st = parse_field_type(ps, f))) return st;
    /* Each step stays below RECORD_BYTES_MAX, so neither the product nor the sum overflows
     * (a field of shape (41, 3333333333333333333) did, found by fuzz_npy). */
    int64_t bytes = (int64_t)dtype_size(f->type);
    for (int k = 0; k < f->ndim && bytes <= RECORD_BYTES_MAX; k++)
      if (__builtin_mul_overflow(bytes, f->shape[k], &bytes)) bytes = RECORD_BYTES_MAX + 1;
    if (bytes > RECORD_BYTES_MAX) return fail(ps->e, P2C_ERR_FORMAT, "the record is too large");
    *offset += bytes;
  }
  accept(ps, ',');
  if (*offset > RECORD_BYTES_MAX) return fail(ps->e, P2C_ERR_FORMAT, "the record is too large");
  return expect(ps, ')', "')' after a record field");
}

/* [('a', '<i4'), ('', '|V4'), ('b', '<f8')]: a record dtype, fields one after another. */
static P2cStatus parse_record_descr(Parser *ps, NpyArray *a) {
  RecordBlock *b = mem_alloc(ps->alloc, sizeof *b);
  if (!b) return fail(ps->e, P2C_ERR_NOMEM, "out of memory for a record description");
  memset(b, 0, sizeof *b);
  b->record.fields = b->fields;
  a->dtype = P2C_RECORD;
  a->record = &b->record;   /* freed by npy_free, also after an error */
  int64_t offset = 0;
  P2cStatus st = expect(ps, '[', "a list");
  while (!st && !accept(ps, ']')) {
    st = parse_record_entry(ps, b, &offset);
    if (!st && !accept(ps, ',') && (skip_space(ps), ps->p < ps->end && *ps->p != ']'))
      st = syntax(ps, "',' or ']' in the record");
  }
  if (!st && b->record.field_count == 0) st = fail(ps->e, P2C_ERR_FORMAT, "a record dtype without fields");
  b->record.itemsize = offset;
  return st;
}

/* The value of 'descr': a dtype string. A list describes a structured dtype. */
static P2cStatus parse_descr(Parser *ps, NpyArray *a, bool *swap) {
  skip_space(ps);
  if (ps->p < ps->end && *ps->p == '[') return parse_record_descr(ps, a);
  if (ps->p < ps->end && *ps->p == '{')
    return fail(ps->e, P2C_ERR_FORMAT, "unsupported dtype: records in dict form (fields out of offset "
                "order or overlapping) are not supported");
  const char *s;
  size_t n;
  P2cStatus st = parse_string(ps, &s, &n);
  return st ? st : decode_descr(s, n, a, swap, ps->e);
}

/* The KEY_ bit of a header key, or 0 for an unknown key. */
static unsigned key_bit(const char *k, size_t n) {
  if (n == 5 && !memcmp(k, "descr", 5)) return KEY_DESCR;
  if (n == 13 && !memcmp(k, "fortran_order", 13)) return KEY_FORTRAN;
  if (n == 5 && !memcmp(k, "shape", 5)) return KEY_SHAPE;
  return 0;
}

/* One "key: value" entry of the header dict; `seen` collects the keys met so far. */
static P2cStatus parse_entry(Parser *ps, unsigned *seen, NpyArray *a, bool *swap) {
  const char *k;
  size_t n;
  char shown[SHOW_MAX + 4];
  P2cStatus st = parse_string(ps, &k, &n);
  if (st) return st;
  unsigned key = key_bit(k, n);
  if (!key || (*seen & key))
    return fail(ps->e, P2C_ERR_FORMAT, "%s key '%s' in the header",
                key ? "duplicate" : "unknown", show(k, n, shown));
  *seen |= key;
  if ((st = expect(ps, ':', "':' after a key"))) return st;
  if (key == KEY_DESCR) return parse_descr(ps, a, swap);
  if (key == KEY_FORTRAN) return parse_bool(ps, &a->fortran_order);
  return parse_shape(ps, a);
}

static P2cStatus check_keys(unsigned seen, Err *e) {
  const char *missing = !(seen & KEY_DESCR) ? "descr"
                        : !(seen & KEY_FORTRAN) ? "fortran_order"
                        : !(seen & KEY_SHAPE) ? "shape" : NULL;
  if (missing) return fail(e, P2C_ERR_FORMAT, "the header lacks the key '%s'", missing);
  return P2C_OK;
}

/* The header dict: the three keys in any order, a trailing comma allowed. */
static P2cStatus parse_dict(Parser *ps, NpyArray *a, bool *swap) {
  unsigned seen = 0;
  bool comma = true;
  P2cStatus st = expect(ps, '{', "'{' starting the header dict");
  while (!st && !accept(ps, '}')) {
    if (!comma) return syntax(ps, "',' or '}' in the header dict");
    st = parse_entry(ps, &seen, a, swap);
    comma = accept(ps, ',');
  }
  return st ? st : check_keys(seen, ps->e);
}

/* Parses the `n` header bytes at `h` into a (all but the data) and sets a->nbytes. */
static P2cStatus parse_header(const char *h, size_t n, const P2cAllocator *alloc, NpyArray *a, bool *swap,
                              Err *e) {
  if (n == 0 || h[n - 1] != '\n')
    return fail(e, P2C_ERR_FORMAT, "malformed header: it does not end with a newline");
  Parser ps = {h, h, h + n, e, alloc};
  P2cStatus st = parse_dict(&ps, a, swap);
  if (st) return st;
  skip_space(&ps);
  if (ps.p != ps.end) return syntax(&ps, "the end of the header after the dict");
  if (!shape_bytes(a, &a->nbytes))
    return fail(e, P2C_ERR_FORMAT, "the shape is too large: its size in bytes overflows");
  return P2C_OK;
}

/* ---- Reading ------------------------------------------------------------------------------- */

/* Explains why bytes that lack the magic string are not a .npy file. */
static P2cStatus not_npy(const unsigned char *p, size_t n, Err *e) {
  if (n == 0) return fail(e, P2C_ERR_FORMAT, "not a .npy file: it is empty");
  if (n < MAGIC_LEN && !memcmp(p, magic, n))
    return fail(e, P2C_ERR_FORMAT, "truncated: the file ends inside the magic string");
  if (n >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5)
    return fail(e, P2C_ERR_FORMAT, "not a .npy file: it looks like a Python pickle, which is "
                "never loaded");
  if (n >= 4 && !memcmp(p, "PK\3\4", 4))
    return fail(e, P2C_ERR_FORMAT, "not a .npy file: it looks like a .npz archive");
  return fail(e, P2C_ERR_FORMAT, "not a .npy file: bad magic string");
}

/* Checks the magic and version among the first `n` bytes at `p`, and sets the width of the
 * header length field that follows them (2 or 4 bytes). */
static P2cStatus check_prefix(const unsigned char *p, size_t n, size_t *lenbytes, Err *e) {
  if (n < MAGIC_LEN || memcmp(p, magic, MAGIC_LEN) != 0) return not_npy(p, n, e);
  if (n < PREFIX_FIXED)
    return fail(e, P2C_ERR_FORMAT, "truncated: the file ends inside the format version");
  int major = p[6], minor = p[7];
  if (minor != 0 || major < 1 || major > 3)
    return fail(e, P2C_ERR_FORMAT, "unsupported .npy format version %d.%d (supported: 1.0, "
                "2.0, 3.0)", major, minor);
  *lenbytes = major == 1 ? 2 : 4;
  return P2C_OK;
}

static size_t read_le(const unsigned char *p, size_t nbytes) {
  size_t v = 0;
  for (size_t i = nbytes; i-- > 0;) v = v << 8 | p[i];
  return v;
}

/* Checks a header length against our limit and the `avail` bytes that follow it. */
static P2cStatus check_header_len(size_t hlen, size_t avail, Err *e) {
  if (hlen > MAX_HEADER_LEN)
    return fail(e, P2C_ERR_FORMAT, "header length %zu exceeds the limit of %d bytes", hlen,
                MAX_HEADER_LEN);
  if (hlen > avail)
    return fail(e, P2C_ERR_FORMAT, "truncated: the header length is %zu bytes, but only %zu "
                "bytes follow", hlen, avail);
  return P2C_OK;
}

/* Checks that the file has exactly the data bytes the header announces. */
static P2cStatus check_data_len(size_t want, size_t have, Err *e) {
  if (have < want)
    return fail(e, P2C_ERR_FORMAT, "truncated: header says %zu bytes of data, file has %zu",
                want, have);
  if (have > want)
    return fail(e, P2C_ERR_FORMAT, "%zu bytes of trailing data after the array (header says "
                "%zu bytes of data)", have - want, want);
  return P2C_OK;
}

static P2cStatus alloc_data(NpyArray *a, const P2cAllocator *alloc, Err *e) {
  if (a->nbytes == 0) return P2C_OK;
  a->data = mem_alloc(alloc, a->nbytes);
  if (!a->data)
    return fail(e, P2C_ERR_NOMEM, "out of memory for %zu bytes of array data", a->nbytes);
  return P2C_OK;
}

/* Reverses the bytes of each element, or of each part of a complex element. */
static void swap_bytes(NpyArray *a) {
  size_t size = type_dtype_swap_size(a->dtype);
  unsigned char *p = a->data;
  for (size_t i = 0; i + size <= a->nbytes; i += size)
    for (size_t j = 0; j < size / 2; j++) {
      unsigned char t = p[i + j];
      p[i + j] = p[i + size - 1 - j];
      p[i + size - 1 - j] = t;
    }
}

/* Parses the prefix and header of the `len` bytes at `p`; *off gets where the data starts. */
static P2cStatus buffer_header(const unsigned char *p, size_t len, const P2cAllocator *alloc, NpyArray *a,
                               bool *swap, size_t *off, Err *e) {
  size_t lenbytes;
  P2cStatus st = check_prefix(p, len, &lenbytes, e);
  if (st) return st;
  if (len < PREFIX_FIXED + lenbytes)
    return fail(e, P2C_ERR_FORMAT, "truncated: the file ends inside the header length");
  size_t start = PREFIX_FIXED + lenbytes;
  size_t hlen = read_le(p + PREFIX_FIXED, lenbytes);
  if ((st = check_header_len(hlen, len - start, e))) return st;
  *off = start + hlen;
  return parse_header((const char *)p + start, hlen, alloc, a, swap, e);
}

P2cStatus npy_read_buffer(const void *buf, size_t len, const P2cAllocator *alloc, NpyArray *out,
                          char *err, size_t errlen) {
  Err e = {err, errlen, NULL};
  size_t off = 0;
  bool swap = false;
  clear_error(&e);
  memset(out, 0, sizeof *out);
  P2cStatus st = buffer_header(buf, len, alloc, out, &swap, &off, &e);
  if (!st) st = check_data_len(out->nbytes, len - off, &e);
  if (!st) st = alloc_data(out, alloc, &e);
  if (st) {
    npy_free(out, alloc);
    return st;
  }
  if (out->nbytes) memcpy(out->data, (const unsigned char *)buf + off, out->nbytes);
  if (swap) swap_bytes(out);
  return P2C_OK;
}

/* Reads up to `n` bytes; *got says how many came before the end of the file. */
static P2cStatus read_bytes(FILE *f, void *p, size_t n, size_t *got, Err *e) {
  *got = n ? fread(p, 1, n, f) : 0;
  if (ferror(f)) return fail(e, P2C_ERR_IO, "read error: %s", strerror(errno));
  return P2C_OK;
}

/* The size of a regular file, or -1 for a pipe or a device; a directory is refused. */
static P2cStatus file_size(FILE *f, int64_t *size, Err *e) {
  struct stat sb;
  if (fstat(fileno(f), &sb) != 0) return fail(e, P2C_ERR_IO, "cannot stat: %s", strerror(errno));
  if (S_ISDIR(sb.st_mode)) return fail(e, P2C_ERR_IO, "is a directory");
  *size = S_ISREG(sb.st_mode) ? (int64_t)sb.st_size : -1;
  return P2C_OK;
}

/* Bytes of a file of `size` (-1: unknown) left after offset `off`; SIZE_MAX when unknown. */
static size_t bytes_after(int64_t size, size_t off) {
  if (size < 0) return SIZE_MAX;
  return (uint64_t)size > off ? (size_t)((uint64_t)size - off) : 0;
}

/* Reads the `hlen` header bytes into a temporary block and parses them. */
static P2cStatus read_header_text(FILE *f, size_t hlen, const P2cAllocator *alloc, NpyArray *a,
                                  bool *swap, Err *e) {
  char *h = mem_alloc(alloc, hlen);
  if (!h) return fail(e, P2C_ERR_NOMEM, "out of memory for a %zu-byte header", hlen);
  size_t got;
  P2cStatus st = read_bytes(f, h, hlen, &got, e);
  if (!st && got < hlen) st = fail(e, P2C_ERR_FORMAT, "truncated: the file ends inside the header");
  if (!st) st = parse_header(h, hlen, alloc, a, swap, e);
  mem_free(alloc, h, hlen ? hlen : 1);
  return st;
}

/* Reads and parses the prefix and header; *off gets where the data starts. */
static P2cStatus file_header(FILE *f, int64_t size, const P2cAllocator *alloc, NpyArray *a,
                             bool *swap, size_t *off, Err *e) {
  unsigned char pre[PREFIX_FIXED + 4];
  size_t got, lenbytes;
  P2cStatus st = read_bytes(f, pre, PREFIX_FIXED, &got, e);
  if (!st) st = check_prefix(pre, got, &lenbytes, e);
  if (!st) st = read_bytes(f, pre + PREFIX_FIXED, lenbytes, &got, e);
  if (!st && got < lenbytes)
    st = fail(e, P2C_ERR_FORMAT, "truncated: the file ends inside the header length");
  if (st) return st;
  size_t hlen = read_le(pre + PREFIX_FIXED, lenbytes);
  *off = PREFIX_FIXED + lenbytes;
  if ((st = check_header_len(hlen, bytes_after(size, *off), e))) return st;
  *off += hlen;
  return read_header_text(f, hlen, alloc, a, swap, e);
}

/* Reads the data block into a fresh allocation; the file must end right after it. */
static P2cStatus file_data(FILE *f, int64_t size, size_t off, const P2cAllocator *alloc,
                           NpyArray *a, Err *e) {
  size_t got;
  P2cStatus st = size >= 0 ? check_data_len(a->nbytes, bytes_after(size, off), e) : P2C_OK;
  if (!st) st = alloc_data(a, alloc, e);
  if (!st) st = read_bytes(f, a->data, a->nbytes, &got, e);
  if (!st && got < a->nbytes) st = check_data_len(a->nbytes, got, e);
  if (!st && fgetc(f) != EOF)
    st = fail(e, P2C_ERR_FORMAT, "trailing data after the array (header says %zu bytes of "
              "data)", a->nbytes);
  if (!st && ferror(f)) st = fail(e, P2C_ERR_IO, "read error: %s", strerror(errno));
  return st;
}

static P2cStatus read_stream(FILE *f, const P2cAllocator *alloc, NpyArray *a, Err *e) {
  int64_t size = -1;
  size_t off = 0;
  bool swap = false;
  P2cStatus st = file_size(f, &size, e);
  if (!st) st = file_header(f, size, alloc, a, &swap, &off, e);
  if (!st) st = file_data(f, size, off, alloc, a, e);
  if (!st && swap) swap_bytes(a);
  return st;
}

P2cStatus npy_read_file(const char *path, const P2cAllocator *alloc, NpyArray *out, char *err,
                        size_t errlen) {
  Err e = {err, errlen, path};
  clear_error(&e);
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(&e, P2C_ERR_IO, "cannot open: %s", strerror(errno));
  P2cStatus st = read_stream(f, alloc, out, &e);
  fclose(f);
  if (st) npy_free(out, alloc);
  return st;
}

void npy_free_record(const P2cRecord *record, const P2cAllocator *alloc) {
  if (record) mem_free(alloc, (void *)(uintptr_t)record, sizeof(RecordBlock));
}

void npy_free(NpyArray *a, const P2cAllocator *alloc) {
  if (!a) return;
  mem_free(alloc, a->data, a->nbytes);
  npy_free_record(a->record, alloc);
  memset(a, 0, sizeof *a);
}

/* ---- Writing ------------------------------------------------------------------------------- */

static bool record_writable(const P2cRecord *r, Err *e);

/* Checks that an array handed to the writer is consistent. */
static P2cStatus check_array(const NpyArray *a, Err *e) {
  if (!valid_dtype(a->dtype) && !(a->dtype == P2C_RECORD && a->record && a->record->itemsize > 0))
    return fail(e, P2C_ERR_USAGE, "invalid dtype %d", (int)a->dtype);
  if (a->dtype == P2C_RECORD && !record_writable(a->record, e)) return P2C_ERR_USAGE;
  if (a->ndim < 0 || a->ndim > P2C_MAX_NDIM)
    return fail(e, P2C_ERR_USAGE, "invalid ndim %d (expected 0 to %d)", a->ndim, P2C_MAX_NDIM);
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] < 0)
      return fail(e, P2C_ERR_USAGE, "negative dimension %lld", (long long)a->shape[i]);
  size_t nbytes;
  if (!shape_bytes(a, &nbytes)) return fail(e, P2C_ERR_USAGE, "the shape is too large");
  if (nbytes != a->nbytes)
    return fail(e, P2C_ERR_USAGE, "nbytes is %zu, but the shape and dtype make %zu", a->nbytes,
                nbytes);
  if (nbytes && !a->data) return fail(e, P2C_ERR_USAGE, "data is NULL");
  return P2C_OK;
}

/* Whether a record can be written in the list form: fields of scalar dtypes, in offset order,
 * one after another (gaps become padding entries), inside the itemsize, and a header that fits. */
static bool record_writable(const P2cRecord *r, Err *e) {
  int64_t at = 0;
  size_t text = 100;
  if (!r->fields || r->field_count == 0 || r->field_count > MAX_FIELDS)
    return fail(e, P2C_ERR_USAGE, "a record needs 1 to %d fields", MAX_FIELDS), false;
  for (size_t i = 0; i < r->field_count; i++) {
    const P2cRecordField *f = &r->fields[i];
    int64_t bytes = (int64_t)dtype_size(f->type);
    for (int k = 0; k < f->ndim && k < P2C_MAX_NDIM; k++) bytes *= f->shape[k];
    if (!valid_dtype(f->type) || f->ndim < 0 || f->ndim > P2C_MAX_NDIM || f->offset < at || bytes <= 0 ||
        f->offset + bytes > r->itemsize || !f->name || !is_identifier(f->name, strlen(f->name)))
      return fail(e, P2C_ERR_USAGE, "record field %zu cannot be written to a .npy file (fields must be "
                  "in offset order, inside the itemsize, named by identifiers)", i + 1), false;
    at = f->offset + bytes;
    text += strlen(f->name) + 40 + 22 * (size_t)f->ndim;
  }
  if (text > WRITE_HEADER_CAP - 256) return fail(e, P2C_ERR_USAGE, "the record's header is too long"), false;
  return true;
}

/* Appends to buf as snprintf does; *n counts what was written. */
static void put(char *buf, size_t cap, int *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, int *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  *n += vsnprintf(buf + *n, cap - (size_t)*n, fmt, ap);
  va_end(ap);
}

/* A record's descr, NumPy's list form: fields in offset order, padding entries in the gaps. */
static void format_record_descr(const P2cRecord *r, char *buf, size_t cap, int *n) {
  int64_t at = 0;
  put(buf, cap, n, "[");
  for (size_t i = 0; i < r->field_count; i++) {
    const P2cRecordField *f = &r->fields[i];
    char descr[DESCR_CAP];
    if (f->offset > at) put(buf, cap, n, "('', '|V%lld'), ", (long long)(f->offset - at));
    format_descr(f->type, descr);
    put(buf, cap, n, "('%s', '%s'", f->name, descr);
    int64_t bytes = (int64_t)dtype_size(f->type);
    for (int k = 0; k < f->ndim; k++) {
      put(buf, cap, n, "%s%lld", k ? ", " : ", (", (long long)f->shape[k]);
      bytes *= f->shape[k];
    }
    if (f->ndim) put(buf, cap, n, f->ndim == 1 ? ",)" : ")");
    put(buf, cap, n, "), ");
    at = f->offset + bytes;
  }
  if (r->itemsize > at) put(buf, cap, n, "('', '|V%lld'), ", (long long)(r->itemsize - at));
  *n -= 2;   /* the last ", " */
  put(buf, cap, n, "]");
}

/* Writes the header dict ("{'descr': '<f4', ...}") at buf; returns its length. */
static size_t format_dict(const NpyArray *a, char *buf, size_t cap) {
  int n = 0;
  put(buf, cap, &n, "{'descr': ");
  if (a->dtype == P2C_RECORD) format_record_descr(a->record, buf, cap, &n);
  else {
    char descr[DESCR_CAP];
    format_descr(a->dtype, descr);
    put(buf, cap, &n, "'%s'", descr);
  }
  n += snprintf(buf + n, cap - (size_t)n, ", 'fortran_order': %s, 'shape': (", a->fortran_order ? "True" : "False");
  for (int i = 0; i < a->ndim; i++)
    n += snprintf(buf + n, cap - (size_t)n, i ? ", %lld" : "%lld", (long long)a->shape[i]);
  n += snprintf(buf + n, cap - (size_t)n, a->ndim == 1 ? ",)}" : ")}");
  assert((size_t)n < cap);
  return (size_t)n;
}

/* Lays out magic, version 1.0, header length and the dict padded with spaces and a final '\n'
 * so that the data starts at a multiple of HEADER_ALIGN; returns the total size. */
static size_t format_header(const NpyArray *a, unsigned char *buf, size_t cap) {
  enum { START = PREFIX_FIXED + 2 };
  size_t dict = format_dict(a, (char *)buf + START, cap - START - HEADER_ALIGN);
  size_t total = (START + dict + 1 + HEADER_ALIGN - 1) / HEADER_ALIGN * HEADER_ALIGN;
  memset(buf + START + dict, ' ', total - START - dict - 1);
  buf[total - 1] = '\n';
  memcpy(buf, magic, MAGIC_LEN);
  buf[6] = 1;
  buf[7] = 0;
  buf[8] = (unsigned char)((total - START) & 0xff);
  buf[9] = (unsigned char)((total - START) >> 8);
  return total;
}

static P2cStatus write_all(int fd, const void *p, size_t n, Err *e) {
  const unsigned char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      return fail(e, P2C_ERR_IO, "write error: %s", w < 0 ? strerror(errno) : "no progress");
    c += w;
    n -= (size_t)w;
  }
  return P2C_OK;
}

/* Creates a new file "<path>.<pid>.<n>.tmp" next to `path`, trying n = 0, 1, ... while the
 * name is taken (by a thread of ours or a leftover); `tmp` gets its name. */
static P2cStatus open_temp(const char *path, char *tmp, size_t cap, int *fd, Err *e) {
  for (int n = 0; n < TMP_TRIES; n++) {
    int len = snprintf(tmp, cap, "%s.%ld.%d.tmp", path, (long)getpid(), n);
    if (len < 0 || (size_t)len >= cap) return fail(e, P2C_ERR_IO, "the path is too long");
    *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (*fd >= 0) return P2C_OK;
    if (errno != EEXIST)
      return fail(e, P2C_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
  }
  return fail(e, P2C_ERR_IO, "cannot create a temporary file next to it");
}

/* Writes header and data to a temporary file, then renames it over `path`. */
static P2cStatus write_atomic(const char *path, const unsigned char *hdr, size_t hlen,
                              const NpyArray *a, Err *e) {
  char tmp[TMP_PATH_CAP];
  int fd = -1;
  P2cStatus st = open_temp(path, tmp, sizeof tmp, &fd, e);
  if (st) return st;
  st = write_all(fd, hdr, hlen, e);
  if (!st) st = write_all(fd, a->data, a->nbytes, e);
  if (!st && fsync(fd) != 0) st = fail(e, P2C_ERR_IO, "cannot sync: %s", strerror(errno));
  if (close(fd) != 0 && !st) st = fail(e, P2C_ERR_IO, "cannot close: %s", strerror(errno));
  if (!st && rename(tmp, path) != 0)
    st = fail(e, P2C_ERR_IO, "cannot rename %s to it: %s", tmp, strerror(errno));
  if (st) unlink(tmp);
  return st;
}

P2cStatus npy_write_file(const char *path, const NpyArray *a, char *err, size_t errlen) {
  Err e = {err, errlen, path};
  unsigned char hdr[WRITE_HEADER_CAP];
  clear_error(&e);
  P2cStatus st = check_array(a, &e);
  if (st) return st;
  size_t hlen = format_header(a, hdr, sizeof hdr);
  return write_atomic(path, hdr, hlen, a, &e);
}
