/**
 * `openclDevice()`: runs Loom kernels through any OpenCL driver (PoCL on CPUs,
 * NVIDIA's on the GPU machine), built on the koffi runtime in `runtime/`.
 */
import {
  checkBufferSize,
  checkProgramLimits,
  targetFacts,
  COMMON_LIMITS,
  imageExtents,
  isImmutableArguments,
  LoomError,
  unreachable,
  perObject,
  roundToBfloat16,
  roundToFloat16,
  type BufferPoolStats,
  type Device,
  type DeviceBuffer,
  type DeviceKernel,
  type DeviceLimits,
  GPU_WARM_UP_SECONDS,
  type GeneratedCode,
  type LaunchArgument,
  checkOptionKeys,
  optionKeys,
} from '@loom/core';
import { OpenCLContext, type OpenCLContextOptions } from './runtime/context.ts';
import type { OpenCLBuffer } from './runtime/buffer.ts';
import type { KernelArgument } from './runtime/arguments.ts';
import type { OpenCLProgram } from './runtime/program.ts';
import { openclTarget, type OpenCLExtra } from './target.ts';
import { isPocl, needsUnoptimisedPoclBuild } from './pocl-barrier-guard.ts';

/** The options openclDevice reads; any other key is an error. */
const OPENCL_DEVICE_OPTIONS = optionKeys<OpenCLContextOptions>()([
  'bufferPoolBytes',
  'cacheSize',
  'device',
  'platform',
  'type',
]);

export interface OpenCLDevice extends Device<OpenCLExtra, OpenCLProgram> {
  /** The OpenCL context it runs on: its device info, programs and buffers. */
  readonly context: OpenCLContext;
}

/**
 * An OpenCL device, or `undefined` when no OpenCL driver or device is present
 * (`openclUnavailableReason()` says why; whether that fails a test run is the tests' policy).
 * Without the `koffi` package installed it is `undefined` too, and the reason says `npm install koffi`:
 * asking for a device never throws for a missing driver, so `openclDevice() ?? cpuDevice()` always
 * gives a device (`anyDevice()` in `@loom/dsl` tries every installed one).
 */
export function openclDevice(options: OpenCLContextOptions = {}): OpenCLDevice | undefined {
  checkOptionKeys('openclDevice', options, OPENCL_DEVICE_OPTIONS);
  const context = OpenCLContext.open(options);
  if (!context) return undefined;
  return new ClDevice(context);
}

/** Why `openclDevice()` returned undefined. */
export function openclUnavailableReason(): string {
  return OpenCLContext.unavailableReason() ?? 'unknown reason';
}

class ClDevice implements OpenCLDevice {
  readonly target: ReturnType<typeof openclTarget>;
  readonly name: string;
  readonly limits: DeviceLimits;
  readonly warmUpSeconds: number | undefined;

  constructor(readonly context: OpenCLContext) {
    this.name = `OpenCL: ${context.info.deviceName} (${context.info.platformName})`;
    this.limits = openclLimits(context.info);
    this.warmUpSeconds = context.info.type === 'gpu' ? GPU_WARM_UP_SECONDS : undefined;
    // without cl_khr_fp16, float16 is stored as half and computed in float (half-storage.ts)
    const { extensions, platformName } = context.info;
    this.target = openclTarget({
      float16: context.info.supportsFloat16 ? 'native' : 'storage',
      // NVIDIA's OpenCL has no cl_khr_subgroups, but its compiler takes the warp's PTX shuffles
      subgroups: extensions.includes('cl_khr_subgroups') ? 'khr' : /nvidia/i.test(platformName) ? 'nvidia-ptx' : 'none',
      // where the compiler takes a cap on registers (NVIDIA's): minGroupsPerComputeUnit is honoured
      ...(context.info.registersPerComputeUnit
        ? { registersPerComputeUnit: context.info.registersPerComputeUnit }
        : {}),
    });
  }

  async compile(
    code: GeneratedCode<OpenCLExtra>,
    options: { buildOptions?: readonly string[] } = {},
  ): Promise<OpenCLProgram> {
    if (code.target !== 'opencl') throw new LoomError(`an OpenCL device cannot run ${code.target} code`);
    // before the driver sees it: PoCL crashes the process on a huge private array
    checkProgramLimits(code.program, this.limits, this.name, targetFacts(this.target).heldInFloat);
    const workaround = isPocl(this.context.info) && needsUnoptimisedPoclBuild(code.program) ? ['-cl-opt-disable'] : [];
    const program = this.context.buildProgram(code.code, [
      ...this.semanticsOptions(),
      ...workaround,
      ...(options.buildOptions ?? []),
      // what the program asks for (a cap on registers: minGroupsPerComputeUnit)
      ...(code.extra?.buildOptions ?? []),
      ...environmentOptions(),
    ]);
    // the driver's own account of the build (with NVIDIA's -cl-nv-verbose: each kernel's registers)
    if (process.env.LOOM_OPENCL_BUILD_LOG && program.buildLog.trim())
      process.stderr.write(`loom: OpenCL build log (${this.name}):\n${program.buildLog.trim()}\n`);
    return program;
  }

  /**
   * Build options Loom's arithmetic needs: float32 `/` and `sqrt` correctly rounded, as on
   * the CPU and in PyTorch (OpenCL's default allows 2.5 ulp, which NVIDIA's driver takes).
   */
  private semanticsOptions(): string[] {
    return this.context.info.correctlyRoundedDivideSqrt ? ['-cl-fp32-correctly-rounded-divide-sqrt'] : [];
  }

  allocate(byteLength: number): DeviceBuffer {
    checkBufferSize(byteLength, this.limits, this.name);
    return this.context.createBuffer(byteLength);
  }

  async write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void> {
    this.context.write(buffer as OpenCLBuffer, data);
  }

