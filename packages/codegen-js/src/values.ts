/**
 * Pieces of generated JavaScript that compute a value, and how they are converted
 * between dtypes.
 *
 * Every value has a *representation* (`repr`), the dtype whose JavaScript spelling
 * it follows:
 *
 *   bool                       a number, 0 or 1 (or, with `condition`, a JS boolean)
 *   int8 … int32, uint8 … uint32   a number, an integer in the dtype's range
 *   int64, uint64              a bigint in the dtype's range
 *   float16                    a number that float16 represents exactly (arrays hold
 *                              its bits, a Uint16Array: loads and stores convert)
 *   bfloat16                   a number that bfloat16 represents exactly (arrays hold
 *                              its bits likewise)
 *   float32                    a number that float32 represents exactly
 *   float64                    a number
 *
 * Integer sums and products may be left *unreduced* (`unreduced` set): congruent to
 * the true value modulo 2^32 (2^64 for bigints) but not yet wrapped into range.
 * Wrapping once at the end of `a + b - c` gives the same bits as wrapping after
 * every operation, and reads far better than `((a + b) | 0) - c) | 0`. Whatever
 * needs the actual value (a division, a comparison, a float) reduces first.
 */
import { InternalError, type DType } from '@loom/core';
import { toRepresentation } from './runtime-helpers.ts';

/** JavaScript operator precedence, loosest first (only the levels the printer uses). */
export const Prec = {
  Conditional: 3,
  LogicalOr: 4,
  LogicalAnd: 5,
  BitOr: 6,
  BitXor: 7,
  BitAnd: 8,
  Equality: 9,
  Relational: 10,
  Shift: 11,
  Additive: 12,
  Multiplicative: 13,
  Unary: 15,
  Atom: 20,
} as const;

export interface JsValue {
  readonly code: string;
  /** Precedence of `code`'s outermost operator. */
  readonly prec: number;
  readonly repr: DType;
  /** `code` is a JS boolean (a comparison); as a value it still has to become 0/1. */
  readonly condition?: boolean;
  /**
   * Set when the integer is not yet wrapped into range: a bound on its magnitude in
   * units of 2^32, which keeps sums of 32-bit values below 2^53 and so exact.
   * (Bigints need no bound; any number marks them unreduced.)
   */
  readonly unreduced?: number;
  /** The literal this value came from, so that conversions of it can be folded. */
  readonly literal?: number | bigint;
}

/** Most units of 2^32 an unreduced sum may reach (2^52 in all: still exact in a double). */
export const MAX_UNREDUCED = 2 ** 20;

export const isBigIntType = (t: DType) => t === 'int64' || t === 'uint64';
/** Integer dtypes whose values are JavaScript numbers (bool included: it is 0/1). */
export const isSmallIntType = (t: DType) =>
  t === 'bool' || t === 'int8' || t === 'int16' || t === 'int32' || t === 'uint8' || t === 'uint16' || t === 'uint32';
export const isFloatType = (t: DType) => t === 'float16' || t === 'bfloat16' || t === 'float32' || t === 'float64';

export function atom(code: string, repr: DType): JsValue {
  return { code, prec: Prec.Atom, repr };
}

/** `code` as an operand that needs at least precedence `min`. */
export function operand(v: JsValue, min: number): string {
  return v.prec >= min ? v.code : `(${v.code})`;
}

/** `a op b` for a left-associative operator of precedence `prec`. */
export function infix(a: JsValue, op: string, b: JsValue, prec: number): string {
  return `${operand(a, prec)} ${op} ${operand(b, prec + 1)}`;
}

/** A number or bigint written as JavaScript. */
export function literal(value: number | bigint, repr: DType): JsValue {
  const negative = typeof value === 'bigint' ? value < 0n : value < 0 || Object.is(value, -0);
  const code = typeof value === 'bigint' ? `${value}n` : Object.is(value, -0) ? '-0' : String(value);
  return { code, prec: negative ? Prec.Unary : Prec.Atom, repr, literal: value };
}

/** The computation type of an operation whose (numpy) result type is `t`: C promotes narrow integers to int. */
export function computeType(t: DType): DType {
  return t === 'bool' || t === 'int8' || t === 'int16' || t === 'uint8' || t === 'uint16' ? 'int32' : t;
}

/** A comparison's JS boolean as the 0/1 number bool values are. */
export function asNumber(v: JsValue): JsValue {
  if (!v.condition) return v;
  return { code: `${operand(v, Prec.LogicalOr)} ? 1 : 0`, prec: Prec.Conditional, repr: 'bool' };
}

