/* The prelude text of the helpers for iteration, array views, complex numbers and float16 (see
 * prelude.h). Each is emitted only when used. The same text is compiled by NVRTC and, with the
 * simulator's prelude (src/runtime/sim/prelude.h) in front, by the host C++ compiler. */
#include "codegen/prelude.h"

static const char *const type_helper_text[TH_COUNT] = {
    [TH_RANGE_LEN] =
        "/* How many values range(start, stop, step) yields (0 for a zero step). The difference\n"
        "   is taken in uint64, where it is exact for any two values of T. */\n"
        "template <typename T>\n"
        "static __device__ __forceinline__ int64_t p2c_range_len(T start, T stop, T step) {\n"
        "  if (step > 0 && start < stop)\n"
        "    return (int64_t)(((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step) + 1;\n"
        "  if (step < 0 && start > stop)\n"
        "    return (int64_t)(((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step)) + 1;\n"
        "  return 0;\n"
        "}\n",
};

void prelude_types_emit(StrBuf *sb, HelperSet used) {
  for (int h = 0; h < TH_COUNT; h++)
    if (used.type_bits >> h & 1) {
      sb_putc(sb, '\n');
      sb_puts(sb, type_helper_text[h]);
    }
}
