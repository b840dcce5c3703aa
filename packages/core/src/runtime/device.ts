/**
 * The `Device` interface every backend implements (OpenCL, WebGPU, the CPU), and
 * `DeviceArray`, a shaped array living in a device's memory.
 */
import type { DType, HostArray } from '../dtypes.ts';
import { hostArrayConstructor } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { DeviceKernel, GeneratedCode } from '../codegen/generated.ts';
import type { Target } from '../codegen/target.ts';
import type { DeviceLimits } from './limits.ts';
import type { BufferPoolStats } from './buffer-pool.ts';

/** Opaque handle to device memory. */
export interface DeviceBuffer {
  readonly byteLength: number;
}

export type LaunchArgument = { readonly kind: 'buffer'; readonly buffer: DeviceBuffer } | { readonly kind: 'value'; readonly dtype: DType; readonly value: number | bigint };

/**
 * Whether `args` can never change: a frozen array of frozen arguments, as `run` and
 * `prepareLaunch` pass them. A device may key what it derives from the arguments (its own
 * argument objects, bind groups) by such an array's identity.
 */
export function isImmutableArguments(args: readonly LaunchArgument[]): boolean {
  if (!Object.isFrozen(args)) return false;
  for (const a of args) if (!Object.isFrozen(a)) return false;
  return true;
}

/**
 * A device runs the code of its target. `Extra` is what that target tells the device
 * about its code (`Target<Extra>`), `Compiled` what the device makes of it: both stay
 * the device's own business. `run` and `prepareLaunch` see any device as a plain
 * `Device` and only hand back to `launch` what `compile` returned.
 */
export interface Device<Extra = unknown, Compiled = unknown> {
  /** Human-readable, e.g. 'OpenCL: pthread-AMD EPYC (Portable Computing Language)'. */
  readonly name: string;
  /** How code for this device is spelled. */
  readonly target: Target<Extra>;
  /** `run` checks data-dependent indices here unless told otherwise (bounds-flags.ts). */
  readonly checksBoundsByDefault?: boolean;
  /** Builds generated code into something `launch` can run. Devices may cache by code. */
  compile(code: GeneratedCode<Extra>, options?: { buildOptions?: readonly string[] }): Promise<Compiled>;
  /** Device memory of `byteLength` bytes; its contents are undefined (pooled memory holds what it held). */
  allocate(byteLength: number): DeviceBuffer;
  write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void>;
  read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void>;
  /** Runs one kernel of a compiled program over `groupCount` work-groups of `localSize` work-items. */
  launch(compiled: Compiled, kernel: DeviceKernel, args: readonly LaunchArgument[], groupCount: readonly number[], localSize: readonly number[]): Promise<void>;
  /**
   * Gives the buffer's memory back. Devices with a pool (`poolStats`) keep it to hand out
   * again, after the work already queued with it: the buffer object itself stays released.
   */
  release(buffer: DeviceBuffer): void;
  /** The device's pool of released buffers, on devices that have one (OpenCL, WebGPU). */
  poolStats?(): BufferPoolStats;
  /**
   * What kernels the device accepts (`limits.ts`): work-group sizes, local and private
   * memory, buffer sizes. Compiling and launching check them, on every device alike.
   */
  readonly limits: DeviceLimits;
  /**
   * How many entries each of the device's caches (programs, pipelines, launch shapes...)
   * holds now: each stays at most at the device's cache size.
   */
  cacheStats(): Readonly<Record<string, number>>;
  /**
   * Releases what the device holds (programs, pipelines, buffers; on OpenCL the context,
   * on WebGPU the GPUDevice). Using the device or its arrays afterwards is a LoomError.
   */
  dispose(): void;
}

/** A shaped, typed array in a device's memory (row-major). */
export class DeviceArray {
  constructor(
    readonly device: Device,
    readonly buffer: DeviceBuffer,
    readonly dtype: DType,
    readonly shape: readonly number[],
  ) {}

  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** Copies `data` (row-major) to `device` with the given shape (default: one axis). */
  static async from(device: Device, data: HostArray, dtype: DType, shape: readonly number[] = [data.length]): Promise<DeviceArray> {
    const buffer = device.allocate(Math.max(data.byteLength, 4));
    await device.write(buffer, data);
    return new DeviceArray(device, buffer, dtype, shape);
  }

  /**
   * The same memory seen with another shape of as many elements (row-major, as numpy's
   * reshape of a contiguous array): for a kernel that views an argument's rows as vectors
   * (`splitArrayAxis`). The two share one buffer: release one of them, once.
   */
  reshape(shape: readonly number[]): DeviceArray {
    const size = shape.reduce((a, b) => a * b, 1);
    if (!shape.every((d) => Number.isInteger(d) && d >= 0) || size !== this.size) {
      throw new LoomError(`DeviceArray.reshape: shape (${shape.join(', ')}) does not hold the ${this.size} elements of shape (${this.shape.join(', ')})`);
    }
    return new DeviceArray(this.device, this.buffer, this.dtype, shape);
  }

  async toHost(): Promise<HostArray> {
    const Ctor = hostArrayConstructor(this.dtype);
    const out = new Ctor(this.size);
    if (out.byteLength > 0) await this.device.read(this.buffer, out);
    return out;
  }

  release(): void {
    this.device.release(this.buffer);
  }
}