/** Wraps an unreduced integer into its range. */
export function reduce(v: JsValue): JsValue {
  if (v.unreduced === undefined) return v;
  switch (v.repr) {
    case 'int32':
      return { code: `${operand(v, Prec.Unary)} | 0`, prec: Prec.BitOr, repr: 'int32' };
    case 'uint32':
      return { code: `${operand(v, Prec.Unary)} >>> 0`, prec: Prec.Shift, repr: 'uint32' };
    case 'int64':
      return atom(`BigInt.asIntN(64, ${v.code})`, 'int64');
    case 'uint64':
      return atom(`BigInt.asUintN(64, ${v.code})`, 'uint64');
    default:
      throw new InternalError(`an unreduced ${v.repr} value`);
  }
}

/** `v` as a JavaScript truth value with C's meaning (non-zero is true, NaN included). */
export function asCondition(v: JsValue): JsValue {
  if (v.condition) return v;
  const value = reduce(v);
  if (value.repr === 'bool') return { ...value, condition: true }; // 0 or 1: JavaScript's truthiness is right
  const zero = isBigIntType(value.repr) ? '0n' : '0';
  return { code: `${operand(value, Prec.Relational)} !== ${zero}`, prec: Prec.Equality, repr: 'bool', condition: true };
}

/** The range of a small integer dtype, to tell which conversions change nothing. */
const RANGES: Partial<Record<DType, readonly [number, number]>> = {
  bool: [0, 1],
  int8: [-(2 ** 7), 2 ** 7 - 1],
  int16: [-(2 ** 15), 2 ** 15 - 1],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint8: [0, 2 ** 8 - 1],
  uint16: [0, 2 ** 16 - 1],
  uint32: [0, 2 ** 32 - 1],
};

function fitsIn(from: DType, to: DType): boolean {
  const a = RANGES[from];
  const b = RANGES[to];
  return a !== undefined && b !== undefined && a[0] >= b[0] && a[1] <= b[1];
}

/** The bits of a small integer dtype, as JavaScript's bit operators give them. */
const WRAP_TO: Partial<Record<DType, (code: JsValue) => JsValue>> = {
  int32: (v) => ({ code: `${operand(v, Prec.Unary)} | 0`, prec: Prec.BitOr, repr: 'int32' }),
  uint32: (v) => ({ code: `${operand(v, Prec.Unary)} >>> 0`, prec: Prec.Shift, repr: 'uint32' }),
  int16: (v) => ({ code: `${operand(v, Prec.Unary)} << 16 >> 16`, prec: Prec.Shift, repr: 'int16' }),
  int8: (v) => ({ code: `${operand(v, Prec.Unary)} << 24 >> 24`, prec: Prec.Shift, repr: 'int8' }),
  uint16: (v) => ({ code: `${operand(v, Prec.Unary)} & 0xffff`, prec: Prec.BitAnd, repr: 'uint16' }),
  uint8: (v) => ({ code: `${operand(v, Prec.Unary)} & 0xff`, prec: Prec.BitAnd, repr: 'uint8' }),
};

const BITS: Partial<Record<DType, number>> = { int8: 8, int16: 16, int32: 32, uint8: 8, uint16: 16, uint32: 32 };

/**
 * `v` converted to dtype `to` with C's conversion semantics where C defines them:
 * integers wrap modulo 2^bits; to bool, non-zero is 1; to float32, one correct
 * rounding; to bfloat16, an integer through float32 first (PyTorch's rule). A float
 * becomes an integer truncated toward zero and saturated at the type's range, NaN → 0
 * (Loom's meaning for what C leaves undefined, on every device). The result is reduced.
 */
