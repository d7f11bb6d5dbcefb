/* Numba signature strings, parsed with a strict grammar (never evaluated):
 *
 *   signature := [type] '(' [type {',' type} [',']] ')'
 *   type      := name ['[' dim {',' dim} ']']
 *   name      := ident {'.' ident}        (numba.float32 and nb.types.float32 name float32)
 *   dim       := ':' | '::1'              (::1 last: layout C; ::1 first: layout F; else A)
 *   name      := ... | record             (a structured dtype, spelled as Numba prints it:)
 *   record    := 'Record(' field {',' field} ';' int ';' ('True' | 'False') ')'
 *   field     := ident '[type=' ftype ';offset=' int ']'
 *   ftype     := ident | charseq | 'nestedarray(' ident ', (' int {',' int} [','] '))'
 *   name      := ... | charseq            (NumPy's S<n> and U<n>, as Numba prints them, or
 *   charseq   := '[char x ' int ']' | '[unichr x ' int ']'    as numba.types builds them)
 *              | 'CharSeq(' int ')' | 'UnicodeCharSeq(' int ')'
 *   name      := ... | tuple              (tuples, as Numba prints and builds them:)
 *   tuple     := 'UniTuple(' type ' x ' int ')' | 'UniTuple(' type ',' int ')'
 *              | 'Tuple(' [type {',' type}] ')' | 'Tuple((' [type {',' type} [',']] '))'
 *              | 'NamedTuple(' ident {',' ident '=' type} ')'
 *   name      := ... | enum               (a member of an Enum class, as Numba prints its type:)
 *   enum      := 'Enum<' type '>(' ident ')' | 'IntEnum<' type '>(' ident ')'
 *
 *   name      := ... | time               (datetime64 and timedelta64, as Numba prints them:)
 *   time      := ('datetime64' | 'timedelta64' | 'M8' | 'm8') ['[' unit ']']
 *              | ('NPDatetime' | 'NPTimedelta') '(' quote unit quote ')'
 *   unit      := '' | 'Y' | 'M' | 'W' | 'D' | 'h' | 'm' | 's' | 'ms' | 'us' | 'ns' | 'ps' | 'fs' | 'as'
 *
 * NamedTuple is pyk2cuda's spelling of a namedtuple type (Numba prints `Point(int64, int64)`,
 * without the field names): NamedTuple(Point, x=int64, y=int64).
 *
 * The same grammar serves decorator arguments written as Python expressions
 * (@cuda.jit(void(float32[:], int64))), whose source text is exactly this syntax. */
#include <ctype.h>
#include <string.h>

#include "types/types.h"

typedef struct SigParser {
  TypeTable *tt;
  const char *s;
  size_t len, pos;
  const char *err;
  int depth;                /* tuples open around the type being parsed */
} SigParser;

static void skip_space(SigParser *p) {
  while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n'))
    p->pos++;
}

static bool peek(SigParser *p, char c) {
  skip_space(p);
  return p->pos < p->len && p->s[p->pos] == c;
}

static bool accept(SigParser *p, char c) {
  if (!peek(p, c)) return false;
  p->pos++;
  return true;
}

static bool fail(SigParser *p, const char *msg) {
  if (!p->err) p->err = msg;
  return false;
}

