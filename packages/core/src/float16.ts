/**
 * IEEE half precision on the host: the one float16 codec every package uses. Devices
 * hold float16 as 16-bit words, and so do host arrays (a Uint16Array of bits): these
 * functions cross between those bits and JS numbers (OpenCL's scalar arguments, WGSL's
 * `h` literals, elementwise tensors and scalars).
 */
import { narrowFloatBits, type NarrowFloatFormat } from './narrow-float-bits.ts';

/** float16's layout: 10 mantissa bits, exponent bias 15. */
const FLOAT16: NarrowFloatFormat = { mantissa: 10, bias: 15 };

/** The float16 bits nearest to `value` (ties to even), rounded once, straight from the double. */
export function float16Bits(value: number): number {
  return narrowFloatBits(value, FLOAT16);
}

/** Every half's value, made once when first asked for: a half is a float32 exactly. */
let values: Float32Array | undefined;

/** The number float16 bits stand for. */
export function float16Value(bits: number): number {
  values ??= Float32Array.from({ length: 0x10000 }, (_, b) => decodeFloat16(b));
  return values[bits & 0xffff]!;
}

function decodeFloat16(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/** `value` rounded to the nearest float16, as a number. */
export const roundToFloat16 = (value: number): number => float16Value(float16Bits(value));
