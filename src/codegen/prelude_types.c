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
    [TH_VIEW_INDEX] =
        "/* A view (docs/semantics.md): a[..., i, ...] at dimension K drops that dimension. */\n"
        "template <int K, typename T, int N>\n"
        "static __device__ __forceinline__ p2c_array<T, N - 1> p2c_view_index(p2c_array<T, N> a, int64_t i) {\n"
        "  p2c_array<T, N - 1> v;\n"
        "  if (i < 0) i += a.shape[K];\n"
        "  v.data = (T *)((char *)a.data + i * a.strides[K]);\n"
        "  for (int d = 0; d < N - 1; d++) {\n"
        "    v.shape[d] = a.shape[d < K ? d : d + 1];\n"
        "    v.strides[d] = a.strides[d < K ? d : d + 1];\n"
        "  }\n"
        "  return v;\n"
        "}\n",
    [TH_VIEW_SLICE] =
        "/* A view (docs/semantics.md): a slice lo:hi:step at dimension K narrows it as Python's\n"
        "   slice.indices() does. A missing bound is p2c_slice_max or p2c_slice_min, which clamp to\n"
        "   the end the step walks from or to. A zero step (refused when it is a constant) gives an\n"
        "   empty view. */\n"
        "static constexpr int64_t p2c_slice_max = 9223372036854775807LL;\n"
        "static constexpr int64_t p2c_slice_min = -9223372036854775807LL - 1;\n"
        "\n"
        "/* A bound clamped into [0, n] (or [-1, n - 1] walking backwards), as CPython clamps it. */\n"
        "static __device__ __forceinline__ int64_t p2c_slice_bound(int64_t b, int64_t n, int64_t step) {\n"
        "  if (b < 0) {\n"
        "    b += n;\n"
        "    if (b < 0) b = step < 0 ? -1 : 0;\n"
        "  } else if (b >= n) {\n"
        "    b = step < 0 ? n - 1 : n;\n"
        "  }\n"
        "  return b;\n"
        "}\n"
        "\n"
        "template <int K, typename T, int N>\n"
        "static __device__ __forceinline__ p2c_array<T, N> p2c_view_slice(p2c_array<T, N> a, int64_t start,\n"
        "                                                                 int64_t stop, int64_t step) {\n"
        "  int64_t n = a.shape[K], len = 0;\n"
        "  start = p2c_slice_bound(start, n, step);\n"
        "  stop = p2c_slice_bound(stop, n, step);\n"
        "  if (step > 0 && start < stop) len = (int64_t)((uint64_t)(stop - start - 1) / (uint64_t)step) + 1;\n"
        "  if (step < 0 && start > stop) len = (int64_t)((uint64_t)(start - stop - 1) / (0 - (uint64_t)step)) + 1;\n"
        "  if (len == 0) start = 0;\n"
        "  a.data = (T *)((char *)a.data + start * a.strides[K]);\n"
        "  a.shape[K] = len;\n"
        "  a.strides[K] *= step;\n"
        "  return a;\n"
        "}\n",
};

void prelude_types_emit(StrBuf *sb, HelperSet used) {
  for (int h = 0; h < TH_COUNT; h++)
    if (used.type_bits >> h & 1) {
      sb_putc(sb, '\n');
      sb_puts(sb, type_helper_text[h]);
    }
}
