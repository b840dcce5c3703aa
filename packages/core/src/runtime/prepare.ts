/**
 * `prepareLaunch(knl, device, { a, b, c })`: everything `run` does before its first launch
 * (binding, bounds checks, code generation and compilation, grid sizes), done once, for
 * arguments that already live on the device. The handle it returns launches the kernel
 * again and again with no copies and no re-binding: what benchmarks and iterative solvers
 * need, where `run`'s per-call work would be measured or paid every time.
 *
 * Host arrays are refused rather than copied: a prepared launch owns no user data, so the
 * caller decides when data moves (`DeviceArray.from`, `toHost`).
 */
import { LoomError } from '../errors.ts';
import type { KernelFunction } from '../codegen/ast.ts';
import type { GeneratedCode } from '../codegen/target.ts';
import { sepAxisOf } from '../codegen/separate-arrays.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { bindArguments, byteLengthOf } from './arguments.ts';
import { checkAccessBounds } from './bounds-check.ts';
import { DeviceArray, type Device, type DeviceBuffer, type LaunchArgument } from './device.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';
import { compileFor } from './run.ts';

/** One kernel of the program, with its arguments and grid fixed. */
export interface PreparedKernel {
  readonly kernel: KernelFunction;
  readonly args: readonly LaunchArgument[];
  readonly groupCount: readonly number[];
  readonly localSize: readonly number[];
}

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
): Promise<PreparedLaunch> {
  const binding = bindArguments(knl, args);
  checkAccessBounds(knl, binding.values, new Map(binding.arrays.map((a) => [a.arg.name, a.shape])));
  const { code, compiled } = await compileFor(knl, device, binding.dtypes);

  const buffers = new Map<string, DeviceBuffer>();
  for (const a of binding.arrays) {
    if (!(a.given instanceof DeviceArray)) {
      throw new LoomError(`prepareLaunch: argument '${a.arg.name}' must be a DeviceArray (copy host data once with DeviceArray.from)`);
    }
    if (a.given.device !== device) throw new LoomError(`prepareLaunch: argument '${a.arg.name}' lives on another device (${a.given.device.name})`);
    if (sepAxisOf(a.arg)) throw new LoomError(`prepareLaunch: argument '${a.arg.name}' has a 'sep' axis; use run`);
    buffers.set(a.arg.name, a.given.buffer);
  }

  const size = (e: Parameters<typeof evaluateInt>[0], what: string) => evaluateInt(e, valuesEnv(binding.values, what), what);
  const owned: DeviceBuffer[] = [];
  for (const kernel of code.program.kernels) {
    for (const p of kernel.params) {
      if (!p.temporaryShape || buffers.has(p.name)) continue;
      const shape = p.temporaryShape.map((s) => size(s, `the shape of '${p.name}'`));
      const buffer = device.allocate(Math.max(byteLengthOf(p.dtype, shape), 4));
      owned.push(buffer);
      buffers.set(p.name, buffer);
    }
  }

  const kernels: PreparedKernel[] = [];
  for (const kernel of code.program.kernels) {
    const groupCount = kernel.groupCount.map((g) => size(g, 'the grid size'));
    if (groupCount.some((g) => g <= 0)) continue;
    const launchArgs: LaunchArgument[] = kernel.params.map((p) =>
      p.kind === 'value'
        ? { kind: 'value', dtype: p.dtype, value: binding.values.get(p.name)! }
        : { kind: 'buffer', buffer: buffers.get(p.name)! },
    );
    kernels.push({ kernel, args: launchArgs, groupCount, localSize: kernel.localSize });
  }

  return {
    device,
    code,
    compiled,
    kernels,
    async launch() {
      for (const k of kernels) await device.launch(compiled, k.kernel, k.args, k.groupCount, k.localSize);
    },
    release() {
      for (const b of owned.splice(0)) device.release(b);
    },
  };
}
