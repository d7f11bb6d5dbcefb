/* Character sequences (NumPy's S<n> and U<n>, Numba's CharSeq and UnicodeCharSeq): values of
 * the prelude's p2c_chars<n> (n bytes) and p2c_unichars<n> (n UCS-4 code points), structs that
 * C copies whole, so that an element or field copied to another (a[i] = b[j]) is a plain
 * assignment. A literal stored into one becomes an aggregate of its characters, which C fills
 * up with zeros: p2c_unichars<12>{{88u, 89u, 90u}} for "XYZ", NumPy's and Numba's result.
 * A conditional literal ("a" if c else "b") is a conditional of the aggregates. typeinfer has
 * checked the kinds (str literals into a UnicodeCharSeq, bytes into a CharSeq). */
#include "codegen/cg.h"

/* The code point of the UTF-8 sequence at s (the frontend's literals are valid UTF-8, escapes
 * of lone surrogates included); *len receives its length. */
static uint32_t utf8_code_point(const unsigned char *s, size_t avail, size_t *len) {
  int n = s[0] < 0x80 ? 1 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
  if ((size_t)n > avail) n = 1;
  uint32_t cp = n == 1 ? s[0] : s[0] & (0x7F >> n);
  for (int k = 1; k < n; k++) cp = cp << 6 | (s[k] & 0x3F);
  *len = (size_t)n;
  return cp;
}

static void emit_charseq_literal(const Type *t, const Expr *lit, StrBuf *sb) {
  sb_printf(sb, "%s{{", t->cname);
  const unsigned char *s = (const unsigned char *)lit->str;
  int64_t n = 0;
  for (size_t at = 0, len = 1; at < lit->str_len && n < t->chars; at += len, n++) {
    uint32_t c = s[at];
    len = 1;
    if (t->unicode) c = utf8_code_point(s + at, lit->str_len - at, &len);
    sb_printf(sb, t->unicode ? "%s%uu" : "%s%u", n ? ", " : "", c);
  }
  sb_puts(sb, "}}");
}

void emit_charseq_value(Gen *G, const Type *t, const Expr *value, StrBuf *sb) {
  if (value->kind == EX_STR) {
    emit_charseq_literal(t, value, sb);
  } else if (value->kind == EX_IFEXP && (value->ty->kind == TY_STR || value->ty->kind == TY_BYTES)) {
    sb_putc(sb, '(');   /* "a" if c else "b": the literal each branch stores */
    emit_expr(G, value->kids[0], sb, P_OR);
    sb_puts(sb, " ? ");
    emit_charseq_value(G, t, value->kids[1], sb);
    sb_puts(sb, " : ");
    emit_charseq_value(G, t, value->kids[2], sb);
    sb_putc(sb, ')');
  } else {
    emit_expr(G, value, sb, P_ASSIGN);   /* a character sequence of type t */
  }
}
