/**
 * Math functions JavaScript lacks or spells with another meaning, as generated code calls
 * them (`loom.<name>`), with the meaning every device gives them (the README's table):
 * `fma` rounds once (computed exactly, then rounded: JavaScript has no fused multiply-add;
 * bfloat16's is float32's, then rounded to bfloat16, as devices compute it),
 * `fmin`/`fmax` ignore a NaN argument (C's, PyTorch's fmin/fmax) and order -0 below +0,
 * `copysign` reads the sign bit (of zeros and NaNs too), `erfc` keeps its relative accuracy
 * where 1 - erf(x) would cancel.
 */
import { roundToBfloat16, roundToFloat16 } from '@loom/core';
import { erfc } from './erf.ts';

export { erfc };

/** `fmax`: the larger, a NaN argument ignored (NaN only when both are); +0 above -0. */
export function fmax(a: number, b: number): number {
  if (a !== a) return b;
  if (b !== b) return a;
  if (a === 0 && b === 0) return Object.is(a, -0) ? b : a;
  return a > b ? a : b;
}

/** `fmin`: the smaller, a NaN argument ignored; -0 below +0. */
export function fmin(a: number, b: number): number {
  if (a !== a) return b;
  if (b !== b) return a;
  if (a === 0 && b === 0) return Object.is(a, -0) ? a : b;
  return a < b ? a : b;
}

const bits = new DataView(new ArrayBuffer(8));

/** The sign bit of `x` (set for -0 and for negative NaNs). */
function signBit(x: number): boolean {
  bits.setFloat64(0, x);
  return (bits.getUint8(0) & 0x80) !== 0;
}

/** `copysign(a, b)`: the magnitude of `a` with the sign bit of `b`. */
export function copysign(a: number, b: number): number {
  const magnitude = Math.abs(a);
  return signBit(b) ? -magnitude : magnitude;
}

/**
 * `a * b + c` rounded once, to float64 or (with `single`) to float32. Finite operands are
 * taken exactly as integers times powers of two, so the product and sum are exact bigints;
 * the one rounding is done here (to nearest, ties to even, subnormals included). Non-finite
 * operands give what `a * b + c` gives: there is nothing to round.
 */
export function fma(a: number, b: number, c: number, single = false): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c)) return a * b + c;
  const exact = fmaParts(a, b, c);
  if (exact === undefined) {
    // an exact zero: +0, or -0 when both addends are -0 (IEEE's rule for x + y)
    const product = a * b;
    return Object.is(product, -0) && Object.is(c, -0) ? -0 : 0;
  }
  return roundBinary(exact.m, exact.e, single ? 24 : 53, single ? -149 : -1074);
}

/** `a * b + c` exactly, as `m * 2^e`; undefined when it is zero. */
function fmaParts(a: number, b: number, c: number): { m: bigint; e: number } | undefined {
  const [ma, ea] = exactParts(a);
  const [mb, eb] = exactParts(b);
  const [mc, ec] = exactParts(c);
  const ep = ea + eb;
  const e = Math.min(ep, ec);
  const m = ((ma * mb) << BigInt(ep - e)) + (mc << BigInt(ec - e));
  return m === 0n ? undefined : { m, e };
}

export function fma32(a: number, b: number, c: number): number {
  return fma(a, b, c, true);
}

/** `a * b + c` of float16 values, rounded once to float16. */
export function fma16(a: number, b: number, c: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b) || !Number.isFinite(c)) return roundToFloat16(a * b + c);
  const exact = fmaParts(a, b, c);
  return exact === undefined ? roundToFloat16(a * b + c) : roundToFloat16(roundBinary(exact.m, exact.e, 11, -24));
}

/**
 * `a * b + c` of bfloat16 values: the float32 fma, then rounded to bfloat16. Devices have no
 * bfloat16 fma; they compute it in float32 and round the result, so this rounds twice on
 * purpose (unlike `fma16`, which matches a native half fma's one rounding).
 */
export function fmaBf16(a: number, b: number, c: number): number {
  return roundToBfloat16(fma32(a, b, c));
}

/** `x` as `m * 2^e` with an integer `m`: exact for every finite double. */
function exactParts(x: number): [bigint, number] {
  if (x === 0) return [0n, 0];
  bits.setFloat64(0, x);
  const hi = bits.getUint32(0);
  const lo = bits.getUint32(4);
  const exponent = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (exponent !== 0) mantissa |= 1n << 52n;
  const sign = hi >>> 31 ? -1n : 1n;
  return [sign * mantissa, (exponent === 0 ? 1 : exponent) - 1075];
}

/** `m * 2^e` rounded to `precision` bits, ties to even, with `minExponent` the lowest bit a subnormal has. */
function roundBinary(m: bigint, e: number, precision: number, minExponent: number): number {
  const negative = m < 0n;
  let magnitude = negative ? -m : m;
  const length = magnitude.toString(2).length;
  // the exponent of the lowest bit kept: `precision` bits below the top, never below the subnormals'
  const lowest = Math.max(length + e - precision, minExponent);
  if (lowest > e) {
    const shift = BigInt(lowest - e);
    const kept = magnitude >> shift;
    const rest = magnitude - (kept << shift);
    const half = 1n << (shift - 1n);
    magnitude = rest > half || (rest === half && (kept & 1n) === 1n) ? kept + 1n : kept;
    e = lowest;
  }
  // `magnitude` has at most precision + 1 bits now: the conversion and the scaling are exact (or overflow to ±Infinity)
  const value = Number(magnitude) * 2 ** e;
  const scaled = Number.isFinite(value) ? value : scaleExactly(Number(magnitude), e);
  const result = negative ? -scaled : scaled;
  return precision === 24 ? Math.fround(result) : result;
}

/** `m * 2^e` for exponents where 2^e alone would over- or underflow a double. */
function scaleExactly(m: number, e: number): number {
  let value = m;
  while (e > 0) {
    const step = Math.min(e, 1000);
    value *= 2 ** step;
    e -= step;
  }
  while (e < 0) {
    const step = Math.max(e, -1000);
    value *= 2 ** step;
    e -= step;
  }
  return value;
}
