/**
 * bfloat16 in CUDA: buffers hold `__nv_bfloat16` (cuda_bf16.h: what the tensor cores' bfloat16
 * fragments load), and every bfloat16 operation is computed in float and its result rounded to
 * bfloat16, as OpenCL and C do (see @loom/codegen-opencl's bfloat16-storage.ts for why that gives
 * the correctly rounded result). The bits move through `__bfloat16_as_ushort` and
 * `__ushort_as_bfloat16` and are rounded here, so that a NaN becomes the same quiet NaN on every
 * target. A bfloat16 value argument travels as a float holding the bfloat16 value.
 */
import type { HalfStorageSpelling } from '@loom/codegen-cfamily';

/** CUDA's bfloat16 storage: `__nv_bfloat16` elements, a float's upper 16 bits. */
export const cudaBfloat16Storage: HalfStorageSpelling = {
  load: (array, index) => `__uint_as_float((unsigned int) __bfloat16_as_ushort(${array}[${index}]) << 16)`,
  store: (array, index, value) =>
    `${array}[${index}] = __ushort_as_bfloat16((unsigned short) (__float_as_uint(${value}) >> 16));`,
  copy: (to, toIndex, from, fromIndex) => `${to}[${toIndex}] = ${from}[${fromIndex}];`,
  round: (fromDouble) =>
    fromDouble
      ? { name: 'loom_to_bfloat16_f64', definition: FROM_DOUBLE }
      : { name: 'loom_to_bfloat16', definition: FROM_FLOAT },
};

/** The float32 `bits` rounded to the nearest bfloat16's (ties to even), a NaN to the quiet NaN's (told on the bits). */
const roundedBits = (bits: string) =>
  `(${bits} & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : (${bits} + 0x7fffu + ((${bits} >> 16) & 1u)) & 0xffff0000u`;

const FROM_FLOAT = `inline __device__ float loom_to_bfloat16(float x)
{
  // rounded to the nearest bfloat16 (ties to even): the float's upper 16 bits; a NaN becomes the quiet NaN
  unsigned int bits = __float_as_uint(x);
  return __uint_as_float(${roundedBits('bits')});
}`;

const FROM_DOUBLE = `inline __device__ float loom_to_bfloat16_f64(double x)
{
  // through a float rounded to odd (truncated, its last bit set where inexact), which rounds to
  // bfloat16 as x itself would: rounding to nearest float first could land on a tie x is not on
  float f = __double2float_rz(x);
  unsigned int bits = __float_as_uint(f);
  if ((double) f != x && x == x) bits |= 1u;
  return __uint_as_float(${roundedBits('bits')});
}`;