export function convert(v: JsValue, to: DType): JsValue {
  if (v.literal !== undefined) return literal(toRepresentation(v.literal, to, v.repr), to);
  if (v.condition) {
    if (isBigIntType(to)) return { code: `${operand(v, Prec.LogicalOr)} ? 1n : 0n`, prec: Prec.Conditional, repr: to };
    return retag(asNumber(v), to); // 0 and 1 are the same in every number dtype
  }
  const from = v.repr;
  if (from === to) return reduce(v);

  if (isBigIntType(to)) {
    if (isBigIntType(from)) return atom(`BigInt.${to === 'int64' ? 'asIntN' : 'asUintN'}(64, ${v.code})`, to);
    if (isFloatType(from)) return atom(`loom.${to === 'int64' ? 'floatToInt64' : 'floatToUint64'}(${v.code})`, to);
    const big = atom(`BigInt(${reduce(v).code})`, to);
    const nonNegative = RANGES[from]![0] >= 0;
    return to === 'int64' || nonNegative ? big : atom(`BigInt.asUintN(64, ${big.code})`, to);
  }

  if (to === 'float16') {
    // one rounding from the exact value: doubles hold every float32 and 32-bit integer, and a
    // 64-bit integer beyond 2^53 is beyond float16's range either way
    if (from === 'bool') return retag(reduce(v), to);
    return atom(`loom.toHalf(${isBigIntType(from) ? `Number(${reduce(v).code})` : reduce(v).code})`, to);
  }

  if (to === 'bfloat16') {
    // a float is rounded once from its exact value; an integer becomes a float32 first
    // (PyTorch's rule, and what devices do), which changes nothing for one of at most 16 bits
    const value = reduce(v);
    if (from === 'bool') return retag(value, to);
    if (isFloatType(from) || fitsIn(from, 'int16') || fitsIn(from, 'uint16'))
      return atom(`loom.toBf16(${value.code})`, to);
    const float32 = isBigIntType(from) ? `loom.bigintToFloat32(${value.code})` : `Math.fround(${value.code})`;
    return atom(`loom.toBf16(${float32})`, to);
  }

  if (isBigIntType(from)) {
    const value = reduce(v);
    if (to === 'bool')
      return { code: `${operand(value, Prec.Relational)} !== 0n ? 1 : 0`, prec: Prec.Conditional, repr: 'bool' };
    if (to === 'float64') return atom(`Number(${value.code})`, to);
    if (to === 'float32') return atom(`loom.bigintToFloat32(${value.code})`, to);
    const fn = to.startsWith('int') ? 'asIntN' : 'asUintN';
    return atom(`Number(BigInt.${fn}(${BITS[to]}, ${v.code}))`, to);
  }

  // from a number to a number
  if (to === 'bool') {
    const value = reduce(v);
    if (value.repr === 'bool') return value;
    return { code: `${operand(value, Prec.Relational)} !== 0 ? 1 : 0`, prec: Prec.Conditional, repr: 'bool' };
  }
  if (to === 'float64') return retag(reduce(v), to); // every int32/uint32/float32 is a double exactly
  if (to === 'float32') {
    // every float16 and bfloat16 is a float32 exactly
    if (from === 'float16' || from === 'bfloat16') return retag(v, to);
    const value = reduce(v);
    if (fitsIn(from, 'int16') || fitsIn(from, 'uint16')) return retag(value, to); // at most 16 bits: exact
    return atom(`Math.fround(${value.code})`, to);
  }
  // from a float to a small integer: saturated (the bit operators would wrap)
  if (isFloatType(from)) return atom(`loom.saturate(${v.code}, ${RANGES[to]![0]}, ${RANGES[to]![1]})`, to);
  // from an integer: the JavaScript bit operators wrap, as wanted
  if (v.unreduced === undefined && fitsIn(from, to)) return retag(v, to);
  return WRAP_TO[to]!(v);
}

/**
 * `v` as the value to store into a TypedArray of `dtype`. Typed arrays convert a
 * number themselves exactly as `convert` would (Int8Array wraps an integer,
 * Float32Array rounds to nearest even), so only what they cannot do is spelled out:
 * bool (Uint8Array would keep 2 as 2), bigints, floats headed for an integer array
 * (which saturate, where Int32Array would wrap), and unreduced values headed for a
 * float array.
 */
export function storable(v: JsValue, dtype: DType): JsValue {
  // a float16 or bfloat16 array holds bits
  if (dtype === 'float16') return atom(`loom.halfBits(${convert(v, dtype).code})`, dtype);
  if (dtype === 'bfloat16') return atom(`loom.bf16Bits(${convert(v, dtype).code})`, dtype);
  const floatToInteger = isFloatType(v.repr) && !isFloatType(dtype);
  if (
    v.literal !== undefined ||
    v.condition ||
    dtype === 'bool' ||
    isBigIntType(dtype) ||
    isBigIntType(v.repr) ||
    floatToInteger
  ) {
    return convert(v, dtype);
  }
  return isFloatType(dtype) ? reduce(v) : v;
}

function retag(v: JsValue, repr: DType): JsValue {
  return { code: v.code, prec: v.prec, repr };
}
