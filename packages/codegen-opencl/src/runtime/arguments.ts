/**
 * Kernel arguments as the host describes them, how each becomes the bytes `clSetKernelArg` takes,
 * and setting them (skipped for an argument the kernel holds already).
 * A scalar's dtype decides its width; the value must fit that dtype exactly (`scalarBytes` in core).
 */
import { LoomError, scalarBytes, type DType } from '@loom/core';
import type { OpenCLApi } from './bindings.ts';
import type { OpenCLBuffer } from './buffer.ts';
import { CL_SUCCESS } from './constants.ts';
import { OpenCLError } from './errors.ts';
import type { KernelHandle } from './program.ts';
import type { ImageArgument } from './images.ts';

/** An argument of an OpenCL kernel launch: a buffer, a scalar with its dtype, or local memory of a size. */
export type KernelArgument =
  /** A `__global T *` parameter. */
  | { kind: 'buffer'; buffer: OpenCLBuffer }
  /** A by-value parameter (`int n`, `float alpha`); bool travels as one byte, float16 as `half`. */
  | { kind: 'scalar'; dtype: DType; value: number | bigint }
  /** A `__local T *` parameter: the device allocates `byteLength` bytes per work-group. */
  | { kind: 'local'; byteLength: number }
  /** A `read_only image2d_t`/`image3d_t` parameter: an image made from the buffer for this launch (images.ts). */
  | (ImageArgument & { buffer: OpenCLBuffer });

/**
 * What an argument index of a kernel was last set to: a cl_mem (valid within a generation
 * of freed cl_mems, whose numbers may come back), a scalar's dtype and value, or an amount
 * of local memory.
 */
export type SetArgument =
  | { readonly kind: 'buffer'; readonly handle: bigint; readonly generation: number }
  | { readonly kind: 'scalar'; readonly dtype: DType; readonly value: number | bigint }
  | { readonly kind: 'local'; readonly byteLength: number };

/** Where an argument is set, and what it is now: a buffer's handle and the generation of freed handles. */
export interface ArgumentContext {
  readonly handle: bigint;
  readonly generation: number;
  readonly localMemSize: number;
  /** 'kernel 'name', argument k', for messages. */
  readonly where: string;
}

/** The one scratch cell for a cl_mem argument's bytes (clSetKernelArg copies them). */
const handleBytes = new BigUint64Array(1);

/**
 * Sets argument `index` of `kernel` to `arg`, unless the kernel holds exactly that already
 * (`kernel.lastSet`): a kernel keeps its arguments between launches.
 */
export function setArgument(
  api: OpenCLApi,
  kernel: KernelHandle,
  index: number,
  arg: KernelArgument,
  at: ArgumentContext,
): void {
  const { handle, generation, where } = at;
  if (alreadySet(kernel.lastSet[index], arg, handle, generation)) return;
  kernel.lastSet[index] = undefined;
  let size: number;
  let value: ArrayBufferView | null;
  let set: SetArgument | undefined;
  switch (arg?.kind) {
    case 'buffer':
      handleBytes[0] = handle;
      value = handleBytes;
      size = value.byteLength;
      set = { kind: 'buffer', handle, generation };
      break;
    case 'scalar':
      value = scalarBytes(arg.dtype, arg.value, where);
      size = value.byteLength;
      set = { kind: 'scalar', dtype: arg.dtype, value: arg.value };
      break;
    case 'image':
      // `handle` is the image made for this launch, released after it: never kept as set
      handleBytes[0] = handle;
      value = handleBytes;
      size = value.byteLength;
      set = undefined;
      break;
    case 'local':
      if (!Number.isSafeInteger(arg.byteLength) || arg.byteLength <= 0) {
        throw new LoomError(`${where}: local memory needs a positive whole number of bytes, got ${arg.byteLength}`);
      }
      if (arg.byteLength > at.localMemSize) {
        throw new LoomError(`${where}: ${arg.byteLength} bytes of local memory exceed the device's ${at.localMemSize}`);
      }
      value = null; // OpenCL's way of saying "allocate this much __local memory"
      size = arg.byteLength;
      set = { kind: 'local', byteLength: arg.byteLength };
      break;
    default:
      throw new LoomError(
        `${where}: expected { kind: 'buffer' | 'scalar' | 'local' | 'image', ... }, got ${JSON.stringify(arg)}`,
      );
  }
  const code = api.clSetKernelArg(kernel.handle, index, size, value);
  if (code !== CL_SUCCESS) throw new OpenCLError('clSetKernelArg', code, `${where} (${describeArgument(arg, size)})`);
  kernel.lastSet[index] = set;
}

function describeArgument(arg: KernelArgument, size: number): string {
  switch (arg.kind) {
    case 'buffer':
      return 'a buffer; does the kernel declare a pointer here?';
    case 'image':
      return 'an image; does the kernel declare an image here?';
    case 'scalar':
      return `a ${arg.dtype} scalar of ${size} bytes; does the kernel declare that type here?`;
    case 'local':
      return `${size} bytes of local memory; does the kernel declare a __local pointer here?`;
  }
}

/** Whether `arg` is what `last` says was set already (`handle` and `generation`: a buffer's, now). */
function alreadySet(last: SetArgument | undefined, arg: KernelArgument, handle: bigint, generation: number): boolean {
  if (last === undefined || last.kind !== arg.kind) return false;
  switch (last.kind) {
    case 'buffer':
      return last.handle === handle && last.generation === generation;
    // Object.is: -0 is not 0, and the value must be of the same type (1 is not 1n)
    case 'scalar':
      return last.dtype === (arg as { dtype: DType }).dtype && Object.is(last.value, (arg as { value: unknown }).value);
    case 'local':
      return last.byteLength === (arg as { byteLength: number }).byteLength;
  }
}
