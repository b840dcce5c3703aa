/**
 * bfloat16 on the host: the one codec every package uses. bfloat16 is float32 with its mantissa
 * cut to 7 bits (8 exponent bits, as float32's: the same range, 3 significant digits). Devices
 * hold it as 16-bit words and compute in float32, rounding every result to bfloat16, and so do
 * host arrays (a Uint16Array of bits): these functions cross between those bits and JS numbers.
 *
 * A value is rounded once, straight from the double (ties to even). A device rounds an operation's
 * float32 result instead, which gives the same bfloat16 for `+ - * /` and `sqrt` of bfloat16
 * operands: float32 holds their exact result or rounds it innocuously (24 >= 2*8 + 2 bits).
 */

/** The bits of the canonical quiet NaN (a NaN keeps no payload: its low bits would be cut). */
const NAN_BITS = 0x7fc0;

/**
 * The bfloat16 bits nearest to `value` (ties to even), rounded once, straight from the double: its
 * exponent and top 7 mantissa bits are bfloat16's, the bits below decide the rounding (a mantissa
 * rounded up to 128 carries into the exponent, as the bit pattern does by itself).
 */
export function bfloat16Bits(value: number): number {
  if (Number.isNaN(value)) return NAN_BITS;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  // halfway between the largest bfloat16, (2 - 2^-7) * 2^127, and 2^128 ties to even: up, to infinity
  if (a >= (2 - 2 ** -8) * 2 ** 127) return sign | 0x7f80;
  if (a < 2 ** -126) {
    // subnormal: a multiple of 2^-133 (rounding up to 128 gives the smallest normal, correctly)
    return sign | roundHalfEven(a * 2 ** 133);
  }
  DOUBLE[0] = a;
  const high = WORDS[HIGH]!;
  const exponent = ((high >>> 20) & 0x7ff) - 1023;
  let bits = ((exponent + 127) << 7) | ((high >>> 13) & 0x7f);
  // the first bit dropped, and whether any after it is set (the rest of the high word, the low word)
  const roundBit = high & 0x1000;
  const sticky = (high & 0xfff) | WORDS[1 - HIGH]!;
  if (roundBit && (sticky || bits & 1)) bits++;
  return sign | bits;
}

/** The number bfloat16 bits stand for (the upper half of a float32's bits). */
export function bfloat16Value(bits: number): number {
  BITS[0] = (bits & 0xffff) << 16;
  return FLOAT[0];
}

/** `value` rounded to the nearest bfloat16, as a number. */
export const roundToBfloat16 = (value: number): number => bfloat16Value(bfloat16Bits(value));

const BITS = new Uint32Array(1);
const FLOAT = new Float32Array(BITS.buffer);
/** A double's two 32-bit words (`HIGH` the one with the sign and exponent, whatever the platform's byte order). */
const DOUBLE = new Float64Array(1);
const WORDS = new Uint32Array(DOUBLE.buffer);
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round sends halves up; a half between an even and an odd goes to the even
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
