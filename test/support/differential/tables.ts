/**
 * Constant tables and special float values for the differential generator (issue 24): a
 * `temporaryVariable` table of any dtype whose values sit at the edges of its range, and
 * negative zeros and subnormals among float inputs and literals. Drawn from streams of their
 * own, so that every other seed keeps the kernel it had (and the CI sample its cases).
 */
import { isFloat, temporaryVariable, type DType } from '@loom/core';
import type { FeatureSet } from './features.ts';
import { Rng } from './random.ts';

/** A table the case's output reads (`dtype(tab[i % length])`), with how to write it in a report. */
export interface DrawnTable {
  readonly spec: ReturnType<typeof temporaryVariable>;
  /** The read, converted to the case's dtype. */
  readonly read: string;
  readonly source: string;
}

/** The edge values of each table dtype (the float ones: largest, smallest normal, inexact decimals). */
const EDGES: Partial<Record<DType, readonly number[]>> = {
  int8: [-128, 127, -1, 0],
  uint8: [0, 255, 1],
  int16: [-32768, 32767, 3],
  uint16: [0, 65535, 7],
  int32: [-(2 ** 31), 2 ** 31 - 1, -5],
  uint32: [0, 2 ** 32 - 1, 9],
  float16: [65504, -65504, 2 ** -14, 0.1, 1 / 3, 1],
  bfloat16: [3.3895313892515355e38, -3.3895313892515355e38, 2 ** -126, 0.1, 1 / 3, 1],
  float32: [3.4028234663852886e38, -3.4028234663852886e38, 2 ** -126, 0.1, 1 / 3, -2.5],
  float64: [Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** -1022, 0.1, 1 / 3],
};

/** Subnormals of each float dtype (WGSL may flush float32's; `subnormals`). */
const SUBNORMALS: Partial<Record<DType, readonly number[]>> = {
  float16: [2 ** -24, -(2 ** -20)],
  bfloat16: [2 ** -133, -(2 ** -130)],
  float32: [2 ** -149, -1e-40],
  float64: [5e-324, -1e-310],
};

/** A stream of its own for `seed`'s `salt`ed draws. */
export const sideStream = (seed: number, salt: number): Rng => new Rng((seed ^ salt) >>> 0);

/** Sometimes a constant table for a case of `dtype` (not complex), read at `i % length`. */
export function drawTable(seed: number, features: FeatureSet, dtype: DType): DrawnTable | undefined {
  const rng = sideStream(seed, 0x7ab1e5);
  if (!features.has('constantTables') || dtype.startsWith('complex') || !rng.chance(0.25)) return undefined;
  const floatCase = isFloat(dtype);
  // an integer case reads integer tables only: a float beyond int32 converts differently per device
  const dtypes = (Object.keys(EDGES) as DType[]).filter(
    (t) =>
      (floatCase || !isFloat(t)) &&
      (features.has('wideTypes') || t !== 'float64') &&
      (dtype !== 'float32' || t !== 'float64'),
  );
  const tableType = rng.pick(dtypes);
  const pool = [
    ...EDGES[tableType]!,
    ...(features.has('signedZeros') && isFloat(tableType) ? [-0] : []),
    ...(features.has('subnormals') ? (SUBNORMALS[tableType] ?? []) : []),
  ];
  const values = rng.shuffle(pool).slice(0, rng.int(1, pool.length));
  const space = rng.pick(['private', 'auto'] as const);
  return {
    spec: temporaryVariable('tab', { dtype: tableType, initializer: values, readOnly: true, addressSpace: space }),
    read: `${dtype}(tab[i % ${values.length}])`,
    source: `temporaryVariable('tab', { dtype: '${tableType}', initializer: [${values.map((v) => (Object.is(v, -0) ? '-0' : String(v))).join(', ')}], readOnly: true, addressSpace: '${space}' })`,
  };
}

/** Negative zeros and subnormals of `dtype` (a float) the enabled features allow. */
export function specialFloats(features: FeatureSet, dtype: DType): number[] {
  return [
    ...(features.has('signedZeros') ? [-0] : []),
    ...(features.has('subnormals') ? (SUBNORMALS[dtype] ?? []) : []),
  ];
}
