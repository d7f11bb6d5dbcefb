/* The checks Python's tokenizer and the first steps of its parser make on the token stream,
 * reported where and as CPython 3.11 reports them. tree-sitter accepts inconsistent tabs and
 * spaces, and its error recovery places an error at the start of the damaged statement with no
 * word on what was expected; Python says "expected ':'" right after `def kern(a)`.
 *
 * One pass over the normalized text, with a bracket stack and an indentation stack:
 *   - indentation: TabError when tabs and spaces give different orders (Python compares the
 *     columns with tabs to multiples of 8 and of 1), "unindent does not match any outer
 *     indentation level", "unexpected indent", "expected an indented block after ...";
 *   - brackets: "unmatched ')'", "closing parenthesis ']' does not match opening parenthesis
 *     '('", "'(' was never closed";
 *   - strings: "unterminated string literal", "unterminated triple-quoted string literal";
 *   - a compound statement's header without its ':' ("expected ':'", after its last token).
 * The first problem is reported; anything else is left to the grammar. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frontend/frontend.h"

enum { MAX_DEPTH = 200, MAX_INDENTS = 200 };

typedef struct Indent {
  uint32_t col, altcol;    /* tabs to the next multiple of 8, and tabs as one column */
} Indent;

typedef struct Tok {
  Compilation *c;
  TokenProblem *problem;
  const char *s;
  size_t len, pos;
  char brackets[MAX_DEPTH];
  size_t bracket_at[MAX_DEPTH];
  int depth;
  Indent indents[MAX_INDENTS];
  int nindents;
  /* The logical line being read. */
  size_t line_start;       /* offset of its first token */
  size_t last_end;         /* end of its last token */
  char first_word[16];     /* its first token, when a keyword that opens a compound statement */
  const char *soft_word;   /* its first token is `match` or `case` (soft keywords), or NULL */
  bool colon_at_top;       /* it has a ':' outside brackets */
  bool ends_with_colon;    /* its last token is ':' */
  bool has_tokens;
  /* The line before it: a compound statement's header, whose block must be indented. */
  bool want_block;
  char block_word[16];
  uint32_t block_line;
} Tok;

