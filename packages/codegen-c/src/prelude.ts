/**
 * What the C device's code starts with. Until the C-family printer (issue 26, item 2) gives C
 * its own dialect, the kernels are spelled by the OpenCL C printer (target.ts says why), so
 * this prelude gives plain C99 + GCC builtins the meaning of the OpenCL C words that printer
 * uses: its types (`uint`, `half`...), address spaces (nothing on a CPU), overloaded math
 * (`<tgmath.h>`: `sin` of a float is `sinf`), `convert_<T>_sat_rtz`, integer `abs`/`min`/`max`,
 * half storage (`vload_half`, `vstore_half_rte`) and the atomics, on the global arrays that the
 * work-groups running in parallel (OpenMP) share.
 */

/** Types and qualifiers. */
const TYPES = `#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <tgmath.h>

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
/* float16 is stored as its bits and computed in float (OpenCL's half storage) */
typedef uint16_t half;

/* one address space on a CPU; a work-group's local memory is its own arrays */
#define __global
#define __local
#define __private
#define __constant const
#define get_group_id(N) (loom_group_ids_int32[N])`;

/** OpenCL's overloaded integer functions; each argument is evaluated once. */
const INTEGERS = `typedef signed char schar;
#define LOOM_ABS(T, U) static inline U loom_abs_##T(T x) { return x < 0 ? (U) 0 - (U) x : (U) x; }
LOOM_ABS(schar, uchar) LOOM_ABS(short, ushort) LOOM_ABS(int, uint) LOOM_ABS(long, ulong)
static inline uchar loom_abs_uchar(uchar x) { return x; }
static inline ushort loom_abs_ushort(ushort x) { return x; }
static inline uint loom_abs_uint(uint x) { return x; }
static inline ulong loom_abs_ulong(ulong x) { return x; }
#define abs(x) _Generic((x), signed char: loom_abs_schar, char: loom_abs_schar, short: loom_abs_short, int: loom_abs_int, long: loom_abs_long, \\
  uchar: loom_abs_uchar, ushort: loom_abs_ushort, uint: loom_abs_uint, ulong: loom_abs_ulong)(x)
#define LOOM_MIN_MAX(T) static inline T loom_min_##T(T a, T b) { return a < b ? a : b; } static inline T loom_max_##T(T a, T b) { return a > b ? a : b; }
LOOM_MIN_MAX(schar) LOOM_MIN_MAX(uchar) LOOM_MIN_MAX(short) LOOM_MIN_MAX(ushort) LOOM_MIN_MAX(int) LOOM_MIN_MAX(uint) LOOM_MIN_MAX(long) LOOM_MIN_MAX(ulong)
#define LOOM_INTEGER_GENERIC(F, x) _Generic((x), signed char: F##_schar, char: F##_schar, uchar: F##_uchar, short: F##_short, ushort: F##_ushort, \\
  int: F##_int, uint: F##_uint, long: F##_long, ulong: F##_ulong)
#define min(a, b) LOOM_INTEGER_GENERIC(loom_min, (a) + (b))((a), (b))
#define max(a, b) LOOM_INTEGER_GENERIC(loom_max, (a) + (b))((a), (b))
#define select(a, b, c) ((c) ? (b) : (a))
#define rsqrt(x) (1 / sqrt(x))`;

/**
 * `convert_<T>_sat_rtz(x)`: truncated toward zero and saturated at T's range (the callers test
 * NaN first). The range's ends are powers of two, exact in float and double.
 */
function saturatingConversions(): string {
  const types: [string, number, boolean][] = [
    ['char', 8, true],
    ['uchar', 8, false],
    ['short', 16, true],
    ['ushort', 16, false],
    ['int', 32, true],
    ['uint', 32, false],
    ['long', 64, true],
    ['ulong', 64, false],
  ];
  return types
    .map(([t, bits, signed]) => {
      const [low, high] = signed ? [`-0x1p${bits - 1}`, `0x1p${bits - 1}`] : ['0.0', `0x1p${bits}`];
      const [min, max] = signed
        ? [`(${t}) ((u${t === 'char' ? 'char' : t}) 1 << ${bits - 1})`, `(${t}) (((u${t === 'char' ? 'char' : t}) 1 << ${bits - 1}) - 1)`]
        : ['0', `(${t}) -1`];
      return `#define convert_${t}_sat_rtz(x) ((x) < ${low} ? ${min} : (x) >= ${high} ? ${max} : (${t}) (x))`;
    })
    .join('\n');
}

/** float16 storage: IEEE binary16 bits from and to float, rounding to nearest even. */
const HALF = `static inline float loom_half_bits_to_float(uint16_t h)
{
  uint32_t sign = (uint32_t) (h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, bits;
  if (exponent == 0x1f) bits = sign | 0x7f800000 | (mantissa << 13);
  else if (exponent != 0) bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  else if (mantissa == 0) bits = sign;
  else
  {
    /* a subnormal half is a normal float */
    float value = (float) mantissa * 0x1p-24f;
    return sign ? -value : value;
  }
  float out;
  memcpy(&out, &bits, 4);
  return out;
}

static inline uint16_t loom_double_to_half_bits(double x)
{
  uint64_t bits;
  memcpy(&bits, &x, 8);
  uint16_t sign = (uint16_t) ((bits >> 48) & 0x8000);
  double a = fabs(x);
  if (a != a) return sign | 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00; /* rounds past the largest half, 65504 */
  if (a < 0x1p-14)
  {
    /* subnormal: a multiple of 2^-24, rounded to nearest even by the FPU's default mode */
    return sign | (uint16_t) nearbyint(a * 0x1p24);
  }
  int exponent;
  double m = frexp(a, &exponent); /* a = m * 2^exponent, 0.5 <= m < 1 */
  double scaled = nearbyint(m * 2048.0); /* 11 significant bits, ties to even */
  if (scaled == 2048.0) { scaled = 1024.0; exponent += 1; }
  return sign | (uint16_t) ((exponent + 14) << 10) | ((uint16_t) scaled - 1024);
}

#define vload_half(i, p) loom_half_bits_to_float((p)[i])
#define vstore_half_rte(x, i, p) ((p)[i] = loom_double_to_half_bits((double) (x)))`;

/** OpenCL's atomics on 32-bit integers, and the compare-and-swap its float atomics are made of. */
const ATOMICS = `#define atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define LOOM_ATOMIC_MIN_MAX(T) \\
  static inline T loom_atomic_min_##T(volatile T *p, T v) { T old = *p; while (v < old && !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} return old; } \\
  static inline T loom_atomic_max_##T(volatile T *p, T v) { T old = *p; while (v > old && !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} return old; }
LOOM_ATOMIC_MIN_MAX(int) LOOM_ATOMIC_MIN_MAX(uint)
#define atomic_min(p, v) _Generic(*(p), int: loom_atomic_min_int, uint: loom_atomic_min_uint)((p), (v))
#define atomic_max(p, v) _Generic(*(p), int: loom_atomic_max_int, uint: loom_atomic_max_uint)((p), (v))
#define atomic_cmpxchg(p, expected, v) __sync_val_compare_and_swap((p), (expected), (v))
#define atom_cmpxchg(p, expected, v) __sync_val_compare_and_swap((p), (expected), (v))`;

/** The prelude, in the order its definitions use one another. */
export const C_PRELUDE = [TYPES, INTEGERS, saturatingConversions(), HALF, ATOMICS].join('\n\n');
