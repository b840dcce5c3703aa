/**
 * Differential cases for integer pointwise payloads with edge operands (feature
 * `pointwiseIntegerEdges`, issue 24 follow-up): one operator over two integer tensors whose
 * elements include the dtype's extremes, 0 and −1 — `**` with negative and zero exponents from
 * data, `%` and `/` by 0 and −1 from data, products and negations that overflow — or one
 * literal at or beyond the dtype's range. Each is compared with an explicit reference of the
 * documented rule (packages/elementwise/README.md), exact, in BigInt:
 *
 * - integer results wrap into the dtype (PyTorch computes in the dtype; JS does not wrap);
 * - `x ** y` is PyTorch's integer power: exact (wrapped) for y >= 0, for y < 0 truncated
 *   toward zero (0, or ±1 for a base of ±1); a constant negative exponent is a LoomError;
 * - `x % y` truncates as JS's does; a divisor of 0 from data gives 0 (JS's NaN fits no
 *   integer; the README says so); INT_MIN % −1 is 0;
 * - `x / y` divides exactly: operands become float32 first (PyTorch's true_divide), the
 *   output float32 (INT_TO_FLOAT);
 * - a literal that does not fit the dtype (PyTorch's rule: unsigned dtypes take negatives
 *   down to −max) is a LoomError before anything runs.
 */
import { LoomError, type Device } from '@loom/core';
import { pointwise, tensor, type TensorDType } from '@loom/elementwise';
import { supportsDType } from '../devices.ts';
import { finiteFloatsOnly, type FeatureSet } from './features.ts';
import { narrowChainCase } from './pointwise-narrow.ts';
import { Rng } from './random.ts';

/** The integer dtypes the integer cases draw. */
export type IntDType = 'int8' | 'int16' | 'int32' | 'uint8' | 'uint16' | 'int64';

/** One generated case: a payload over two tensors, and what the documented rules say it gives. */
export interface IntegerCase {
  readonly source: string;
  /** The computation and output dtype (the inputs', unless `inputDTypes` says otherwise). */
  readonly dtype: IntDType;
  /** The inputs' dtypes where they differ from `dtype` (mixed dtypes, promoted to it). */
  readonly inputDTypes?: readonly [IntDType, IntDType];
  /** The output is float32 (a true division), else the dtype. */
  readonly float: boolean;
  readonly inputs: readonly [bigint[], bigint[]];
  readonly expected: { readonly values: readonly number[] } | { readonly error: RegExp };
}

const BITS: Readonly<Record<IntDType, number>> = { int8: 8, int16: 16, int32: 32, uint8: 8, uint16: 16, int64: 64 };
const signed = (t: IntDType) => !t.startsWith('u');
const wrap = (v: bigint, t: IntDType) => (signed(t) ? BigInt.asIntN(BITS[t], v) : BigInt.asUintN(BITS[t], v));
const minOf = (t: IntDType) => (signed(t) ? -(2n ** BigInt(BITS[t] - 1)) : 0n);
const maxOf = (t: IntDType) => (signed(t) ? 2n ** BigInt(BITS[t] - 1) - 1n : 2n ** BigInt(BITS[t]) - 1n);
/** The most negative literal the dtype takes (PyTorch's `overflows`: unsigned ones wrap negatives down to −max). */
const lowestLiteral = (t: IntDType) => (signed(t) ? minOf(t) : -maxOf(t));

/** PyTorch's integer power, wrapped into the dtype. */
function intPow(x: bigint, y: bigint, t: IntDType): bigint {
  if (y < 0n) return x === 1n ? 1n : x === -1n ? (y % 2n === 0n ? 1n : -1n) : 0n;
  let result = 1n;
  let base = wrap(x, t);
  for (let e = y; e > 0n; e >>= 1n) {
    if (e & 1n) result = wrap(result * base, t);
    base = wrap(base * base, t);
  }
  return result;
}

const N = 12;

