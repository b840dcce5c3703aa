/**
 * The functions generated code calls as `loom.<name>(...)`: the parts of C and
 * Python arithmetic that JavaScript has no operator for. Each one is small and
 * written for exactly the representation the printer gives its arguments (see
 * `values.ts`): 32-bit integers and floats as numbers, 64-bit integers as bigints.
 *
 * They follow Loom's one meaning of arithmetic (the README's table, which every
 * device's code agrees with): division or remainder by an integer zero gives 0, a
 * float becomes an integer saturated at the type's range (NaN → 0), float `min` and
 * `max` propagate NaN.
 */
import {
  bfloat16Bits,
  bfloat16Value,
  float16Bits,
  float16Value,
  roundToBfloat16,
  roundToFloat16,
  type DType,
} from '@loom/core';
import { erf } from './erf.ts';
import {
  mulHi32,
  mulHi64,
  mulHiU32,
  mulHiU64,
  rotate32,
  rotate64,
  shl32,
  shl64,
  shlU32,
  shlU64,
  shr32,
  shr64,
  shrU32,
  shrU64,
} from './bit-helpers.ts';
import { copysign, erfc, fma, fma16, fma32, fmaBf16, fmax, fmin } from './math-helpers.ts';

// --- 32-bit integers ----------------------------------------------------------------------------

/** Python's `a % b` for int32 (sign of the divisor): `a - b*floor(a/b)`. */
function mod(a: number, b: number): number {
  if (b === 0) return 0;
  const r = a % b; // exact for integers, sign of the dividend; may be -0
  return (r !== 0 && r < 0 !== b < 0 ? r + b : r) | 0;
}

/** `a % b` for uint32 (both non-negative, so C and Python agree). */
function modU32(a: number, b: number): number {
  return b === 0 ? 0 : a % b;
}

/**
 * `a ** b` for 32-bit integers, by squaring with wrapping multiplications, so large
 * powers wrap exactly like repeated C multiplication (Math.pow would round first).
 * A negative exponent gives the integer part of 1/a^|b|: ±1 for a = ±1, else 0.
 */
function ipow(base: number, exponent: number): number {
  if (exponent < 0) return base === 1 ? 1 : base === -1 ? (exponent & 1 ? -1 : 1) : 0;
  let result = 1;
  let square = base;
  for (let e = exponent; e > 0; e = Math.floor(e / 2)) {
    if (e % 2 === 1) result = Math.imul(result, square);
    square = Math.imul(square, square);
  }
  return result;
}

// --- floats -------------------------------------------------------------------------------------

/**
 * PyTorch's float `a % b` (`torch.remainder`): C's exact `fmod` (JavaScript's `%`),
 * moved into the divisor's sign when it is non-zero. A zero keeps the dividend's sign.
 */
function floorMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

/** C's `round`: halfway cases away from zero (Math.round rounds them up). */
function round(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** C's `pow`, which differs from Math.pow at pow(1, NaN) and pow(-1, ±inf): both 1. */
function pow(a: number, b: number): number {
  if (a === 1 || (a === -1 && !Number.isFinite(b) && !Number.isNaN(b))) return 1;
  return a ** b;
}

/**
 * `min` of floats, over any number of arguments, as `torch.minimum`: a NaN argument
 * makes the result NaN, and -0 is smaller than +0 (IEEE 754-2019's minimum).
 */
function minimum(...xs: number[]): number {
  let m = xs[0];
  for (let k = 1; k < xs.length; k++) {
    const x = xs[k];
    if (x < m || x !== x || (x === 0 && m === 0 && Object.is(x, -0))) m = x;
    if (m !== m) return m;
  }
  return m;
}

/** `max` of floats, as `torch.maximum`: a NaN argument makes the result NaN; +0 is larger than -0. */
function maximum(...xs: number[]): number {
  let m = xs[0];
  for (let k = 1; k < xs.length; k++) {
    const x = xs[k];
    if (x > m || x !== x || (x === 0 && m === 0 && Object.is(m, -0))) m = x;
    if (m !== m) return m;
  }
  return m;
}

/**
 * A float converted to an integer type whose range is [lo, hi]: truncated toward zero,
 * saturated at the range, NaN → 0 (Loom's one meaning for every device: C leaves it
 * undefined, WGSL saturates at the nearest float, x86 gives INT_MIN). `+ 0` turns the
 * -0 that Math.trunc gives for -0.5 into the integer 0.
 */
function saturate(x: number, lo: number, hi: number): number {
  if (x !== x) return 0;
  return x <= lo ? lo : x >= hi ? hi : Math.trunc(x) + 0;
}

// --- 64-bit integers (bigint) -------------------------------------------------------------------

const wrap64 = (x: bigint) => BigInt.asIntN(64, x);

/** C's truncating `a / b` for int64 (bigint `/` truncates, but throws on zero). */
function div64(a: bigint, b: bigint): bigint {
  return b === 0n ? 0n : wrap64(a / b);
}

/** `a / b` (and `a // b`) for uint64. */
function divU64(a: bigint, b: bigint): bigint {
  return b === 0n ? 0n : a / b;
}

/** Python's `a // b` for int64: the quotient rounded down. */
function floorDiv64(a: bigint, b: bigint): bigint {
  if (b === 0n) return 0n;
  const q = a / b;
  return wrap64(a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q);
}

/** Python's `a % b` for int64 (sign of the divisor). */
function mod64(a: bigint, b: bigint): bigint {
  if (b === 0n) return 0n;
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
}

/** `a % b` for uint64. */
function modU64(a: bigint, b: bigint): bigint {
  return b === 0n ? 0n : a % b;
}

/** `a ** b` for int64 (or uint64 with `bits` unsigned), wrapping like repeated multiplication. */
function ipow64(base: bigint, exponent: bigint, unsigned = false): bigint {
  const wrap = unsigned ? (x: bigint) => BigInt.asUintN(64, x) : wrap64;
  if (exponent < 0n) return base === 1n ? 1n : base === -1n ? (exponent % 2n !== 0n ? -1n : 1n) : 0n;
  let result = 1n;
  let square = base;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = wrap(result * square);
    square = wrap(square * square);
  }
  return result;
}

