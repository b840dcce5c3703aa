/**
 * `run(knl, device, { a })`: types the kernel from the data, generates and compiles
 * code for the device (cached per kernel, device and dtypes), moves data, launches,
 * and returns the outputs by name.
 */
import { ownEntry } from '../names.ts';
import { hostArrayConstructor, type DType, type HostArray } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import { generateCode, type CodegenOptions } from '../codegen/generate.ts';
import type { GeneratedCode } from '../codegen/generated.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { addDtypes } from '../transform/basic.ts';
import { bindArguments, byteLengthOf, typeBinding, type Binding, type RunArgument, type ShapedHostArray } from './arguments.ts';
import { DeviceArray, type Device, type DeviceBuffer } from './device.ts';
import { checkAccessBounds, checkLayoutsFit } from './bounds-check.ts';
import { allocateFlags, throwViolations, wantsBoundsChecks, type RunOptions } from './bounds-flags.ts';

export type { RunOptions };
import { allocateTemporaries, planLaunches } from './launch-plan.ts';

export type RunOutputs = Record<string, HostArray | DeviceArray>;

/** A variant's generated code, and what the device compiled it to (only ever handed back to that device's `launch`). */
interface Compiled {
  readonly code: GeneratedCode;
  readonly compiled: unknown;
}

/**
 * Per device and kernel (both weakly: a dropped kernel's entries go with it), the variants
 * compiled for each set of dtypes: a kernel sees few, and an LRU bounds the rest.
 */
const compiledVariants = perObject((_: Device) => perObject((_: LoopKernel) => new LruCache<string, Promise<Compiled>>(VARIANTS_PER_KERNEL)));
const VARIANTS_PER_KERNEL = 16;

/**
 * Generates and compiles the variant of `knl` for these dtypes on `device`, cached. The
 * dtypes of what the caller passed decide the rest (outputs' are inferred from them).
 */
export function compileFor(knl: LoopKernel, device: Device, dtypes: ReadonlyMap<string, DType>, options: CodegenOptions = {}): Promise<Compiled> {
  const variants = compiledVariants(device)(knl);
  const key = knl.args.map((a) => `${a.name}:${dtypes.get(a.name)}`).join(',') + (options.checkBounds ? '|checked' : '');
  return variants.memo(key, () => {
    const entry = (async () => {
      const untyped = Object.fromEntries(knl.args.filter((a) => a.dtype === undefined && dtypes.has(a.name)).map((a) => [a.name, dtypes.get(a.name)!]));
      const typed = Object.keys(untyped).length ? addDtypes(knl, untyped) : knl;
      const code = generateCode(typed, device.target, { checkBounds: options.checkBounds ?? false });
      if (knl.options.writeCode) console.log(code.code);
      const compiled = await device.compile(code, { buildOptions: knl.options.buildOptions });
      return { code, compiled };
    })();
    // a failed compilation is not remembered: the next call tries again
    entry.catch(() => variants.delete(key));
    return entry;
  });
}

export async function run(
  knl: LoopKernel,
  device: Device,
  args: Readonly<Record<string, RunArgument>> = {},
  options: RunOptions = {},
): Promise<RunOutputs> {
  const { binding, code, compiled } = await prepareCall(knl, device, args, options);

  const owned: DeviceBuffer[] = [];
  const buffers = new Map<string, DeviceBuffer>();
  try {
    for (const a of binding.arrays) {
      if (a.sep) {
        // a 'sep' axis: one device array per index along it
        if (a.given instanceof DeviceArray) throw new LoomError(`argument '${a.arg.name}' has a 'sep' axis: pass it as a host array`);
        for (const [k, slice] of sliceAlong(a, a.sep.axis).entries()) {
          const buffer = device.allocate(Math.max(slice.byteLength, 4));
          owned.push(buffer);
          if (slice.byteLength > 0) await device.write(buffer, slice);
          buffers.set(a.sep.names[k], buffer);
        }
        continue;
      }
      if (a.given instanceof DeviceArray) {
        if (a.given.device !== device) throw new LoomError(`argument '${a.arg.name}' lives on another device (${a.given.device.name})`);
        buffers.set(a.arg.name, a.given.buffer);
        continue;
      }
      const byteLength = byteLengthOf(a.dtype, a.shape);
      const buffer = device.allocate(Math.max(byteLength, 4));
      owned.push(buffer);
      if (a.given && byteLength > 0) await device.write(buffer, a.given);
      else if (byteLength > 0) await device.write(buffer, new Uint8Array(byteLength));
      buffers.set(a.arg.name, buffer);
    }

    // global temporaries (save slots, user-placed ones) live for the whole run
    owned.push(...allocateTemporaries(device, code, binding.values, buffers));
    const checks = code.host.boundsChecks;
    if (checks) {
      const flags = await allocateFlags(device, checks);
      owned.push(flags);
      buffers.set(checks.flags, flags);
    }
    for (const k of planLaunches(code, binding.values, buffers)) {
      await device.launch(compiled, k.kernel, k.args, k.groupCount, k.localSize);
    }
    if (checks) await throwViolations(device, buffers.get(checks.flags)!, checks, binding.values);

    // outputs are defined, not assigned: an array called `__proto__` is an output like any other
    const outputs: RunOutputs = {};
    const output = (name: string, value: RunOutputs[string]) =>
      Object.defineProperty(outputs, name, { value, enumerable: true, writable: true, configurable: true });
    for (const a of binding.arrays) {
      if (!a.arg.isOutput) continue;
      if (a.sep) {
        const target = (a.given as HostArray | undefined) ?? new (hostArrayConstructor(a.dtype))(a.shape.reduce((x, y) => x * y, 1));
        const slices = sliceAlong({ ...a, given: target }, a.sep.axis);
        for (const [k, slice] of slices.entries()) if (slice.byteLength > 0) await device.read(buffers.get(a.sep.names[k])!, slice);
        scatterAlong(target, a.shape, a.sep.axis, slices);
        output(a.arg.name, target);
        continue;
      }
      if (a.given instanceof DeviceArray) {
        output(a.arg.name, a.given);
        continue;
      }
      const target = a.given ?? new (hostArrayConstructor(a.dtype))(a.shape.reduce((x, y) => x * y, 1));
      if (target.byteLength > 0) await device.read(buffers.get(a.arg.name)!, target);
      output(a.arg.name, target);
    }
    return outputs;
  } finally {
    for (const b of owned) device.release(b);
  }
}

