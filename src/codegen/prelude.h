/* The helpers of generated code that give C operations Python's meaning. Each is emitted only
 * when used (a bit in a set; the names and sets are in builtins/helpers.h, where the builtin rows
 * name them), in a fixed order, after the fixed part of the prelude. */
#ifndef P2C_CODEGEN_PRELUDE_H
#define P2C_CODEGEN_PRELUDE_H

#include <stdbool.h>
#include <stdint.h>

#include "builtins/helpers.h"
#include "util/buf.h"

/* Writes the fixed prelude (integer typedefs, p2c_array) and every helper in `used`. */
void prelude_emit(StrBuf *sb, HelperSet used);
/* The C form (codegen/emit_c.c): whether helper h has one, and the C forms of those in `used`
 * (each the helper's own text; an overloaded one renamed per type and chosen by _Generic). */
bool prelude_c_form_has(Helper h);
void prelude_emit_c(StrBuf *sb, HelperSet used);
/* Writes the TypeHelpers in `used` (called by prelude_emit). */
void prelude_types_emit(StrBuf *sb, HelperSet used);
/* Writes the CUDA intrinsics' helpers in `used` (called by prelude_emit). */
void prelude_cuda_emit(StrBuf *sb, uint64_t used);

#endif
