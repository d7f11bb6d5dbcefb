/* Numba's kinds of conversion between scalar types (numba/core/typeconv/rules.py): the
 * dispatcher rates a signature by them. The rules are a few steps (int8 -> int16 is a promotion,
 * int32 -> float64 safe, ...); a pair's kind is its best path, a path as bad as its worst step,
 * and a step back along a rule is unsafe, except from a complex number to a float (Numba's
 * float -> complex rules are one way: complex128 -> float64 or int64 is no conversion). The closure is computed once per process (pthread_once):
 * it is the same for every kernel and every thread, and never changes after. */
#include <pthread.h>

#include "types/types.h"

enum { N = P2C_DATETIME64 };   /* bool and the numbers: the types with rules (no datetime converts) */

static unsigned char table[N][N];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* One rule: from -> to of `kind` and, unless `one_way` (Numba's tcr.safe: a float becomes a
 * complex number, never back), to -> from unsafe. */
static void add_rule(int from, int to, TypeConversion kind, bool one_way) {
  if (kind < table[from][to]) table[from][to] = (unsigned char)kind;
  if (!one_way && CONV_UNSAFE < table[to][from]) table[to][from] = CONV_UNSAFE;
}

/* The rules, then their closure over paths (Floyd-Warshall, max along a path, min over paths). */
static void build_table(void) {
  for (int a = 0; a < N; a++)
    for (int b = 0; b < N; b++) table[a][b] = a == b ? CONV_EXACT : CONV_NONE;
  static const int rules[][3] = {
      {P2C_BOOL, P2C_INT8, CONV_SAFE},         {P2C_BOOL, P2C_UINT8, CONV_SAFE},
      {P2C_INT8, P2C_INT16, CONV_PROMOTE},     {P2C_UINT8, P2C_UINT16, CONV_PROMOTE},
      {P2C_INT16, P2C_INT32, CONV_PROMOTE},    {P2C_UINT16, P2C_UINT32, CONV_PROMOTE},
      {P2C_INT32, P2C_INT64, CONV_PROMOTE},    {P2C_UINT32, P2C_UINT64, CONV_PROMOTE},
      {P2C_UINT8, P2C_INT16, CONV_SAFE},       {P2C_UINT16, P2C_INT32, CONV_SAFE},
      {P2C_UINT32, P2C_INT64, CONV_SAFE},      {P2C_INT16, P2C_FLOAT32, CONV_SAFE},
      {P2C_INT32, P2C_FLOAT64, CONV_SAFE},     {P2C_INT16, P2C_FLOAT16, CONV_UNSAFE},
      {P2C_INT32, P2C_FLOAT32, CONV_UNSAFE},   {P2C_INT64, P2C_FLOAT64, CONV_SAFE},
      {P2C_UINT64, P2C_FLOAT64, CONV_SAFE},    {P2C_FLOAT16, P2C_FLOAT32, CONV_PROMOTE},
      {P2C_FLOAT32, P2C_FLOAT64, CONV_PROMOTE}, {P2C_COMPLEX64, P2C_COMPLEX128, CONV_PROMOTE}};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    add_rule(rules[i][0], rules[i][1], (TypeConversion)rules[i][2], false);
  add_rule(P2C_FLOAT32, P2C_COMPLEX64, CONV_SAFE, true);
  add_rule(P2C_FLOAT64, P2C_COMPLEX128, CONV_SAFE, true);
  for (int m = 0; m < N; m++)
    for (int a = 0; a < N; a++)
      for (int b = 0; b < N; b++) {
        int via = table[a][m] > table[m][b] ? table[a][m] : table[m][b];
        if (via < table[a][b]) table[a][b] = (unsigned char)via;
      }
}

TypeConversion type_conversion(P2cScalarType from, P2cScalarType to) {
  if (from == to) return CONV_EXACT;
  if ((unsigned)from >= N || (unsigned)to >= N) return CONV_NONE;
  pthread_once(&table_once, build_table);
  return (TypeConversion)table[from][to];
}
