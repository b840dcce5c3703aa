/**
 * What the host's float16 and bfloat16 codecs share: a double rounded once, straight from its
 * bits (ties to even), to the bits of a 16-bit float of `mantissa` bits and exponent `bias`. Called
 * for every element of a 16-bit array filled from numbers, so it reads the double's words rather
 * than its log2.
 */

/** A 16-bit float's layout: its mantissa's bits and its exponent's bias. */
export interface NarrowFloatFormat {
  readonly mantissa: number;
  readonly bias: number;
}

/** A double's two 32-bit words (`HIGH` the one with the sign and exponent, whatever the platform's byte order). */
const double = new Float64Array(1);
const words = new Uint32Array(double.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** The bits of the format's value nearest to `value` (ties to even); NaN as the canonical quiet NaN. */
export function narrowFloatBits(value: number, { mantissa, bias }: NarrowFloatFormat): number {
  const infinity = (2 * bias + 1) << mantissa;
  if (Number.isNaN(value)) return infinity | (1 << (mantissa - 1));
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  // halfway between the largest finite value and 2^(bias + 1) ties to even: up, to infinity
  if (a >= (2 - 2 ** -(mantissa + 1)) * 2 ** bias) return sign | infinity;
  if (a < 2 ** (1 - bias)) {
    // subnormal: a multiple of the smallest subnormal (rounding up to 2^mantissa gives the smallest normal, correctly)
    return sign | roundHalfEven(a * 2 ** (mantissa + bias - 1));
  }
  // the exponent and top mantissa bits are the narrow float's, the bits below decide the rounding
  // (a mantissa rounded up to 2^mantissa carries into the exponent, as the bit pattern does by itself)
  double[0] = a;
  const high = words[HIGH]!;
  const exponent = ((high >>> 20) & 0x7ff) - 1023;
  const dropped = 20 - mantissa;
  let bits = ((exponent + bias) << mantissa) | ((high >>> dropped) & ((1 << mantissa) - 1));
  // the first bit dropped, and whether any after it is set (the rest of the high word, the low word)
  const roundBit = high & (1 << (dropped - 1));
  const sticky = (high & ((1 << (dropped - 1)) - 1)) | words[1 - HIGH]!;
  if (roundBit && (sticky || bits & 1)) bits++;
  return sign | bits;
}

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round sends halves up; a half between an even and an odd goes to the even
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
