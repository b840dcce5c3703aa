/**
 * The host's codecs of 16-bit floats (core's float16.ts and bfloat16.ts): every half's value, and
 * the bits of a double rounded once to the nearest half or bfloat16 (ties to even), checked against
 * definitions written plainly (the nearer of the two neighbours, found by a search over the ordered
 * values) on every value, the midpoints between neighbours and the doubles just beside them, the
 * ranges' edges, and random doubles.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bfloat16Bits, bfloat16Value, float16Bits, float16Value } from '@loom/core';

/** The value of float16 bits, by definition. */
function valueOf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/** A 16-bit float format by its values: `valueOf` its positive bits, up to `largest` (the largest finite), `beyond` the next power of two. */
interface Format {
  readonly valueOf: (bits: number) => number;
  readonly largest: number;
  readonly beyond: number;
  readonly infinity: number;
  readonly nan: number;
}

/**
 * The nearest value's bits, by definition: of the two values around |x| (a binary search over the
 * ordered positive values), the nearer, the even one on a tie; past the midpoint above the largest
 * finite value, infinity.
 */
function nearestIn({ valueOf, largest, beyond, infinity, nan }: Format, x: number): number {
  if (Number.isNaN(x)) return nan;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= (valueOf(largest) + beyond) / 2) return sign | infinity;
  let lo = 0;
  let hi = largest;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (valueOf(mid) <= a) lo = mid;
    else hi = mid - 1;
  }
  const below = valueOf(lo);
  const above = lo === largest ? beyond : valueOf(lo + 1);
  const pick = a - below < above - a ? lo : a - below > above - a ? lo + 1 : lo % 2 === 0 ? lo : lo + 1;
  return sign | pick;
}

const HALF: Format = { valueOf, largest: 0x7bff, beyond: 65536, infinity: 0x7c00, nan: 0x7e00 };
const BFLOAT16: Format = { valueOf: bfloat16Value, largest: 0x7f7f, beyond: 2 ** 128, infinity: 0x7f80, nan: 0x7fc0 };
const nearest = (x: number) => nearestIn(HALF, x);
const nearestBfloat16 = (x: number) => nearestIn(BFLOAT16, x);

test('float16Value gives every half its value (signed zeros, subnormals, infinities, NaNs)', () => {
  for (let bits = 0; bits < 0x10000; bits++) {
    const want = valueOf(bits);
    const got = float16Value(bits);
    if (!(Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want))))
      assert.unreachable(`float16Value(0x${bits.toString(16)}) = ${got}, expected ${want}`);
  }
});

test('float16Bits rounds once to the nearest half, ties to even: halves, midpoints, their neighbours, random doubles', () => {
  const check = (x: number) => {
    const got = float16Bits(x);
    const want = nearest(x);
    if (got !== want) assert.unreachable(`float16Bits(${x}) = 0x${got.toString(16)}, expected 0x${want.toString(16)}`);
  };
  for (let bits = 0; bits < 0x7c00; bits++) {
    const v = valueOf(bits);
    const next = bits === 0x7bff ? 65536 : valueOf(bits + 1);
    const middle = (v + next) / 2;
    for (const x of [v, middle, middle * (1 + 2 ** -52), middle * (1 - 2 ** -52), (v + middle) / 2]) {
      check(x);
      check(-x);
    }
  }
  for (const x of [
    0,
    -0,
    NaN,
    Infinity,
    -Infinity,
    65504,
    65519.99,
    65520,
    1e300,
    2 ** -14,
    2 ** -24,
    2 ** -25,
    2 ** -26,
    1e-300,
  ])
    check(x);
  let s = 12345;
  for (let k = 0; k < 100000; k++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const x = (s / 2 ** 31 - 0.5) * 2 ** ((k % 40) - 26);
    check(x);
  }
});

test('bfloat16Bits rounds once to the nearest bfloat16, ties to even: values, midpoints, their neighbours, random doubles', () => {
  const check = (x: number) => {
    const got = bfloat16Bits(x);
    const want = nearestBfloat16(x);
    if (got !== want) assert.unreachable(`bfloat16Bits(${x}) = 0x${got.toString(16)}, expected 0x${want.toString(16)}`);
  };
  for (let bits = 0; bits < 0x7f80; bits++) {
    const v = bfloat16Value(bits);
    const next = bits === 0x7f7f ? 2 ** 128 : bfloat16Value(bits + 1);
    const middle = (v + next) / 2;
    for (const x of [v, middle, middle * (1 + 2 ** -52), middle * (1 - 2 ** -52), (v + middle) / 2]) {
      check(x);
      check(-x);
    }
  }
  for (const x of [0, -0, NaN, Infinity, -Infinity, 2 ** -126, 2 ** -133, 2 ** -134, 1e-300, 3.4e38, 1e300]) check(x);
  let s = 54321;
  for (let k = 0; k < 100000; k++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    check((s / 2 ** 31 - 0.5) * 2 ** ((k % 300) - 150));
  }
});

test.run();
