/**
 * IEEE half precision on the host: the one float16 codec every package uses. Devices
 * hold float16 as 16-bit words, and so do host arrays (a Uint16Array of bits): these
 * functions cross between those bits and JS numbers (OpenCL's scalar arguments, WGSL's
 * `h` literals, elementwise tensors and scalars).
 */

/** The float16 bits nearest to `value` (ties to even), rounded once, straight from the double. */
export function float16Bits(value: number): number {
  if (Number.isNaN(value)) return 0x7e00;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  // 65520 lies halfway between the largest half (65504) and 2^16, and ties to even: up, to infinity
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) {
    // subnormal: a multiple of 2^-24 (rounding up to 1024 gives the smallest normal, correctly)
    return sign | roundHalfEven(a * 2 ** 24);
  }
  let exponent = Math.floor(Math.log2(a));
  // log2 may land one off next to a power of two
  if (2 ** exponent > a) exponent--;
  if (2 ** (exponent + 1) <= a) exponent++;
  const mantissa = roundHalfEven((a / 2 ** exponent - 1) * 1024);
  // a mantissa rounded up to 1024 carries into the exponent, as the bit pattern does by itself
  return sign | ((exponent + 15) * 1024 + mantissa);
}

/** The number float16 bits stand for. */
export function float16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/** `value` rounded to the nearest float16, as a number. */
export const roundToFloat16 = (value: number): number => float16Value(float16Bits(value));

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round sends halves up; a half between an even and an odd goes to the even
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