/* name: dotted identifiers; the type is named by the last component. */
static bool parse_name(SigParser *p, char *out, size_t cap) {
  size_t n = 0;
  for (;;) {
    skip_space(p);
    size_t start = p->pos;
    while (p->pos < p->len && (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')) p->pos++;
    if (p->pos == start || isdigit((unsigned char)p->s[start])) return fail(p, "expected a type name");
    n = p->pos - start;
    if (n >= cap) return fail(p, "type name too long");
    memcpy(out, p->s + start, n);
    out[n] = '\0';
    if (!accept(p, '.')) return true;
  }
}

/* dims: ':' or '::1' separated by commas; fills ndim and layout. "()" is a 0-d array (C, as
 * Numba's typeof types np.array(5.0)): pyk2cuda's spelling, since Numba's float64[()] raises
 * IndexError and its 0-d types have no string form (docs/semantics.md). */
static bool parse_dims(SigParser *p, int *ndim, char *layout) {
  int n = 0, contiguous_at = -1;
  if (accept(p, '(')) {
    if (!accept(p, ')') || !accept(p, ']')) return fail(p, "expected '()]' (a 0-d array)");
    *ndim = 0;
    *layout = type_layout_of_slices(0, false, false);
    return true;
  }
  do {
    if (!accept(p, ':')) return fail(p, "expected ':' in array dimensions");
    if (accept(p, ':')) {
      if (!accept(p, '1')) return fail(p, "expected '::1'");
      if (contiguous_at >= 0) return fail(p, "'::1' may appear only once");
      contiguous_at = n;
    }
    if (++n > P2C_MAX_NDIM) return fail(p, "too many array dimensions (at most 8)");
  } while (accept(p, ','));
  if (!accept(p, ']')) return fail(p, "expected ']'");
  *ndim = n;
  if (contiguous_at > 0 && contiguous_at < n - 1) return fail(p, "'::1' must be the first or the last dimension");
  *layout = type_layout_of_slices(n, contiguous_at == 0, contiguous_at == n - 1);
  return true;
}

/* A non-negative decimal integer below 2**40. */
static bool parse_int(SigParser *p, int64_t *out) {
  skip_space(p);
  size_t start = p->pos;
  int64_t v = 0;
  while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos]) && p->pos - start < 12)
    v = v * 10 + (p->s[p->pos++] - '0');
  if (p->pos == start || v >= (int64_t)1 << 40) return fail(p, "expected a number");
  *out = v;
  return true;
}

/* The exact text `word` (no space inside it). */
static bool expect_word(SigParser *p, const char *word) {
  skip_space(p);
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) return fail(p, "malformed Record type");
  p->pos += n;
  return true;
}

/* nestedarray(uint8, (5,)) after its name: a nested array field's type. */
static const Type *parse_nested(SigParser *p) {
  char name[64];
  int64_t shape[P2C_MAX_NDIM];
  int n = 0;
  if (!expect_word(p, "(") || !parse_name(p, name, sizeof name) || !expect_word(p, ",") || !expect_word(p, "("))
    return NULL;
  const Type *t = type_scalar_by_name(name);
  if (!t) return fail(p, "unknown type name"), NULL;
  do {
    if (peek(p, ')')) break;
    if (n == P2C_MAX_NDIM) return fail(p, "too many array dimensions (at most 8)"), NULL;
    if (!parse_int(p, &shape[n])) return NULL;
    if (shape[n++] == 0) return fail(p, "a nested array needs elements"), NULL;
  } while (accept(p, ','));
  if (n == 0 || !expect_word(p, ")") || !expect_word(p, ")")) return fail(p, "malformed nestedarray"), NULL;
  return type_array(p->tt, t, n, 'C', MEM_GLOBAL, shape);   /* memory of its record's */
}

/* The length of a character sequence, and the ')' or ']' after it. */
static const Type *parse_charseq_count(SigParser *p, bool unicode, char close) {
  int64_t n;
  if (!parse_int(p, &n) || !accept(p, close)) return fail(p, "malformed character sequence type"), NULL;
  if (n < 1 || n > TYPE_MAX_CHARS) return fail(p, "a character sequence has 1 to 1048576 characters"), NULL;
  return type_charseq(p->tt, unicode, n);
}

/* [char x N] or [unichr x N], at its '['. */
static const Type *parse_bracket_charseq(SigParser *p) {
  char name[16];
  if (!accept(p, '[') || !parse_name(p, name, sizeof name)) return NULL;
  bool unicode = strcmp(name, "unichr") == 0;
  if (!unicode && strcmp(name, "char") != 0) return fail(p, "expected '[char x N]' or '[unichr x N]'"), NULL;
  if (!accept(p, 'x')) return fail(p, "expected 'x' in a character sequence type"), NULL;
  return parse_charseq_count(p, unicode, ']');
}

