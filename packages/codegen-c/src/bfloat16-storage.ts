/**
 * bfloat16 in C, which has no such type: a buffer holds the bits (`uint16_t`), the upper half of
 * a float's, and every bfloat16 operation is computed in float and its result rounded to bfloat16,
 * as OpenCL and CUDA do (see @loom/codegen-opencl's bfloat16-storage.ts for why that gives the
 * correctly rounded result). The conversions between bits and float are the prelude's
 * (`loom_bfloat16_to_float`, `loom_bfloat16_bits`); a bfloat16 value argument travels as a float
 * holding the bfloat16 value.
 */
import type { HalfStorageSpelling } from '@loom/codegen-cfamily';

/** C's bfloat16 storage: the bits read and written through the prelude's conversions. */
export const cBfloat16Storage: HalfStorageSpelling = {
  load: (array, index) => `loom_bfloat16_to_float(${array}[${index}])`,
  store: (array, index, value) => `${array}[${index}] = loom_bfloat16_bits(${value});`,
  copy: (to, toIndex, from, fromIndex) => `${to}[${toIndex}] = ${from}[${fromIndex}];`,
  round: (fromDouble) =>
    fromDouble
      ? { name: 'loom_to_bfloat16_f64', definition: FROM_DOUBLE }
      : { name: 'loom_to_bfloat16', definition: FROM_FLOAT },
};

/** The prelude's conversions, where a bfloat16 is printed. */
export const BFLOAT16_PRELUDE = `#include <string.h>

static inline float loom_bfloat16_to_float(uint16_t b)
{
  uint32_t bits = (uint32_t) b << 16;
  float out;
  memcpy(&out, &bits, 4);
  return out;
}

/* the bits of x, a bfloat16 value already (its lower 16 bits are zero) */
static inline uint16_t loom_bfloat16_bits(float x)
{
  uint32_t bits;
  memcpy(&bits, &x, 4);
  return (uint16_t) (bits >> 16);
}

/* the float of bits rounded to the nearest bfloat16 (ties to even); a NaN becomes the quiet NaN */
static inline float loom_bfloat16_round_bits(uint32_t bits)
{
  bits = (bits & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  float out;
  memcpy(&out, &bits, 4);
  return out;
}`;

const FROM_FLOAT = `static inline float loom_to_bfloat16(float x)
{
  uint32_t bits;
  memcpy(&bits, &x, 4);
  return loom_bfloat16_round_bits(bits);
}`;

const FROM_DOUBLE = `static inline float loom_to_bfloat16_f64(double x)
{
  /* through a float rounded to odd (truncated, its last bit set where inexact), which rounds to
     bfloat16 as x itself would: rounding to nearest float first could land on a tie x is not on */
  float f = (float) x;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if ((double) f != x && x == x) bits = (fabs((double) f) > fabs(x) ? bits - 1u : bits) | 1u;
  return loom_bfloat16_round_bits(bits);
}`;
