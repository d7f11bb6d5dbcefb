/* NumPy's typestrs, the one reader and writer of them: the text of a dtype that the array
 * interfaces (`__array_interface__`, `__cuda_array_interface__`), dtype.str and .npy headers'
 * descr use ("<f4", "|b1", "?", "|S12", "<U3", "<M8[D]", "<m8"). The .npy reader
 * (src/runtime/npy), the extension's array interfaces, record fields, device arrays and
 * datetime values all come here (public as p2c_dtype_parse and p2c_dtype_str), so a dtype
 * that one front accepts, every front accepts.
 *
 *   typestr := [order] kind
 *   order   := '<' | '>' | '|' | '='
 *   kind    := '?' | letter size | charseq | ('M' | 'm') '8' ['[' unit ']']
 *   letter  := 'b' 'i' 'u' 'f' 'c'   size := 1 or 2 digits, a size the type has
 *
 * '|' (no byte order) goes only with elements of one byte; an explicit order other than the
 * host's means the data needs a byte swap. NumPy's names of types ("float32") are not typestrs:
 * the signature grammar's spelling table reads those (types.c). */
#include <stdio.h>
#include <string.h>

#include "types/types.h"

/* The kind letter and size of each number type in a typestr. */
typedef struct DtypeCode {
  char kind;
  unsigned char size;
} DtypeCode;

static const DtypeCode codes[P2C_DATETIME64] = {
    [P2C_BOOL] = {'b', 1},    [P2C_INT8] = {'i', 1},     [P2C_INT16] = {'i', 2},
    [P2C_INT32] = {'i', 4},   [P2C_INT64] = {'i', 8},    [P2C_UINT8] = {'u', 1},
    [P2C_UINT16] = {'u', 2},  [P2C_UINT32] = {'u', 4},   [P2C_UINT64] = {'u', 8},
    [P2C_FLOAT32] = {'f', 4}, [P2C_FLOAT64] = {'f', 8},  [P2C_COMPLEX64] = {'c', 8},
    [P2C_COMPLEX128] = {'c', 16}, [P2C_FLOAT16] = {'f', 2},
};

bool type_dtype_charseq(P2cScalarType t, bool *unicode, int64_t *chars) {
  int64_t v = (int64_t)t, base = v >= P2C_UNICHARSEQ_BASE ? P2C_UNICHARSEQ_BASE : P2C_CHARSEQ_BASE;
  if (v - base < 1 || v - base > P2C_MAX_CHARS) return false;
  if (unicode) *unicode = base == P2C_UNICHARSEQ_BASE;
  if (chars) *chars = v - base;
  return true;
}

static bool is_time(P2cScalarType t) { return t >= P2C_DATETIME64 && t < P2C_SCALAR_TYPE_COUNT; }

/* The host's own byte order, as a typestr writes it. */
static char native_order(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1 ? '<' : '>';
}

size_t type_dtype_swap_size(P2cScalarType t) {
  bool unicode;
  int64_t chars;
  if (type_dtype_charseq(t, &unicode, &chars)) return unicode ? 4 : 1;
  if (is_time(t)) return 8;
  if ((unsigned)t >= P2C_DATETIME64) return 0;
  return codes[t].kind == 'c' ? codes[t].size / 2u : codes[t].size;
}

/* The number type with this kind letter and the size digits s[0..n) (1 or 2), or -1. */
static int number_type(char kind, const char *s, size_t n) {
  if (n < 1 || n > 2) return -1;
  unsigned size = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    size = size * 10 + (unsigned)(s[i] - '0');
  }
  for (int t = 0; t < P2C_DATETIME64; t++)
    if (codes[t].kind == kind && codes[t].size == size) return t;
  return -1;
}

/* "M8", "M8[D]", "m8[ns]" (s[0] is 'M' or 'm'); NumPy's multiples of a unit ("M8[10D]") have
 * no type here. */
static DtypeProblem time_kind(const char *s, size_t n, P2cScalarType *out) {
  int unit = n == 2 ? P2C_UNIT_GENERIC : -1;
  if (n > 4 && s[2] == '[' && s[n - 1] == ']') unit = time_unit_parse(s + 3, n - 4);
  if (n < 2 || s[1] != '8' || unit < 0) return DTYPE_TIME_UNIT;
  *out = (P2cScalarType)((s[0] == 'M' ? P2C_DATETIME64 : P2C_TIMEDELTA64) + unit);
  return DTYPE_OK;
}

/* The kind part of a typestr, its byte order removed ("f4", "?", "S12", "M8[D]"). */
static DtypeProblem kind_part(const char *s, size_t n, P2cScalarType *out) {
  if (n == 1 && s[0] == '?') return *out = P2C_BOOL, DTYPE_OK;
  if (n == 0) return DTYPE_UNKNOWN;
  if (s[0] == 'S' || s[0] == 'a' || s[0] == 'U') {
    bool unicode;
    int64_t chars;
    if (!type_charseq_parse(s, n, &unicode, &chars)) return DTYPE_CHARS;
    *out = unicode ? P2C_UNICHARSEQ(chars) : P2C_CHARSEQ(chars);
    return DTYPE_OK;
  }
  if (s[0] == 'M' || s[0] == 'm') return time_kind(s, n, out);
  if (s[0] == 'O') return DTYPE_OBJECT;
  if (s[0] == 'V') return DTYPE_VOID;
  int t = number_type(s[0], s + 1, n - 1);
  if (t >= 0) return *out = (P2cScalarType)t, DTYPE_OK;
  return s[0] == 'f' && number_type('i', s + 1, n - 1) >= 0 ? DTYPE_FLOAT_SIZE : DTYPE_UNKNOWN;
}

DtypeProblem type_dtype_parse(const char *s, size_t n, P2cScalarType *out, bool *swap) {
  bool has_order = n && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=');
  char order = has_order ? s[0] : '=';
  P2cScalarType t;
  DtypeProblem p = kind_part(s + has_order, n - has_order, &t);
  if (p != DTYPE_OK) return p;
  size_t unit = type_dtype_swap_size(t);
  if (order == '|' && unit > 1) return DTYPE_NO_ORDER;
  *out = t;
  *swap = unit > 1 && order != '=' && order != native_order();
  return DTYPE_OK;
}

size_t type_dtype_str(P2cScalarType t, char *buf, size_t cap) {
  size_t unit = type_dtype_swap_size(t);
  if (!unit) return buf && cap ? (buf[0] = '\0', 0) : 0;
  char order = unit == 1 ? '|' : native_order();
  bool unicode;
  int64_t chars;
  int n;
  if (type_dtype_charseq(t, &unicode, &chars))
    n = snprintf(buf, cap, "%c%c%lld", order, unicode ? 'U' : 'S', (long long)chars);
  else if (is_time(t)) {
    const char *u = time_unit_name(type_of_scalar(t)->unit);
    n = snprintf(buf, cap, u[0] ? "%c%c8[%s]" : "%c%c8%s", order, t < P2C_TIMEDELTA64 ? 'M' : 'm', u);
  } else n = snprintf(buf, cap, "%c%c%u", order, codes[t].kind, (unsigned)codes[t].size);
  return n < 0 ? 0 : (size_t)n;
}
