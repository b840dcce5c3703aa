/**
 * Element-by-element comparison of a device's output with the reference.
 *
 * Semantics:
 *  - integers (and bools) must be equal;
 *  - floats must be equal bit for bit (so −0 differs from +0), except that any NaN
 *    equals any NaN (payloads and signs of NaN are not portable);
 *  - when the case allows a tolerance (a float division or sqrt as the last operation,
 *    see kernels.ts), two values also agree when they are at most `ulps` representable
 *    floats apart, counting across zero (+0 and −0 are the same point) and up to ±Inf
 *    (the largest finite float is 1 ulp from Inf). A NaN never agrees with a number;
 *  - on WebGPU, −0 equals +0: WGSL does not promise to keep the sign of zero, and lavapipe
 *    does not ((−b + b) − j gives −0 there);
 *  - on WebGPU, a float32 reference value that is subnormal also agrees with ±0: WGSL lets
 *    implementations flush float32 subnormals to zero (NVIDIA's Vulkan driver does, even
 *    when every input is normal: a product of small numbers), README "Where WGSL says less";
 *  - on WebGPU, an element whose reference value is NaN or ±Inf is not compared: WGSL lets
 *    compilers assume floats are finite (features.ts, `finiteFloatsOnly`), and a finite
 *    case can still divide by zero in its last operation.
 */
import type { HostArray } from '@loom/core';

export interface Mismatch {
  readonly index: number;
  readonly expected: string;
  readonly got: string;
}

export interface Comparison {
  readonly mismatches: readonly Mismatch[];
  /** How many elements disagree (mismatches holds the first few). */
  readonly count: number;
  /** Elements not compared: non-finite reference values on a device that assumes finite floats. */
  readonly uncompared: number;
  readonly total: number;
}

/** `v` as a report shows it: −0 and NaN kept visible, floats with their bits. */
export function formatValue(v: number | bigint, float: boolean): string {
  if (typeof v === 'bigint' || !float) return String(v);
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

/** The position of a float among all floats of its width, in order (±0 at 0). */
function ordinal(v: number, width: 32 | 64): bigint {
  if (width === 32) {
    const bits = new Int32Array(new Float32Array([v]).buffer)[0];
    return BigInt(bits < 0 ? -2147483648 - bits : bits);
  }
  const bits = new BigInt64Array(new Float64Array([v]).buffer)[0];
  return bits < 0n ? -(2n ** 63n) - bits : bits;
}

function sameBits(a: number, b: number, width: 32 | 64): boolean {
  if (width === 32) return new Int32Array(new Float32Array([a, b]).buffer).every((x, _, arr) => x === arr[0]);
  return Object.is(a, b);
}

export function floatsAgree(expected: number, got: number, width: 32 | 64, ulps: number, zeroSign = true): boolean {
  if (Number.isNaN(expected) || Number.isNaN(got)) return Number.isNaN(expected) && Number.isNaN(got);
  if (sameBits(expected, got, width)) return true;
  if (!zeroSign && expected === 0 && got === 0) return true;
  if (ulps === 0) return false;
  const d = ordinal(expected, width) - ordinal(got, width);
  return (d < 0n ? -d : d) <= BigInt(ulps);
}

/** What a device promises about floats: the sign of zero, and values that are not finite. */
export interface FloatPromises {
  readonly zeroSign: boolean;
  readonly nonFinite: boolean;
  /**
   * The numbers are complex values, (re, im) pairs, computed by formulas that may cancel (a/a's
   * imaginary part): a part also agrees within `ulps` ulps of the value's magnitude (WGSL).
   */
  readonly complexNormwise?: boolean;
  /** Whether float32 subnormal results are kept (false: one may come out as ±0, flushed). */
  readonly subnormals?: boolean;
}

const IEEE: FloatPromises = { zeroSign: true, nonFinite: true };

/** `promises` weaker than IEEE 754's for WGSL (see index.ts). */
export function compareArrays(
  expected: HostArray,
  got: HostArray,
  ulps: number,
  promises: FloatPromises = IEEE,
  keep = 6,
): Comparison {
  const mismatches: Mismatch[] = [];
  const float = expected instanceof Float32Array || expected instanceof Float64Array;
  const width = expected instanceof Float32Array ? 32 : 64;
  let count = 0;
  if (expected.constructor !== got.constructor || expected.length !== got.length) {
    return {
      mismatches: [
        {
          index: -1,
          expected: `${expected.constructor.name}(${expected.length})`,
          got: `${got.constructor.name}(${got.length})`,
        },
      ],
      count: 1,
      total: expected.length,
      uncompared: 0,
    };
  }
  let uncompared = 0;
  for (let k = 0; k < expected.length; k++) {
    const e = expected[k];
    const g = got[k];
    if (float && !promises.nonFinite && !Number.isFinite(e)) {
      uncompared++;
      continue;
    }
    const agree = float
      ? floatsAgree(e as number, g as number, width, ulps, promises.zeroSign) ||
        (promises.complexNormwise === true && withinNorm(expected, k, g as number, width, ulps)) ||
        (promises.subnormals === false && width === 32 && g === 0 && isSubnormal32(e as number))
      : e === g;
    if (agree) continue;
    count++;
    if (mismatches.length < keep)
      mismatches.push({ index: k, expected: formatValue(e, float), got: formatValue(g, float) });
  }
  return { mismatches, count, total: expected.length, uncompared };
}

/** The smallest normal float32: a non-zero value below it in magnitude is subnormal. */
const FLOAT32_MIN_NORMAL = 2 ** -126;

function isSubnormal32(v: number): boolean {
  return v !== 0 && Math.abs(v) < FLOAT32_MIN_NORMAL;
}

/** Whether `got` is within `ulps` units of the complex value's magnitude of the part at `k`. */
function withinNorm(expected: HostArray, k: number, got: number, width: 32 | 64, ulps: number): boolean {
  const at = k - (k % 2);
  const magnitude = Math.hypot(expected[at] as number, expected[at + 1] as number);
  const epsilon = width === 32 ? 2 ** -23 : 2 ** -52;
  return Number.isFinite(got) && Math.abs(got - (expected[k] as number)) <= ulps * epsilon * magnitude;
}
