/**
 * What the C target's code starts with: the headers of what it calls (`<stdint.h>`'s
 * `int64_t`, `<math.h>`), and the little C99 lacks that the printed code uses everywhere:
 * OpenCL's `rsqrt`, and, where a float16 is printed, the conversions between a half's bits
 * and float (C99 has no half type; half-storage.ts). Everything else the code needs is a
 * helper the printer records where it is used (arithmetic-helpers.ts in codegen-cfamily,
 * atomics.ts, the saturating conversions of c-types.ts).
 */
import type { ProgramFacts } from '@loom/codegen-cfamily';
import { BFLOAT16_PRELUDE } from './bfloat16-storage.ts';
import { GROUP_IDS } from './names.ts';

/**
 * The includes; a work-group's id, from the parameter every kernel function takes last
 * (`GROUP_IDS`); OpenCL's `rsqrt`: 1/sqrt(x), two roundings, as C computes it.
 */
const ALWAYS = [
  '#include <stdint.h>',
  '#include <math.h>',
  '',
  `#define gid(N) ((int) ${GROUP_IDS}[N])`,
  'static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }',
  'static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }',
];

/** float16 storage: IEEE binary16 bits from and to floats, rounding to nearest even. */
const HALF = `#include <string.h>

static inline float loom_half_to_float(uint16_t h)
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

/* x rounded once to the nearest half (ties to even), as its bits: a float converts to double exactly */
static inline uint16_t loom_half_bits(double x)
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
}`;

/** The lines before the helper functions (`CDialect.prelude`). */
export function cPrelude({ float16, bfloat16, prints }: ProgramFacts): string[] {
  return [
    ...(prints ? ['#include <stdio.h>'] : []),
    ...ALWAYS,
    ...(float16 ? ['', ...HALF.split('\n')] : []),
    ...(bfloat16 ? ['', ...BFLOAT16_PRELUDE.split('\n')] : []),
  ];
}
