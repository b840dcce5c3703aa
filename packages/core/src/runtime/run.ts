/**
 * `run(knl, device, { a })`: types the kernel from the data, generates and compiles
 * code for the device (cached per kernel, device and dtypes), moves data, launches,
 * and returns the outputs by name. Everything that depends only on the call's
 * signature is planned once (call-plan.ts); a call binds its arrays and launches.
 */
import { ownEntry } from '../names.ts';
import { byteSize, hostArrayConstructor, type HostArray } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { compiledKernel } from '../program/resolve.ts';
import type { Program } from '../program/program.ts';
import type { RunArgument, ShapedHostArray } from './arguments.ts';
import { DeviceArray, type Device, type DeviceArrayView, type DeviceBuffer } from './device.ts';
import { unpackViews, type ViewLayout } from './views.ts';
import { throwViolations, type RunOptions } from './bounds-flags.ts';
import { allocateCallBuffers } from './call-buffers.ts';
import { checkBufferFits, launchArguments, planCall } from './call-plan.ts';
import { hostLaunches } from './host-loops.ts';
import { resolveAliases } from './aliasing.ts';
import { piecesOf, scatterPieces } from './sep-pieces.ts';
import { packStructArguments, type StructArgument } from './struct-arguments.ts';

export type { RunOptions };

/** What `run` returns: every array the kernel writes, by name (a host array, or the DeviceArray that was passed for it). */
export type RunOutputs = Record<string, HostArray | DeviceArray | DeviceArrayView>;

/**
 * Runs a kernel on a device: types it from the data, generates and compiles code (cached per kernel, device
 * and dtypes), moves the data, launches, and returns the outputs by name (loopy's `knl(queue, a=...)`).
 * ```ts
 * const { out } = await run(knl, cpuDevice(), { a: new Float32Array(n) });
 * ```
 */