/* CharSeq(N) or UnicodeCharSeq(N) after its name. */
static const Type *parse_call_charseq(SigParser *p, bool unicode) {
  if (!accept(p, '(')) return NULL;
  return parse_charseq_count(p, unicode, ')');
}

/* ident[type=T;offset=N] */
static bool parse_field(SigParser *p, RecordField *f) {
  char name[64], tname[64];
  if (!parse_name(p, name, sizeof name) || !expect_word(p, "[") || !expect_word(p, "type="))
    return false;
  f->name = arena_strdup(p->tt->arena, name);
  if (peek(p, '[')) {
    f->type = parse_bracket_charseq(p);
    return f->type && expect_word(p, ";") && expect_word(p, "offset=") && parse_int(p, &f->offset) && expect_word(p, "]");
  }
  if (!parse_name(p, tname, sizeof tname)) return false;
  f->type = strcmp(tname, "nestedarray") == 0 ? parse_nested(p) : type_scalar_by_name(tname);
  if (!f->type) return fail(p, "unknown type name in a Record field");
  return expect_word(p, ";") && expect_word(p, "offset=") && parse_int(p, &f->offset) && expect_word(p, "]");
}

/* Record(...) after its name; the layout must be one CUDA C can hold (record_layout_error). */
static const Type *parse_record(SigParser *p) {
  RecordField fields[256];
  int n = 0;
  int64_t size;
  if (!expect_word(p, "(")) return NULL;
  do {
    if (n == 256) return fail(p, "too many Record fields (at most 256)"), NULL;
    if (!parse_field(p, &fields[n++])) return NULL;
  } while (accept(p, ','));
  if (!expect_word(p, ";") || !parse_int(p, &size) || !expect_word(p, ";")) return NULL;
  skip_space(p);
  bool aligned = p->len - p->pos >= 4 && memcmp(p->s + p->pos, "True", 4) == 0;
  if (!expect_word(p, aligned ? "True" : "False") || !expect_word(p, ")")) return NULL;
  const char *why = record_layout_error(p->tt->arena, fields, n, size);
  if (why) return fail(p, why), NULL;
  return type_record(p->tt, fields, n, size, aligned);
}

static const Type *parse_type(SigParser *p, bool allow_void);

enum { MAX_SIG_TUPLE = 256 };

/* An identifier in place (no dots). */
static bool parse_ident(SigParser *p, char *out, size_t cap) {
  size_t start = (skip_space(p), p->pos);
  if (!parse_name(p, out, cap)) return false;
  if (memchr(p->s + start, '.', p->pos - start)) return fail(p, "expected a name without dots");
  return true;
}

/* A tuple's element: a value (a record is a reference, which tuples do not hold). */
static const Type *parse_elem(SigParser *p) {
  const Type *t = parse_type(p, false);
  if (t && t->kind == TY_RECORD) return fail(p, "a record cannot be a tuple element"), NULL;
  if (t && t->kind == TY_CHARSEQ) return fail(p, "a character sequence cannot be a tuple element"), NULL;
  return t;
}

/* Types separated by commas up to `close` (consumed), a trailing comma allowed. */
static int parse_type_list(SigParser *p, char close, const Type **out) {
  int n = 0;
  while (!peek(p, close)) {
    if (n == MAX_SIG_TUPLE) return fail(p, "a tuple of more than 256 elements"), -1;
    if (!(out[n++] = parse_elem(p))) return -1;
    if (!accept(p, ',')) break;
  }
  if (!accept(p, close)) return fail(p, close == ')' ? "expected ')' or ','" : "expected ']'"), -1;
  return n;
}

