/**
 * `autoTestVsRef` (loopy's `auto_test_vs_ref`): runs a transformed kernel and the kernel it was
 * transformed from on the same made-up data and compares every output, then times the
 * transformed one. Checking a transformation this way needs no reference written by hand; it
 * catches a transformation that changes what the kernel computes, not a kernel wrong from the start.
 */
import { hostArrayOf, isComplex, isFloat, type DType, type HostArray } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { bfloat16Value } from '../bfloat16.ts';
import { float16Value } from '../float16.ts';
import { printExpr } from '../expr/index.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { requiredLengthExpr, stridesOf } from '../kernel/strides.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { Program } from '../program/program.ts';
import { compiledKernel } from '../program/resolve.ts';
import type { RunArgument } from './arguments.ts';
import type { Device } from './device.ts';
import { evaluateInt } from './evaluate.ts';
import { run } from './run.ts';

/** A transformed kernel computed something else than its reference (loopy's `AutomaticTestFailure`). */
export class AutomaticTestFailure extends LoomError {}

/** What `autoTestVsRef` reads; any other key is an error. */
export interface AutoTestOptions {
  /** The value arguments (domain parameters among them), by name. */
  readonly parameters?: Readonly<Record<string, number>>;
  /** Where the reference runs; default: the device under test. */
  readonly referenceDevice?: Device;
  /** Untimed runs of the kernel under test before the timed ones; default 2, as loopy's. */
  readonly warmupRounds?: number;
  /** Timed runs of the kernel under test; default 1. */
  readonly timingRounds?: number;
  /** How far a float output may stray, relative to the largest magnitude of the reference's; default 1e-5. */
  readonly rtol?: number;
  /** Seeds the made-up data; default 1. */
  readonly seed?: number;
}

const AUTO_TEST_OPTIONS = optionKeys<AutoTestOptions>()([
  'parameters',
  'referenceDevice',
  'rtol',
  'seed',
  'timingRounds',
  'warmupRounds',
]);

/** What `autoTestVsRef` found, when the outputs agree. */
export interface AutoTestResult {
  /** The outputs compared, by name. */
  readonly compared: readonly string[];
  /** Wall-clock seconds per timed run of the kernel under test (transfers included). */
  readonly seconds: number;
}

/**
 * Runs `refKnl` and `testKnl` (kernels or programs) on the same data and throws an `AutomaticTestFailure` naming the
 * first output element where they differ. Every array argument of the reference is filled with
 * pseudo-random values of its dtype (outputs too, so that elements neither kernel writes agree);
 * its value arguments come from `parameters`. Then `testKnl` runs `warmupRounds` times untimed and
 * `timingRounds` times timed.
 * ```ts
 * const ref = addDtypes(makeKernel('{[i]: 0<=i<n}', 'out[i] = 2*a[i]'), { a: 'float32' });
 * const knl = splitIname(ref, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
 * const { seconds } = await autoTestVsRef(ref, device, knl, { parameters: { n: 1000 } });
 * ```
 */
export async function autoTestVsRef(
  refKnl: LoopKernel | Program,
  device: Device,
  testKnl: LoopKernel | Program = refKnl,
  options: AutoTestOptions = {},
): Promise<AutoTestResult> {
  checkOptionKeys('autoTestVsRef', options, AUTO_TEST_OPTIONS);
  const { parameters = {}, warmupRounds = 2, timingRounds = 1, rtol = 1e-5, seed = 1 } = options;
  for (const [name, rounds] of [
    ['warmupRounds', warmupRounds],
    ['timingRounds', timingRounds],
  ] as const)
    if (!Number.isInteger(rounds) || rounds < (name === 'timingRounds' ? 1 : 0))
      throw new LoomError(
        `autoTestVsRef: ${name} must be an integer of at least ${name === 'timingRounds' ? 1 : 0}, got ${rounds}`,
      );
  // a program's arguments are its entrypoint's, its callees inlined (as run compiles it)
  const ref = compiledKernel(refKnl);
  const data = madeUpData(ref, parameters, seed);
  const copy = () =>
    Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, ArrayBuffer.isView(v) ? (v as HostArray).slice() : v]),
    ) as Record<string, RunArgument>;
  const expected = await run(refKnl, options.referenceDevice ?? device, copy());
  const actual = await run(testKnl, device, copy());
  const compared = Object.keys(expected).sort();
  const missing = compared.filter((name) => !(name in actual));
  if (missing.length)
    throw new AutomaticTestFailure(
      `autoTestVsRef: the kernel under test has no output ${missing.map((n) => `'${n}'`).join(', ')}`,
    );
  for (const name of compared) {
    const dtype = ref.args.find((a) => a.name === name)?.dtype;
    compareOutput(name, expected[name] as HostArray, actual[name] as HostArray, dtype, rtol);
  }
  for (let k = 0; k < warmupRounds; k++) await run(testKnl, device, copy());
  const start = performance.now();
  for (let k = 0; k < timingRounds; k++) await run(testKnl, device, copy());
  return { compared, seconds: (performance.now() - start) / 1000 / timingRounds };
}