export async function run(
  program: LoopKernel | Program,
  device: Device,
  given: Readonly<Record<string, RunArgument | StructArgument>> = {},
  options?: RunOptions,
): Promise<RunOutputs> {
  const kernel = compiledKernel(program);
  // one DeviceArray read and written through two arguments: one argument (aliasing.ts)
  const { kernel: knl, args: passed } = resolveAliases(kernel, packStructArguments(kernel, given), 'run');
  // views (DeviceArray.view, host arrays with strides or an offset) bind as plain arrays with their layouts aside
  const { args, views } = unpackViews(passed);
  if (views.size) checkViewsDoNotAlias(knl, args, views);
  // a call like an earlier one finds its plan without waiting for anything
  const planned = planCall(knl, device, args, options, 'run', views);
  const plan = planned instanceof Promise ? await planned : planned;

  const owned: DeviceBuffer[] = [];
  const buffers: (DeviceBuffer | undefined)[] = new Array(plan.slots);
  // what was passed for each planned array, looked up once (a look-up by a varying name is slow)
  const givens: (HostArray | DeviceArray | undefined)[] = new Array(plan.arrays.length);
  try {
    for (let k = 0; k < plan.arrays.length; k++) {
      const a = plan.arrays[k];
      const given = givenArray(ownEntry(args, a.arg.name));
      givens[k] = given;
      if (a.sep) {
        // a 'sep' axis: one device array per index along it
        if (given instanceof DeviceArray)
          throw new LoomError(`argument '${a.arg.name}' has a 'sep' axis: pass it as a host array`);
        for (const [k, slice] of piecesOf(a.dtype, a.shape, a.sep, given).entries()) {
          const buffer = device.allocate(Math.max(slice.byteLength, 4));
          owned.push(buffer);
          if (slice.byteLength > 0) await device.write(buffer, slice);
          buffers[a.sep.slots[k]] = buffer;
        }
        continue;
      }
      if (given instanceof DeviceArray) {
        if (given.device !== device)
          throw new LoomError(`argument '${a.arg.name}' lives on another device (${given.device.name})`);
        checkBufferFits(a, given);
        buffers[a.slot] = given.buffer;
        continue;
      }
      const buffer = device.allocate(Math.max(a.byteLength, 4));
      owned.push(buffer);
      // an output nobody passed starts as zeros, whatever the buffer held before
      if (a.byteLength > 0) await device.write(buffer, given ?? new Uint8Array(a.byteLength));
      buffers[a.slot] = buffer;
    }

    // global temporaries (save slots, user-placed ones) and the bounds flags live for the whole run
    owned.push(...(await allocateCallBuffers(device, plan, buffers)));
    const checks = plan.checks;
    if (plan.hasHostLoops) {
      for (const { launch: l, loops } of hostLaunches(plan, plan.binding.values)) {
        await device.launch(plan.compiled, l.kernel, launchArguments(l, buffers, loops), l.groupCount, l.localSize);
      }
    } else {
      // the common case, kept free of the host-loop walk's allocations: a launch per planned kernel
      for (const l of plan.launches)
        await device.launch(plan.compiled, l.kernel, launchArguments(l, buffers), l.groupCount, l.localSize);
    }
    if (checks) await throwViolations(device, buffers[checks.slot]!, checks, plan.binding.values);

    const outputs: RunOutputs = {};
    for (let k = 0; k < plan.arrays.length; k++) {
      const a = plan.arrays[k];
      if (!a.arg.isOutput) continue;
      const given = givens[k];
      if (a.sep) {
        const target =
          (given as HostArray | undefined) ?? new (hostArrayConstructor(a.dtype))(a.shape.reduce((x, y) => x * y, 1));
        const pieces = piecesOf(a.dtype, a.shape, a.sep);
        for (const [k, piece] of pieces.entries())
          if (piece.byteLength > 0) await device.read(buffers[a.sep.slots[k]]!, piece);
        scatterPieces(target, a.shape, a.sep, pieces);
        output(outputs, a.arg.name, target);
        continue;
      }
      if (given instanceof DeviceArray) {
        // a view passed comes back as itself
        output(outputs, a.arg.name, views.has(a.arg.name) ? (ownEntry(passed, a.arg.name) as DeviceArrayView) : given);
        continue;
      }
      // an output nobody passed comes back as its whole buffer: a padded layout's gaps included
      const target = given ?? new (hostArrayConstructor(a.dtype))(a.byteLength / byteSize(a.dtype));
      if (target.byteLength > 0) await device.read(buffers[a.slot]!, target);
      output(outputs, a.arg.name, target);
    }
    return outputs;
  } finally {
    // a device reuses a released buffer only after the work queued on it (queues are in order)
    for (const b of owned) device.release(b);
  }
}

/** Defined, not assigned: an array called `__proto__` is an output like any other. */
function output(outputs: RunOutputs, name: string, value: RunOutputs[string]): void {
  if (name === '__proto__')
    Object.defineProperty(outputs, name, { value, enumerable: true, writable: true, configurable: true });
  else outputs[name] = value;
}

/** What the caller passed for an array argument: a host array, a DeviceArray, or nothing. */
function givenArray(v: RunArgument | undefined): HostArray | DeviceArray | undefined {
  if (v === undefined || typeof v === 'number' || typeof v === 'bigint') return undefined;
  if (v instanceof DeviceArray || ArrayBuffer.isView(v)) return v as HostArray | DeviceArray;
  return (v as ShapedHostArray).data;
}

/**
 * Two arguments on one device buffer, one of them a view and one written: what the kernel
 * reads may be what it wrote, in an order no device fixes. Refused (aliasing.ts merges only
 * whole arrays passed twice).
 */
function checkViewsDoNotAlias(
  knl: LoopKernel,
  args: Readonly<Record<string, RunArgument>>,
  views: ReadonlyMap<string, ViewLayout>,
): void {
  const onDevice = knl.args.flatMap((a) => {
    const v = ownEntry(args, a.name);
    return v instanceof DeviceArray ? [{ arg: a, buffer: v.buffer }] : [];
  });
  for (const x of onDevice)
    for (const y of onDevice) {
      if (x === y || x.buffer !== y.buffer || !x.arg.isOutput || !(views.has(x.arg.name) || views.has(y.arg.name)))
        continue;
      throw new LoomError(
        `arguments '${x.arg.name}' and '${y.arg.name}' are views of one buffer, and the kernel writes '${x.arg.name}': pass views of separate buffers`,
      );
    }
}
