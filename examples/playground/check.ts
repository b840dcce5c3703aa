/**
 * What the playground's "Run" does: the same random inputs on two devices — the GPU (WebGPU)
 * and the CPU device, Loom's reference — and the outputs compared element by element.
 * No DOM here: main.ts shows what these functions return.
 */
import {
  expr,
  hostArrayConstructor,
  isFloat,
  LoomError,
  printExpr,
  run,
  type Device,
  type DType,
  type Expr,
  type HostArray,
} from '@loom/core';
import { pointwise, tensor, type Tensor } from '@loom/elementwise';
import type { Builder } from './chain.ts';

/**
 * Floats agree within this, relative to the CPU's value where it is above 1, else absolutely:
 * WGSL's `sin` and `cos` are only within 2^-11 on [-π, π], its `/` within 2.5 ulp, and sums
 * may be added up in another order.
 */
export const TOLERANCE = 1e-3;

/** One output on both devices. */
export interface Comparison {
  readonly name: string;
  readonly gpu: readonly number[];
  readonly cpu: readonly number[];
  /** Indices where the two differ by more than the tolerance. */
  readonly mismatches: readonly number[];
}

export interface Devices {
  readonly cpu: Device;
  /** Undefined where the page has no WebGPU: then only the CPU device runs. */
  readonly gpu: Device | undefined;
}

export interface KernelCheck {
  /** What the kernel ran on: the value arguments and the random input arrays. */
  readonly inputs: Readonly<Record<string, number | readonly number[]>>;
  readonly comparisons: readonly Comparison[];
}

/** Runs the kernel on both devices with random inputs; `values` gives each value argument (`n`, `alpha`...). */
export async function checkKernel(
  builder: Builder,
  values: Readonly<Record<string, number>>,
  devices: Devices,
): Promise<KernelCheck> {
  const inputs: Record<string, HostArray | number> = {};
  for (const arg of builder.kernel.args) {
    if (arg.kind === 'value') inputs[arg.name] = valueOf(arg.name, values);
    else if (arg.isInput)
      inputs[arg.name] = randomArray(
        arg.dtype ?? 'float32',
        (arg.shape ?? []).reduce((n, extent) => n * evaluate(extent, values), 1),
      );
  }
  const onCpu = await run(builder.kernel, devices.cpu, inputs);
  const onGpu = devices.gpu ? await run(builder.kernel, devices.gpu, inputs) : undefined;
  return {
    inputs: Object.fromEntries(
      Object.entries(inputs).map(([name, value]) => [
        name,
        typeof value === 'number' ? value : Array.from(value, Number),
      ]),
    ),
    comparisons: Object.keys(onCpu).map((name) =>
      compare(name, onGpu?.[name] as HostArray | undefined, onCpu[name] as HostArray),
    ),
  };
}

/** Calls the pointwise function of `payload` (a JS arrow function, as text) on random float32 tensors of `shape`. */
export async function checkPointwise(
  payload: string,
  shape: readonly number[],
  devices: Devices,
): Promise<{ comparisons: Comparison[]; code: string }> {
  const fn = pointwise({}, payload);
  const data = Array.from({ length: fn.numInputs }, () =>
    randomArray(
      'float32',
      shape.reduce((a, b) => a * b, 1),
    ),
  );
  const call = async (device: Device) => {
    const args = data.map((d) => tensor(d, shape, { device }));
    const result = await fn(...args);
    const outputs: Tensor[] = Array.isArray(result) ? result : [result];
    return { arrays: await Promise.all(outputs.map((t) => t.toArray())), code: fn.plan(...args).code() };
  };
  const onCpu = await call(devices.cpu);
  const onGpu = devices.gpu ? await call(devices.gpu) : undefined;
  const comparisons = onCpu.arrays.map((cpu, k) => compare(`out${k}`, onGpu?.arrays[k], cpu));
  return { comparisons, code: (onGpu ?? onCpu).code };
}

/** `value` is `expected`: within the tolerance for floats (NaN is NaN), exactly for integers. */
export function agrees(value: number, expected: number, float: boolean): boolean {
  return float
    ? Math.abs(value - expected) <= TOLERANCE * Math.max(1, Math.abs(expected)) ||
        (Number.isNaN(value) && Number.isNaN(expected))
    : value === expected;
}

function compare(name: string, gpu: HostArray | undefined, cpu: HostArray): Comparison {
  const cpuValues = Array.from(cpu, Number);
  const gpuValues = gpu ? Array.from(gpu, Number) : [];
  const float = cpu instanceof Float32Array || cpu instanceof Float64Array;
  const mismatches = gpu ? cpuValues.flatMap((c, k) => (agrees(gpuValues[k], c, float) ? [] : [k])) : [];
  return { name, gpu: gpuValues, cpu: cpuValues, mismatches };
}

/** Inputs past this many elements are refused: the page would stall making them. */
const MAX_ELEMENTS = 1 << 22;

/** Uniform in [-1, 1) for floats, integers in [0, 100), as the dtype's array. */
export function randomArray(dtype: DType, length: number): HostArray {
  if (length > MAX_ELEMENTS)
    throw new LoomError(
      `the playground makes inputs of at most ${MAX_ELEMENTS} elements, not ${length}: give smaller sizes`,
    );
  if (dtype === 'float16')
    throw new LoomError(
      'the playground makes float32, float64 and integer inputs; give float16 arguments another dtype',
    );
  const array = new (hostArrayConstructor(dtype))(length);
  for (let k = 0; k < length; k++) {
    const value = isFloat(dtype) ? Math.random() * 2 - 1 : Math.floor(Math.random() * (dtype === 'bool' ? 2 : 100));
    array[k] = (array instanceof BigInt64Array || array instanceof BigUint64Array ? BigInt(value) : value) as never;
  }
  return array;
}

/** An extent, in the value arguments: `n`, `n*m + 1`. */
function evaluate(extent: Expr, values: Readonly<Record<string, number>>): number {
  const given = [...expr.freeVariables(extent)].map((name) => [name, expr.int(valueOf(name, values))] as const);
  const folded = expr.simplify(expr.substitute(extent, new Map(given)), { integer: true });
  if (folded.kind !== 'int')
    throw new LoomError(`cannot compute the extent ${printExpr(extent)} from the values given`);
  return folded.value;
}

function valueOf(name: string, values: Readonly<Record<string, number>>): number {
  if (!Object.hasOwn(values, name) || typeof values[name] !== 'number')
    throw new LoomError(`give '${name}' a value in the values field: { ${name}: ... }`);
  return values[name];
}
