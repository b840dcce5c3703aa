/**
 * A compiled computation: its kernels (transformations fused in), its memory, and the
 * function that runs them.
 *
 *   const compiled = await comp.compile(device);
 *   const { output } = await compiled(output, input1, input2, 0.5);     // the signature's order
 *   await compiled.byName({ input1, input2, param: 0.5 });               // or by name
 *
 * Arrays may be host arrays (copied to the device and, for outputs, back into them) or
 * DeviceArrays (used in place); an output left out is allocated and returned. A complex scalar
 * is a number, `{ re, im }` or `[re, im]`, as core's `run` takes it. Before any
 * kernel runs, every kernel is bound and checked (prepareLaunch): a wrong argument or an
 * access out of bounds stops the call with nothing run.
 */
import {
  LoomError,
  DeviceArray,
  byteSize,
  dtypeOfHostArray,
  generateCode,
  hostArrayConstructor,
  hostLanes,
  isComplex,
  isNarrowFloat,
  type ComplexScalar,
  type Device,
  type HostArray,
  type LoopKernel,
  type PreparedLaunch,
  type RunArgument,
  type ShapedHostArray,
} from '@loom/core';
import { prepareWithAliasedCopies } from './aliased-copy.ts';
import type { FusedCall } from './flatten.ts';
import type { OwnedMemory } from './memory.ts';
import { isInputRole, isOutputRole, type ComputationParam } from './params.ts';

export type LeafValue = RunArgument | undefined;

export interface CompiledParts {
  readonly name: string;
  readonly device: Device;
  readonly signature: readonly ComputationParam[];
  readonly calls: readonly FusedCall[];
  readonly memory: OwnedMemory;
}

/**
 * A call bound once to DeviceArrays (core's `prepareLaunch`, for a computation): every kernel
 * prepared and checked; `launch()` queues them all in order, as a call would, without
 * binding anything again or copying anything.
 */
export interface PreparedComputation {
  /** One prepared launch per kernel of the computation, in order. */
  readonly launches: readonly PreparedLaunch[];
  /**
   * Queues every prepared kernel, in order, with the arguments bound at `prepare`; resolves
   * once they are queued (read an output to wait for the results).
   */
  launch(): Promise<void>;
  /** Frees what the prepared kernels own (the computation's memory and the caller's arrays stay). */
  release(): void;
}

export interface Compiled {
  (...args: LeafValue[]): Promise<Record<string, HostArray | DeviceArray>>;
  /**
   * The call with its arguments by parameter name (optional outputs may be left out); resolves to
   * the outputs by name.
   */
  byName(args: Readonly<Record<string, LeafValue>>): Promise<Record<string, HostArray | DeviceArray>>;
  /**
   * The signature's arrays as DeviceArrays, its scalars as numbers (a complex one also as `{ re, im }`
   * or `[re, im]`), in order: a call prepared to be launched many times.
   */
  prepare(...args: (DeviceArray | ScalarValue)[]): Promise<PreparedComputation>;
  /** The signature it is called with, in order. */
  readonly signature: readonly ComputationParam[];
  /** The kernels it launches, in order, with the transformations fused in. */
  readonly kernels: readonly LoopKernel[];
  /** Each kernel's code for the device. */
  code(): string[];
  /** Buffers its temporaries use (temporaries with disjoint lifetimes share one). */
  readonly temporaryBuffers: number;
  readonly device: Device;
  /** Frees its temporaries and persistent arrays. */
  release(): void;
}

