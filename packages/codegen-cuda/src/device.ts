/**
 * `cudaDevice()`: runs Loom kernels on an NVIDIA GPU: CUDA C from `cudaTarget()`, compiled by
 * NVRTC for the device's own architecture, run through the CUDA driver API, both called with
 * koffi (the runtime in `runtime/`).
 */
import {
  checkBufferSize,
  checkOptionKeys,
  checkProgramLimits,
  targetFacts,
  COMMON_LIMITS,
  isImmutableArguments,
  LoomError,
  optionKeys,
  perObject,
  roundToBfloat16,
  roundToFloat16,
  type BufferPoolStats,
  type Device,
  type DeviceBuffer,
  type DType,
  type DeviceKernel,
  type DeviceLimits,
  GPU_WARM_UP_SECONDS,
  type GeneratedCode,
  type LaunchArgument,
} from '@loom/core';
import type { CudaKernelArgument } from './runtime/arguments.ts';
import type { CudaBuffer } from './runtime/buffer.ts';
import { CudaContext, type CudaContextOptions } from './runtime/context.ts';
import type { CudaDeviceInfo } from './runtime/info.ts';
import type { CudaModule } from './runtime/module.ts';
import { dynamicSharedBytes } from './shared-memory.ts';
import { cudaTarget, type CudaExtra } from './target.ts';
import type { TensorMapSpec } from '@loom/codegen-cfamily';

/** The options cudaDevice reads; any other key is an error. */
const CUDA_DEVICE_OPTIONS = optionKeys<CudaContextOptions>()(['bufferPoolBytes', 'cacheSize', 'device']);

/** A Loom device on an NVIDIA GPU, through NVRTC and the CUDA driver API. */
export interface CudaDevice extends Device<CudaExtra, CudaModule> {
  /** The CUDA context it runs on: its device info, modules and buffers. */
  readonly context: CudaContext;
  /**
   * The launch `launch` would make, as a function that queues it on the context without waiting
   * (the arguments translated and the dynamic shared memory reckoned once): what a benchmark
   * queues between two events, `context.timeQueued(() => queue())`.
   */
  queuedLaunch(
    compiled: CudaModule,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): () => void;
}

/**
 * A CUDA device, or `undefined` when there is no NVIDIA driver (`libcuda.so.1`), no NVRTC, no
 * CUDA-capable device, or no `koffi` package (`cudaUnavailableReason()` says which; whether that
 * fails a test run is the tests' policy). Asking never throws for what is missing, so
 * `cudaDevice() ?? cpuDevice()` always gives a device.
 */
export function cudaDevice(options: CudaContextOptions = {}): CudaDevice | undefined {
  checkOptionKeys('cudaDevice', options, CUDA_DEVICE_OPTIONS);
  const context = CudaContext.open(options);
  return context ? new NvidiaDevice(context) : undefined;
}

/** Why `cudaDevice()` returned undefined, in one line. */
export function cudaUnavailableReason(): string {
  return CudaContext.unavailableReason() ?? 'unknown reason';
}

class NvidiaDevice implements CudaDevice {
  readonly target = cudaTarget();
  readonly name: string;
  readonly limits: DeviceLimits;
  /** How long its clocks take to rise under load from idle (2.8 s on the H200). */
  readonly warmUpSeconds = GPU_WARM_UP_SECONDS;

  constructor(readonly context: CudaContext) {
    this.name = `CUDA: ${context.info.name} (${context.info.architecture})`;
    this.limits = cudaLimits(context.info);
  }

  async compile(
    code: GeneratedCode<CudaExtra>,
    options: { buildOptions?: readonly string[] } = {},
  ): Promise<CudaModule> {
    if (code.target !== this.target.name) throw new LoomError(`a CUDA device cannot run ${code.target} code`);
    // before NVRTC sees it: the same refusals, in the same words, as on every device
    checkProgramLimits(code.program, this.limits, this.name, targetFacts(this.target).heldInFloat);
    const module = this.context.buildModule(code.code, [
      ...architectureSpecific(code.extra, this.context.info, this.context.compileOptions()),
      ...(options.buildOptions ?? []),
    ]);
    this.#carvedSharedBytes.set(module, code.extra.carvedSharedBytes);
    this.#tensorMaps.set(module, code.extra.tensorMaps ?? {});
    this.#sharedAlignment.set(module, code.extra.sharedAlignment ?? {});
    this.#launchedBlocks.set(module, code.extra.launchedBlocks ?? {});
    return module;
  }