/* UniTuple(T x N) or UniTuple(T, N) after its name. */
static const Type *parse_unituple(SigParser *p) {
  const Type *elems[MAX_SIG_TUPLE];
  int64_t n;
  if (!accept(p, '(') || !(elems[0] = parse_elem(p))) return NULL;
  if (!accept(p, ',') && !accept(p, 'x')) return fail(p, "expected 'x' or ',' in UniTuple"), NULL;
  if (!parse_int(p, &n) || !accept(p, ')')) return fail(p, "expected 'UniTuple(type x count)'"), NULL;
  if (n < 1 || n > MAX_SIG_TUPLE) return fail(p, "a UniTuple has 1 to 256 elements"), NULL;
  for (int i = 1; i < n; i++) elems[i] = elems[0];
  return type_tuple(p->tt, elems, (int)n);
}

/* Tuple(T, ...) or Tuple((T, ...)) after its name. */
static const Type *parse_tuple(SigParser *p) {
  const Type *elems[MAX_SIG_TUPLE];
  if (!accept(p, '(')) return NULL;
  bool inner = accept(p, '(');
  int n = parse_type_list(p, ')', elems);
  if (n < 0 || (inner && !accept(p, ')'))) return fail(p, "expected ')'"), NULL;
  return type_tuple(p->tt, elems, n);
}

/* NamedTuple(Cls, a=T, ...) after its name. */
static const Type *parse_named_tuple(SigParser *p) {
  const Type *elems[MAX_SIG_TUPLE];
  const char *names[MAX_SIG_TUPLE];
  char cls[64], field[64];
  int n = 0;
  if (!accept(p, '(') || !parse_ident(p, cls, sizeof cls)) return NULL;
  while (accept(p, ',')) {
    if (n == MAX_SIG_TUPLE) return fail(p, "a tuple of more than 256 elements"), NULL;
    if (!parse_ident(p, field, sizeof field)) return NULL;
    for (int i = 0; i < n; i++)
      if (strcmp(names[i], field) == 0) return fail(p, "a field name given twice"), NULL;
    if (!accept(p, '=')) return fail(p, "expected 'field=type'"), NULL;
    names[n] = arena_strdup(p->tt->arena, field);
    if (!(elems[n++] = parse_elem(p))) return NULL;
  }
  if (!accept(p, ')')) return fail(p, "expected ',' or ')' in NamedTuple"), NULL;
  return type_named_tuple(p->tt, cls, names, elems, n);
}

/* Enum<T>(Cls) or IntEnum<T>(Cls) after its name: a member of Enum class Cls, whose values have
 * type T (a number or a tuple of numbers; an IntEnum's an integer). */
static const Type *parse_enum(SigParser *p, bool is_int) {
  char cls[64];
  if (!accept(p, '<')) return NULL;
  const Type *v = parse_elem(p);
  if (!v) return NULL;
  if (!accept(p, '>') || !accept(p, '(') || !parse_ident(p, cls, sizeof cls) || !accept(p, ')'))
    return fail(p, "expected 'Enum<type>(Class)'"), NULL;
  bool numbers = v->kind == TY_TUPLE ? type_tuple_of_numbers(v) : type_is_numeric(v);
  if (is_int ? v->kind != TY_INT || v->enum_class : !numbers)
    return fail(p, is_int ? "an IntEnum's values are integers" : "an Enum's values are numbers or tuples of numbers"), NULL;
  return type_enum(p->tt, arena_strdup(p->tt->arena, cls), v, is_int);
}

/* Tuples nest at most as deep as typeinfer allows (MAX_TUPLE_NEST), which also bounds the
 * parser's recursion. */
enum { MAX_SIG_NEST = 16 };

static const Type *parse_tuple_type(SigParser *p, const char *name) {
  if (p->depth == MAX_SIG_NEST) return fail(p, "tuples nested more than 16 deep"), NULL;
  p->depth++;
  const Type *t = name[0] == 'U' ? parse_unituple(p) : name[0] == 'T' ? parse_tuple(p) : parse_named_tuple(p);
  p->depth--;
  return t;
}

