/**
 * From a bound, compiled call to launches: the global temporaries the program needs
 * (allocated for the whole call) and, per device kernel, its arguments and grid.
 * Shared by `run` and `prepareLaunch`. Everything comes from the generated code's
 * description (codegen/generated.ts): which buffer or value each parameter takes is
 * looked up by its name, in `buffers` and in the value arguments.
 */
import type { DeviceKernel, GeneratedCode } from '../codegen/generated.ts';
import type { Binding } from './arguments.ts';
import { byteLengthOf } from './arguments.ts';
import type { Device, DeviceBuffer, LaunchArgument } from './device.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';
import { checkGridLimits } from './limits.ts';

/** One kernel of the program, with its arguments and grid fixed. */
export interface PreparedKernel {
  readonly kernel: DeviceKernel;
  readonly args: readonly LaunchArgument[];
  readonly groupCount: readonly number[];
  readonly localSize: readonly number[];
}

function size(e: Parameters<typeof evaluateInt>[0], values: Binding['values'], what: string): number {
  return evaluateInt(e, valuesEnv(values, what), what);
}

/** Allocates the program's global temporaries (save slots, user-placed ones) into `buffers`; returns them. */
export function allocateTemporaries(device: Device, code: GeneratedCode, values: Binding['values'], buffers: Map<string, DeviceBuffer>): DeviceBuffer[] {
  const owned: DeviceBuffer[] = [];
  for (const t of code.host.temporaries) {
    const shape = t.shape.map((s) => size(s, values, `the shape of '${t.name}'`));
    const buffer = device.allocate(Math.max(byteLengthOf(t.dtype, shape), 4));
    owned.push(buffer);
    buffers.set(t.name, buffer);
  }
  return owned;
}

/** Each device kernel's arguments and grid, in launch order; kernels with an empty grid are left out. */
export function planLaunches(code: GeneratedCode, values: Binding['values'], buffers: ReadonlyMap<string, DeviceBuffer>): PreparedKernel[] {
  const kernels: PreparedKernel[] = [];
  for (const kernel of code.kernels) {
    const groupCount = kernel.grid.groupCount.map((g) => size(g, values, 'the grid size'));
    if (groupCount.some((g) => g <= 0)) continue;
    checkGridLimits(kernel.function, groupCount);
    const args: LaunchArgument[] = kernel.parameters.map((p) =>
      p.kind === 'value' ? { kind: 'value', dtype: p.dtype, value: values.get(p.argument)! } : { kind: 'buffer', buffer: buffers.get(p.name)! },
    );
    kernels.push({ kernel, args, groupCount, localSize: kernel.grid.localSize });
  }
  return kernels;
}
