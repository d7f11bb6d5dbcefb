/* Python's int, float, complex and bool arithmetic on constants (see pynum.h). Ints are sign
 * and magnitude; the magnitude routines work on PYNUM_LIMBS little-endian 32-bit limbs, and every
 * signed result is checked against PYNUM_MAX_BITS, so no routine can overflow its array. The
 * float operations are CPython 3.11's (Objects/floatobject.c: float_pow, _float_div_mod; the
 * special cases before libm's pow), the complex ones Objects/complexobject.c's (_Py_c_prod,
 * _Py_c_quot, _Py_c_pow, c_powi for small integral exponents, and errno read as complex_pow
 * reads it, with the same libm), the int ones Objects/longobject.c's (floor division, the
 * bitwise operators on an infinite two's complement, true division correctly rounded). */
#include "frontend/pynum.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { BITS = PYNUM_LIMBS * 32 };

typedef uint32_t Mag[PYNUM_LIMBS];

/* ---- magnitudes ---- */

static int mag_bits(const uint32_t *d) {
  for (int i = PYNUM_LIMBS; i-- > 0;)
    if (d[i]) return i * 32 + (32 - __builtin_clz(d[i]));
  return 0;
}

static bool mag_zero(const uint32_t *d) { return mag_bits(d) == 0; }