/** A random case for `seed` (int64 only where `wide`). */
export function integerCase(seed: number, features: FeatureSet, wide: boolean): IntegerCase {
  // multi-step payloads over narrow dtypes (pointwise-narrow.ts) for some seeds, or all when edges are excluded
  if (
    features.has('pointwiseNarrowChains') &&
    (!features.has('pointwiseIntegerEdges') || new Rng(seed ^ 0xc4a1).chance(0.4))
  )
    return narrowChainCase(
      seed,
      features.has('pointwiseNarrowMinMaxLiterals'),
      features.has('pointwiseUnsignedBitwiseLiterals'),
    );
  const rng = new Rng(seed ^ 0x5eed);
  const dtypes: IntDType[] = ['int32', 'int32', 'int8', 'int16', 'uint8'];
  if (wide && features.has('wideTypes')) dtypes.push('int64');
  const t = rng.pick(dtypes);
  const [min, max] = [minOf(t), maxOf(t)];
  const edges = [min, max, min + 1n, max - 1n, 0n, 1n, 2n, 3n, 7n, ...(signed(t) ? [-1n, -2n, -3n] : [])];
  const data = (pool: readonly bigint[]) => Array.from({ length: N }, () => wrap(rng.pick(pool), t));
  const x = data(edges);
  const exponents = signed(t) ? [-3n, -2n, -1n, 0n, 1n, 2n, 3n, 5n, 31n] : [0n, 1n, 2n, 3n, 5n, 7n];
  const kind = rng.pick(['pow', 'rem', 'div', 'mul', 'neg', 'literal', 'constant'] as const);
  const y = data(kind === 'pow' ? exponents : edges);
  const ints = (f: (a: bigint, b: bigint) => bigint) => ({ values: x.map((a, k) => Number(wrap(f(a, y[k]), t))) });
  const base = { dtype: t, float: false, inputs: [x, y] as [bigint[], bigint[]] };
  switch (kind) {
    case 'pow':
      return { ...base, source: '(x, y) => x ** y', expected: ints((a, b) => intPow(a, b, t)) };
    case 'rem':
      // JS's truncated remainder on exact integers; 0 for a divisor of 0 (the README's rule)
      return { ...base, source: '(x, y) => x % y', expected: ints((a, b) => (b === 0n ? 0n : a % b)) };
    case 'div':
      // PyTorch's true_divide: both operands rounded to float32, then divided (a correctly
      // rounded float32 quotient: the double quotient of two float32 values, rounded once)
      return {
        ...base,
        float: true,
        source: '(x, y) => x / y',
        expected: { values: x.map((a, k) => Math.fround(Math.fround(Number(a)) / Math.fround(Number(y[k])))) },
      };
    case 'mul': {
      // overflowing products, sums and differences of extremes wrap, as in PyTorch
      const op = rng.pick(['*', '-', '+'] as const);
      return {
        ...base,
        source: `(x, y) => x ${op} y`,
        expected: ints((a, b) => (op === '*' ? a * b : op === '-' ? a - b : a + b)),
      };
    }
    case 'neg':
      return { ...base, source: '(x, y) => -x + y * 0', expected: ints((a) => -a) };
    case 'literal': {
      // at the edges of the range, or one beyond (a LoomError)
      // as JavaScript reads it: a double (past 2^53, int64's edges round: 2^63 − 1 is 2^63)
      const literal = BigInt(Number(rng.pick([max, lowestLiteral(t), max + 1n, lowestLiteral(t) - 1n])));
      const op = rng.pick(['+', '-', '*', '>'] as const);
      const source = `(x, y) => x ${op} ${literal < 0n ? `(${literal})` : literal}`;
      if (literal > max || literal < lowestLiteral(t)) return { ...base, source, expected: { error: /does not fit/ } };
      // a negative literal compared with unsigned data is refused: which value is meant is the author's to say
      if (op === '>' && literal < 0n && !signed(t)) return { ...base, source, expected: { error: /would wrap to/ } };
      const apply = (a: bigint) =>
        op === '+' ? a + literal : op === '-' ? a - literal : op === '*' ? a * literal : a > literal ? 1n : 0n;
      return { ...base, source, expected: { values: x.map((a) => Number(wrap(apply(a), t))) } };
    }
    case 'constant': {
      // PyTorch refuses both: a constant negative exponent on integers, a remainder by the constant 0
      const [source, error] = rng.pick([
        ['(x, y) => x ** -1', /negative integer powers/],
        ['(x, y) => x % 0', /by the constant 0/],
      ] as const);
      return { ...base, source, expected: { error } };
    }
  }
}

/** Runs the case on `device`: undefined when it agrees with the reference, else what differs. */
export async function runIntegerCase(c: IntegerCase, device: Device): Promise<string | undefined> {
  const [dx, dy] = c.inputDTypes ?? [c.dtype, c.dtype];
  if (![c.dtype, dx, dy].every((d) => supportsDType(device, d))) return undefined;
  const what = `${device.name}: ${c.source} over ${c.inputDTypes ? `${dx}, ${dy} (${c.dtype})` : c.dtype}`;
  const f = pointwise(c.float ? { promotionMethods: [[0, 1, 'INT_TO_FLOAT']] } : {}, c.source);
  const operand = (values: readonly bigint[], dtype: IntDType) =>
    tensor(dtype === 'int64' ? BigInt64Array.from(values) : values.map(Number), undefined, {
      device,
      dtype: dtype as TensorDType,
    });
  let got: number[];
  try {
    const out = await f(operand(c.inputs[0], dx), operand(c.inputs[1], dy));
    got = Array.from(await out.toArray(), Number);
  } catch (e) {
    if ('error' in c.expected && e instanceof LoomError && c.expected.error.test(e.message)) return undefined;
    return `${what}: ${e instanceof LoomError ? 'LoomError' : 'error'} ${(e as Error).message.split('\n')[0]}${'error' in c.expected ? `, expected ${c.expected.error}` : ''}`;
  }
  if ('error' in c.expected) return `${what}: ran, expected a LoomError ${c.expected.error}`;
  const expected = c.expected.values;
  // WGSL may assume finite floats: a quotient by 0 is not compared there (features.ts)
  const skip = (e: number) => c.float && finiteFloatsOnly(device) && !Number.isFinite(e);
  const bad = expected.findIndex((e, k) => {
    if (skip(e)) return false;
    const a = got[k];
    if (Number.isNaN(e)) return !Number.isNaN(a);
    return !(a === e || (c.float && Math.abs(a - e) <= 2 ** -21 * Math.abs(e)));
  });
  if (bad < 0) return undefined;
  return `${what}, x = ${c.inputs[0][bad]}, y = ${c.inputs[1][bad]}: got ${got[bad]}, the documented rule says ${expected[bad]}`;
}
