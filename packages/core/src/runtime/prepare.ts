/**
 * `prepareLaunch(knl, device, { a, b, c })`: everything `run` does before its first launch
 * (binding, bounds checks, code generation and compilation, grid sizes), done once, for
 * arguments that already live on the device. The handle it returns launches the kernel
 * again and again with no copies and no re-binding: what benchmarks and iterative solvers
 * need, where `run`'s per-call work would be measured or paid every time.
 *
 * Host arrays are refused rather than copied: a prepared launch owns no user data, so the
 * caller decides when data moves (`DeviceArray.from`, `toHost`).
 *
 * With bounds checking (`options.checkBounds`, on by default on the CPU device), each
 * `launch()` reads the small flag buffer back and throws for data-dependent indices
 * found out of range; off, a launch is only the device launches.
 */
import { LoomError } from '../errors.ts';
import type { GeneratedCode } from '../codegen/generated.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { DeviceArray, type Device, type DeviceBuffer } from './device.ts';
import { allocateTemporaries, planLaunches, type PreparedKernel } from './launch-plan.ts';
import { prepareCall } from './run.ts';
import { allocateFlags, throwViolations, type RunOptions } from './bounds-flags.ts';

export type { PreparedKernel };

export interface PreparedLaunch {
  readonly device: Device;
  readonly code: GeneratedCode;
  /** What `device.compile` returned (an OpenCL program, a WebGPU pipeline set, a JS function). */
  readonly compiled: unknown;
  /** The program's kernels in launch order (one unless the kernel has global barriers); empty grids left out. */
  readonly kernels: readonly PreparedKernel[];
  /** Queues every kernel once, in order, through `device.launch`. */
  launch(): Promise<void>;
  /** Frees the global temporaries the program needs (the caller's arrays stay). */
  release(): void;
}

export async function prepareLaunch(
  knl: LoopKernel,
  device: Device,
  args: Readonly<Record<string, DeviceArray | number | bigint>>,
  options: RunOptions = {},
): Promise<PreparedLaunch> {
  const { binding, code, compiled } = await prepareCall(knl, device, args, options);

  const buffers = new Map<string, DeviceBuffer>();
  for (const a of binding.arrays) {
    if (!(a.given instanceof DeviceArray)) {
      throw new LoomError(`prepareLaunch: argument '${a.arg.name}' must be a DeviceArray (copy host data once with DeviceArray.from)`);
    }
    if (a.given.device !== device) throw new LoomError(`prepareLaunch: argument '${a.arg.name}' lives on another device (${a.given.device.name})`);
    if (a.sep) throw new LoomError(`prepareLaunch: argument '${a.arg.name}' has a 'sep' axis; use run`);
    buffers.set(a.arg.name, a.given.buffer);
  }
  const owned = allocateTemporaries(device, code, binding.values, buffers);
  const checks = code.host.boundsChecks;
  if (checks) {
    const flags = await allocateFlags(device, checks);
    owned.push(flags);
    buffers.set(checks.flags, flags);
  }
  const kernels = planLaunches(code, binding.values, buffers);

  return {
    device,
    code,
    compiled,
    kernels,
    async launch() {
      for (const k of kernels) await device.launch(compiled, k.kernel, k.args, k.groupCount, k.localSize);
      if (!checks) return;
      // each launch reports its own violations: read the flags, then clear them
      const flags = buffers.get(checks.flags)!;
      try {
        await throwViolations(device, flags, checks, binding.values);
      } catch (e) {
        await device.write(flags, new Int32Array(2 * checks.sites.length));
        throw e;
      }
    },
    release() {
      for (const b of owned.splice(0)) device.release(b);
    },
  };
}
