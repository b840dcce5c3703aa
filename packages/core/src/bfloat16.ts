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

/** The bfloat16 bits nearest to `value` (ties to even), rounded once, straight from the double. */
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
  let exponent = Math.floor(Math.log2(a));
  // log2 may land one off next to a power of two
  if (2 ** exponent > a) exponent--;
  if (2 ** (exponent + 1) <= a) exponent++;
  const mantissa = roundHalfEven((a / 2 ** exponent - 1) * 128);
  // a mantissa rounded up to 128 carries into the exponent, as the bit pattern does by itself
  return sign | ((exponent + 127) * 128 + mantissa);
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

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round sends halves up; a half between an even and an odd goes to the even
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