/** The reference's arguments: its value arguments from `parameters`, its arrays made up. */
function madeUpData(
  knl: LoopKernel,
  parameters: Readonly<Record<string, number>>,
  seed: number,
): Record<string, RunArgument> {
  const data: Record<string, RunArgument> = { ...parameters };
  const env = (name: string) => {
    const v = parameters[name];
    if (v === undefined) throw new LoomError(`autoTestVsRef: give the value of '${name}' in parameters`);
    return v;
  };
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (const arg of knl.args) {
    if (arg.kind === 'value' || arg.name in data) continue;
    if (arg.dtype === undefined) {
      // an output whose dtype inference decides: run allocates it (zeros, for both kernels alike)
      if (!arg.isInput) continue;
      throw new LoomError(`autoTestVsRef: input '${arg.name}' has no dtype to make data of (give it with addDtypes)`);
    }
    data[arg.name] = madeUpArray(arg.dtype, elementCount(arg, env), next);
  }
  return data;
}

function elementCount(arg: KernelArg, env: (name: string) => number): number {
  if (!arg.shape)
    throw new LoomError(
      `autoTestVsRef: '${arg.name}' has no shape to make data of (declare one: globalArg(..., { shape }))`,
    );
  const length = requiredLengthExpr(arg.shape, stridesOf(arg.shape, arg.dimTags));
  if (arg.shape.length === 0) return 1;
  return Math.max(0, evaluateInt(length, env, `the length of '${arg.name}' (${printExpr(length)})`));
}

/** Values a kernel's arithmetic keeps exact or close: floats in [-1, 1), small non-negative integers. */
function madeUpArray(dtype: DType, elements: number, next: () => number): HostArray {
  const count = elements * (isComplex(dtype) ? 2 : 1);
  const values = Array.from({ length: count }, () =>
    isFloat(dtype) || isComplex(dtype)
      ? next() * 2 - 1
      : dtype === 'bool'
        ? Math.floor(next() * 2)
        : Math.floor(next() * 16),
  );
  return hostArrayOf(dtype, values);
}

function compareOutput(
  name: string,
  expectedData: HostArray,
  actualData: HostArray,
  dtype: DType | undefined,
  rtol: number,
): void {
  // float16 and bfloat16 travel as their bits: compare the values they stand for
  const values = (a: HostArray) =>
    dtype === 'float16'
      ? Array.from(a as Uint16Array, float16Value)
      : dtype === 'bfloat16'
        ? Array.from(a as Uint16Array, bfloat16Value)
        : a;
  const expected = values(expectedData);
  const actual = values(actualData);
  if (expected.length !== actual.length)
    throw new AutomaticTestFailure(
      `autoTestVsRef: output '${name}' has ${actual.length} elements, the reference's ${expected.length}`,
    );
  const inexact =
    dtype === undefined
      ? expected instanceof Float32Array || expected instanceof Float64Array
      : isFloat(dtype) || isComplex(dtype);
  let scale = 0;
  if (inexact)
    for (let k = 0; k < expected.length; k++) {
      const x = expected[k] as number;
      if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
    }
  const tolerance = inexact ? rtol * Math.max(scale, Number.MIN_VALUE) : 0;
  for (let k = 0; k < expected.length; k++) {
    const e = expected[k];
    const a = actual[k];
    const same =
      e === a ||
      (typeof e === 'number' &&
        typeof a === 'number' &&
        (Math.abs(a - e) <= tolerance || (Number.isNaN(a) && Number.isNaN(e))));
    if (!same)
      throw new AutomaticTestFailure(
        `autoTestVsRef: output '${name}' differs from the reference at element ${k}: ${String(a)}, expected ${String(e)}${inexact ? ` (tolerance ${tolerance})` : ''}`,
      );
  }
}
