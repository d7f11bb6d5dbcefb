/* Parsing with tree-sitter, on two threads for large modules: see parse.h.
 *
 * Why split: parsing is half of the translation of a large module (tree-sitter 0.20 spends
 * about 1,850 instructions per byte of Python) and cannot be made cheaper from outside, but a
 * module's top-level definitions parse independently. The cut is chosen by a small scanner that
 * knows just enough Python to tell where a line at column 0 starts a new definition: strings
 * (all quote forms), comments, brackets and backslash continuations. If the scanner is wrong
 * about a cut (say, a string form it does not know), the first part ends inside a string or a
 * bracket and tree-sitter reports an error there, so the source is parsed again in one piece:
 * a wrong cut costs time, never meaning. */
#include "frontend/parse.h"

#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

const TSLanguage *tree_sitter_python(void);

/* ---- choosing the cut ---- */

typedef struct Scanner {
  const char *text;
  size_t len, pos;
  int depth;   /* open brackets */
} Scanner;

/* Skips a string literal whose opening quote is at s->pos. */
static void skip_string(Scanner *s) {
  char q = s->text[s->pos];
  bool triple = s->pos + 2 < s->len && s->text[s->pos + 1] == q && s->text[s->pos + 2] == q;
  s->pos += triple ? 3 : 1;
  while (s->pos < s->len) {
    char ch = s->text[s->pos];
    if (ch == '\\') {
      s->pos += 2;   /* an escaped character, raw strings included, never closes the string */
      continue;
    }
    if (ch == '\n' && !triple) return;   /* unterminated: tree-sitter reports it */
    if (ch == q && (!triple || (s->pos + 2 < s->len && s->text[s->pos + 1] == q &&
                                s->text[s->pos + 2] == q))) {
      s->pos += triple ? 3 : 1;
      return;
    }
    s->pos++;
  }
}

/* The characters that matter to the scans below; both read the whole source before the parse,
 * and the others are skipped with one table lookup each. */
static const bool line_syntax[256] = {
    ['\''] = true, ['"'] = true, ['#'] = true, ['\\'] = true, ['\n'] = true,
    ['('] = true,  ['['] = true, ['{'] = true, [')'] = true,  [']'] = true,  ['}'] = true,
};

/* Scans the rest of the logical line that starts at s->pos; leaves s->pos at the start of the
 * next logical line. */
static void skip_logical_line(Scanner *s) {
  while (s->pos < s->len) {
    while (s->pos < s->len && !line_syntax[(unsigned char)s->text[s->pos]]) s->pos++;
    if (s->pos >= s->len) return;
    char ch = s->text[s->pos];
    if (ch == '\'' || ch == '"') {
      skip_string(s);
    } else if (ch == '#') {
      while (s->pos < s->len && s->text[s->pos] != '\n') s->pos++;
    } else if (ch == '\\' && s->pos + 1 < s->len && s->text[s->pos + 1] == '\n') {
      s->pos += 2;   /* continuation: the next physical line belongs to this one */
    } else if (ch == '\n') {
      s->pos++;
      if (s->depth == 0) return;
    } else {
      if (ch == '(' || ch == '[' || ch == '{') s->depth++;
      if ((ch == ')' || ch == ']' || ch == '}') && s->depth > 0) s->depth--;
      s->pos++;
    }
  }
}

