/**
 * What arithmetic means in Loom, on every device: the table the README's language
 * section shows, and the reference values the semantics tests check every device
 * against. One source: the README's table is `markdownTable()` of the rows below
 * (a test keeps the two in sync).
 *
 * Each row is an operation over a class of dtypes with the result it defines, in
 * words (for the README) and as a plain-JS reference (for the tests). The references
 * are written independently of the CPU device's generated code: integers through
 * bigints (exact, then wrapped), floats through doubles rounded once to float32.
 */
import type { DType } from '@loom/core';

export type Value = number | bigint;

export interface SemanticsRow {
  /** The operation as written in a kernel, over operands `a` and `b`. */
  readonly operation: string;
  /** The dtype class, as the README names it. */
  readonly dtypeClass: string;
  /** The defined result, in words. */
  readonly result: string;
  /** The dtypes the tests run the row in (of both operands). */
  readonly dtypes: readonly DType[];
  /** The defined value for operands `a`, `b` of dtype `t` (a number, or a bigint for 64-bit integers). */
  readonly expected: (a: Value, b: Value, t: DType) => Value;
  /** The operands' values, when not the standard edge values of their dtype (`EDGES`). */
  readonly operands?: Partial<Record<DType, readonly Value[]>>;
  /** Relative tolerance for finite, non-zero float results (pow is not correctly rounded on GPUs). */
  readonly tolerance?: number;
  /**
   * Relative tolerance where the target states `relaxedFloatAccuracy` (WebGPU), because WGSL
   * defines the operation less exactly than IEEE does (float32 `/` within 2.5 ulp: NVIDIA's
   * Vulkan driver divides through a reciprocal) and the row's text says so.
   */
  readonly relaxedTolerance?: number;
  /** The result's dtype, where a device might not hold it (int64 on WebGPU). */
  readonly resultDType?: DType;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The edge operands of each dtype: zeros, ±1, the extremes, NaN, infinities, values out of integer range. */
export const EDGES: Partial<Record<DType, readonly Value[]>> = {
  int32: [0, 1, -1, 3, 7, -7, INT32_MIN, INT32_MAX],
  uint32: [0, 1, 3, 7, 2 ** 31, 2 ** 32 - 1],
  int64: [0n, 1n, -1n, 3n, 7n, -7n, INT64_MIN, INT64_MAX],
  float32: [0, -0, 1, -1, 7, -7, 0.5, 2.5, NaN, Infinity, -Infinity, 1e30, -1e30, 3e9],
  float64: [0, -0, 1, -1, 7, -7, 0.5, 2.5, NaN, Infinity, -Infinity, 1e30, -1e30, 3e9, -3e9, 1e300],
};

// --- the references -------------------------------------------------------------------------

const BITS: Partial<Record<DType, number>> = { int32: 32, uint32: 32, int64: 64 };

/** An exact integer result wrapped into `t`, in the representation the device returns. */
function wrap(x: bigint, t: DType): Value {
  const bits = BITS[t]!;
  const wrapped = t.startsWith('u') ? BigInt.asUintN(bits, x) : BigInt.asIntN(bits, x);
  return bits === 64 ? wrapped : Number(wrapped);
}

/** A float result rounded once to `t`. */
const round = (x: number, t: DType) => (t === 'float32' ? Math.fround(x) : x);

const big = (x: Value) => BigInt(x);

/** Integer division truncated toward zero; by zero, 0. */
function truncDiv(a: Value, b: Value, t: DType): Value {
  return big(b) === 0n ? wrap(0n, t) : wrap(big(a) / big(b), t);
}

/** Integer division rounded down; by zero, 0. */
function floorDiv(a: Value, b: Value, t: DType): Value {
  const [x, y] = [big(a), big(b)];
  if (y === 0n) return wrap(0n, t);
  const q = x / y;
  return wrap(x % y !== 0n && x < 0n !== y < 0n ? q - 1n : q, t);
}

/** Integer remainder with the divisor's sign (a - b*(a // b)); by zero, 0. */
function floorMod(a: Value, b: Value, t: DType): Value {
  const [x, y] = [big(a), big(b)];
  if (y === 0n) return wrap(0n, t);
  const r = x % y;
  return wrap(r !== 0n && r < 0n !== y < 0n ? r + y : r, t);
}

/** Integer power, wrapping; a negative exponent gives the integer part of 1/a^-b (PyTorch's). */
function intPow(a: Value, b: Value, t: DType): Value {
  const [x, y] = [big(a), big(b)];
  if (y < 0n) return wrap(x === 1n ? 1n : x === -1n ? (y % 2n === 0n ? 1n : -1n) : 0n, t);
  const bits = BigInt(BITS[t]!);
  let result = 1n;
  let square = x;
  for (let e = y; e > 0n; e >>= 1n) {
    if (e & 1n) result = BigInt.asIntN(Number(bits) + 1, result * square);
    square = BigInt.asIntN(Number(bits) + 1, square * square);
  }
  return wrap(result, t);
}

/** The width of an integer dtype's values, in bits. */
const width = (t: DType) => BigInt(BITS[t]!);

/** `a << b`: the bits moved up, wrapped; a count outside [0, width) gives 0 (PyTorch's). */
function shiftLeft(a: Value, b: Value, t: DType): Value {
  const n = big(b);
  return n >= 0n && n < width(t) ? wrap(big(a) << n, t) : wrap(0n, t);
}

/** `a >> b`: the sign fills in for signed types; a count outside [0, width) shifts everything out. */
function shiftRight(a: Value, b: Value, t: DType): Value {
  const n = big(b);
  const inRange = n >= 0n && n < width(t);
  if (t.startsWith('u')) return inRange ? wrap(big(a) >> n, t) : wrap(0n, t);
  return wrap(big(a) >> (inRange ? n : width(t) - 1n), t);
}

/** C's fmod: the exact remainder with the dividend's sign (JavaScript's float %). */
const fmod = (a: number, b: number) => a % b;

/** PyTorch's float remainder: fmod, moved into the divisor's sign when non-zero. */
function remainder(a: number, b: number, t: DType): number {
  const r = fmod(a, b);
  return r !== 0 && r < 0 !== b < 0 ? round(r + b, t) : r;
}

/** C's pow (std::pow, which PyTorch calls): pow(1, y) and pow(x, ±0) are 1 even for NaN. */
function cPow(a: number, b: number, t: DType): number {
  if (a === 1 || b === 0) return 1;
  if (a === -1 && Math.abs(b) === Infinity) return 1;
  return round(a ** b, t);
}

/** torch.maximum / torch.minimum: NaN propagates; +0 is larger than -0. */
function maximum(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  if (a === 0 && b === 0) return Object.is(a, -0) ? b : a;
  return a > b ? a : b;
}

function minimum(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  if (a === 0 && b === 0) return Object.is(a, -0) ? a : b;
  return a < b ? a : b;
}

/** C's fmax / fmin: a NaN argument is ignored; the zeros ordered -0 < +0. */
function fmaxC(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return maximum(a, b);
}

function fminC(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return minimum(a, b);
}

/** A float converted to an integer type: truncated, saturated at the type's range, NaN → 0. */
function saturate(x: number, lo: bigint, hi: bigint): bigint {
  if (Number.isNaN(x)) return 0n;
  if (x <= Number(lo)) return lo;
  if (x >= Number(hi)) return hi;
  return BigInt(Math.trunc(x));
}

const num = (x: Value) => Number(x);
/** 2.5 ulp of float32 (2^-23 each), relative: WGSL's accuracy for `x / y`. */
const WGSL_DIVISION = 2.5 * 2 ** -23;
const INTEGERS: DType[] = ['int32', 'uint32', 'int64'];
const FLOATS: DType[] = ['float32', 'float64'];

/** Integer powers: exponents small enough to mean something, and negative ones. */
const POWERS: Partial<Record<DType, readonly Value[]>> = {
  int32: [0, 1, -1, 2, 3, -2, 31, INT32_MIN, INT32_MAX],
  uint32: [0, 1, 2, 3, 31, 2 ** 32 - 1],
  int64: [0n, 1n, -1n, 2n, 3n, -2n, 63n, INT64_MIN],
};
/** Shift counts: in range, at and past the width, negative; and values to shift. */
const SHIFTS: Partial<Record<DType, readonly Value[]>> = {
  int32: [0, 1, -1, 3, 7, 31, 32, 40, INT32_MIN, INT32_MAX],
  uint32: [0, 1, 3, 7, 31, 32, 40, 2 ** 31, 2 ** 32 - 1],
  int64: [0n, 1n, -1n, 3n, 7n, 63n, 64n, 100n, INT64_MIN, INT64_MAX],
};
/** Float powers whose results are exact (or NaN, or infinite), so that every device can be held to them. */
const FLOAT_POWERS: readonly Value[] = [0, -0, 1, -1, 2, -2, 3, 0.5, -3, 4, NaN, Infinity, -Infinity];

export const ROWS: readonly SemanticsRow[] = [
  {
    operation: 'a + b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: (a, b, t) => wrap(big(a) + big(b), t),
    result:
      "wraps (two's complement): `INT_MAX + 1` is INT_MIN, even where a C compiler would assume no overflow; likewise `a - b`",
  },
  {
    operation: 'a * b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: (a, b, t) => wrap(big(a) * big(b), t),
    result: 'wraps: the low bits of the exact product (`(a * 7) / a` is not 7 when `a * 7` overflows)',
  },
  {
    operation: '-a',
    dtypeClass: 'integer',
    dtypes: ['int32', 'int64'],
    expected: (a, _b, t) => wrap(-big(a), t),
    result: 'wraps: `-INT_MIN` is INT_MIN',
  },
  {
    operation: 'a / b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: truncDiv,
    result: 'quotient truncated toward zero; `x / 0` is 0; `INT_MIN / -1` wraps to INT_MIN',
  },
  {
    operation: 'a // b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: floorDiv,
    result: 'quotient rounded down (Python, loopy); `x // 0` is 0; `INT_MIN // -1` wraps to INT_MIN',
  },
  {
    operation: 'a % b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: floorMod,
    result: 'remainder with the sign of `b` (Python, loopy): `a - b*(a // b)`; `x % 0` is 0; `INT_MIN % -1` is 0',
  },
  {
    operation: 'a ** b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: intPow,
    operands: POWERS,
    result: 'repeated multiplication, wrapping; `b < 0` gives 1 for `a = 1`, ±1 for `a = -1`, else 0 (PyTorch)',
  },
  {
    operation: 'a & b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: (a, b, t) => wrap(big(a) & big(b), t),
    result:
      "on the two's complement bits; likewise `a | b` and `a ^ b` (`^` is exclusive or, as in Python, not a power)",
  },
  {
    operation: 'a | b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: (a, b, t) => wrap(big(a) | big(b), t),
    result: "on the two's complement bits",
  },
  {
    operation: 'a ^ b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: (a, b, t) => wrap(big(a) ^ big(b), t),
    result: "on the two's complement bits",
  },
  {
    operation: '~a',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: (a, _b, t) => wrap(~big(a), t),
    result: 'every bit flipped: `~a` is `-a - 1` for signed types',
  },
  {
    operation: 'a << b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: shiftLeft,
    operands: SHIFTS,
    result:
      'the bits moved up, wrapping (what passes the top is lost, for signed types too); a count outside [0, width) gives 0 (PyTorch; C leaves it undefined, OpenCL and WGSL take it modulo the width)',
  },
  {
    operation: 'a >> b',
    dtypeClass: 'integer',
    dtypes: INTEGERS,
    expected: shiftRight,
    operands: SHIFTS,
    result:
      'arithmetic for signed types (the sign fills in), logical for unsigned ones; a count outside [0, width) shifts everything out: -1 or 0 by the sign (PyTorch)',
  },
  {
    operation: 'a / b',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b, t) => round(num(a) / num(b), t),
    relaxedTolerance: WGSL_DIVISION,
    result: "IEEE 754, correctly rounded: `x / 0` is ±Inf, `0 / 0` is NaN (WebGPU: within 2.5 ulp, WGSL's accuracy)",
  },
  {
    operation: 'a // b',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b, t) => Math.floor(round(num(a) / num(b), t)),
    relaxedTolerance: WGSL_DIVISION,
    result: '`floor(a / b)`, the quotient rounded once to the dtype (WebGPU: that quotient within 2.5 ulp)',
  },
  {
    operation: 'a % b',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b, t) => remainder(num(a), num(b), t),
    result: "PyTorch's `remainder`: `fmod(a, b)`, plus `b` when non-zero with the other sign; `x % 0` is NaN",
  },
  {
    operation: 'fmod(a, b)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b) => fmod(num(a), num(b)),
    result: "C's `fmod`: the exact remainder, sign of `a`; `fmod(x, ±Inf)` is `x`; `fmod(x, 0)` is NaN",
  },
  {
    operation: 'a ** b',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b, t) => cPow(num(a), num(b), t),
    operands: { float32: FLOAT_POWERS, float64: FLOAT_POWERS },
    tolerance: 1e-6,
    result:
      "C's `pow` (as `std::pow`, PyTorch): `0 ** -1` is Inf, `1 ** NaN` and `NaN ** 0` are 1, `(-8) ** 0.5` is NaN",
  },
  {
    operation: 'max(a, b)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b) => maximum(num(a), num(b)),
    result: 'NaN if either is NaN (`torch.maximum`); `max(-0, 0)` is 0',
  },
  {
    operation: 'min(a, b)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b) => minimum(num(a), num(b)),
    result: 'NaN if either is NaN (`torch.minimum`); `min(-0, 0)` is -0',
  },
  {
    operation: 'fmax(a, b)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b) => fmaxC(num(a), num(b)),
    result:
      "C's `fmax` (PyTorch's too): a NaN argument is ignored, NaN only when both are; `fmax(-0, 0)` is 0; `fmin` likewise",
  },
  {
    operation: 'fmin(a, b)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b) => fminC(num(a), num(b)),
    result: "C's `fmin`: a NaN argument is ignored; `fmin(-0, 0)` is -0",
  },
  {
    operation: 'isnan(a)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a) => (Number.isNaN(num(a)) ? 1 : 0),
    result:
      'true exactly for NaN, whatever the compiler assumes about finite math (WGSL: on the bits); `isinf`, `isfinite` likewise',
  },
  {
    operation: 'a != a',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a) => (Number.isNaN(num(a)) ? 1 : 0),
    result: 'true exactly for NaN (`a == a` is its negation), whatever the compiler assumes about finite math',
  },
  {
    operation: 'a < b',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b) => (num(a) < num(b) ? 1 : 0),
    result: 'IEEE 754: every ordered comparison with NaN is false, and `NaN != x` is true',
  },
  {
    operation: 'a == b',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a, b) => (num(a) === num(b) ? 1 : 0),
    result: 'IEEE 754: `-0 == 0`; NaN equals nothing, itself included',
  },
  {
    operation: 'not a',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a) => (num(a) === 0 ? 1 : 0),
    result: 'true exactly for ±0 (NaN is non-zero, so `not NaN` is false)',
  },
  {
    operation: 'if(a, 1, 2)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a) => (num(a) !== 0 || Number.isNaN(num(a)) ? 1 : 2),
    result: 'a condition is true when non-zero: NaN is true, -0 is false',
  },
  {
    operation: 'int32(a)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a) => Number(saturate(num(a), -(2n ** 31n), 2n ** 31n - 1n)),
    result:
      "truncated toward zero, saturated at the type's range, NaN → 0 (as WGSL and Rust); likewise for every integer type",
  },
  {
    operation: 'uint32(a)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a) => Number(saturate(num(a), 0n, 2n ** 32n - 1n)),
    result: 'truncated, saturated at 0 and 2^32 - 1, NaN → 0',
  },
  {
    operation: 'int64(a)',
    dtypeClass: 'float',
    dtypes: FLOATS,
    expected: (a) => saturate(num(a), INT64_MIN, INT64_MAX),
    resultDType: 'int64',
    result: 'truncated, saturated at the int64 range, NaN → 0',
  },
];