  async read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void> {
    this.context.read(buffer as OpenCLBuffer, into);
  }

  /** The driver knows the kernel by its OpenCL spelling (a kernel called `kernel` is `kernel_`). */
  async launch(
    compiled: OpenCLProgram,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<void> {
    // plain loops: a launch is on the hot path of every `run`
    const global: number[] = [];
    const local: number[] = [];
    for (let axis = 0; axis < groupCount.length; axis++) {
      const size = localSize[axis] ?? 1;
      global.push(groupCount[axis] * size);
      local.push(size);
    }
    const translated = kernelArguments(args, !this.context.info.supportsFloat16);
    this.context.launch(
      compiled,
      kernel.entryPoint,
      hasImages(kernel) ? this.withImages(kernel, args, translated) : translated,
      global,
      local,
    );
  }

  /** The arguments with each image parameter's buffer marked to become an image of its extents (runtime/images.ts). */
  private withImages(
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    translated: readonly KernelArgument[],
  ): KernelArgument[] {
    return translated.map((a, k) => {
      const parameter = kernel.parameters[k];
      if (!parameter.image || a.kind !== 'buffer') return a;
      const extents = imageExtents(kernel, args, k, this.limits, this.name);
      return { kind: 'image', buffer: a.buffer, dtype: parameter.dtype, extents };
    });
  }

  release(buffer: DeviceBuffer): void {
    (buffer as OpenCLBuffer).release();
  }

  cacheStats(): Readonly<Record<string, number>> {
    return { programs: this.context.cacheStats().programs };
  }

  poolStats(): BufferPoolStats {
    return this.context.poolStats();
  }

  /** Releases every program, kernel and buffer, then the queue and the context (clRelease*). */
  dispose(): void {
    this.context.dispose();
  }
}

/**
 * The runtime's arguments for Loom's. `run` and `prepareLaunch` pass the same frozen array
 * for repeated launches with the same buffers and values, so the translation is kept per
 * such array (by identity: a frozen array of frozen arguments cannot change). Whether an
 * array is frozen is asked once, when first seen: what is frozen stays frozen, and an array
 * that was not is translated anew at every launch, frozen since or not.
 *
 * `halfAsFloat`: the device lacks cl_khr_fp16, and a float16 value is a float in its code (half-storage.ts).
 */
function kernelArguments(args: readonly LaunchArgument[], halfAsFloat: boolean): KernelArgument[] {
  return halfAsFloat
    ? (translatedHalfAsFloat(args) ?? translateHalfAsFloat(args))
    : (translated(args) ?? translate(args));
}

const translate = (args: readonly LaunchArgument[]): KernelArgument[] =>
  args.map((a): KernelArgument => {
    switch (a.kind) {
      case 'buffer':
        return { kind: 'buffer', buffer: a.buffer as OpenCLBuffer };
      case 'value':
        // a bfloat16 is a float in the kernel's code (bfloat16-storage.ts)
        return a.dtype === 'bfloat16'
          ? { kind: 'scalar', dtype: 'float32', value: roundToBfloat16(Number(a.value)) }
          : { kind: 'scalar', dtype: a.dtype, value: a.value };
      case 'local':
        // a __local array sized at launch: clSetKernelArg with its bytes and no value
        return { kind: 'local', byteLength: a.byteLength };
      default:
        return unreachable(a, 'launch argument');
    }
  });
const translateHalfAsFloat = (args: readonly LaunchArgument[]): KernelArgument[] =>
  translate(args).map((a) =>
    a.kind === 'scalar' && a.dtype === 'float16'
      ? { kind: 'scalar', dtype: 'float32', value: roundToFloat16(Number(a.value)) }
      : a,
  );
/** The translation of a frozen argument list, kept with it; undefined for one that may change. */
const translated = perObject((args: readonly LaunchArgument[]) =>
  isImmutableArguments(args) ? translate(args) : undefined,
);
const translatedHalfAsFloat = perObject((args: readonly LaunchArgument[]) =>
  isImmutableArguments(args) ? translateHalfAsFloat(args) : undefined,
);

/**
 * What the device reports, and for private memory, which OpenCL does not report, the common
 * 8 KiB (`COMMON_LIMITS`): beyond it GPUs spill or refuse and PoCL crashes.
 */
function openclLimits(info: OpenCLContext['info']): DeviceLimits {
  const sizes = [0, 1, 2].map((axis) => info.maxWorkItemSizes[axis] ?? 1);
  return Object.freeze({
    maxWorkGroupSize: info.maxWorkGroupSize,
    maxWorkGroupSizes: [sizes[0], sizes[1], sizes[2]] as const,
    maxLocalMemoryBytes: info.localMemSize,
    maxPrivateMemoryBytes: COMMON_LIMITS.maxPrivateMemoryBytes,
    maxBufferBytes: info.maxMemAllocSize,
    computeUnits: info.computeUnits,
    ...(info.images ? { maxImageSizes: info.images } : {}),
  });
}

/** Whether a device kernel reads image parameters (remembered per kernel: a launch is on the hot path). */
const hasImages = perObject((kernel: DeviceKernel) => kernel.parameters.some((p) => p.image !== undefined));

/**
 * Build options the environment adds to every program (`LOOM_OPENCL_OPTIONS`, separated by spaces):
 * a driver's own flags, to look into a build or try one without changing code, as `LOOM_CC` does
 * for the C device (`LOOM_OPENCL_OPTIONS='-cl-nv-verbose' LOOM_OPENCL_BUILD_LOG=1` prints each
 * kernel's registers on NVIDIA's OpenCL).
 */
function environmentOptions(): string[] {
  return (process.env.LOOM_OPENCL_OPTIONS ?? '').split(/\s+/).filter(Boolean);
}
