/**
 * bfloat16 in OpenCL C, which has no such type: a buffer holds the bits (`ushort`), the upper half
 * of a float's, and every bfloat16 operation is computed in float and its result rounded to
 * bfloat16 (`loom_to_bfloat16`), as float16 is without cl_khr_fp16 (half-storage.ts): a float
 * holds the exact result of `+ - *` of bfloat16 values or rounds it innocuously (24 >= 2*8 + 2
 * bits). A bfloat16 value argument travels as a float holding the bfloat16 value.
 */
import type { HalfStorageSpelling } from '@loom/codegen-cfamily';

/** `x` rounded to bfloat16, as a float. */
const TO_BFLOAT16 = 'loom_to_bfloat16';
/** `x` (a double) rounded to bfloat16 once, as a float. */
const TO_BFLOAT16_F64 = 'loom_to_bfloat16_f64';

/** OpenCL's bfloat16 storage: a float's upper 16 bits, shifted in and out. */
export const openclBfloat16Storage: HalfStorageSpelling = {
  load: (array, index) => `as_float((uint) ${array}[${index}] << 16)`,
  store: (array, index, value) => `${array}[${index}] = (ushort) (as_uint(${value}) >> 16);`,
  copy: (to, toIndex, from, fromIndex) => `${to}[${toIndex}] = ${from}[${fromIndex}];`,
  round: (fromDouble) => ({
    name: fromDouble ? TO_BFLOAT16_F64 : TO_BFLOAT16,
    definition: fromDouble ? FROM_DOUBLE : FROM_FLOAT,
  }),
};

/**
 * The float32 `bits` rounded to the nearest bfloat16's (ties to even), a NaN to the quiet NaN's:
 * tested on the bits, not by `isnan`, which a fast-math build may assume false.
 */
const roundedBits = (bits: string) =>
  `(${bits} & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : (${bits} + 0x7fffu + ((${bits} >> 16) & 1u)) & 0xffff0000u`;

const FROM_FLOAT = `inline float ${TO_BFLOAT16}(float x)
{
  // rounded to the nearest bfloat16 (ties to even): the float's upper 16 bits; a NaN becomes the quiet NaN
  uint bits = as_uint(x);
  return as_float(${roundedBits('bits')});
}`;

const FROM_DOUBLE = `inline float ${TO_BFLOAT16_F64}(double x)
{
  // through a float rounded to odd (truncated, its last bit set where inexact), which rounds to
  // bfloat16 as x itself would: rounding to nearest float first could land on a tie x is not on
  float f = (float) x;
  uint bits = as_uint(f);
  if ((double) f != x && x == x) bits = (fabs((double) f) > fabs(x) ? bits - 1u : bits) | 1u;
  return as_float(${roundedBits('bits')});
}`;