export function makeCompiled(parts: CompiledParts): Compiled {
  const { name, device, signature, calls, memory } = parts;
  const byName = (args: Readonly<Record<string, LeafValue>>) => runComputation(parts, args);
  const fn = (...args: LeafValue[]) => {
    if (args.length !== signature.length) {
      throw new LoomError(
        `computation '${name}' takes ${signature.length} arguments (${signature.map((p) => p.name).join(', ')}), got ${args.length}`,
      );
    }
    return byName(Object.fromEntries(signature.map((p, k) => [p.name, args[k]])));
  };
  const prepare = async (...args: (DeviceArray | ScalarValue)[]): Promise<PreparedComputation> => {
    if (args.length !== signature.length) {
      throw new LoomError(
        `computation '${name}': prepare takes ${signature.length} arguments (${signature.map((p) => p.name).join(', ')}), got ${args.length}`,
      );
    }
    const values = new Map<string, DeviceArray | ScalarValue>();
    for (const [k, p] of signature.entries()) {
      const given = args[k];
      if (p.role === 's') {
        values.set(p.name, scalarValue(p, given, `computation '${name}': prepare`));
        continue;
      }
      if (!(given instanceof DeviceArray))
        throw new LoomError(
          `computation '${name}': prepare: parameter '${p.name}' takes a DeviceArray, not ${describe(given)}`,
        );
      await toDevice(device, p, given, name, []);
      values.set(p.name, given);
    }
    const launches = await prepareCalls(parts, values);
    return {
      launches,
      async launch() {
        for (const l of launches) await l.launch();
      },
      release() {
        for (const l of launches) l.release();
      },
    };
  };
  return Object.assign(fn, {
    byName,
    prepare,
    signature,
    kernels: calls.map((c) => c.kernel),
    code: () => calls.map((c) => generateCode(c.kernel, device.target).code),
    temporaryBuffers: memory.temporaryBuffers,
    device,
    release: () => memory.release(),
  });
}

async function runComputation(
  parts: CompiledParts,
  args: Readonly<Record<string, LeafValue>>,
): Promise<Record<string, HostArray | DeviceArray>> {
  const { name, device, signature } = parts;
  const known = new Set(signature.map((p) => p.name));
  for (const key of Object.keys(args)) {
    if (!known.has(key))
      throw new LoomError(`computation '${name}' has no parameter '${key}' (parameters: ${[...known].join(', ')})`);
  }
  const owned: DeviceArray[] = [];
  let prepared: readonly PreparedLaunch[] = [];
  try {
    const values = new Map<string, DeviceArray | ScalarValue>();
    const readBack: { name: string; from: DeviceArray; into?: HostArray }[] = [];
    for (const p of signature) {
      const given = Object.hasOwn(args, p.name) ? args[p.name] : undefined;
      if (p.role === 's') {
        values.set(p.name, scalarValue(p, given, `computation '${name}'`));
        continue;
      }
      const array = await toDevice(device, p, given, name, owned);
      values.set(p.name, array.device);
      if (isOutputRole(p.role)) readBack.push({ name: p.name, from: array.device, into: array.host });
    }

    prepared = await prepareCalls(parts, values);
    for (const p of prepared) await p.launch();

    const outputs: Record<string, HostArray | DeviceArray> = {};
    for (const out of readBack) {
      if (out.into === undefined && args[out.name] instanceof DeviceArray) {
        outputs[out.name] = out.from;
        continue;
      }
      // a complex element is two numbers on the host, its parts
      const into = out.into ?? new (hostArrayConstructor(out.from.dtype))(out.from.size * hostLanes(out.from.dtype));
      if (into.byteLength > 0) await device.read(out.from.buffer, into);
      outputs[out.name] = into;
    }
    return outputs;
  } finally {
    for (const p of prepared) p.release();
    for (const a of owned) a.release();
  }
}

/** Every kernel bound (leaves to `values`) and checked before the first one runs. */
async function prepareCalls(
  parts: CompiledParts,
  values: ReadonlyMap<string, DeviceArray | ScalarValue>,
): Promise<PreparedLaunch[]> {
  const { device, calls, memory } = parts;
  const prepared: PreparedLaunch[] = [];
  try {
    for (const call of calls) {
      const callArgs: Record<string, DeviceArray | ScalarValue> = {};
      for (const [arg, bound] of call.bindings) {
        const value =
          bound.kind === 'leaf'
            ? values.get(bound.name)!
            : bound.kind === 'temporary'
              ? memory.temporaries.get(bound.array)!
              : bound.kind === 'persistent'
                ? memory.persistent.get(bound.array)!
                : bound.value;
        // a kernel that views the array otherwise (rows as vectors) takes it reshaped: the same memory
        const view = call.views?.get(arg);
        callArgs[arg] = view && value instanceof DeviceArray ? value.reshape(view) : value;
      }
      prepared.push(await prepareWithAliasedCopies(call.kernel, device, callArgs));
    }
    return prepared;
  } catch (e) {
    for (const p of prepared) p.release();
    throw e;
  }
}

