/**
 * The WebGPU limits code generation and launches respect, and what to do at each:
 *
 *   work-group size, invocations, workgroup storage   a LoomError naming the limit and the value
 *   storage buffers per shader stage                  arrays beyond it share buffers (`bindings.ts`)
 *   work-groups per dispatch dimension (65535)        the grid is folded into y and z (`foldGrid`)
 *   storage buffer binding size (128 MiB default)     the device asks the adapter for its maximum;
 *                                                     beyond that, a LoomError naming the limit
 *
 * `loomLimits` states them as Loom's `DeviceLimits`, which every device's compile and launch check.
 *
 * `DEFAULT_LIMITS` are the limits every WebGPU device has, which code generated without a
 * device (`generateCode(knl, wgslTarget())`) is checked against.
 */
import { COMMON_LIMITS, LoomError, type DeviceLimits } from '@loom/core';

/** What the WGSL target holds generated code to: WebGPU's limits (workgroup sizes, storage buffers). */
export interface WgslLimits {
  /** Storage buffers one kernel may bind (its arrays, plus the bounds flag). */
  readonly maxStorageBuffersPerShaderStage: number;
  /** The largest storage buffer binding, in bytes. */
  readonly maxStorageBufferBindingSize: number;
  /** The largest buffer, in bytes. */
  readonly maxBufferSize: number;
  /** Bytes of workgroup (local) memory per work-group. */
  readonly maxComputeWorkgroupStorageSize: number;
  /** The most work-items in a work-group. */
  readonly maxComputeInvocationsPerWorkgroup: number;
  /** The largest work-group size along x. */
  readonly maxComputeWorkgroupSizeX: number;
  /** The largest work-group size along y. */
  readonly maxComputeWorkgroupSizeY: number;
  /** The largest work-group size along z. */
  readonly maxComputeWorkgroupSizeZ: number;
  /** The most work-groups along one axis of a dispatch (more are folded into y and z). */
  readonly maxComputeWorkgroupsPerDimension: number;
  /** The largest 2D texture along each axis (an image argument of 2 axes). */
  readonly maxTextureDimension2D: number;
  /** The largest 3D texture along each axis (an image argument of 3 axes). */
  readonly maxTextureDimension3D: number;
}

/** WebGPU's default limits, what every adapter supports. */
export const DEFAULT_LIMITS: WgslLimits = Object.freeze({
  maxStorageBuffersPerShaderStage: 8,
  maxStorageBufferBindingSize: 134217728,
  maxBufferSize: 268435456,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 256,
  maxComputeWorkgroupSizeZ: 64,
  maxComputeWorkgroupsPerDimension: 65535,
  maxTextureDimension2D: 8192,
  maxTextureDimension3D: 2048,
});

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as (keyof WgslLimits)[];

/**
 * Loom's limits from WebGPU's. Private memory: WGSL arrays hold fewer than 65536 elements
 * (Tint refuses more), so one byte under 64 KiB keeps even an array of bytes within it.
 */
export function loomLimits(limits: WgslLimits): DeviceLimits {
  return Object.freeze({
    maxWorkGroupSize: limits.maxComputeInvocationsPerWorkgroup,
    maxWorkGroupSizes: [
      limits.maxComputeWorkgroupSizeX,
      limits.maxComputeWorkgroupSizeY,
      limits.maxComputeWorkgroupSizeZ,
    ] as const,
    maxLocalMemoryBytes: limits.maxComputeWorkgroupStorageSize,
    maxPrivateMemoryBytes: Math.min(COMMON_LIMITS.maxPrivateMemoryBytes, 65535),
    maxBufferBytes: limits.maxBufferSize,
    maxImageSizes: {
      2: [limits.maxTextureDimension2D, limits.maxTextureDimension2D] as const,
      3: [limits.maxTextureDimension3D, limits.maxTextureDimension3D, limits.maxTextureDimension3D] as const,
    },
  });
}