/** The row-major slices of a host array at each index along `axis` (zeros when nothing was given). */
function sliceAlong(a: { dtype: DType; shape: readonly number[]; given?: HostArray | DeviceArray }, axis: number): HostArray[] {
  const Ctor = hostArrayConstructor(a.dtype);
  const outer = a.shape.slice(0, axis).reduce((x, y) => x * y, 1);
  const inner = a.shape.slice(axis + 1).reduce((x, y) => x * y, 1);
  const data = a.given as HostArray | undefined;
  return Array.from({ length: a.shape[axis] }, (_, k) => {
    const slice = new Ctor(outer * inner);
    if (data) for (let o = 0; o < outer; o++) (slice as Float64Array).set((data as Float64Array).subarray((o * a.shape[axis] + k) * inner, (o * a.shape[axis] + k + 1) * inner), o * inner);
    return slice;
  });
}

function scatterAlong(target: HostArray, shape: readonly number[], axis: number, slices: readonly HostArray[]): void {
  const outer = shape.slice(0, axis).reduce((x, y) => x * y, 1);
  const inner = shape.slice(axis + 1).reduce((x, y) => x * y, 1);
  slices.forEach((slice, k) => {
    for (let o = 0; o < outer; o++) (target as Float64Array).set((slice as Float64Array).subarray(o * inner, (o + 1) * inner), (o * shape[axis] + k) * inner);
  });
}

export interface PreparedCall {
  readonly binding: Binding;
  readonly code: GeneratedCode;
  readonly compiled: unknown;
}

/**
 * Binding, bounds checks and compilation, remembered per kernel, device and call
 * signature (dtypes, shapes, values): a loop calling `run` with the same kinds of
 * arguments pays for them once. The arrays themselves are bound afresh every call.
 */
export async function prepareCall(
  knl: LoopKernel,
  device: Device,
  args: Readonly<Record<string, RunArgument>>,
  options: RunOptions = {},
): Promise<PreparedCall> {
  const checkBounds = wantsBoundsChecks(device, options);
  const signature = callSignature(knl, args)?.concat(checkBounds ? '|checked' : '');
  const perKernel = prepared(device)(knl);
  const known = signature === undefined ? undefined : perKernel.get(signature);
  if (known) {
    const arrays = known.binding.arrays.map((a) => ({ ...a, given: givenArray(ownEntry(args, a.arg.name)) }));
    const binding = { ...known.binding, arrays };
    checkLayoutsFit(knl, binding); // device buffers are not part of the signature
    return { ...known, binding };
  }
  const bound = bindArguments(knl, args);
  checkAccessBounds(knl, bound.values, new Map(bound.arrays.map((a) => [a.arg.name, a.shape])));
  checkLayoutsFit(knl, bound);
  const { code, compiled } = await compileFor(knl, device, bound.dtypes, { checkBounds });
  const binding = typeBinding(bound, code);
  if (signature !== undefined) perKernel.set(signature, { binding, code, compiled });
  return { binding, code, compiled };
}

/** Per device and kernel (weakly), the calls prepared for each signature: elementwise kernels see every shape, so bounded. */
const prepared = perObject((_: Device) => perObject((_: LoopKernel) => new LruCache<string, PreparedCall>(CALLS_PER_KERNEL)));
const CALLS_PER_KERNEL = 64;

/** What binding depends on, as a string; undefined for arguments it cannot describe (then no reuse). */
function callSignature(knl: LoopKernel, args: Readonly<Record<string, RunArgument>>): string | undefined {
  const parts: string[] = [];
  for (const name of Object.keys(args)) {
    if (!knl.arg(name)) return undefined; // bindArguments reports it
    const v = ownEntry(args, name);
    if (typeof v === 'number' || typeof v === 'bigint') parts.push(`${name}=${typeof v}:${v}`);
    else if (v instanceof DeviceArray) parts.push(`${name}@${v.dtype}[${v.shape.join(',')}]`);
    else if (ArrayBuffer.isView(v)) parts.push(`${name}:${v.constructor.name}[${(v as HostArray).length}]`);
    else if (typeof v === 'object' && v !== null && 'data' in v && 'shape' in v && ArrayBuffer.isView(v.data)) {
      parts.push(`${name}:${v.data.constructor.name}[${v.data.length}](${v.shape.join(',')})`);
    } else return undefined;
  }
  return parts.sort().join(';');
}

function givenArray(v: RunArgument | undefined): HostArray | DeviceArray | undefined {
  if (v === undefined || typeof v === 'number' || typeof v === 'bigint') return undefined;
  if (v instanceof DeviceArray || ArrayBuffer.isView(v)) return v as HostArray | DeviceArray;
  return (v as ShapedHostArray).data;
}