static int mag_cmp(const uint32_t *a, const uint32_t *b) {
  for (int i = PYNUM_LIMBS; i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* r = a + b (the callers keep both under PYNUM_MAX_BITS, so nothing carries out). */
static void mag_add(const uint32_t *a, const uint32_t *b, uint32_t *r) {
  uint64_t carry = 0;
  for (int i = 0; i < PYNUM_LIMBS; i++) {
    carry += (uint64_t)a[i] + b[i];
    r[i] = (uint32_t)carry;
    carry >>= 32;
  }
}

/* r = a - b, for a >= b. */
static void mag_sub(const uint32_t *a, const uint32_t *b, uint32_t *r) {
  int64_t borrow = 0;
  for (int i = 0; i < PYNUM_LIMBS; i++) {
    int64_t t = (int64_t)a[i] - b[i] - borrow;
    borrow = t < 0;
    r[i] = (uint32_t)(t + (borrow ? (int64_t)1 << 32 : 0));
  }
}

/* r = a * b, for bits(a) + bits(b) <= BITS. */
static void mag_mul(const uint32_t *a, const uint32_t *b, uint32_t *r) {
  Mag t = {0};
  for (int i = 0; i < PYNUM_LIMBS; i++) {
    uint64_t carry = 0;
    for (int j = 0; i + j < PYNUM_LIMBS; j++) {
      carry += (uint64_t)a[i] * b[j] + t[i + j];
      t[i + j] = (uint32_t)carry;
      carry >>= 32;
    }
  }
  memcpy(r, t, sizeof t);
}

/* r = a << k, for bits(a) + k <= BITS. */
static void mag_shl(const uint32_t *a, int k, uint32_t *r) {
  Mag t = {0};
  for (int i = PYNUM_LIMBS; i-- > 0;) {
    int bit = i * 32 + k;
    if (!a[i] || bit >= BITS) continue;
    t[bit / 32] |= a[i] << (bit % 32);
    if (bit % 32 && bit / 32 + 1 < PYNUM_LIMBS) t[bit / 32 + 1] |= a[i] >> (32 - bit % 32);
  }
  memcpy(r, t, sizeof t);
}

/* r = a >> k; *lost is whether a 1 bit was shifted out. */
static void mag_shr(const uint32_t *a, int k, uint32_t *r, bool *lost) {
  Mag t = {0};
  *lost = false;
  for (int i = 0; i < BITS; i++) {
    bool set = (a[i / 32] >> (i % 32)) & 1;
    if (i < k) *lost |= set;
    else if (set) t[(i - k) / 32] |= 1u << ((i - k) % 32);
  }
  memcpy(r, t, sizeof t);
}

/* q = a / b, rem = a % b (b nonzero), by long division one bit at a time. */
static void mag_divmod(const uint32_t *a, const uint32_t *b, uint32_t *q, uint32_t *rem) {
  Mag qq = {0}, r = {0};
  for (int i = mag_bits(a); i-- > 0;) {
    mag_shl(r, 1, r);
    r[0] |= (a[i / 32] >> (i % 32)) & 1;
    if (mag_cmp(r, b) >= 0) {
      mag_sub(r, b, r);
      qq[i / 32] |= 1u << (i % 32);
    }
  }
  memcpy(q, qq, sizeof qq);
  memcpy(rem, r, sizeof r);
}

/* The magnitude times 2**exp2, with `sticky` standing for nonzero bits below it, rounded to a
 * double half to even (CPython's _PyLong_Frexp and long_true_divide round so). The values here
 * stay far from double's overflow and subnormal ranges. */
static double mag_to_double(const uint32_t *d, bool sticky, int exp2) {
  int n = mag_bits(d);
  if (n <= 53) {
    uint64_t v = (uint64_t)d[0] | (uint64_t)d[1] << 32;
    return ldexp((double)v, exp2);
  }
  Mag top;
  bool below;
  mag_shr(d, n - 54, top, &below);   /* 54 bits: the kept 53 and the half bit */
  uint64_t v = (uint64_t)top[0] | (uint64_t)top[1] << 32;
  bool half = v & 1;
  v >>= 1;
  if (half && (below || sticky || (v & 1))) v++;
  return ldexp((double)v, exp2 + n - 53);
}

/* ---- ints ---- */

PyNum pynum_uint(uint64_t v) {
  PyNum r = {.kind = PN_INT};
  r.mag[0] = (uint32_t)v;
  r.mag[1] = (uint32_t)(v >> 32);
  return r;
}

PyNum pynum_int(int64_t v) {
  PyNum r = pynum_uint(v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
  r.neg = v < 0;
  return r;
}

PyNum pynum_bool(bool v) {
  PyNum r = pynum_uint(v);
  r.kind = PN_BOOL;
  return r;
}

PyNum pynum_float(double v) { return (PyNum){.kind = PN_FLOAT, .f = v}; }

PyNum pynum_complex(double real, double imag) { return (PyNum){.kind = PN_COMPLEX, .f = real, .im = imag}; }

/* An int result, normalized (no negative zero); false past PYNUM_MAX_BITS. */
static bool int_result(const uint32_t *mag, bool neg, PyNum *out) {
  if (mag_bits(mag) > PYNUM_MAX_BITS) return false;
  *out = (PyNum){.kind = PN_INT, .neg = neg && !mag_zero(mag)};
  memcpy(out->mag, mag, sizeof out->mag);
  return true;
}

bool pynum_parse_int(const char *s, size_t len, PyNum *out) {
  unsigned base = 10;
  size_t i = 0;
  if (len > 1 && s[0] == '0' && strchr("xXoObB", s[1])) {
    base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
    i = 2;
  }
  Mag v = {0}, b = {base}, d = {0};
  for (; i < len; i++) {
    if (s[i] == '_') continue;
    d[0] = (uint32_t)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
    if (mag_bits(v) + 4 > PYNUM_MAX_BITS) return false;
    mag_mul(v, b, v);
    mag_add(v, d, v);
  }
  return int_result(v, false, out);
}

/* a + b with signs: magnitudes added, or the smaller subtracted from the larger. */
static bool int_add(const PyNum *a, const PyNum *b, bool negate_b, PyNum *out) {
  bool bn = b->neg != negate_b;
  Mag r;
  if (a->neg == bn) {
    mag_add(a->mag, b->mag, r);
    return int_result(r, a->neg, out);
  }
  bool a_larger = mag_cmp(a->mag, b->mag) >= 0;
  mag_sub(a_larger ? a->mag : b->mag, a_larger ? b->mag : a->mag, r);
  return int_result(r, a_larger ? a->neg : bn, out);
}

static bool int_mul(const PyNum *a, const PyNum *b, PyNum *out) {
  if (mag_bits(a->mag) + mag_bits(b->mag) > PYNUM_MAX_BITS) return false;
  Mag r;
  mag_mul(a->mag, b->mag, r);
  return int_result(r, a->neg != b->neg, out);
}

/* Python's floor division and modulo: the quotient rounds toward negative infinity and the
 * remainder takes the divisor's sign (b nonzero). */
static void int_floordivmod(const PyNum *a, const PyNum *b, PyNum *q, PyNum *r) {
  Mag qm, rm;
  mag_divmod(a->mag, b->mag, qm, rm);
  if (a->neg != b->neg && !mag_zero(rm)) {
    Mag one = {1};
    mag_add(qm, one, qm);
    mag_sub(b->mag, rm, rm);
  }
  int_result(qm, a->neg != b->neg, q);
  int_result(rm, b->neg, r);
}

/* The value of a nonnegative int that fits a size_t, as PyLong_AsSize_t; false otherwise. */
static bool as_size(const PyNum *a, uint64_t *v) {
  if (a->neg || mag_bits(a->mag) > 64) return false;
  *v = (uint64_t)a->mag[0] | (uint64_t)a->mag[1] << 32;
  return true;
}

/* a ** b for ints, b >= 0, by repeated squaring; false past PYNUM_MAX_BITS. */
static bool int_pow(const PyNum *a, const PyNum *b, PyNum *out) {
  PyNum r = pynum_int(1), x = *a;
  for (int i = 0, n = mag_bits(b->mag); i < n; i++) {
    if ((b->mag[i / 32] >> (i % 32)) & 1 && !int_mul(&r, &x, &r)) return false;
    if (i + 1 < n && !int_mul(&x, &x, &x)) return false;
  }
  *out = r;
  return true;
}

static bool int_shift(Op op, const PyNum *a, const PyNum *b, PyNum *out) {
  uint64_t k;
  if (b->neg) return false;   /* ValueError: negative shift count */
  if (!as_size(b, &k) || k >= BITS) k = BITS;
  Mag r;
  if (op == OP_LSHIFT) {
    if (mag_zero(a->mag)) return int_result(a->mag, false, out);
    if (mag_bits(a->mag) + k > PYNUM_MAX_BITS) return false;
    mag_shl(a->mag, (int)k, r);
    return int_result(r, a->neg, out);
  }
  bool lost;
  if (!a->neg) {
    mag_shr(a->mag, (int)k, r, &lost);
    return int_result(r, false, out);
  }
  Mag one = {1};   /* -a >> k is -(((a - 1) >> k) + 1) */
  mag_sub(a->mag, one, r);
  mag_shr(r, (int)k, r, &lost);
  mag_add(r, one, r);
  return int_result(r, true, out);
}

/* The int as BITS-bit two's complement (its value is far narrower, so the top bit is its sign). */
static void to_twos(const PyNum *a, uint32_t *t) {
  uint64_t carry = 1;
  for (int i = 0; i < PYNUM_LIMBS; i++) {
    if (!a->neg) {
      t[i] = a->mag[i];
      continue;
    }
    carry += (uint32_t)~a->mag[i];
    t[i] = (uint32_t)carry;
    carry >>= 32;
  }
}

static bool from_twos(const uint32_t *t, PyNum *out) {
  bool neg = t[PYNUM_LIMBS - 1] >> 31;
  Mag m;
  uint64_t carry = 1;
  for (int i = 0; i < PYNUM_LIMBS; i++) {
    if (!neg) {
      m[i] = t[i];
      continue;
    }
    carry += (uint32_t)~t[i];
    m[i] = (uint32_t)carry;
    carry >>= 32;
  }
  return int_result(m, neg, out);
}

/* &, |, ^ of ints, as Python computes them on an infinite two's complement. */
static bool int_bitwise(Op op, const PyNum *a, const PyNum *b, PyNum *out) {
  Mag x, y;
  to_twos(a, x);
  to_twos(b, y);
  for (int i = 0; i < PYNUM_LIMBS; i++)
    x[i] = op == OP_BITAND ? x[i] & y[i] : op == OP_BITOR ? x[i] | y[i] : x[i] ^ y[i];
  return from_twos(x, out);
}

/* a / b of ints, correctly rounded (CPython's long_true_divide): exactly when both fit a double's
 * 53 bits, else from a quotient of at least 55 bits and whether a remainder is left. */
static bool int_true_divide(const PyNum *a, const PyNum *b, PyNum *out) {
  if (mag_zero(b->mag)) return false;   /* ZeroDivisionError */
  if (mag_bits(a->mag) <= 53 && mag_bits(b->mag) <= 53) {
    *out = pynum_float(pynum_as_double(a) / pynum_as_double(b));
    return true;
  }
  int s = 55 + mag_bits(b->mag) - mag_bits(a->mag);
  if (s < 0) s = 0;
  Mag n, q, r;
  mag_shl(a->mag, s, n);
  mag_divmod(n, b->mag, q, r);
  double v = mag_to_double(q, !mag_zero(r), -s);
  *out = pynum_float(a->neg != b->neg ? -v : v);
  return true;
}

/* The limits of ast_opt.c under which CPython folds an int product, power or left shift;
 * false where it leaves the expression to run time. */
static bool fold_allowed(Op op, const PyNum *a, const PyNum *b) {
  if (a->kind >= PN_FLOAT || b->kind >= PN_FLOAT || mag_zero(a->mag)) return true;
  uint64_t vbits = (uint64_t)mag_bits(a->mag), w;
  switch (op) {
  case OP_MUL: return mag_zero(b->mag) || vbits + (uint64_t)mag_bits(b->mag) <= PYNUM_FOLD_BITS;
  case OP_POW:   /* safe_power: only a positive exponent is checked */
    if (b->neg || mag_zero(b->mag)) return true;
    return as_size(b, &w) && vbits <= PYNUM_FOLD_BITS / w;
  case OP_LSHIFT:
    if (mag_zero(b->mag)) return true;
    return as_size(b, &w) && w <= PYNUM_FOLD_BITS && vbits <= PYNUM_FOLD_BITS - w;
  default: return true;
  }
}

/* ---- floats ---- */

double pynum_as_double(const PyNum *a) {
  if (a->kind >= PN_FLOAT) return a->f;
  double v = mag_to_double(a->mag, false, 0);
  return a->neg ? -v : v;
}

bool pynum_from_integral(double d, PyNum *out) {
  if (!isfinite(d) || fabs(d) >= 0x1p384) return false;
  int exp2;
  double frac = frexp(fabs(d), &exp2);   /* |d| = frac * 2**exp2, frac in [0.5, 1) */
  Mag m = {0}, r;
  uint64_t top = (uint64_t)ldexp(frac, 53);   /* 53 bits, exact */
  m[0] = (uint32_t)top;
  m[1] = (uint32_t)(top >> 32);
  bool lost = false;
  if (exp2 >= 53) mag_shl(m, exp2 - 53, r);
  else mag_shr(m, 53 - exp2, r, &lost);   /* d is integral: nothing is lost */
  return int_result(r, d < 0, out);
}

static bool is_odd_integer(double v) { return fmod(fabs(v), 2.0) == 1.0; }

/* Whether float_pow gives a complex number for v ** w: a negative finite base to a finite
 * fractional power (after float_pow's special cases, which come first). */
static bool float_pow_is_complex(double v, double w) {
  return isfinite(v) && v < 0 && isfinite(w) && w != floor(w);
}

/* CPython's float_pow: its special cases, then libm's pow; false where it raises (0.0 to a
 * negative power, an overflow) or gives a complex number (float_pow_is_complex). */
static bool float_pow(double v, double w, double *out) {
  if (w == 0) return *out = 1.0, true;
  if (isnan(v)) return *out = v, true;
  if (isnan(w)) return *out = v == 1.0 ? 1.0 : w, true;
  if (isinf(w)) {
    double av = fabs(v);
    *out = av == 1.0 ? 1.0 : (w > 0) == (av > 1.0) ? fabs(w) : 0.0;
    return true;
  }
  if (isinf(v)) {
    bool odd = is_odd_integer(w);
    *out = w > 0 ? (odd ? v : fabs(v)) : (odd ? copysign(0.0, v) : 0.0);
    return true;
  }
  if (v == 0) {
    if (w < 0) return false;
    *out = is_odd_integer(w) ? v : 0.0;
    return true;
  }
  bool negate = false;
  if (v < 0) {
    if (w != floor(w)) return false;
    v = -v;
    negate = is_odd_integer(w);
  }
  if (v == 1.0) return *out = negate ? -1.0 : 1.0, true;
  double r = pow(v, w);
  if (isinf(r)) return false;   /* OverflowError */
  *out = negate ? -r : r;
  return true;
}

/* CPython's _float_div_mod: floor division and modulo of floats (w nonzero). */
static void float_divmod(double vx, double wx, double *floordiv, double *mod) {
  double m = fmod(vx, wx);
  double div = (vx - m) / wx;
  if (m) {
    if ((wx < 0) != (m < 0)) {
      m += wx;
      div -= 1.0;
    }
  } else {
    m = copysign(0.0, wx);
  }
  if (div) {
    *floordiv = floor(div);
    if (div - *floordiv > 0.5) *floordiv += 1.0;
  } else {
    *floordiv = copysign(0.0, vx / wx);
  }
  *mod = m;
}

static bool float_binary(Op op, double x, double y, double *out) {
  double fd, md;
  switch (op) {
  case OP_ADD: return *out = x + y, true;
  case OP_SUB: return *out = x - y, true;
  case OP_MUL: return *out = x * y, true;
  case OP_DIV: return y != 0 && (*out = x / y, true);
  case OP_FLOORDIV:
  case OP_MOD:
    if (y == 0) return false;
    float_divmod(x, y, &fd, &md);
    return *out = op == OP_MOD ? md : fd, true;
  case OP_POW: return float_pow(x, y, out);
  default: return false;   /* TypeError: no bitwise operators or shifts on floats */
  }
}

/* ---- complex numbers ---- */

typedef struct Cx {
  double re, im;
} Cx;

static Cx cx_prod(Cx a, Cx b) { return (Cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

/* _Py_c_quot: Smith's division; errno EDOM for a zero divisor. */
static Cx cx_quot(Cx a, Cx b) {
  double abs_bre = b.re < 0 ? -b.re : b.re, abs_bim = b.im < 0 ? -b.im : b.im;
  if (abs_bre >= abs_bim) {
    if (abs_bre == 0.0) return errno = EDOM, (Cx){0.0, 0.0};
    double ratio = b.im / b.re, denom = b.re + b.im * ratio;
    return (Cx){(a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom};
  }
  if (abs_bim >= abs_bre) {
    double ratio = b.re / b.im, denom = b.re * ratio + b.im;
    return (Cx){(a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom};
  }
  return (Cx){NAN, NAN};   /* a part of b is a NaN */
}

/* _Py_c_pow: through the polar form; errno EDOM for zero to a negative or complex power. */
static Cx cx_pow(Cx a, Cx b) {
  if (b.re == 0.0 && b.im == 0.0) return (Cx){1.0, 0.0};
  if (a.re == 0.0 && a.im == 0.0) {
    if (b.im != 0.0 || b.re < 0.0) errno = EDOM;
    return (Cx){0.0, 0.0};
  }
  double vabs = hypot(a.re, a.im), len = pow(vabs, b.re), at = atan2(a.im, a.re), phase = at * b.re;
  if (b.im != 0.0) {
    len /= exp(at * b.im);
    phase += b.im * log(vabs);
  }
  return (Cx){len * cos(phase), len * sin(phase)};
}

/* c_powu and c_powi: an integral exponent |n| <= 100 by repeated squaring. */
static Cx cx_powi(Cx x, long n) {
  Cx r = {1.0, 0.0}, p = x;
  long u = n < 0 ? -n : n;
  for (long mask = 1; mask > 0 && u >= mask; mask <<= 1) {
    if (u & mask) r = cx_prod(r, p);
    p = cx_prod(p, p);
  }
  return n > 0 ? r : cx_quot((Cx){1.0, 0.0}, r);
}

/* complex_pow: false where it raises (ZeroDivisionError for EDOM, OverflowError for ERANGE or
 * an infinite part, as _Py_ADJUST_ERANGE2 decides). */
static bool cx_power(Cx a, Cx b, Cx *out) {
  errno = 0;
  Cx p = b.im == 0.0 && b.re == floor(b.re) && fabs(b.re) <= 100.0 ? cx_powi(a, (long)b.re) : cx_pow(a, b);
  if (isinf(p.re) || isinf(p.im)) {
    if (errno == 0) errno = ERANGE;
  } else if (errno == ERANGE) {
    errno = 0;
  }
  *out = p;
  return errno == 0;
}

/* A number as a complex one (complex's TO_COMPLEX: an int or bool through float()). */
static Cx to_cx(const PyNum *a) {
  return (Cx){pynum_as_double(a), a->kind == PN_COMPLEX ? a->im : 0.0};
}

/* a op b where either is complex, or a float ** that gives one; false where Python raises. */
static bool complex_binary(Op op, const PyNum *a, const PyNum *b, PyNum *out) {
  Cx x = to_cx(a), y = to_cx(b), r;
  switch (op) {
  case OP_ADD: r = (Cx){x.re + y.re, x.im + y.im}; break;
  case OP_SUB: r = (Cx){x.re - y.re, x.im - y.im}; break;
  case OP_MUL: r = cx_prod(x, y); break;
  case OP_DIV:
    errno = 0;
    r = cx_quot(x, y);
    if (errno == EDOM) return false;   /* ZeroDivisionError */
    break;
  case OP_POW:
    if (!cx_power(x, y, &r)) return false;
    break;
  default: return false;   /* TypeError: no // % or bitwise operators on complex numbers */
  }
  *out = pynum_complex(r.re, r.im);
  return true;
}

/* ---- operators ---- */

static bool int_binary(Op op, const PyNum *a, const PyNum *b, PyNum *out) {
  PyNum q, r;
  switch (op) {
  case OP_ADD: return int_add(a, b, false, out);
  case OP_SUB: return int_add(a, b, true, out);
  case OP_MUL: return int_mul(a, b, out);
  case OP_DIV: return int_true_divide(a, b, out);
  case OP_FLOORDIV:
  case OP_MOD:
    if (mag_zero(b->mag)) return false;
    int_floordivmod(a, b, &q, &r);
    return *out = op == OP_MOD ? r : q, true;
  case OP_POW:
    if (!b->neg) return int_pow(a, b, out);
    return float_binary(op, pynum_as_double(a), pynum_as_double(b), &out->f) && (out->kind = PN_FLOAT, true);
  case OP_LSHIFT:
  case OP_RSHIFT: return int_shift(op, a, b, out);
  case OP_BITAND:
  case OP_BITOR:
  case OP_BITXOR: return int_bitwise(op, a, b, out);
  default: return false;
  }
}

bool pynum_binary(Op op, const PyNum *a, const PyNum *b, PyEval how, PyNum *out) {
  if (op > OP_BITXOR || (how == PY_FOLD && !fold_allowed(op, a, b))) return false;
  bool pow_complex = op == OP_POW && (a->kind == PN_FLOAT || (b->kind == PN_FLOAT && a->kind != PN_COMPLEX)) &&
                     float_pow_is_complex(pynum_as_double(a), pynum_as_double(b));
  if (a->kind == PN_COMPLEX || b->kind == PN_COMPLEX || pow_complex) return complex_binary(op, a, b, out);
  if (a->kind == PN_FLOAT || b->kind == PN_FLOAT) {
    double v;
    if (!float_binary(op, pynum_as_double(a), pynum_as_double(b), &v)) return false;
    *out = pynum_float(v);
    return true;
  }
  PyNum r = {0};
  if (!int_binary(op, a, b, &r)) return false;
  bool bools = a->kind == PN_BOOL && b->kind == PN_BOOL;   /* bool & | ^ bool is a bool */
  if (bools && (op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR)) r.kind = PN_BOOL;
  *out = r;
  return true;
}

bool pynum_unary(Op op, const PyNum *a, PyNum *out) {
  if (a->kind == PN_COMPLEX) {
    if (op == OP_INVERT) return false;
    *out = op == OP_NEG ? pynum_complex(-a->f, -a->im) : *a;
    return true;
  }
  if (a->kind == PN_FLOAT) {
    if (op == OP_INVERT) return false;
    *out = pynum_float(op == OP_NEG ? -a->f : a->f);
    return true;
  }
  PyNum v = *a;
  v.kind = PN_INT;
  if (op == OP_POS) return *out = v, true;
  if (op == OP_NEG) return int_result(v.mag, !v.neg, out);
  PyNum one = pynum_int(1);   /* ~a is -a - 1 */
  v.neg = !v.neg && !mag_zero(v.mag);
  return int_add(&v, &one, true, out);
}

bool pynum_truth(const PyNum *a) {
  if (a->kind == PN_COMPLEX) return a->f != 0 || a->im != 0;
  return a->kind == PN_FLOAT ? a->f != 0 : !mag_zero(a->mag);
}

bool pynum_to_int64(const PyNum *a, int64_t *v, bool *is_unsigned) {
  if (a->kind >= PN_FLOAT || mag_bits(a->mag) > 64) return false;
  uint64_t m = (uint64_t)a->mag[0] | (uint64_t)a->mag[1] << 32;
  *is_unsigned = !a->neg && m > INT64_MAX;
  if (a->neg && m > (uint64_t)INT64_MAX + 1) return false;
  *v = a->neg ? (int64_t)(0 - m) : (int64_t)m;
  return true;
}

void pynum_int_text(const PyNum *a, char *buf, size_t cap) {
  char digits[PYNUM_MAX_BITS / 3 + 2];
  size_t n = 0;
  Mag m, ten = {10}, r;
  memcpy(m, a->mag, sizeof m);
  do {
    mag_divmod(m, ten, m, r);
    digits[n++] = (char)('0' + r[0]);
  } while (!mag_zero(m) && n < sizeof digits);
  size_t k = 0;
  if (a->neg && k + 1 < cap) buf[k++] = '-';
  while (n && k + 1 < cap) buf[k++] = digits[--n];
  if (cap) buf[k < cap ? k : cap - 1] = '\0';
}