function ipowU64(base: bigint, exponent: bigint): bigint {
  return ipow64(base, exponent, true);
}

/** `abs` for int64: |INT64_MIN| wraps to itself, as in C. */
function abs64(a: bigint): bigint {
  return wrap64(a < 0n ? -a : a);
}

function min64(...xs: bigint[]): bigint {
  return xs.reduce((m, x) => (x < m ? x : m));
}

function max64(...xs: bigint[]): bigint {
  return xs.reduce((m, x) => (x > m ? x : m));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** A float converted to int64: truncated, saturated at int64's range, NaN → 0 (see `saturate`). */
function floatToInt64(x: number): bigint {
  if (x !== x) return 0n;
  return x <= -(2 ** 63) ? INT64_MIN : x >= 2 ** 63 ? INT64_MAX : BigInt(Math.trunc(x));
}

/** A float converted to uint64: truncated, saturated at 0 and 2^64 - 1, NaN → 0. */
function floatToUint64(x: number): bigint {
  if (x !== x) return 0n;
  return x <= 0 ? 0n : x >= 2 ** 64 ? UINT64_MAX : BigInt(Math.trunc(x));
}

/**
 * A 64-bit integer rounded to float32 once, correctly. `Math.fround(Number(x))`
 * would round twice (to 53 bits, then to 24) and can land on the wrong side of a
 * halfway point; instead the bits below the 30th are folded into one sticky bit,
 * which makes the conversion to a double exact and leaves one rounding.
 */
function bigintToFloat32(x: bigint): number {
  const negative = x < 0n;
  const magnitude = negative ? -x : x;
  const bits = magnitude.toString(2).length;
  if (bits <= 53) return Math.fround(Number(x));
  const shift = BigInt(bits - 30);
  let kept = magnitude >> shift;
  if (kept << shift !== magnitude) kept |= 1n;
  const value = Number(kept) * 2 ** Number(shift);
  return Math.fround(negative ? -value : value);
}

/** The helpers object generated code receives as its `loom` parameter. */
export const runtimeHelpers = Object.freeze({
  /** Python's `a % b` for int32: the remainder takes the divisor's sign; 0 when `b` is 0. */
  mod,
  /** `a % b` for uint32; 0 when `b` is 0. */
  modU32,
  /** `a ** b` for int32, wrapping like repeated C multiplication; a negative exponent gives the integer part of 1/a^|b|. */
  ipow,
  /** PyTorch's float `a % b` (`torch.remainder`): `fmod` moved into the divisor's sign. */
  floorMod,
  /** C's `round`: halfway cases away from zero. */
  round,
  /** C's `pow`: 1 for pow(1, NaN) and pow(-1, ±inf), where `Math.pow` gives NaN. */
  pow,
  /** Float `min` of any number of arguments, as `torch.minimum`: NaN propagates, -0 < +0. */
  minimum,
  /** Float `max` of any number of arguments, as `torch.maximum`: NaN propagates, +0 > -0. */
  maximum,
  /** A float converted to an integer type of range [lo, hi]: truncated, saturated at the range, NaN → 0. */
  saturate,
  /** The error function, to double precision (JavaScript's `Math` has none). */
  erf,
  /** C's truncating `a / b` for int64 (bigints), wrapping; 0 when `b` is 0. */
  div64,
  /** `a / b` for uint64 (bigints); 0 when `b` is 0. */
  divU64,
  /** Python's `a // b` for int64: the quotient rounded down; 0 when `b` is 0. */
  floorDiv64,
  /** Python's `a % b` for int64: the divisor's sign; 0 when `b` is 0. */
  mod64,
  /** `a % b` for uint64; 0 when `b` is 0. */
  modU64,
  /** `a ** b` for int64 (uint64 with `unsigned`), wrapping like repeated multiplication. */
  ipow64,
  /** `a ** b` for uint64, wrapping like repeated multiplication. */
  ipowU64,
  /** `abs` for int64: |INT64_MIN| wraps to itself, as in C. */
  abs64,
  /** `min` of any number of 64-bit integers (bigints). */
  min64,
  /** `max` of any number of 64-bit integers (bigints). */
  max64,
  /** A float converted to int64: truncated, saturated at int64's range, NaN → 0. */
  floatToInt64,
  /** A float converted to uint64: truncated, saturated at 0 and 2^64 - 1, NaN → 0. */
  floatToUint64,
  /** A 64-bit integer rounded once, correctly, to float32 (`Math.fround(Number(x))` rounds twice). */
  bigintToFloat32,
  /** `a << b` for int32, wrapping; 0 for a count outside [0, 32). */
  shl32,
  /** `a << b` for uint32, wrapping; 0 for a count outside [0, 32). */
  shlU32,
  /** Arithmetic `a >> b` for int32; a count outside [0, 32) leaves the sign (0 or -1). */
  shr32,
  /** Logical `a >> b` for uint32; 0 for a count outside [0, 32). */
  shrU32,
  /** `a << b` for int64 (bigints), wrapping; 0 for a count outside [0, 64). */
  shl64,
  /** `a << b` for uint64, wrapping; 0 for a count outside [0, 64). */
  shlU64,
  /** Arithmetic `a >> b` for int64; a count outside [0, 64) leaves the sign (0 or -1). */
  shr64,
  /** Logical `a >> b` for uint64; 0 for a count outside [0, 64). */
  shrU64,
  /** `mul_hi` of int32: the high half of the signed 64-bit product. */
  mulHi32,
  /** `mul_hi` of uint32: the high half of the 64-bit product. */
  mulHiU32,
  /** `mul_hi` of int64 (bigints): the high half of the signed 128-bit product. */
  mulHi64,
  /** `mul_hi` of uint64: the high half of the 128-bit product. */
  mulHiU64,
  /** `rotate` of a 32-bit integer: left by the count modulo 32, on the bits (signed result with `signed`). */
  rotate32,
  /** `rotate` of a 64-bit integer (bigints): left by the count modulo 64, on the bits. */
  rotate64,
  /** C's `copysign(a, b)`: the magnitude of `a` with the sign bit of `b`. */
  copysign,
  /** The complementary error function 1 − erf(x), accurate where it is small. */
  erfc,
  /** `a * b + c` rounded once, to float64 (to float32 with `single`). */
  fma,
  /** `a * b + c` of float16 values, rounded once to float16. */
  fma16,
  /** `a * b + c` of float32 values, rounded once to float32. */
  fma32,
  /** `a * b + c` of bfloat16 values as devices compute it: the float32 fma, rounded to bfloat16. */
  fmaBf16,
  /** C's `fmax`: the larger, a NaN argument ignored (NaN only when both are); +0 above -0. */
  fmax,
  /** C's `fmin`: the smaller, a NaN argument ignored (NaN only when both are); -0 below +0. */
  fmin,
  // float16: held as its bits in arrays, as a number (exactly a half's value) in variables
  /** A float16 from its bits (how arrays hold it) to its value (how variables hold it). */
  halfValue: float16Value,
  /** A number to the bits of the nearest float16 (ties to even), for a store into an array. */
  halfBits: float16Bits,
  /** A number rounded to the nearest float16 value (ties to even), as a number. */
  toHalf: roundToFloat16,
  // bfloat16: likewise its bits (a float32's upper half) in arrays, its value in variables
  /** A bfloat16 from its bits (how arrays hold it) to its value (how variables hold it). */
  bf16Value: bfloat16Value,
  /** A number to the bits of the nearest bfloat16 (ties to even), for a store into an array. */
  bf16Bits: bfloat16Bits,
  /** A number rounded once to the nearest bfloat16 value (ties to even), as a number. */
  toBf16: roundToBfloat16,
  /** A float32 value rounded to TF32 (10 mantissa bits, ties away from zero), as NVIDIA's tensor cores take floats. */
  toTf32,
  /** A float32 value with its 13 low bits dropped: TF32 as Hopper's warpgroup instructions read floats from memory. */
  truncateToTf32,
});

export type RuntimeHelper = keyof typeof runtimeHelpers;

const tf32Word = new Float32Array(1);
const tf32Bits = new Uint32Array(tf32Word.buffer);

/** `x` (a float32 value) with its mantissa rounded to 10 bits, ties away from zero (PTX's `cvt.rna.tf32.f32`). */
function toTf32(x: number): number {
  tf32Word[0] = x;
  const bits = tf32Bits[0]!;
  // infinities and NaN keep their bits
  if ((bits & 0x7f800000) === 0x7f800000) return tf32Word[0]!;
  tf32Bits[0] = ((bits + 0x1000) & 0xffffe000) >>> 0;
  return tf32Word[0]!;
}

/** `x` (a float32 value) with its mantissa cut to 10 bits, towards zero (what Hopper's `wgmma ... .tf32` reads). */
function truncateToTf32(x: number): number {
  tf32Word[0] = x;
  const bits = tf32Bits[0]!;
  // infinities and NaN keep their bits
  if ((bits & 0x7f800000) === 0x7f800000) return tf32Word[0]!;
  tf32Bits[0] = (bits & 0xffffe000) >>> 0;
  return tf32Word[0]!;
}

/**
 * A value (a literal, a kernel argument) in the representation generated code uses
 * for `dtype`, converted with the same semantics as a cast in the kernel: bool is
 * 0/1, integers wrap, floats saturate into an integer type, float32 is rounded,
 * float16 and bfloat16 are rounded once (bfloat16 from an integer dtype: through float32),
 * int64/uint64 are bigints. A number is a float when `from` is a float dtype, or
 * (with no `from`) when it is not a whole number.
 */
export function toRepresentation(value: number | bigint | boolean, dtype: DType, from?: DType): number | bigint {
  if (typeof value === 'boolean') value = value ? 1 : 0;
  const isFloat =
    typeof value === 'number' &&
    (from === 'float16' ||
      from === 'bfloat16' ||
      from === 'float32' ||
      from === 'float64' ||
      (from === undefined && !Number.isInteger(value)));
  switch (dtype) {
    case 'bool':
      return typeof value === 'bigint' ? (value !== 0n ? 1 : 0) : value !== 0 ? 1 : 0;
    case 'int8':
    case 'int16':
    case 'int32':
    case 'uint8':
    case 'uint16':
    case 'uint32': {
      const bits = INTEGER_BITS[dtype];
      const signed = dtype.startsWith('int');
      if (isFloat) {
        const lo = signed ? -(2 ** (bits - 1)) : 0;
        return saturate(value as number, lo, signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1);
      }
      const big = BigInt(value as number | bigint);
      return Number(signed ? BigInt.asIntN(bits, big) : BigInt.asUintN(bits, big));
    }
    case 'int64':
      return isFloat ? floatToInt64(value as number) : BigInt.asIntN(64, BigInt(value));
    case 'uint64':
      return isFloat ? floatToUint64(value as number) : BigInt.asUintN(64, BigInt(value));
    case 'float32':
      return typeof value === 'bigint' ? bigintToFloat32(value) : Math.fround(value);
    case 'float64':
      return Number(value);
    case 'float16':
      return roundToFloat16(Number(value));
    case 'bfloat16':
      // an integer dtype's value becomes a float32 first (PyTorch's rule, as a cast in a kernel); a
      // float, or a plain number (a scalar argument), is rounded once, as its bits for a device are
      if (typeof value === 'bigint') return roundToBfloat16(bigintToFloat32(value));
      return roundToBfloat16(from !== undefined && !isFloat ? Math.fround(value) : value);
    case 'complex64':
    case 'complex128':
      throw new RangeError(
        `a ${dtype} scalar has two parts: complex values are lowered to them before code generation`,
      );
  }
}

const INTEGER_BITS = { int8: 8, int16: 16, int32: 32, uint8: 8, uint16: 16, uint32: 32 } as const;
