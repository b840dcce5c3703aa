/**
 * The values of a constant table (`temporaryVariable(name, { initializer, readOnly: true })`)
 * must be values of its dtype: every target writes them into the code or a buffer of that
 * dtype, where a value that does not fit would be wrapped (int8 300 → 44), truncated (int32
 * 2.5 → 2) or made infinite (float16 1e5), each differently on each device. Refused at
 * kernel construction instead, naming the table and the element.
 */
import { isFloat, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { roundToBfloat16 } from '../bfloat16.ts';
import { roundToFloat16 } from '../float16.ts';

/** The smallest and largest value of each integer dtype (int64's as far as doubles reach them exactly). */
const INTEGER_RANGES: Partial<Record<DType, readonly [number, number]>> = {
  bool: [0, 1],
  int8: [-(2 ** 7), 2 ** 7 - 1],
  uint8: [0, 2 ** 8 - 1],
  int16: [-(2 ** 15), 2 ** 15 - 1],
  uint16: [0, 2 ** 16 - 1],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
  uint64: [0, 2 ** 64 - 1],
};

/** Throws a LoomError naming `what` (the table) and the first element that is no value of `dtype`. */
export function checkTableValues(what: string, dtype: DType, values: readonly number[]): void {
  values.forEach((v, k) => {
    const why = misfit(v, dtype);
    if (why) throw new LoomError(`${what}: element ${k} of the initializer, ${Object.is(v, -0) ? '-0' : v}, ${why}`);
  });
}

/** Why `v` is no value of `dtype`, or undefined. */
function misfit(v: number, dtype: DType): string | undefined {
  if (isFloat(dtype)) {
    // NaN and ±Inf are float values; a finite number is one when it stays finite in the dtype
    const rounded =
      dtype === 'float16'
        ? roundToFloat16(v)
        : dtype === 'bfloat16'
          ? roundToBfloat16(v)
          : dtype === 'float32'
            ? Math.fround(v)
            : v;
    return Number.isFinite(v) && !Number.isFinite(rounded) ? `is beyond the range of ${dtype}` : undefined;
  }
  const range = INTEGER_RANGES[dtype];
  if (!range) return undefined;
  if (!Number.isInteger(v)) return `is not an integer, and the table is ${dtype}`;
  if (v < range[0] || v > range[1]) return `is outside the range of ${dtype} (${range[0]} to ${range[1]})`;
  // int64 values are given as doubles: beyond 2^53 the double may not be the value meant
  return Number.isSafeInteger(v)
    ? undefined
    : 'is beyond 2^53 in magnitude, where a number is no longer exact (give it below 2^53)';
}
