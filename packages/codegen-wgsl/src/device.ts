/**
 * `webgpuDevice()`: runs Loom kernels through WebGPU, on Dawn in Node (the `webgpu` package,
 * Vulkan underneath: NVIDIA's driver on the GPU machine, Mesa's lavapipe on CPUs) or on the
 * `navigator.gpu` of a browser, passed in as `webgpuDevice({ gpu: navigator.gpu })`.
 *
 * Buffers hold arrays byte for byte as the host does (narrow dtypes packed, `bindings.ts`),
 * so uploads and downloads are plain copies: `writeBuffer`, and a copy to a mappable staging
 * buffer for reading. Released buffers are pooled and handed out again (`buffers.ts`).
 * Compiled programs are cached by their code (`program.ts`); launches keep what they need
 * between calls (`launches.ts`). A WebGPU call that can fail in a way not checked beforehand
 * runs inside error scopes the first time, so that a validation error or a lost device
 * becomes a LoomError at the call that caused it, not a crash or a hang; anything raised
 * later is reported by the next call on the device.
 */
/// <reference types="@webgpu/types" preserve="true" />
import {
  checkBufferSize,
  checkProgramLimits,
  targetFacts,
  DEFAULT_POOL_BYTES,
  getDefaultCacheSize,
  LoomError,
  LruCache,
  type BufferPoolStats,
  type Device,
  type DeviceBuffer,
  type DeviceKernel,
  type DeviceLimits,
  GPU_WARM_UP_SECONDS,
  type GeneratedCode,
  type LaunchArgument,
  type QueuedLaunch,
  type Target,
  checkOptionKeys,
  optionKeys,
} from '@loom/core';
import { roundUp } from './bindings.ts';
import { GpuBuffer, GpuMemory } from './buffers.ts';
import { withErrorScopes } from './errors.ts';
import { Launcher } from './launches.ts';
import { DEFAULT_LIMITS, LIMIT_NAMES, loomLimits, type WgslLimits } from './limits.ts';
import { WgslProgram } from './program.ts';
import { wgslTarget, type WgslExtra } from './target.ts';

/** The options webgpuDevice reads; any other key is an error. */
const WEBGPU_DEVICE_OPTIONS = optionKeys<WebGPUDeviceOptions>()([
  'bufferPoolBytes',
  'cacheSize',
  'dawnOptions',
  'gpu',
  'powerPreference',
]);

export type { WgslProgram };

// WebGPU's flag values (the GPUBufferUsage and GPUMapMode globals exist in browsers, but not
// in Node unless the `webgpu` package's globals are installed)
const USAGE = { MAP_READ: 0x1, COPY_DST: 0x8 } as const;
const MAP_MODE_READ = 0x1;

/** Options of `webgpuDevice`: where its GPU comes from (Dawn's options in Node, `navigator.gpu` in a browser) and the adapter to ask for. */
export interface WebGPUDeviceOptions {
  /** The GPU object to use (a browser's `navigator.gpu`); default: Dawn through the `webgpu` package in Node. */
  readonly gpu?: GPU;
  /** Which adapter to ask for: `'high-performance'` or `'low-power'` (WebGPU's `powerPreference`). */
  readonly powerPreference?: GPUPowerPreference;
  /** Options for Dawn's instance (e.g. `['backend=vulkan']`); only the first device of a process creates it. */
  readonly dawnOptions?: readonly string[];
  /** How many programs and launch shapes the device keeps (least recently used dropped first); default `getDefaultCacheSize()`. */
  readonly cacheSize?: number;
  /** How many bytes of released buffers the device keeps to reuse (`BufferPool`); default `DEFAULT_POOL_BYTES` (1 GiB), 0 for none. */
  readonly bufferPoolBytes?: number;
}

export interface WebGPUDevice extends Device<WgslExtra, WgslProgram> {
  /** The adapter's vendor, architecture and description, as WebGPU reports them. */
  readonly adapterInfo: GPUAdapterInfo;
  /** The WebGPU limits granted: the adapter's own, asked for when the device was created. */
  readonly wgslLimits: WgslLimits;
  /** Whether float16 is available ('shader-f16'). */
  readonly shaderF16: boolean;
  /** The subgroup sizes the adapter reports where it has the 'subgroups' feature (asked for), else false. */
  readonly subgroups: false | { readonly min: number; readonly max: number };
  /** The underlying GPUDevice, for interoperation. */
  readonly gpuDevice: GPUDevice;
  /** The same as `dispose()`. */
  destroy(): void;
}

