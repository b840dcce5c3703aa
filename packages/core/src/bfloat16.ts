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
import { narrowFloatBits, type NarrowFloatFormat } from './narrow-float-bits.ts';

/** bfloat16's layout: float32's exponent (bias 127), 7 mantissa bits; its NaN the canonical quiet one, 0x7fc0. */
const BFLOAT16: NarrowFloatFormat = { mantissa: 7, bias: 127 };

/** The bfloat16 bits nearest to `value` (ties to even), rounded once, straight from the double. */
export function bfloat16Bits(value: number): number {
  return narrowFloatBits(value, BFLOAT16);
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