/* An array of element type t when '[' dims follow, else t. */
static const Type *maybe_array(SigParser *p, const Type *t) {
  if (!t || !accept(p, '[')) return t;
  int ndim;
  char layout;
  if (!parse_dims(p, &ndim, &layout)) return NULL;
  return type_array(p->tt, t, ndim, layout, MEM_GLOBAL, NULL);
}

/* The unit of a time type after its name: "[D]" (no unit, or "[:" of an array's dimensions,
 * is the generic unit), or "('D')" after NPDatetime/NPTimedelta. -1 after an error. */
static int parse_time_unit(SigParser *p, bool call) {
  char quote = 0;
  if (call) {
    if (!accept(p, '(')) return fail(p, "expected '(' after NPDatetime or NPTimedelta"), -1;
    skip_space(p);
    if (p->pos < p->len && (p->s[p->pos] == '\'' || p->s[p->pos] == '"')) quote = p->s[p->pos++];
    if (!quote) return fail(p, "expected a quoted unit"), -1;
  } else {
    skip_space(p);
    if (p->pos + 1 >= p->len || p->s[p->pos] != '[' || p->s[p->pos + 1] == ':') return P2C_UNIT_GENERIC;
    p->pos++;
  }
  size_t start = p->pos;
  while (p->pos < p->len && isalnum((unsigned char)p->s[p->pos])) p->pos++;   /* "10D": refused whole */
  int u = time_unit_parse(p->s + start, p->pos - start);
  if (u < 0) return fail(p, "unknown datetime unit (Y M W D h m s ms us ns ps fs as, or none)"), -1;
  if (quote && (p->pos >= p->len || p->s[p->pos++] != quote)) return fail(p, "expected a quoted unit"), -1;
  if (!accept(p, call ? ')' : ']')) return fail(p, call ? "expected ')'" : "expected ']'"), -1;
  return u;
}

/* datetime64[D], m8[ns], NPTimedelta('s'): the type named `name`, else NULL (not one). */
static const Type *parse_time_type(SigParser *p, const char *name, bool *failed) {
  bool call = strcmp(name, "NPDatetime") == 0 || strcmp(name, "NPTimedelta") == 0;
  bool datetime = call ? name[2] == 'D' : strcmp(name, "datetime64") == 0 || strcmp(name, "M8") == 0;
  if (!call && !datetime && strcmp(name, "timedelta64") != 0 && strcmp(name, "m8") != 0) return NULL;
  int u = parse_time_unit(p, call);
  if (u < 0) {
    *failed = true;
    return NULL;
  }
  return datetime ? type_datetime((P2cTimeUnit)u) : type_timedelta((P2cTimeUnit)u);
}

static const Type *parse_type(SigParser *p, bool allow_void) {
  char name[64];
  if (peek(p, '[')) return maybe_array(p, parse_bracket_charseq(p));
  if (!parse_name(p, name, sizeof name)) return NULL;
  if ((strcmp(name, "CharSeq") == 0 || strcmp(name, "UnicodeCharSeq") == 0) && peek(p, '('))
    return maybe_array(p, parse_call_charseq(p, name[0] == 'U'));
  if ((strcmp(name, "UniTuple") == 0 || strcmp(name, "Tuple") == 0 || strcmp(name, "NamedTuple") == 0) &&
      peek(p, '('))
    return parse_tuple_type(p, name);
  if ((strcmp(name, "Enum") == 0 || strcmp(name, "IntEnum") == 0) && peek(p, '<'))
    return parse_enum(p, name[0] == 'I');
  if (strcmp(name, "Record") == 0 && peek(p, '(')) {
    const Type *r = parse_record(p);
    if (!r || !accept(p, '[')) return r;
    int ndim;
    char layout;
    if (!parse_dims(p, &ndim, &layout)) return NULL;
    return type_array(p->tt, r, ndim, layout, MEM_GLOBAL, NULL);
  }
  if (strcmp(name, "void") == 0 || strcmp(name, "none") == 0) {
    if (!allow_void) return fail(p, "'void' is only a return type"), NULL;
    return &type_void;
  }
  bool failed = false;
  const Type *t = parse_time_type(p, name, &failed);
  if (failed) return NULL;
  if (!t) t = type_scalar_by_name(name);
  if (!t) return fail(p, "unknown type name"), NULL;
  if (!accept(p, '[')) return t;
  int ndim;
  char layout;
  if (!parse_dims(p, &ndim, &layout)) return NULL;
  return type_array(p->tt, t, ndim, layout, MEM_GLOBAL, NULL);
}