  /** Each module's kernels' tensor maps (`CudaExtra.tensorMaps`), by entry point. */
  readonly #tensorMaps = new WeakMap<CudaModule, CudaExtra['tensorMaps']>();

  /** Each module's kernels' blocks where larger than their local sizes (`CudaExtra.launchedBlocks`: a producer's row). */
  readonly #launchedBlocks = new WeakMap<CudaModule, CudaExtra['launchedBlocks']>();
  /** Each module's kernels' alignment of their dynamic shared memory arrays (`CudaExtra.sharedAlignment`). */
  readonly #sharedAlignment = new WeakMap<CudaModule, CudaExtra['sharedAlignment']>();

  /** Each module's kernels' local arrays carved out of the dynamic shared memory (`CudaExtra`), by entry point. */
  readonly #carvedSharedBytes = new WeakMap<CudaModule, Readonly<Record<string, number>>>();

  allocate(byteLength: number): DeviceBuffer {
    checkBufferSize(byteLength, this.limits, this.name);
    return this.context.createBuffer(byteLength);
  }

  async write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void> {
    this.context.write(buffer as CudaBuffer, data);
  }

  async read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void> {
    this.context.read(buffer as CudaBuffer, into);
  }

  /** The driver knows the kernel by its `extern "C"` name, the target's entry point. */
  async launch(
    compiled: CudaModule,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<void> {
    this.queuedLaunch(compiled, kernel, args, groupCount, localSize)();
  }

  queuedLaunch(
    compiled: CudaModule,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): () => void {
    // a kernel without local axes still runs blocks of one thread, along as many axes as its grid
    // with a producer's row (bulk copies a work-item of its own makes), the block the code was printed for
    const launched = this.#launchedBlocks.get(compiled)?.[kernel.entryPoint];
    const block = groupCount.map((_, axis) => launched?.[axis] ?? localSize[axis] ?? 1);
    // local arrays sized at launch are no parameters: the launch's dynamic shared memory holds them,
    // after the arrays of constant size carved out of it (those of a kernel above 48 KiB)
    const carved = this.#carvedSharedBytes.get(compiled)?.[kernel.entryPoint] ?? 0;
    const alignment = this.#sharedAlignment.get(compiled)?.[kernel.entryPoint];
    const shared =
      carved +
      dynamicSharedBytes(
        args.flatMap((a) => (a.kind === 'local' ? [a.byteLength] : [])),
        alignment,
      );
    const maps = this.#tensorMaps.get(compiled)?.[kernel.entryPoint] ?? [];
    const translated = maps.length ? withTensorMaps(this.context, kernel, args, maps) : kernelArguments(args);
    return () => this.context.launch(compiled, kernel.entryPoint, translated, groupCount, block, shared);
  }

  release(buffer: DeviceBuffer): void {
    (buffer as CudaBuffer).release();
  }

  cacheStats(): Readonly<Record<string, number>> {
    return { modules: this.context.cacheStats().modules };
  }

  poolStats(): BufferPoolStats {
    return this.context.poolStats();
  }

  /** Unloads every module, frees every buffer, then releases the device's primary context. */
  dispose(): void {
    this.context.dispose();
  }
}

/**
 * The runtime's arguments for Loom's. `run` and `prepareLaunch` pass the same frozen array for
 * repeated launches, so the translation (frozen too: its scalars' bytes are then encoded once)
 * is kept per such array; an array that may change is translated at every launch.
 */
function kernelArguments(args: readonly LaunchArgument[]): readonly CudaKernelArgument[] {
  return translated(args) ?? translate(args);
}

const translate = (args: readonly LaunchArgument[]): readonly CudaKernelArgument[] =>
  Object.freeze(
    // the local arrays sized at launch are no parameters: the dynamic shared memory holds them
    args.flatMap((a): CudaKernelArgument[] => {
      if (a.kind === 'local') return [];
      return [
        Object.freeze(
          a.kind === 'buffer' ? { kind: 'buffer', buffer: a.buffer as CudaBuffer } : scalarArgument(a.dtype, a.value),
        ),
      ];
    }),
  );
/**
 * The arguments of a kernel with bulk copies: its own, then each tensor map, encoded from the
 * buffer of the array it views (kept with a frozen argument list, as its translation is).
 */
function withTensorMaps(
  context: CudaContext,
  kernel: DeviceKernel,
  args: readonly LaunchArgument[],
  maps: readonly TensorMapSpec[],
): readonly CudaKernelArgument[] {
  const kept = Object.isFrozen(args) ? encodedMaps(args).get(kernel.entryPoint) : undefined;
  if (kept) return kept;
  const encoded = maps.map((m): CudaKernelArgument => {
    const array = args[m.param];
    const use = `kernel '${kernel.name}': the bulk copies from '${kernel.parameters[m.param]?.name ?? m.param}'`;
    if (array?.kind !== 'buffer') throw new LoomError(`${use}: expected a buffer argument there`);
    return { kind: 'bytes', bytes: context.encodeTensorMap(array.buffer as CudaBuffer, m, use) };
  });
  const all = Object.freeze([...kernelArguments(args), ...encoded]);
  if (isImmutableArguments(args)) encodedMaps(args).set(kernel.entryPoint, all);
  return all;
}

/** A frozen argument list's arguments with tensor maps, by entry point. */
const encodedMaps = perObject((_args: readonly LaunchArgument[]) => new Map<string, readonly CudaKernelArgument[]>());

/**
 * A value argument as the kernel's parameter takes it: a float16 or bfloat16 is computed in float
 * (half-storage.ts, bfloat16-storage.ts), so its parameter is the float of its value.
 */
function scalarArgument(dtype: DType, value: number | bigint): CudaKernelArgument {
  if (dtype === 'float16') return { kind: 'scalar', dtype: 'float32', value: roundToFloat16(Number(value)) };
  if (dtype === 'bfloat16') return { kind: 'scalar', dtype: 'float32', value: roundToBfloat16(Number(value)) };
  return { kind: 'scalar', dtype, value };
}

/** The translation of a frozen argument list, kept with it; undefined for one that may change. */
const translated = perObject((args: readonly LaunchArgument[]) =>
  isImmutableArguments(args) ? translate(args) : undefined,
);

/**
 * What the device reports; private memory, which CUDA does not bound per thread below its
 * 512 KiB of local memory, takes the common 8 KiB (`COMMON_LIMITS`), as on every device, so
 * a kernel that runs here runs elsewhere. Shared memory is what a block may use once its kernel
 * opts in (227 KiB on an H100): a kernel whose local arrays take more than the static 48 KiB has
 * them carved out of the dynamic shared memory (shared-memory.ts), and the launch opts it in.
 */
function cudaLimits(info: CudaDeviceInfo): DeviceLimits {
  return Object.freeze({
    maxWorkGroupSize: info.maxThreadsPerBlock,
    maxWorkGroupSizes: Object.freeze([...info.maxBlockSizes]) as unknown as readonly [number, number, number],
    maxLocalMemoryBytes: info.sharedMemoryPerBlockOptin,
    maxPrivateMemoryBytes: COMMON_LIMITS.maxPrivateMemoryBytes,
    maxBufferBytes: info.totalMemory,
    computeUnits: info.multiprocessors,
  });
}

/**
 * The architecture a program that uses instructions of one architecture only (Hopper's `wgmma`:
 * `CudaExtra.hopperOnly`) is compiled for, `sm_90a`, or nothing where it uses none; a LoomError on
 * any other GPU, or where NVRTC does not compile for sm_90, before anything runs.
 */
function architectureSpecific(extra: CudaExtra, info: CudaDeviceInfo, options: readonly string[]): string[] {
  const [major, minor] = info.computeCapability;
  if (Object.values(extra.tensorMaps ?? {}).some((maps) => maps.length > 0) && major < 9)
    throw new LoomError(
      `the program's bulk copies are requests of the tensor memory accelerator, which GPUs of compute capability 9.0 and later have; ${info.name} is ${major}.${minor} (fill the tiles with asyncCopies there)`,
    );
  if (!extra.hopperOnly) return [];
  if (major !== 9 || minor !== 0)
    throw new LoomError(
      `the program's tensor tiles are Hopper's warpgroup instructions (wgmma, 64-row tiles of 128 work-items), which only GPUs of compute capability 9.0 have; ${info.name} is ${major}.${minor} (use WMMA's 16x16x16 tiles of 32 lanes there)`,
    );
  if (!options.includes('--gpu-architecture=sm_90'))
    throw new LoomError(
      `the program's tensor tiles are Hopper's warpgroup instructions (wgmma), which NVRTC compiles for sm_90a only; this NVRTC compiles for ${options.find((o) => o.startsWith('--gpu-architecture=')) ?? 'no known architecture'}`,
    );
  return ['--gpu-architecture=sm_90a'];
}