let unavailable = 'no WebGPU device was asked for yet';

/** Where a device finds its GPU when `options.gpu` is not given (`undefined`: there is none here). */
export type DefaultGpu = (options: WebGPUDeviceOptions) => Promise<GPU | undefined>;

/** A browser's (or a worker's) `navigator.gpu`. */
export const navigatorGpu: DefaultGpu = async () => (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu;

/**
 * The default GPU: `navigator.gpu`, unless the entry point says otherwise. The Node entry
 * (`index.ts`) sets Dawn, so that the browser entry (`browser.ts`) never reaches the `webgpu`
 * package or Node's modules, and bundles for browsers without them.
 */
let defaultGpu: DefaultGpu = navigatorGpu;
/** What the entry point does with each device made from its default GPU (Node's: disposes it at exit). */
let adoptDevice: (device: WebGPUDevice) => void = () => {};

export function setDefaultGpu(gpu: DefaultGpu, adopt: (device: WebGPUDevice) => void = () => {}): void {
  defaultGpu = gpu;
  adoptDevice = adopt;
}

/**
 * A WebGPU device, or `undefined` when there is no WebGPU implementation or adapter here
 * (`webgpuUnavailableReason()` says why; whether that fails a test run is the tests' policy).
 * In Node, without the `webgpu` package installed it is `undefined` too, and the reason says
 * `npm install webgpu`: asking for a device never throws for a missing driver, so
 * `(await webgpuDevice()) ?? cpuDevice()` always gives a device.
 */
export async function webgpuDevice(options: WebGPUDeviceOptions = {}): Promise<WebGPUDevice | undefined> {
  checkOptionKeys('webgpuDevice', options, WEBGPU_DEVICE_OPTIONS);
  let gpu: GPU | undefined;
  try {
    gpu = options.gpu ?? (await defaultGpu(options));
  } catch (e) {
    unavailable = (e as Error).message;
    return undefined;
  }
  if (!gpu) {
    unavailable = 'this environment has no WebGPU (navigator.gpu is missing)';
    return undefined;
  }
  const adapter = await gpu
    .requestAdapter(options.powerPreference ? { powerPreference: options.powerPreference } : undefined)
    .catch(() => null);
  if (!adapter) {
    unavailable =
      'no WebGPU adapter: no GPU driver that Dawn can use was found ' +
      "(install a Vulkan driver: a GPU vendor's, or Mesa's lavapipe for the CPU, e.g. `apt install mesa-vulkan-drivers` on Debian and Ubuntu)";
    return undefined;
  }
  const limits = adapterLimits(adapter);
  const shaderF16 = adapter.features.has('shader-f16');
  const subgroups = adapterSubgroups(adapter);
  try {
    const device = await adapter.requestDevice({
      requiredLimits: { ...limits },
      requiredFeatures: [
        ...(shaderF16 ? ['shader-f16' as const] : []),
        ...(subgroups ? ['subgroups' as GPUFeatureName] : []),
      ],
    });
    const made = new WgpuDevice(
      gpu,
      adapter.info,
      device,
      limits,
      shaderF16,
      subgroups,
      options.cacheSize ?? getDefaultCacheSize(),
      options.bufferPoolBytes ?? DEFAULT_POOL_BYTES,
    );
    if (!options.gpu) adoptDevice(made);
    return made;
  } catch (e) {
    unavailable = `the WebGPU adapter refused a device: ${(e as Error).message}`;
    return undefined;
  }
}

/** Why the last `webgpuDevice()` returned undefined. */
export function webgpuUnavailableReason(): string {
  return unavailable;
}

/**
 * The adapter's subgroup sizes where it has the 'subgroups' feature (asked for with the device), else
 * false. An adapter that does not report its sizes gets WebGPU's bounds, 4 to 128.
 */
function adapterSubgroups(adapter: GPUAdapter): false | { min: number; max: number } {
  if (!adapter.features.has('subgroups')) return false;
  const info = adapter.info as GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number };
  return { min: info.subgroupMinSize || 4, max: info.subgroupMaxSize || 128 };
}

/** The adapter's maxima of the limits Loom cares about: asking for them lifts the defaults (128 MiB bindings, 8 buffers...). */
function adapterLimits(adapter: GPUAdapter): WgslLimits {
  const granted: Record<string, number> = {};
  for (const name of LIMIT_NAMES)
    granted[name] = (adapter.limits as unknown as Record<string, number>)[name] ?? DEFAULT_LIMITS[name];
  return granted as unknown as WgslLimits;
}

