/**
 * `prepareLaunch(knl, device, { a, b, c })`: everything `run` does before its first launch
 * (binding, bounds checks, code generation and compilation, grid sizes), done once, for
 * arguments that already live on the device. The handle it returns launches the kernel
 * again and again with no copies and no re-binding: what benchmarks and iterative solvers
 * need, where `run`'s per-call work would be measured or paid every time.
 *
 * Host arrays are refused rather than copied: a prepared launch owns no user data, so the
 * caller decides when data moves (`DeviceArray.from`, `toHost`). Value arguments are numbers
 * (a complex one also `{ re, im }` or `[re, im]`, as `run` takes it).
 *
 * With bounds checking (`options.checkBounds`, on by default on the CPU device), each
 * `launch()` reads the small flag buffer back and throws for data-dependent indices
 * found out of range; off, a launch is only the device launches.
 */
import { compiledKernel } from '../program/resolve.ts';
import type { Program } from '../program/program.ts';
import { LoomError } from '../errors.ts';
import type { DType } from '../dtypes.ts';
import { ownEntry } from '../names.ts';
import type { GeneratedCode } from '../codegen/generated.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { DeviceArray, type Device, type DeviceBuffer, type LaunchArgument, type QueuedLaunch } from './device.ts';
import { throwViolations, type RunOptions } from './bounds-flags.ts';
import { allocateCallBuffers } from './call-buffers.ts';
import { checkBufferFits, planCall, type CallPlan, type PlannedLaunch } from './call-plan.ts';
import { hostLaunches, type HostLaunch } from './host-loops.ts';
import { resolveAliases } from './aliasing.ts';
import type { ComplexScalar } from './arguments.ts';

/** One kernel of the program, with its arguments and grid (at the bound values) fixed. */
export type PreparedKernel = QueuedLaunch;

/** A kernel bound to device arrays by `prepareLaunch`: launch it again and again with no copies and no re-binding; release it when done. */
export interface PreparedLaunch {
  /** The device it launches on. */
  readonly device: Device;
  /** The generated code it runs. */
  readonly code: GeneratedCode;
  /** What `device.compile` returned (an OpenCL program, a WebGPU pipeline set, a JS function). */
  readonly compiled: unknown;
  /**
   * The program's launches in order (one unless the kernel has global barriers; a host loop's
   * kernels once per iteration, with its value as an argument); empty grids left out.
   */
  readonly kernels: readonly PreparedKernel[];
  /**
   * Queues every kernel once, in order, through `device.launch`. `arrays` puts other
   * DeviceArrays in place of some it was prepared with, for this launch (each of the same
   * dtype and shape, on the same device): ping-pong buffers, or a new output each time.
   */
  launch(arrays?: Readonly<Record<string, DeviceArray>>): Promise<void>;
  /**
   * Queues the program `rounds` times with the arrays it was prepared with, as one submission
   * where the device batches launches (`Device.launchRounds`), else launch after launch: what
   * timing a stream of launches needs. A program that checks its indices (`checkBounds`) reads
   * its flags after each launch, so it is always launched one by one.
   * ```ts
   * await launch.launchRounds(100);
   * await device.read(out.buffer, new Float32Array(1)); // the 100 have run
   * ```
   */
  launchRounds(rounds: number): Promise<void>;
  /** Frees the global temporaries the program needs (the caller's arrays stay). */
  release(): void;
}

/**
 * Does everything `run` does before its first launch (binding, bounds checks, code generation and
 * compilation, grid sizes) once, for arguments that already live on the device; host arrays are refused, not
 * copied.
 * ```ts
 * const launch = await prepareLaunch(knl, device, { a: await DeviceArray.from(device, a, 'float32'), out });
 * for (let k = 0; k < 100; k++) await launch.launch();
 * ```
 */