/** The README's table of the rows. */
export function markdownTable(): string {
  const lines = ['| operation | dtypes | defined result |', '| --- | --- | --- |'];
  for (const r of ROWS) lines.push(`| \`${r.operation}\` | ${r.dtypeClass} | ${r.result} |`);
  return lines.join('\n');
}

/**
 * Payloads of `pointwise()` mean what JavaScript means: each case is a payload, run on
 * the operands' pairs, and its defined value is the payload itself run by JavaScript
 * (rounded to the dtype). The README states these in its pointwise section.
 */
export interface PayloadCase {
  readonly what: string;
  readonly payload: (x: number, y: number) => number | boolean;
  readonly xs: readonly number[];
  readonly ys: readonly number[];
  /** Relative tolerance for finite, non-zero results (hypot in float32 is not correctly rounded). */
  readonly tolerance?: number;
}

const ODD = [2, 0, -0, NaN, 1, -3.5, Infinity];
export const PAYLOAD_CASES: readonly PayloadCase[] = [
  { what: 'x && y gives an operand; NaN and -0 are false', payload: (x, y) => x && y, xs: ODD, ys: [3, 0, NaN] },
  { what: 'x || y gives an operand', payload: (x, y) => x || y, xs: ODD, ys: [3, -0, NaN] },
  { what: '!x and x ? a : b take NaN as false', payload: (x) => (!x ? 1 : x ? 2 : 3), xs: ODD, ys: [0] },
  { what: '-0 keeps its sign', payload: (x) => x * -0 + -x, xs: [0, -0, 1, -2], ys: [0] },
  {
    what: 'Math.round rounds halves up, exactly, keeping the sign of zero',
    payload: (x) => Math.round(x),
    xs: [0.49999999999999994, 0.5, -0.5, 2.5, -2.5, -0.2, 0.2, -0, NaN, Infinity, 1e300, 8388609.5],
    ys: [0],
  },
  {
    what: 'Math.hypot neither overflows nor underflows; Infinity beats NaN',
    payload: (x, y) => Math.hypot(x, y),
    xs: [1e300, 1e-300, 3e38, 1e-40, 3, 0, NaN, Infinity],
    ys: [1e300, 4, 0, NaN, -Infinity],
    tolerance: 1e-6,
  },
  {
    what: "x ** y is NaN for a NaN exponent and for (±1) ** ±Infinity (C's pow gives 1)",
    payload: (x, y) => x ** y,
    xs: [1, -1, 2, 0, -0, NaN],
    ys: [NaN, Infinity, -Infinity, 3, -1, 0],
    tolerance: 1e-6,
  },
];