/** The work-group size must fit the device: per axis and in total. */
export function checkWorkgroupSize(kernel: string, localSize: readonly number[], limits: WgslLimits): void {
  const perAxis = [limits.maxComputeWorkgroupSizeX, limits.maxComputeWorkgroupSizeY, limits.maxComputeWorkgroupSizeZ];
  const names = ['maxComputeWorkgroupSizeX', 'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ'];
  if (localSize.length > 3)
    throw new LoomError(`kernel '${kernel}': WebGPU work-groups have at most 3 axes, not ${localSize.length}`);
  localSize.forEach((size, axis) => {
    if (size > perAxis[axis]) {
      throw new LoomError(
        `kernel '${kernel}': the work-group size ${size} along axis ${axis} exceeds the device's ${names[axis]} (${perAxis[axis]})`,
      );
    }
  });
  const total = localSize.reduce((a, b) => a * b, 1);
  if (total > limits.maxComputeInvocationsPerWorkgroup) {
    throw new LoomError(
      `kernel '${kernel}': a work-group of ${localSize.join(' x ')} = ${total} work-items exceeds the device's maxComputeInvocationsPerWorkgroup (${limits.maxComputeInvocationsPerWorkgroup})`,
    );
  }
}

/** The local (workgroup) temporaries must fit the device's workgroup storage. */
export function checkWorkgroupStorage(kernel: string, bytes: number, what: string, limits: WgslLimits): void {
  if (bytes > limits.maxComputeWorkgroupStorageSize) {
    throw new LoomError(
      `kernel '${kernel}': its local temporaries (${what}) need ${bytes} bytes of workgroup storage, more than the device's maxComputeWorkgroupStorageSize (${limits.maxComputeWorkgroupStorageSize})`,
    );
  }
}

/** How a grid of work-groups is dispatched. */
export interface Dispatch {
  /** The `dispatchWorkgroups` sizes. */
  readonly size: readonly [number, number, number];
  /** Whether the kernel's grid is folded into it (the shader then recovers its group ids). */
  readonly folded: boolean;
}

/**
 * The dispatch for `groups` work-groups per axis. A grid that fits is dispatched as it is;
 * one with more groups along an axis than a dispatch dimension holds is folded: its groups
 * are numbered linearly (axis 0 fastest) and laid out over x, then y, then z, and the
 * shader (`target.ts`) recovers each group's ids from that number and skips the few
 * groups past the end.
 */
export function planDispatch(
  kernel: string,
  groups: readonly number[],
  localSize: readonly number[],
  limits: WgslLimits,
): Dispatch {
  const max = limits.maxComputeWorkgroupsPerDimension;
  const counts = [0, 1, 2].map((axis) => groups[axis] ?? 1);
  counts.forEach((g, axis) => {
    // a global index gid*size + lid is an i32 in the generated code: WGSL has no 64-bit integers
    const items = g * (localSize[axis] ?? 1);
    if (items > 2 ** 31 - 1) {
      throw new LoomError(
        `kernel '${kernel}': ${items} work-items along axis ${axis} do not fit WGSL's 32-bit indices; split the launch`,
      );
    }
  });
  if (counts.every((g) => g <= max)) return { size: [counts[0], counts[1], counts[2]], folded: false };
  const total = counts[0] * counts[1] * counts[2];
  if (total > 2 ** 32 - 1 || total > max ** 3) {
    throw new LoomError(
      `kernel '${kernel}': ${counts.join(' x ')} = ${total} work-groups are more than one dispatch can hold (maxComputeWorkgroupsPerDimension ${max} per axis, and 2^32 in all); split the launch`,
    );
  }
  return { size: foldedSize(total, max), folded: true };
}

/**
 * A dispatch of at least `total` work-groups, at most `max` along each axis, with few to
 * spare: the groups are dealt into rows of equal length (`rows` = ceil(total / max) of them,
 * each ceil(total / rows) long), and the rows over y and z alike. Fewer than x*z + rows
 * groups idle, where filling x to `max` first would idle up to a whole row of `max`
 * (65536 groups: 32768 x 2, not 65535 x 2 with 65534 of them idle).
 */
export function foldedSize(total: number, max: number): [number, number, number] {
  const rows = Math.ceil(total / max);
  const x = Math.ceil(total / rows);
  const z = Math.ceil(rows / max);
  const y = Math.ceil(rows / z);
  return [x, y, z];
}