export async function prepareLaunch(
  program: LoopKernel | Program,
  device: Device,
  given: Readonly<Record<string, DeviceArray | number | bigint | ComplexScalar>>,
  options?: RunOptions,
): Promise<PreparedLaunch> {
  const kernel = compiledKernel(program);
  // one DeviceArray read and written through two arguments: one argument (aliasing.ts)
  const { kernel: knl, args, merged } = resolveAliases(kernel, given, 'prepareLaunch');
  const plan = await planCall(knl, device, args, options, 'prepareLaunch');

  const buffers: DeviceBuffer[] = new Array(plan.slots);
  for (const a of plan.arrays) {
    const given: unknown = ownEntry(args, a.arg.name);
    if (!(given instanceof DeviceArray)) {
      throw new LoomError(
        `prepareLaunch: argument '${a.arg.name}' must be a DeviceArray (copy host data once with DeviceArray.from)`,
      );
    }
    if (given.device !== device)
      throw new LoomError(`prepareLaunch: argument '${a.arg.name}' lives on another device (${given.device.name})`);
    if (a.sep) throw new LoomError(`prepareLaunch: argument '${a.arg.name}' has a 'sep' axis; use run`);
    checkBufferFits(a, given);
    buffers[a.slot] = given.buffer;
  }
  const owned = await allocateCallBuffers(device, plan, buffers);
  const checks = plan.checks;
  // the host loops run here, once: the launches they make, with their values, are fixed by the call's values
  const order = [...hostLaunches(plan, plan.binding.values)];
  const kernels: PreparedKernel[] = order.map(({ launch: l, loops }) => ({
    kernel: l.kernel,
    args: freezeArguments(l, buffers, loops),
    groupCount: l.groupCount,
    localSize: l.localSize,
  }));
  const { code, compiled } = plan;
  const dtypes = new Map(plan.arrays.map((a) => [a.arg.name, (ownEntry(args, a.arg.name) as DeviceArray).dtype]));
  const replaced = replacements(plan, order, device, buffers, dtypes, merged);

  const prepared: PreparedLaunch = {
    device,
    code,
    compiled,
    kernels,
    async launch(arrays?: Readonly<Record<string, DeviceArray>>) {
      const args = arrays === undefined ? undefined : replaced(arrays);
      for (const [k, { kernel, groupCount, localSize }] of kernels.entries()) {
        await device.launch(compiled, kernel, args ? args[k] : kernels[k].args, groupCount, localSize);
      }
      if (!checks) return;
      // each launch reports its own violations: read the flags, then clear them
      const flags = buffers[checks.slot];
      try {
        await throwViolations(device, flags, checks, plan.binding.values);
      } catch (e) {
        await device.write(flags, new Int32Array(2 * checks.sites.length));
        throw e;
      }
    },
    async launchRounds(rounds: number) {
      if (device.launchRounds && !checks && rounds > 1) return device.launchRounds(compiled, kernels, rounds);
      for (let r = 0; r < rounds; r++) await prepared.launch();
    },
    release() {
      for (const b of owned.splice(0)) device.release(b);
    },
  };
  return prepared;
}

/**
 * The arguments of one launch with `buffers` in their slots and the host loops' values in
 * theirs: frozen, so a device may keep what it derives from them.
 */
function freezeArguments(
  launch: PlannedLaunch,
  buffers: readonly DeviceBuffer[],
  loops?: ReadonlyMap<string, number>,
): readonly LaunchArgument[] {
  return Object.freeze(
    launch.args.map(
      (a): LaunchArgument =>
        Object.freeze(
          a.kind === 'slot'
            ? { kind: 'buffer', buffer: buffers[a.slot] }
            : a.kind === 'host-loop'
              ? { kind: 'value', dtype: a.dtype, value: loops!.get(a.iname)! }
              : a,
        ),
    ),
  );
}

/**
 * Each kernel's arguments with some arrays replaced, checked as `prepareLaunch` checks its
 * own. The last result is kept: a loop that passes the same arrays again passes the device
 * the same frozen arguments again.
 */
