/* Parsing with tree-sitter, on two threads for large modules (parse.c). Internal to the
 * frontend. */
#ifndef P2C_FRONTEND_PARSE_H
#define P2C_FRONTEND_PARSE_H

#include <pthread.h>
#include <stdbool.h>

#include <tree_sitter/api.h>

#include "util/diag.h"

enum {
  /* Sources at least this long are parsed in two parts at once. Below it the second thread
   * costs more than it saves (tree-sitter parses about 4 MB/s here, so 128 KiB is ~30 ms). */
  P2C_PARSE_SPLIT_MIN = 128 * 1024,
};

/* The parsers and trees of one source: one part, or two when it was split at a top-level
 * definition. Lives in the arena, so that the driver can release it if out-of-memory jumps out
 * of the frontend (parse_release). */
typedef struct ParseState {
  TSParser *parsers[2];
  TSTree *trees[2];
  int count;
  pthread_t releaser;   /* parse_release_in_background's thread, while `releasing` */
  bool releasing;
} ParseState;

/* Parses c->text. A source of at least split_min bytes (0: P2C_PARSE_SPLIT_MIN) is cut before a
 * top-level `def`, `class` or decorator near its middle and the two parts are parsed on two
 * threads, with byte offsets and positions as in the whole text. When either part has a syntax
 * error, or no cut is found, the whole text is parsed as one part instead, so that diagnostics
 * never depend on the split. Returns false if tree-sitter refused the grammar. */
bool parse_source(const Compilation *c, ParseState *ps, size_t split_min);

/* Where parse_source would cut text (the offset of a line start), or 0 for nowhere. */
size_t parse_split_point(const char *text, size_t len);

/* The offset of the first character of the first line indented more than max_depth levels
 * (at most P2C_MAX_NESTING), or SIZE_MAX. tree-sitter's Python scanner fails past about 255
 * levels and reports a syntax error at the start of the file; this finds the real place. */
size_t parse_too_deep_offset(const char *text, size_t len, int max_depth);

/* Frees parsers and trees (after waiting for parse_release_in_background's thread, if one is
 * running); safe to call twice. Its argument is a ParseState *. */
void parse_release(void *state);

/* Frees a split parse's parsers and trees on another thread, so that the later phases need not
 * wait (freeing a large tree costs about a twentieth of its parse, and the freed memory makes
 * the allocator's next large request consolidate it); a one-part parse is freed at once.
 * parse_release waits for that thread: it must run before the memory holding ps is freed. */
void parse_release_in_background(ParseState *ps);

#endif
