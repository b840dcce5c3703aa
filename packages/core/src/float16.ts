/**
 * IEEE half precision on the host: the one float16 codec every package uses. Devices
 * hold float16 as 16-bit words, and so do host arrays (a Uint16Array of bits): these
 * functions cross between those bits and JS numbers (OpenCL's scalar arguments, WGSL's
 * `h` literals, elementwise tensors and scalars).
 */

/** A double's two 32-bit words (`HIGH` the one with the sign and exponent, whatever the platform's byte order). */
const double = new Float64Array(1);
const words = new Uint32Array(double.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * The float16 bits nearest to `value` (ties to even), rounded once, straight from the double: its
 * exponent and top 10 mantissa bits are the half's, the bits below decide the rounding (a mantissa
 * rounded up to 1024 carries into the exponent, as the bit pattern does by itself). Called for every
 * element of a half array filled from numbers, so it reads the double's bits rather than its log2.
 */
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
  double[0] = a;
  const high = words[HIGH]!;
  const exponent = ((high >>> 20) & 0x7ff) - 1023;
  let half = ((exponent + 15) << 10) | ((high >>> 10) & 0x3ff);
  // the first bit dropped, and whether any after it is set (the rest of the high word, the low word)
  const roundBit = high & 0x200;
  const sticky = (high & 0x1ff) | words[1 - HIGH]!;
  if (roundBit && (sticky || half & 1)) half++;
  return sign | half;
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

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round sends halves up; a half between an even and an odd goes to the even
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
