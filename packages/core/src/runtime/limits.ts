/**
 * What a device can run, checked before anything reaches a driver. A kernel past a limit
 * used to meet each backend's own reaction: PoCL crashed the process on a 400 MB private
 * array, WebGPU blamed "a bug in Loom's WGSL target", the CPU device ran a 100,000-wide
 * work-group that every GPU refuses. Now every device states its `DeviceLimits`, and
 * these checks refuse the same kernels everywhere with a LoomError naming the limit, the
 * value, the kernel and what to do.
 *
 *   checkProgramLimits   work-group size (in all, per axis), local and private memory:
 *                        fixed by the code, checked when a device compiles it
 *   checkGridLimits      work-items per axis: every index is a 32-bit integer in the
 *                        generated code, so a grid of 2^31 work-items along an axis would
 *                        overflow; and a work-group size known only at launch (`l.0` over
 *                        `0 <= i < n`) against the device's: checked when a launch is planned
 *   checkBufferSize      one buffer's bytes, checked when a device allocates
 *
 * The CPU device has no hardware limits of its own; it takes `COMMON_LIMITS`, those of a
 * typical GPU, so a kernel that runs there runs on the GPUs too.
 */
import { byteSize, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { KernelFunction, ProgramAst } from '../codegen/ast.ts';
import { statementsOfKind } from '../codegen/stmt-visit.ts';
import { constantLocalSize, printLocalSize } from '../codegen/local-size.ts';
import { printExpr } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';

/** What a device allows: work-group sizes, local and private memory, buffer sizes (checked before code runs). */
export interface DeviceLimits {
  /** Work-items in one work-group (OpenCL's CL_DEVICE_MAX_WORK_GROUP_SIZE, WebGPU's maxComputeInvocationsPerWorkgroup). */
  readonly maxWorkGroupSize: number;
  /** Work-items along each axis of a work-group: x, y, z. */
  readonly maxWorkGroupSizes: readonly [number, number, number];
  /** Bytes of local (OpenCL `__local`, WGSL `var<workgroup>`) memory one work-group may use. */
  readonly maxLocalMemoryBytes: number;
  /** Bytes of private temporaries one work-item may declare. */
  readonly maxPrivateMemoryBytes: number;
  /** Bytes in one buffer. */
  readonly maxBufferBytes: number;
  /**
   * The compute units that run work-groups side by side (OpenCL's CL_DEVICE_MAX_COMPUTE_UNITS,
   * CUDA's multiprocessors); absent where the API does not say (WebGPU). The auto-scheduler's cost
   * model reads it: a launch of fewer work-groups than units leaves the rest idle.
   */
  readonly computeUnits?: number;
  /**
   * The largest image the device makes, per axis as its API counts them (width, the fastest
   * index, first): 2D (OpenCL's CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT, WebGPU's
   * maxTextureDimension2D) and 3D. Absent: the device has no images (a target that reads images
   * as arrays needs none).
   */
  readonly maxImageSizes?: {
    readonly 2: readonly [number, number];
    readonly 3: readonly [number, number, number];
  };
}

/**
 * The limits of a typical GPU, which the CPU device takes: NVIDIA's and WebGPU's work-group
 * sizes (1024 in all, 1024 x 1024 x 64), WebGPU adapters' common workgroup storage (32 KiB,
 * below NVIDIA's 48 KiB), 8 KiB of private memory per work-item (no API reports it: NVIDIA's
 * Vulkan driver refuses a 16 KiB private array, other GPUs spill to slow memory, PoCL
 * crashes on huge ones), and 2 GiB buffers (the
 * largest allocation common OpenCL devices grant).
 */
export const COMMON_LIMITS: DeviceLimits = Object.freeze({
  maxWorkGroupSize: 1024,
  maxWorkGroupSizes: Object.freeze([1024, 1024, 64]) as unknown as readonly [number, number, number],
  maxLocalMemoryBytes: 32 * 1024,
  maxPrivateMemoryBytes: 8 * 1024,
  maxBufferBytes: 2 ** 31,
});

/** The largest index the generated code can hold: indices are 32-bit signed integers (`INDEX_DTYPE`). */
export const MAX_INDEX = 2 ** 31 - 1;

const AXES = ['x', 'y', 'z'];

/**
 * Refuses a program whose work-groups or temporaries do not fit the device: call before compiling
 * it. `heldInFloat`: the 16-bit floats its target's temporaries hold as float32 (`targetFacts`'),
 * 4 bytes an element.
 */
export function checkProgramLimits(
  program: ProgramAst,
  limits: DeviceLimits,
  device: string,
  heldInFloat: ReadonlySet<DType> = NONE,
): void {
  for (const kernel of program.kernels) checkKernelLimits(kernel, limits, device, heldInFloat);
}

const NONE: ReadonlySet<DType> = new Set();

function checkKernelLimits(
  kernel: KernelFunction,
  limits: DeviceLimits,
  device: string,
  heldInFloat: ReadonlySet<DType>,
): void {
  const where = `kernel '${kernel.name}'`;
  if (kernel.localSize.length > 3)
    throw new LoomError(
      `${where}: work-groups have at most 3 axes, not ${kernel.localSize.length} (tag fewer inames 'l.N')`,
    );
  // a size known only at launch is checked there (checkGridLimits)
  const size = constantLocalSize(kernel.localSize);
  if (size) checkWorkGroupSize(kernel, size, limits, device);
  checkMemory(kernel, declaredMemory(kernel, heldInFloat), limits, device);
}

/** Refuses private or local temporaries past the device's memory (`atLaunch`: sizes evaluated for one launch). */
function checkMemory(
  kernel: KernelFunction,
  memory: DeclaredMemory,
  limits: DeviceLimits,
  device: string,
  atLaunch = '',
): void {
  const where = `kernel '${kernel.name}'`;
  const on = `on ${device}`;
  if (memory.private > limits.maxPrivateMemoryBytes) {
    throw new LoomError(
      `${where}: its private temporaries (${memory.privateNames.join(', ')}) take ${memory.private} bytes per work-item${atLaunch}, ` +
        `more than the ${limits.maxPrivateMemoryBytes} bytes of private memory allowed ${on}; ` +
        "make them smaller, or give them a global address space (setTemporaryAddressSpace(knl, name, 'global'))",
    );
  }
  if (memory.local > limits.maxLocalMemoryBytes) {
    throw new LoomError(
      `${where}: its local temporaries (${memory.localNames.join(', ')}) take ${memory.local} bytes per work-group${atLaunch}, ` +
        `more than the ${limits.maxLocalMemoryBytes} bytes of local memory ${on}; use smaller tiles (split factors, prefetch footprints)`,
    );
  }
}

/**
 * Refuses a work-group of `size` work-items (the code's constant sizes, or those a launch
 * evaluated) past the device's limits; a parametric axis shows its expression and value.
 */
function checkWorkGroupSize(
  kernel: KernelFunction,
  size: readonly number[],
  limits: DeviceLimits,
  device: string,
): void {
  const where = `kernel '${kernel.name}'`;
  const on = `on ${device}`;
  const atLaunch = (axis: number) => {
    const e = kernel.localSize[axis];
    return e.kind === 'int' ? '' : ` (${printExpr(e)} at this launch)`;
  };
  size.forEach((n, axis) => {
    if (n > limits.maxWorkGroupSizes[axis]) {
      throw new LoomError(
        `${where}: its work-group has ${n} work-items along axis ${axis} (${AXES[axis]})${atLaunch(axis)}, more than the ${limits.maxWorkGroupSizes[axis]} allowed ${on}; ` +
          `split the iname tagged 'l.${axis}' (splitIname) and tag the outer part 'g.${axis}'`,
      );
    }
  });
  const total = size.reduce((a, b) => a * b, 1);
  if (total > limits.maxWorkGroupSize) {
    const parametric = constantLocalSize(kernel.localSize)
      ? ''
      : ` (${printLocalSize(kernel.localSize)} at this launch)`;
    throw new LoomError(
      `${where}: its work-group of ${size.join(' x ')} = ${total} work-items${parametric} exceeds the maximum work-group size ${on} (${limits.maxWorkGroupSize}); ` +
        "split an iname tagged 'l.N' (splitIname) and tag the outer part 'g.N'",
    );
  }
}

interface DeclaredMemory {
  readonly private: number;
  readonly local: number;
  readonly privateNames: readonly string[];
  readonly localNames: readonly string[];
}

/**
 * The bytes of private and local temporaries a kernel declares, and their names (with each
 * size known only at launch, as `lengthOf` evaluates it). Without `lengthOf` those count
 * nothing: they are checked at each launch (checkGridLimits).
 */
function declaredMemory(
  kernel: KernelFunction,
  heldInFloat: ReadonlySet<DType>,
  lengthOf?: (length: Expr) => number,
): DeclaredMemory {
  const out = { private: 0, local: 0, privateNames: [] as string[], localNames: [] as string[] };
  // local arrays passed as arguments (OpenCL's __local T *) count as declared ones
  const passed = (kernel.localArguments ?? []).map((l) => ({ ...l, addressSpace: 'local' as const }));
  for (const s of [...statementsOfKind(kernel.body, 'declare'), ...passed]) {
    const length = s.length ?? 1;
    const elements = typeof length === 'number' ? length : (lengthOf?.(length) ?? 0);
    const name =
      typeof length === 'number' ? `'${s.name}'` : `'${s.name}' (${printExpr(length)} = ${elements} elements)`;
    // a tensor tile's accumulator is spread over the registers of a subgroup's lanes
    const share = 'matrix' in s && s.matrix ? s.matrix.lanes : 1;
    // a 16-bit float computed in float is held as one, but in a tile matrix instructions load
    const inFloat = heldInFloat.has(s.dtype) && !('matrixOperand' in s && s.matrixOperand);
    const bytes = (elements * (inFloat ? 4 : byteSize(s.dtype))) / share;
    if (s.addressSpace === 'private') {
      out.private += bytes;
      out.privateNames.push(name);
    } else if (s.addressSpace === 'local') {
      out.local += bytes;
      out.localNames.push(name);
    }
  }
  return out;
}

/**
 * Refuses a launch whose global index along an axis (group id x work-group size + local id)
 * would not fit the generated code's 32-bit indices, or whose work-group size, known only at
 * launch, exceeds the device's. Allocates nothing: it runs per launch.
 */
export function checkGridLimits(
  kernel: KernelFunction,
  groupCount: readonly number[],
  localSize: readonly number[],
  limits: DeviceLimits,
  device: string,
  lengthOf: (length: Expr) => number,
  heldInFloat: ReadonlySet<DType> = NONE,
): void {
  if (!constantLocalSize(kernel.localSize)) checkWorkGroupSize(kernel, localSize, limits, device);
  // temporaries sized at launch (a prefetch of a[:, :] over 0 <= i, j < n) with the sizes of this one
  const parametric =
    kernel.localArguments?.length ||
    statementsOfKind(kernel.body, 'declare').some((d) => d.length !== undefined && typeof d.length !== 'number');
  if (parametric) checkMemory(kernel, declaredMemory(kernel, heldInFloat, lengthOf), limits, device, ' at this launch');
  for (let axis = 0; axis < groupCount.length; axis++) {
    const items = groupCount[axis] * (localSize[axis] ?? 1);
    if (items > MAX_INDEX) {
      throw new LoomError(
        `kernel '${kernel.name}': a grid of ${items} work-items along axis ${axis} does not fit the 32-bit indices of the generated code (at most ${MAX_INDEX}); ` +
          'split the problem into several launches of smaller parameter values',
      );
    }
  }
}

/** Refuses a buffer larger than the device allows. */
export function checkBufferSize(byteLength: number, limits: DeviceLimits, device: string): void {
  if (!Number.isSafeInteger(byteLength) || byteLength < 0)
    throw new LoomError(`cannot allocate ${byteLength} bytes on ${device}: not a whole number of bytes`);
  if (byteLength > limits.maxBufferBytes) {
    throw new LoomError(
      `cannot allocate ${byteLength} bytes on ${device}: one buffer holds at most ${limits.maxBufferBytes} bytes there; split the data into smaller arrays`,
    );
  }
}
