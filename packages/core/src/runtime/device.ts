/**
 * The `Device` interface every backend implements (OpenCL, WebGPU, the CPU), and
 * `DeviceArray`, a shaped array living in a device's memory.
 */
import type { DType, HostArray } from '../dtypes.ts';
import { byteSize, complexPart, hostArrayConstructor, hostArrayOf, hostLanes, isComplex } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { DeviceKernel, GeneratedCode } from '../codegen/generated.ts';
import type { Target } from '../codegen/target.ts';
import type { DeviceLimits } from './limits.ts';
import type { BufferPoolStats } from './buffer-pool.ts';

/** Opaque handle to device memory. */
export interface DeviceBuffer {
  /** The bytes it was allocated with (the device memory may be larger). */
  readonly byteLength: number;
}

/**
 * An argument of a kernel launch: a device buffer, a scalar value with its dtype, or local
 * memory of a number of bytes per work-group (a target with `localArraysAsArguments`).
 */
export type LaunchArgument =
  | { readonly kind: 'buffer'; readonly buffer: DeviceBuffer }
  | { readonly kind: 'value'; readonly dtype: DType; readonly value: number | bigint }
  | { readonly kind: 'local'; readonly byteLength: number };

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

/** One launch as `Device.launch` takes it: a kernel, its arguments and its grid. */
export interface QueuedLaunch {
  /** The device kernel. */
  readonly kernel: DeviceKernel;
  /** Its launch arguments, in its parameter order. */
  readonly args: readonly LaunchArgument[];
  /** Work-groups per axis. */
  readonly groupCount: readonly number[];
  /** Work-items per work-group, per axis. */
  readonly localSize: readonly number[];
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
  /**
   * Seconds of work after which a device idle for a while runs at full speed (absent: 0, as a
   * CPU's). A GPU lowers its clocks within about a second of idling and raises them again over
   * seconds of load: the H200 idles at 345 MHz and took 2.8 s of launches to reach 1710-1980 MHz.
   * Timings (`timeLaunchStream`: the autotuner, `autoSchedule`, device profiles) keep such a
   * device busy this long before sampling where it has been idle since the last timing.
   */
  readonly warmUpSeconds?: number;
  /** Builds generated code into something `launch` can run. Devices may cache by code. */
  compile(code: GeneratedCode<Extra>, options?: { buildOptions?: readonly string[] }): Promise<Compiled>;
  /** Device memory of `byteLength` bytes; its contents are undefined (pooled memory holds what it held). */
  allocate(byteLength: number): DeviceBuffer;
  /**
   * Copies `data`'s bytes to the start of `buffer`, after the work already queued with it
   * (more bytes than the buffer holds is a LoomError).
   */
  write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void>;
  /**
   * Fills `into` from the start of `buffer` once the work queued before has finished
   * (more bytes than the buffer holds is a LoomError).
   */
  read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void>;
  /** Runs one kernel of a compiled program over `groupCount` work-groups of `localSize` work-items. */
  launch(
    compiled: Compiled,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<void>;
  /**
   * Queues `rounds` rounds of `launches` (each as `launch` queues it, in order) as one submission,
   * on a device whose submissions cost more than a short kernel runs: WebGPU puts them in one
   * command buffer, where Dawn's submit costs tens of microseconds a launch.
   * Timing a stream of launches (`timeLaunches`) uses it where present, so that autotuning and
   * device profiles time the kernels rather than the submissions. Devices without it are timed
   * launch by launch, which on them costs what a launch costs.
   * ```ts
   * await device.launchRounds?.(compiled, [{ kernel, args, groupCount, localSize }], 100);
   * ```
   */
  launchRounds?(compiled: Compiled, launches: readonly QueuedLaunch[], rounds: number): Promise<void>;
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

/**
 * A shaped, typed array in a device's memory (row-major). A complex element takes its two
 * parts, interleaved (`byteSize`: 8 bytes for complex64, 16 for complex128), on the host as on
 * the device: a complex64 array of n elements is a Float32Array of 2n numbers.
 */
export class DeviceArray {
  constructor(
    /** The device whose memory holds it. */
    readonly device: Device,
    /** The device memory (shared with arrays made by `reshape` or `partsView`). */
    readonly buffer: DeviceBuffer,
    /** Its element dtype. */
    readonly dtype: DType,
    /** Its shape, row-major. */
    readonly shape: readonly number[],
  ) {}

  /** The number of elements: the product of the shape (1 for shape `[]`). */
  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  /** The bytes its elements take (its buffer may be larger). */
  get byteLength(): number {
    return this.size * byteSize(this.dtype);
  }

  /**
   * Copies `data` (row-major; a complex dtype's parts interleaved, two numbers per element)
   * to `device` with the given shape (default: one axis of all the elements). Plain numbers
   * are first put in the dtype's host array.
   */
  static async from(
    device: Device,
    data: HostArray | readonly number[],
    dtype: DType,
    shape?: readonly number[],
  ): Promise<DeviceArray> {
    const host = ArrayBuffer.isView(data) ? data : Array.isArray(data) ? hostArrayOf(dtype, data) : undefined;
    if (!host)
      throw new LoomError(`DeviceArray.from: data must be a typed array or an array of numbers, not ${typeof data}`);
    const lanes = hostLanes(dtype);
    const dims = shape ?? [host.length / lanes];
    const size = dims.reduce((a, b) => a * b, 1);
    if (!dims.every((d) => Number.isInteger(d) && d >= 0)) {
      throw new LoomError(
        `DeviceArray.from: ${host.length} numbers are no whole number of ${dtype} elements (${lanes} numbers each)`,
      );
    }
    const needed = size * byteSize(dtype);
    if (host.byteLength < needed) {
      const each = lanes === 2 ? ` (two numbers, its parts, per ${dtype} element)` : '';
      throw new LoomError(
        `DeviceArray.from: shape (${dims.join(', ')}) of ${dtype} takes ${needed} bytes${each}; the data holds ${host.byteLength}`,
      );
    }
    const buffer = device.allocate(Math.max(host.byteLength, 4));
    await device.write(buffer, host);
    return new DeviceArray(device, buffer, dtype, dims);
  }

  /**
   * The same memory seen with another shape of as many elements (row-major, as numpy's
   * reshape of a contiguous array): for a kernel that views an argument's rows as vectors
   * (`splitArrayAxis`). The two share one buffer: release one of them, once.
   */
  reshape(shape: readonly number[]): DeviceArray {
    const size = shape.reduce((a, b) => a * b, 1);
    if (!shape.every((d) => Number.isInteger(d) && d >= 0) || size !== this.size) {
      throw new LoomError(
        `DeviceArray.reshape: shape (${shape.join(', ')}) does not hold the ${this.size} elements of shape (${this.shape.join(', ')})`,
      );
    }
    return new DeviceArray(this.device, this.buffer, this.dtype, shape);
  }

  /**
   * A strided view of this array's memory (numpy's slicing, loopy's `a_full[3:10, 5:10]`): `shape`
   * elements, element `[i, j, ...]` at `offset + i*strides[0] + j*strides[1] + ...` of the
   * buffer, counted in elements (default strides: row-major over `shape`). `run` passes it to
   * a kernel whose argument takes offsets and strides from it (`offset: 'auto'`, `stride:auto`);
   * every element it reaches must lie in the buffer.
   * ```ts
   * const block = full.view([7, 5], { offset: 3 * 20 + 5, strides: [20, 1] }); // full[3:10, 5:10]
   * ```
   */
  view(
    shape: readonly number[],
    layout: { readonly offset?: number; readonly strides?: readonly number[] } = {},
  ): DeviceArrayView {
    return new DeviceArrayView(this, shape, layout.offset ?? 0, layout.strides ?? rowMajor(shape));
  }

  /**
   * The same memory as kernels see it: a complex array as an array of its parts, with a last
   * axis of 2 (complex64 of shape (n) is float32 of shape (n, 2)); a real array is itself.
   */
  partsView(): DeviceArray {
    return isComplex(this.dtype)
      ? new DeviceArray(this.device, this.buffer, complexPart(this.dtype), [...this.shape, 2])
      : this;
  }

  /** Its elements copied to the host (a complex dtype's parts interleaved: two numbers per element). */
  async toHost(): Promise<HostArray> {
    const Ctor = hostArrayConstructor(this.dtype);
    const out = new Ctor(this.size * hostLanes(this.dtype));
    if (out.byteLength > 0) await this.device.read(this.buffer, out);
    return out;
  }

  /**
   * Gives the array's buffer back to its device (`Device.release`); the array must not be
   * used afterwards. Arrays made by `reshape` or `partsView` share the buffer: release one of them, once.
   */
  release(): void {
    this.device.release(this.buffer);
  }
}

/** Row-major strides (in elements) of `shape`. */
export function rowMajor(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  for (let axis = shape.length - 1, s = 1; axis >= 0; axis--) {
    strides[axis] = s;
    s *= shape[axis];
  }
  return strides;
}

/**
 * A strided view of a DeviceArray's buffer (`DeviceArray.view`). It is no DeviceArray: code
 * that reads a DeviceArray's buffer from its start (every computation, `toHost`) cannot be
 * handed one by mistake. `run` takes it for an argument with `offset: 'auto'` or
 * `stride:auto`, and refuses it for one whose layout it does not match.
 */
export class DeviceArrayView {
  /** Its strides, in elements. */
  readonly strides: readonly number[];
  constructor(
    /** The array whose buffer it views. */
    readonly base: DeviceArray,
    /** Its shape. */
    readonly shape: readonly number[],
    /** Where its element 0 lies in the buffer, in elements. */
    readonly offset: number,
    strides: readonly number[],
  ) {
    const what = `DeviceArray.view(${JSON.stringify(shape)}, offset ${offset}, strides ${JSON.stringify(strides)})`;
    if (!shape.every((d) => Number.isInteger(d) && d >= 0))
      throw new LoomError(`${what}: extents are whole numbers, at least 0`);
    if (strides.length !== shape.length) throw new LoomError(`${what}: one stride per axis`);
    if (!strides.every((d) => Number.isInteger(d) && d >= 0))
      throw new LoomError(`${what}: strides are whole numbers of elements, at least 0`);
    if (!Number.isInteger(offset) || offset < 0)
      throw new LoomError(`${what}: the offset is a whole number of elements, at least 0`);
    const held = Math.floor(base.buffer.byteLength / byteSize(base.dtype));
    const last = shape.some((d) => d === 0)
      ? offset - 1
      : shape.reduce((acc, d, axis) => acc + (d - 1) * strides[axis], offset);
    if (last >= held)
      throw new LoomError(`${what} reaches element ${last}, but the buffer holds ${held} ${base.dtype} elements`);
    this.strides = Object.freeze([...strides]);
    Object.freeze(this);
  }

  /** Its element dtype (the base array's). */
  get dtype(): DType {
    return this.base.dtype;
  }

  /** Its elements, gathered row-major to the host (a complex dtype's parts interleaved). */
  async toHost(): Promise<HostArray> {
    const lanes = hostLanes(this.dtype);
    const Ctor = hostArrayConstructor(this.dtype);
    const whole = new Ctor(Math.floor(this.base.buffer.byteLength / byteSize(this.dtype)) * lanes);
    if (whole.byteLength > 0) await this.base.device.read(this.base.buffer, whole);
    const size = this.shape.reduce((a, b) => a * b, 1);
    const out = new Ctor(size * lanes);
    for (let k = 0; k < size; k++) {
      let at = this.offset;
      for (let axis = this.shape.length - 1, rest = k; axis >= 0; axis--) {
        at += (rest % this.shape[axis]) * this.strides[axis];
        rest = Math.floor(rest / this.shape[axis]);
      }
      for (let lane = 0; lane < lanes; lane++)
        (out as Float64Array)[k * lanes + lane] = (whole as Float64Array)[at * lanes + lane];
    }
    return out;
  }
}