static bool parse_args(SigParser *p, Signature *out) {
  const Type *args[256];
  int n = 0;
  while (!peek(p, ')')) {
    if (n == 256) return fail(p, "too many arguments");
    if (!(args[n++] = parse_type(p, false))) return false;
    if (!accept(p, ',')) break;
  }
  if (!accept(p, ')')) return fail(p, "expected ')' or ','");
  out->nargs = n;
  out->args = arena_dup(p->tt->arena, args, (size_t)n * sizeof *args);
  return true;
}

bool sig_parse(TypeTable *tt, const char *text, size_t len, Signature *out, const char **err,
               size_t *err_offset) {
  SigParser p = {tt, text, len, 0, NULL, 0};
  memset(out, 0, sizeof *out);
  bool ok = true;
  if (!peek(&p, '(')) ok = (out->ret = parse_type(&p, true)) != NULL;
  if (ok && !accept(&p, '(')) ok = fail(&p, "expected '(' after the return type");
  if (ok) ok = parse_args(&p, out);
  skip_space(&p);
  if (ok && p.pos != p.len) ok = fail(&p, "unexpected text after the signature");
  if (!ok) {
    *err = p.err;
    *err_offset = p.pos;
  }
  return ok;
}

static void format_type(StrBuf *sb, const Type *t);

/* A tuple type as sig_parse reads it back. */
static void format_tuple(StrBuf *sb, const Type *t) {
  if (t->tuple_class) {
    sb_printf(sb, "NamedTuple(%s", t->tuple_class);
    for (int i = 0; i < t->nelems; i++) {
      sb_printf(sb, ", %s=", t->field_names[i]);
      format_type(sb, t->elems[i]);
    }
  } else if (type_tuple_uniform(t)) {
    sb_puts(sb, "UniTuple(");
    format_type(sb, t->elems[0]);
    sb_printf(sb, " x %d", t->nelems);
  } else {
    sb_puts(sb, "Tuple(");
    for (int i = 0; i < t->nelems; i++) {
      if (i) sb_puts(sb, ", ");
      format_type(sb, t->elems[i]);
    }
  }
  sb_putc(sb, ')');
}

static void format_type(StrBuf *sb, const Type *t) {
  if (t->kind == TY_TUPLE) {
    format_tuple(sb, t);
    return;
  }
  if (t->enum_class) {
    sb_puts(sb, t->kind == TY_ENUM ? "Enum<" : "IntEnum<");
    format_type(sb, t->dtype);
    sb_printf(sb, ">(%s)", t->enum_class);
    return;
  }
  if (t->kind != TY_ARRAY) {
    sb_puts(sb, t->name);
    return;
  }
  sb_printf(sb, "%s[%s", t->dtype->name, t->ndim == 0 ? "()" : "");
  for (int i = 0; i < t->ndim; i++) {
    sb_printf(sb, "%s%s", i ? ", " : "", type_dim_contiguous(t->ndim, t->layout, i) ? "::1" : ":");
  }
  sb_putc(sb, ']');
}

const char *sig_format(Arena *a, const Signature *s) {
  StrBuf sb;
  sb_init(&sb, a);
  if (!s->ret || s->ret->kind == TY_VOID) sb_puts(&sb, "void");
  else format_type(&sb, s->ret);
  sb_putc(&sb, '(');
  for (int i = 0; i < s->nargs; i++) {
    if (i) sb_puts(&sb, ", ");
    format_type(&sb, s->args[i]);
  }
  sb_putc(&sb, ')');
  return sb_str(&sb);
}