class WgpuDevice implements WebGPUDevice {
  readonly name: string;
  readonly target: Target<WgslExtra>;
  readonly limits: DeviceLimits;
  private lostReason: string | undefined;
  private disposed = false;
  /** Compiled programs by their code; a dropped one's pipelines go with the last reference to it. */
  private readonly programs: LruCache<string, Promise<WgslProgram>>;
  private readonly memory: GpuMemory;
  private readonly launcher: Launcher;
  /** Mappable buffers for reading back, by size, reused: each read takes one and gives it back unmapped. */
  private readonly staging: LruCache<number, GPUBuffer[]>;
  readonly warmUpSeconds: number | undefined;

  constructor(
    /** Held so that Dawn's instance outlives the device (see dawn.ts). */
    // biome-ignore lint/correctness/noUnusedPrivateClassMembers: never read, only kept alive (Dawn crashes once it is collected)
    private readonly gpu: GPU,
    readonly adapterInfo: GPUAdapterInfo,
    readonly gpuDevice: GPUDevice,
    readonly wgslLimits: WgslLimits,
    readonly shaderF16: boolean,
    readonly subgroups: false | { readonly min: number; readonly max: number },
    cacheSize: number,
    poolBytes: number,
  ) {
    this.limits = loomLimits(wgslLimits);
    // a software adapter (lavapipe, SwiftShader) runs on the CPU, whose speed needs no warming up
    const software =
      (adapterInfo as { isFallbackAdapter?: boolean }).isFallbackAdapter === true ||
      adapterInfo.architecture === 'software';
    this.warmUpSeconds = software ? undefined : GPU_WARM_UP_SECONDS;
    this.programs = new LruCache(cacheSize);
    this.memory = new GpuMemory(gpuDevice, wgslLimits.maxBufferSize, poolBytes);
    this.launcher = new Launcher(gpuDevice, wgslLimits, cacheSize);
    this.staging = new LruCache(STAGING_SIZES, (dropped) => dropped.forEach((b) => b.destroy()));
    // e.g. 'WebGPU: nvidia-h100-80gb-hbm3 (NVIDIA: 580.159.04)', 'WebGPU: llvmpipe-... (llvmpipe: Mesa 25.0.7 ...)'
    const { device, vendor, description } = adapterInfo;
    const what = device || vendor || 'unknown adapter';
    this.name = `WebGPU: ${description && description !== what ? `${what} (${description})` : what}`;
    this.target = wgslTarget({ shaderF16, limits: wgslLimits, subgroups });
    gpuDevice.lost.then((lost) => {
      this.lostReason = lost.message || lost.reason || 'unknown reason';
    });
    // launches already validated once run without error scopes; anything they still raise
    // lands here and is reported by the next call on this device
    gpuDevice.addEventListener?.('uncapturederror', (event) => {
      this.uncaptured ??= (event as GPUUncapturedErrorEvent).error?.message ?? 'unknown error';
    });
  }

  private uncaptured: string | undefined;

  async compile(code: GeneratedCode<WgslExtra>): Promise<WgslProgram> {
    if (code.target !== 'wgsl') throw new LoomError(`a WebGPU device runs WGSL, not ${code.target} code`);
    this.checkAlive();
    let entry = this.programs.get(code.code);
    if (!entry) {
      // before Dawn sees it: a private array past WGSL's limits is otherwise "a bug in Loom's WGSL target"
      checkProgramLimits(code.program, this.limits, this.name, targetFacts(this.target).heldInFloat);
      const program = new WgslProgram(this.gpuDevice, code);
      entry = program.variant(false).then(() => program);
      this.programs.set(code.code, entry);
      entry.catch(() => this.programs.delete(code.code));
    }
    return entry;
  }

  allocate(byteLength: number): DeviceBuffer {
    this.checkAlive();
    if (!Number.isInteger(byteLength) || byteLength < 0) throw new LoomError(`cannot allocate ${byteLength} bytes`);
    checkBufferSize(byteLength, this.limits, `${this.name} (maxBufferSize)`);
    return this.memory.allocate(byteLength);
  }