function replacements(
  plan: CallPlan,
  order: readonly HostLaunch[],
  device: Device,
  prepared: readonly DeviceBuffer[],
  dtypes: ReadonlyMap<string, DType>,
  merged: readonly { readonly read: string; readonly written: string }[],
): (arrays: Readonly<Record<string, DeviceArray>>) => (readonly LaunchArgument[])[] {
  const byName = new Map(plan.arrays.map((a) => [a.arg.name, a]));
  let last: { buffers: DeviceBuffer[]; args: (readonly LaunchArgument[])[] } | undefined;
  /** The arrays of the last call, checked already: the same DeviceArray objects again need no checks. */
  let lastArrays: { readonly names: readonly string[]; readonly given: readonly unknown[] } | undefined;
  return (arrays) => {
    if (last && lastArrays && sameArrays(lastArrays, arrays)) return last.args;
    const names = Object.keys(arrays);
    const buffers = [...prepared];
    for (const name of names) {
      const a = byName.get(name);
      const given: unknown = ownEntry(arrays, name);
      const alias = merged.find((m) => m.read === name);
      if (alias)
        throw new LoomError(
          `launch: '${name}' was prepared as the same array as '${alias.written}' (one argument since): replace '${alias.written}', or prepare again`,
        );
      if (!a) throw new LoomError(`launch: the kernel has no array argument '${name}'`);
      if (!(given instanceof DeviceArray)) throw new LoomError(`launch: argument '${name}' must be a DeviceArray`);
      if (given.device !== device)
        throw new LoomError(`launch: argument '${name}' lives on another device (${given.device.name})`);
      // the dtype of the array prepared with (a bool argument may have been a uint8 array)
      if (given.dtype !== dtypes.get(name))
        throw new LoomError(
          `launch: argument '${name}' is ${given.dtype}, but the launch was prepared with ${dtypes.get(name)}`,
        );
      // the plan's shapes are the kernel's storage view's: a complex array's parts have a last axis of 2
      const view = given.partsView();
      if (view.shape.length !== a.shape.length || view.shape.some((n, k) => n !== a.shape[k])) {
        throw new LoomError(
          `launch: argument '${name}' has shape (${given.shape.join(', ')}), but the launch was prepared for (${(given === view ? a.shape : a.shape.slice(0, -1)).join(', ')})`,
        );
      }
      checkBufferFits(a, given);
      buffers[a.slot] = given.buffer;
    }
    checkNoNewAliases(plan, buffers);
    lastArrays = { names, given: names.map((name) => arrays[name]) };
    if (last && last.buffers.every((b, k) => b === buffers[k])) return last.args;
    last = { buffers, args: order.map(({ launch, loops }) => freezeArguments(launch, buffers, loops)) };
    return last.args;
  };
}

/**
 * Whether `arrays` holds exactly the DeviceArray objects of `last`, under the same names. A
 * DeviceArray's device, dtype, shape and buffer never change, so what was checked for it holds;
 * a released buffer is the device's to refuse, as for the arrays the launch was prepared with.
 */
function sameArrays(
  last: { readonly names: readonly string[]; readonly given: readonly unknown[] },
  arrays: Readonly<Record<string, DeviceArray>>,
): boolean {
  let count = 0;
  for (const name in arrays) {
    const k = last.names.indexOf(name);
    if (k < 0 || !Object.hasOwn(arrays, name) || arrays[name] !== last.given[k]) return false;
    count++;
  }
  return count === last.names.length;
}

/**
 * Arrays put in place by `launch` must not make one buffer two arguments, one written: what
 * aliasing means was decided when preparing (aliasing.ts), for the arrays prepared with.
 */
function checkNoNewAliases(plan: CallPlan, buffers: readonly DeviceBuffer[]): void {
  for (const [j, a] of plan.arrays.entries()) {
    for (const b of plan.arrays.slice(j + 1)) {
      if (buffers[a.slot] === buffers[b.slot] && (a.arg.isOutput || b.arg.isOutput)) {
        throw new LoomError(
          `launch: '${a.arg.name}' and '${b.arg.name}' would be the same buffer, one of them written; prepare the launch with them so (prepareLaunch checks what that means), or pass separate arrays`,
        );
      }
    }
  }
}