static bool fail(Tok *t, size_t at, const char *code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static bool fail(Tok *t, size_t at, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t->problem->offset = at;
  t->problem->code = code;
  vsnprintf(t->problem->message, sizeof t->problem->message, fmt, ap);
  va_end(ap);
  return false;
}

static bool is_name_char(unsigned char ch) {
  return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch >= 0x80;
}

static const char *const compound_words[] = {"if", "elif", "else", "for", "while", "with", "def", "class",
                                             "try", "except", "finally", "async"};

/* "'if' statement", "function definition": how Python's message names a block's header. */
static void describe_block(const char *word, char *buf, size_t cap) {
  if (!strcmp(word, "def") || !strcmp(word, "async")) snprintf(buf, cap, "function definition");
  else if (!strcmp(word, "class")) snprintf(buf, cap, "class definition");
  else snprintf(buf, cap, "'%s' statement", word);
}

/* ---- indentation, at the start of each logical line ---- */

static bool expected_block(Tok *t, size_t at) {
  char what[40];
  describe_block(t->block_word, what, sizeof what);
  return fail(t, at, "E-indentation", "expected an indented block after %s on line %u", what, t->block_line);
}

/* Python's columns: a TabError points at the line's start, "unexpected indent" at the last
 * character of the indentation, a bad dedent at the line's end. */
static bool indent_line(Tok *t, Indent in, size_t bol, size_t at, size_t eol) {
  Indent *top = &t->indents[t->nindents - 1];
  if (in.col == top->col) {
    if (in.altcol != top->altcol) return fail(t, bol, "E-tab", "inconsistent use of tabs and spaces in indentation");
    return !t->want_block || expected_block(t, at);
  }
  if (in.col > top->col) {
    if (in.altcol <= top->altcol) return fail(t, bol, "E-tab", "inconsistent use of tabs and spaces in indentation");
    if (!t->want_block) return fail(t, at - 1, "E-indentation", "unexpected indent");
    if (t->nindents == MAX_INDENTS) return fail(t, at, "E-too-deep", "too many levels of indentation");
    t->indents[t->nindents++] = in;
    return true;
  }
  if (t->want_block) return expected_block(t, at);
  while (t->nindents > 1 && in.col < t->indents[t->nindents - 1].col) t->nindents--;
  top = &t->indents[t->nindents - 1];
  if (in.col != top->col) return fail(t, eol, "E-indentation", "unindent does not match any outer indentation level");
  if (in.altcol != top->altcol) return fail(t, bol, "E-tab", "inconsistent use of tabs and spaces in indentation");
  return true;
}

/* Measures the indentation at t->pos (a line's start); blank and comment-only lines are no
 * logical line and are skipped. Returns false after a report. */
static bool start_line(Tok *t) {
  for (;;) {
    Indent in = {0, 0};
    size_t p = t->pos, bol = t->pos;
    for (; p < t->len && (t->s[p] == ' ' || t->s[p] == '\t' || t->s[p] == '\f'); p++) {
      if (t->s[p] == ' ') in.col++, in.altcol++;
      else if (t->s[p] == '\t') in.col = (in.col / 8 + 1) * 8, in.altcol++;
      else in.col = in.altcol = 0;
    }
    if (p < t->len && t->s[p] == '#') while (p < t->len && t->s[p] != '\n') p++;
    if (p < t->len && t->s[p] == '\n') {
      t->pos = p + 1;
      continue;
    }
    t->pos = p;
    if (p >= t->len) return !t->want_block || expected_block(t, p);
    size_t eol = p;
    while (eol < t->len && t->s[eol] != '\n') eol++;
    return indent_line(t, in, bol, p, eol);
  }
}

/* ---- tokens ---- */

/* A string literal starting at t->pos (after its prefix, at the quote). */
static bool skip_string(Tok *t, size_t start) {
  char q = t->s[t->pos];
  bool triple = t->pos + 2 < t->len && t->s[t->pos + 1] == q && t->s[t->pos + 2] == q;
  size_t p = t->pos + (triple ? 3 : 1);
  for (; p < t->len; p++) {
    char ch = t->s[p];
    if (ch == '\\' && p + 1 < t->len) {
      p++;
      continue;
    }
    if (ch == '\n' && !triple) break;
    if (ch == q && (!triple || (p + 2 < t->len && t->s[p + 1] == q && t->s[p + 2] == q))) {
      t->pos = p + (triple ? 3 : 1);
      return true;
    }
  }
  Loc end = source_loc(t->c, p < t->len ? p : t->len - 1);
  return fail(t, start, "E-syntax", "unterminated %sstring literal (detected at line %u)",
              triple ? "triple-quoted " : "", end.line);
}

/* A string prefix (r, b, u, f and their pairs) directly before a quote. */
static bool string_prefix(const char *w, size_t n) {
  if (n > 2) return false;
  for (size_t i = 0; i < n; i++)
    if (!strchr("rRbBuUfF", w[i])) return false;
  return true;
}

static bool open_bracket(Tok *t, char ch, size_t at) {
  if (t->depth == MAX_DEPTH) return fail(t, at, "E-too-deep", "too many nested parentheses");
  t->brackets[t->depth] = ch;
  t->bracket_at[t->depth++] = at;
  return true;
}

static bool close_bracket(Tok *t, char ch, size_t at) {
  if (t->depth == 0) return fail(t, at, "E-syntax", "unmatched '%c'", ch);
  char open = t->brackets[--t->depth];
  if ((open == '(' && ch == ')') || (open == '[' && ch == ']') || (open == '{' && ch == '}')) return true;
  Loc o = source_loc(t->c, t->bracket_at[t->depth]), here = source_loc(t->c, at);
  if (o.line == here.line)
    return fail(t, at, "E-syntax", "closing parenthesis '%c' does not match opening parenthesis '%c'", ch, open);
  return fail(t, at, "E-syntax", "closing parenthesis '%c' does not match opening parenthesis '%c' on line %u",
              ch, open, o.line);
}

static void note_token(Tok *t, size_t start, size_t end) {
  if (!t->has_tokens) {
    t->line_start = start;
    t->first_word[0] = '\0';
    size_t n = end - start;
    t->soft_word = n == 5 && !memcmp(t->s + start, "match", 5) ? "match"
                 : n == 4 && !memcmp(t->s + start, "case", 4) ? "case" : NULL;
    for (size_t i = 0; i < sizeof compound_words / sizeof *compound_words; i++)
      if (strlen(compound_words[i]) == n && memcmp(compound_words[i], t->s + start, n) == 0)
        memcpy(t->first_word, compound_words[i], n + 1);
  }
  bool colon = end - start == 1 && t->s[start] == ':';
  t->colon_at_top |= colon && t->depth == 0;
  t->ends_with_colon = colon;
  t->last_end = end;
  t->has_tokens = true;
}

/* The end of a logical line: a compound header needs its ':', and one that ends with it opens
 * a block on the next line. */
static bool end_line(Tok *t) {
  bool compound = t->first_word[0] != '\0';
  if (compound && !t->colon_at_top) return fail(t, t->last_end, "E-syntax", "expected ':'");
  t->want_block = (compound || t->soft_word) && t->ends_with_colon;
  if (t->want_block) {
    snprintf(t->block_word, sizeof t->block_word, "%s", compound ? t->first_word : t->soft_word);
    t->block_line = source_loc(t->c, t->line_start).line;
  }
  t->has_tokens = false;
  t->colon_at_top = t->ends_with_colon = false;
  return true;
}

/* One token at t->pos (not blank); false after a report. */
static bool next_token(Tok *t) {
  size_t start = t->pos;
  unsigned char ch = (unsigned char)t->s[start];
  if (is_name_char(ch)) {
    size_t p = start;
    while (p < t->len && (is_name_char((unsigned char)t->s[p]) || (t->s[p] == '.' && ch >= '0' && ch <= '9'))) p++;
    t->pos = p;
    if (p < t->len && (t->s[p] == '\'' || t->s[p] == '"') && string_prefix(t->s + start, p - start))
      if (!skip_string(t, start)) return false;
    note_token(t, start, t->pos);
    return true;
  }
  if (ch == '\'' || ch == '"') {
    if (!skip_string(t, start)) return false;
    note_token(t, start, t->pos);
    return true;
  }
  t->pos++;
  if (ch == '(' || ch == '[' || ch == '{') {
    if (!open_bracket(t, (char)ch, start)) return false;
  } else if (ch == ')' || ch == ']' || ch == '}') {
    if (!close_bracket(t, (char)ch, start)) return false;
  } else if (ch == ':' && t->pos < t->len && t->s[t->pos] == '=') {
    t->pos++;   /* := is not a colon */
  }
  note_token(t, start, t->pos);
  return true;
}

bool source_check_tokens(Compilation *c, TokenProblem *problem) {
  Tok *t = arena_alloc(&c->arena, sizeof *t);
  memset(t, 0, sizeof *t);
  t->c = c;
  t->problem = problem;
  t->s = c->text;
  t->len = c->len;
  t->nindents = 1;
  if (!start_line(t)) return false;
  while (t->pos < t->len) {
    char ch = t->s[t->pos];
    if (ch == ' ' || ch == '\t' || ch == '\f') {
      t->pos++;
    } else if (ch == '#') {
      while (t->pos < t->len && t->s[t->pos] != '\n') t->pos++;
    } else if (ch == '\\' && t->pos + 1 < t->len && t->s[t->pos + 1] == '\n') {
      t->pos += 2;   /* an explicit line join */
    } else if (ch == '\n') {
      t->pos++;
      if (t->depth > 0) continue;   /* an implicit line join inside brackets */
      if (t->has_tokens && !end_line(t)) return false;
      if (!start_line(t)) return false;
    } else if (!next_token(t)) {
      return false;
    }
  }
  if (t->depth > 0) {
    return fail(t, t->bracket_at[t->depth - 1], "E-syntax", "'%c' was never closed", t->brackets[t->depth - 1]);
  }
  return !t->has_tokens || end_line(t);
}