  /**
   * A plain `writeBuffer`: every way it could fail (a released or foreign buffer, a size
   * past the end or not whole words) is checked here first, so it needs no error scopes.
   */
  async write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void> {
    this.checkAlive();
    const wrapper = gpuBufferOf(buffer);
    const target = wrapper.readyNow() ?? (await wrapper.ready());
    if (data.byteLength > buffer.byteLength)
      throw new LoomError(`cannot write ${data.byteLength} bytes into a WebGPU buffer of ${buffer.byteLength}`);
    let bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.byteLength % 4 !== 0) {
      // writeBuffer moves whole words; the buffer itself is rounded up to them (allocate)
      const padded = new Uint8Array(roundUp(bytes.byteLength, 4));
      padded.set(bytes);
      bytes = padded;
    }
    if (bytes.byteLength === 0) return;
    this.gpuDevice.queue.writeBuffer(target, 0, bytes);
  }

  async read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void> {
    this.checkAlive();
    const wrapper = gpuBufferOf(buffer);
    const source = wrapper.readyNow() ?? (await wrapper.ready());
    if (into.byteLength > buffer.byteLength)
      throw new LoomError(`cannot read ${into.byteLength} bytes from a WebGPU buffer of ${buffer.byteLength}`);
    if (into.byteLength === 0) return;
    const size = roundUp(into.byteLength, 4);
    const device = this.gpuDevice;
    const copy = (staging: GPUBuffer) => {
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(source, 0, staging, 0, size);
      device.queue.submit([encoder.finish()]);
      return staging;
    };
    // a staging buffer of this size that worked before works again; a new one is validated
    const reused = this.staging.get(size)?.pop();
    const staging = reused
      ? copy(reused)
      : await withErrorScopes(device, 'reading a buffer back', () =>
          copy(device.createBuffer({ size, usage: USAGE.MAP_READ | USAGE.COPY_DST })),
        );
    let mapped = false;
    try {
      await staging.mapAsync(MAP_MODE_READ).catch((e: Error) => {
        throw new LoomError(
          `reading a WebGPU buffer failed: ${this.lostReason ? `the device was lost (${this.lostReason})` : e.message}`,
        );
      });
      mapped = true;
      new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(
        new Uint8Array(staging.getMappedRange(0, size), 0, into.byteLength),
      );
      staging.unmap();
    } finally {
      const free =
        mapped && !this.disposed && size <= STAGING_MAX_BYTES ? this.staging.memo(size, () => []) : undefined;
      if (free && free.length < STAGING_PER_SIZE) free.push(staging);
      else staging.destroy();
    }
  }

  launch(
    compiled: WgslProgram,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<void> {
    try {
      this.checkAlive();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.launcher.launch(compiled, kernel, args, groupCount, localSize);
  }

  /** `rounds` rounds of `launches` in one submit after the first round (launches.ts). */
  launchRounds(compiled: WgslProgram, launches: readonly QueuedLaunch[], rounds: number): Promise<void> {
    try {
      this.checkAlive();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.launcher.launchRounds(compiled, launches, rounds);
  }

  release(buffer: DeviceBuffer): void {
    gpuBufferOf(buffer).release();
  }

  cacheStats(): Readonly<Record<string, number>> {
    return { programs: this.programs.size, ...this.launcher.cacheStats() };
  }

  poolStats(): BufferPoolStats {
    return this.memory.stats();
  }

  /** Drops the programs, pipelines and pooled buffers, destroys the uniform buffers, then the GPUDevice (which destroys every buffer). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.programs.clear();
    this.launcher.dispose();
    this.memory.clear(true);
    for (const free of this.staging.values()) free.forEach((b) => b.destroy());
    this.staging.clear();
    this.gpuDevice.destroy();
  }

  destroy(): void {
    this.dispose();
  }

  private checkAlive(): void {
    if (this.disposed) throw new LoomError('the WebGPU device was disposed; make a new one with webgpuDevice()');
    if (this.lostReason !== undefined) throw new LoomError(`the WebGPU device was lost: ${this.lostReason}`);
    if (this.uncaptured !== undefined) {
      const message = this.uncaptured;
      this.uncaptured = undefined;
      throw new LoomError(`an earlier WebGPU command failed: ${message.trim()}`);
    }
  }
}

/** How many sizes of staging buffers a device keeps, how many of each size, and up to what size. */
const STAGING_SIZES = 16;
const STAGING_PER_SIZE = 2;
const STAGING_MAX_BYTES = 1 << 20;

function gpuBufferOf(buffer: DeviceBuffer): GpuBuffer {
  if (!(buffer instanceof GpuBuffer)) throw new LoomError('this buffer does not belong to a WebGPU device');
  return buffer;
}
