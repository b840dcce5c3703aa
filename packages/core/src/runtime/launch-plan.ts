/**
 * From a bound, compiled call to launches: the global temporaries the program needs
 * (allocated for the whole call) and, per device kernel, its arguments and grid.
 * Shared by `run` and `prepareLaunch`.
 */
import type { ProgramAst } from '../codegen/ast.ts';
import type { KernelFunction } from '../codegen/ast.ts';
import type { Binding } from './arguments.ts';
import { byteLengthOf } from './arguments.ts';
import type { Device, DeviceBuffer, LaunchArgument } from './device.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';
import { checkGridLimits } from './limits.ts';

/** One kernel of the program, with its arguments and grid fixed. */
export interface PreparedKernel {
  readonly kernel: KernelFunction;
  readonly args: readonly LaunchArgument[];
  readonly groupCount: readonly number[];
  readonly localSize: readonly number[];
}

function size(e: Parameters<typeof evaluateInt>[0], values: Binding['values'], what: string): number {
  return evaluateInt(e, valuesEnv(values, what), what);
}

/** Allocates the program's global temporaries (save slots, user-placed ones) into `buffers`; returns them. */
export function allocateTemporaries(device: Device, program: ProgramAst, values: Binding['values'], buffers: Map<string, DeviceBuffer>): DeviceBuffer[] {
  const owned: DeviceBuffer[] = [];
  for (const kernel of program.kernels) {
    for (const p of kernel.params) {
      if (!p.temporaryShape || buffers.has(p.name)) continue;
      const shape = p.temporaryShape.map((s) => size(s, values, `the shape of '${p.name}'`));
      const buffer = device.allocate(Math.max(byteLengthOf(p.dtype, shape), 4));
      owned.push(buffer);
      buffers.set(p.name, buffer);
    }
  }
  return owned;
}

/** Each device kernel's arguments and grid, in launch order; kernels with an empty grid are left out. */
export function planLaunches(program: ProgramAst, values: Binding['values'], buffers: ReadonlyMap<string, DeviceBuffer>): PreparedKernel[] {
  const kernels: PreparedKernel[] = [];
  for (const kernel of program.kernels) {
    const groupCount = kernel.groupCount.map((g) => size(g, values, 'the grid size'));
    if (groupCount.some((g) => g <= 0)) continue;
    checkGridLimits(kernel, groupCount);
    const args: LaunchArgument[] = kernel.params.map((p) =>
      p.kind === 'value' ? { kind: 'value', dtype: p.dtype, value: values.get(p.name)! } : { kind: 'buffer', buffer: buffers.get(p.name)! },
    );
    kernels.push({ kernel, args, groupCount, localSize: kernel.localSize });
  }
  return kernels;
}