static bool starts_with(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

size_t parse_split_point(const char *text, size_t len) {
  Scanner s = {text, len, 0, 0};
  size_t best = 0;
  bool after_decorator = false;
  while (s.pos < len) {
    const char *line = text + s.pos, *end = text + len;
    char first = *line;
    bool blank = first == '\n' || first == ' ' || first == '\t' || first == '#';
    if (!blank) {
      bool decorator = first == '@';
      bool definition = decorator || starts_with(line, end, "def ") ||
                        starts_with(line, end, "class ") || starts_with(line, end, "async ");
      /* A decorator belongs to the definition below it: never cut between them. Nor after a
       * backslash continuation, which the scanner never lets end a logical line, but which
       * tree-sitter would accept at the end of a part: say so twice. */
      bool continued = s.pos >= 2 && text[s.pos - 2] == '\\';
      if (definition && !after_decorator && !continued && s.pos > 0) {
        best = s.pos;
        if (s.pos >= len / 2) return best;
      }
      after_decorator = decorator;
    } else if (first == ' ' || first == '\t') {
      /* An indented line: blank or a comment keeps after_decorator, code clears it. */
      const char *p = line;
      while (p < end && (*p == ' ' || *p == '\t')) p++;
      if (p < end && *p != '\n' && *p != '#') after_decorator = false;
    }
    skip_logical_line(&s);
  }
  return best >= len / 4 ? best : 0;
}

/* ---- indentation depth ---- */

/* The width of the indentation at text[pos], as Python counts it (a tab goes to the next
 * multiple of 8), and where the line's first non-blank character is. */
static size_t indent_width(const char *text, size_t len, size_t *pos) {
  size_t w = 0;
  for (; *pos < len && (text[*pos] == ' ' || text[*pos] == '\t' || text[*pos] == '\f'); (*pos)++)
    w = text[*pos] == '\t' ? (w / 8 + 1) * 8 : text[*pos] == ' ' ? w + 1 : 0;
  return w;
}

size_t parse_too_deep_offset(const char *text, size_t len, int max_depth) {
  Scanner s = {text, len, 0, 0};
  size_t widths[P2C_MAX_NESTING + 2] = {0};   /* the indentation stack; widths[0] is column 0 */
  int depth = 0;
  assert(max_depth <= P2C_MAX_NESTING);
  while (s.pos < len) {
    size_t w = indent_width(text, len, &s.pos);
    if (s.pos >= len) break;
    char first = text[s.pos];
    if (first != '\n' && first != '#') {   /* blank and comment lines do not count */
      while (depth > 0 && w < widths[depth]) depth--;
      if (w > widths[depth]) {
        if (depth == max_depth) return s.pos;
        widths[++depth] = w;
      }
    }
    skip_logical_line(&s);
  }
  return SIZE_MAX;
}

/* ---- parsing ---- */

typedef struct PartJob {
  TSParser *parser;
  const char *text;
  size_t len;
  TSRange range;
  TSTree *tree;
} PartJob;

static void parse_part(PartJob *job) {
  if (job->range.start_byte == 0) {   /* a prefix: no range needed */
    job->tree = ts_parser_parse_string(job->parser, NULL, job->text, job->range.end_byte);
    return;
  }
  if (ts_parser_set_included_ranges(job->parser, &job->range, 1))
    job->tree = ts_parser_parse_string(job->parser, NULL, job->text, (uint32_t)job->len);
}

static void *parse_part_thread(void *arg) {
  parse_part(arg);
  return NULL;
}

static TSPoint point_at(const Compilation *c, size_t offset) {
  Loc l = source_loc(c, offset);
  size_t line_start = c->line_starts.items[l.line - 1];
  return (TSPoint){l.line - 1, (uint32_t)(offset - line_start)};   /* column in bytes */
}

static TSParser *new_parser(void) {
  TSParser *p = ts_parser_new();
  if (p && !ts_parser_set_language(p, tree_sitter_python())) {
    ts_parser_delete(p);
    return NULL;
  }
  return p;
}

/* Parses [0, cut) here and [cut, len) on a second thread; false if either part has an error. */
static bool parse_two_parts(const Compilation *c, ParseState *ps, size_t cut) {
  if (!(ps->parsers[1] = new_parser())) return false;
  PartJob jobs[2];
  size_t bounds[3] = {0, cut, c->len};
  for (int i = 0; i < 2; i++) {
    TSRange r = {point_at(c, bounds[i]), point_at(c, bounds[i + 1]), (uint32_t)bounds[i],
                 (uint32_t)bounds[i + 1]};
    jobs[i] = (PartJob){ps->parsers[i], c->text, c->len, r, NULL};
  }
  pthread_t thread;
  bool threaded = pthread_create(&thread, NULL, parse_part_thread, &jobs[1]) == 0;
  parse_part(&jobs[0]);
  if (threaded) pthread_join(thread, NULL);
  else parse_part(&jobs[1]);
  ps->trees[0] = jobs[0].tree;
  ps->trees[1] = jobs[1].tree;
  ps->count = 2;
  return ps->trees[0] && ps->trees[1] && !ts_node_has_error(ts_tree_root_node(ps->trees[0])) &&
         !ts_node_has_error(ts_tree_root_node(ps->trees[1]));
}

static void *delete_tree_thread(void *tree) {
  ts_tree_delete(tree);
  return NULL;
}

/* Two trees are deleted at once, like they were parsed: freeing a large tree is about a tenth of
 * the time its parse took. */
static void release_trees(ParseState *ps) {
  pthread_t thread;
  bool threaded = ps->trees[0] && ps->trees[1] &&
                  pthread_create(&thread, NULL, delete_tree_thread, ps->trees[1]) == 0;
  if (threaded) ps->trees[1] = NULL;
  for (int i = 0; i < 2; i++) {
    if (ps->trees[i]) ts_tree_delete(ps->trees[i]);
    ps->trees[i] = NULL;
  }
  if (threaded) pthread_join(thread, NULL);
  ps->count = 0;
}

bool parse_source(const Compilation *c, ParseState *ps, size_t split_min) {
  if (!(ps->parsers[0] = new_parser())) return false;
  if (!split_min) split_min = P2C_PARSE_SPLIT_MIN;
  size_t cut = c->len >= split_min ? parse_split_point(c->text, c->len) : 0;
  if (cut && parse_two_parts(c, ps, cut)) return true;
  release_trees(ps);
  ts_parser_reset(ps->parsers[0]);
  ts_parser_set_included_ranges(ps->parsers[0], NULL, 0);   /* the whole text */
  ps->trees[0] = ts_parser_parse_string(ps->parsers[0], NULL, c->text, (uint32_t)c->len);
  ps->count = 1;
  return ps->trees[0] != NULL;
}

static void release_now(ParseState *ps) {
  release_trees(ps);
  for (int i = 0; i < 2; i++) {
    if (ps->parsers[i]) ts_parser_delete(ps->parsers[i]);
    ps->parsers[i] = NULL;
  }
}

void parse_release(void *state) {
  ParseState *ps = state;
  if (ps->releasing) {
    pthread_join(ps->releaser, NULL);
    ps->releasing = false;
  }
  release_now(ps);
}

static void *release_thread(void *state) {
  release_now(state);
  return NULL;
}

void parse_release_in_background(ParseState *ps) {
  if (ps->releasing) return;
  ps->releasing = ps->count == 2 && pthread_create(&ps->releaser, NULL, release_thread, ps) == 0;
  if (!ps->releasing) release_now(ps);
}