/** What a scalar parameter takes: a number (or bigint), and for a complex one its parts as core's `run` takes them. */
export type ScalarValue = number | bigint | ComplexScalar;

/**
 * A scalar parameter's value, checked here so that a mistake names the computation's parameter
 * (the kernels' arguments may be named otherwise): a complex dtype takes a number (real),
 * `{ re, im }` or `[re, im]`; any other a number or a bigint.
 */
function scalarValue(p: ComputationParam, given: unknown, where: string): ScalarValue {
  if (typeof given === 'number' || (typeof given === 'bigint' && !isComplex(p.dtype))) return given;
  if (isComplex(p.dtype)) {
    const pair = Array.isArray(given) && given.length === 2 && given.every((x) => typeof x === 'number');
    const object =
      typeof given === 'object' &&
      given !== null &&
      !Array.isArray(given) &&
      Object.keys(given).length === 2 &&
      typeof (given as { re?: unknown }).re === 'number' &&
      typeof (given as { im?: unknown }).im === 'number';
    if (pair || object) return given as ComplexScalar;
  }
  throw new LoomError(
    `${where}: parameter '${p.name}' is a scalar (${p.dtype}); pass a number${isComplex(p.dtype) ? ', { re, im } or [re, im]' : ''}, not ${describe(given)}`,
  );
}

/** A leaf's array on the device: a DeviceArray as given, host data copied there (inputs) or room for it (outputs). */
async function toDevice(
  device: Device,
  p: ComputationParam,
  given: LeafValue,
  name: string,
  owned: DeviceArray[],
): Promise<{ device: DeviceArray; host?: HostArray }> {
  const shape = p.shape!;
  const size = shape.reduce((a, b) => a * b, 1);
  const where = `computation '${name}': parameter '${p.name}' (${p.dtype}, shape (${shape.join(', ')}))`;
  if (given === undefined) {
    if (isInputRole(p.role)) throw new LoomError(`${where} is an input: pass it`);
    const array = new DeviceArray(device, device.allocate(Math.max(4, size * byteSize(p.dtype))), p.dtype, shape);
    owned.push(array);
    return { device: array };
  }
  if (given instanceof DeviceArray) {
    if (given.device !== device)
      throw new LoomError(`${where}: the DeviceArray lives on another device (${given.device.name})`);
    if (given.dtype !== p.dtype || given.shape.join() !== shape.join())
      throw new LoomError(`${where}: got a DeviceArray of ${given.dtype}, shape (${given.shape.join(', ')})`);
    return { device: given };
  }
  const data = ArrayBuffer.isView(given)
    ? (given as HostArray)
    : typeof given === 'object' && given !== null && 'data' in given
      ? (given as ShapedHostArray).data
      : undefined;
  if (!data)
    throw new LoomError(
      `${where} is an array; pass a typed array, { data, shape } or a DeviceArray, not ${describe(given)}`,
    );
  const dtype = dtypeOfHostArray(data);
  // a complex array's host form is its parts, interleaved: a Float32Array of 2n numbers for n complex64
  const compatible =
    data instanceof hostArrayConstructor(p.dtype) &&
    (dtype === p.dtype || p.dtype === 'bool' || isNarrowFloat(p.dtype) || hostLanes(p.dtype) === 2);
  if (!compatible)
    throw new LoomError(
      `${where}: got a ${data.constructor.name} (${dtype})${hostLanes(p.dtype) === 2 ? `; pass its parts interleaved, in a ${hostArrayConstructor(p.dtype).name}` : ''}`,
    );
  const givenShape = ArrayBuffer.isView(given) ? undefined : (given as ShapedHostArray).shape;
  const numbers = size * hostLanes(p.dtype);
  if (data.length !== numbers || (givenShape && givenShape.join() !== shape.join()))
    throw new LoomError(
      `${where}: got ${data.length} ${hostLanes(p.dtype) === 2 ? `numbers (two per element, its parts; ${numbers} expected)` : 'elements'}${givenShape ? ` of shape (${givenShape.join(', ')})` : ''}`,
    );
  const array = isInputRole(p.role)
    ? await DeviceArray.from(device, data, p.dtype, shape)
    : new DeviceArray(device, device.allocate(Math.max(4, data.byteLength)), p.dtype, shape);
  owned.push(array);
  return { device: array, host: data };
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
