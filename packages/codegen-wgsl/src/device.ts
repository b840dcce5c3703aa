/**
 * `webgpuDevice()`: runs Loom kernels through WebGPU, on Dawn in Node (the `webgpu` package,
 * Vulkan underneath: NVIDIA's driver on the GPU machine, Mesa's lavapipe on CPUs) or on the
 * `navigator.gpu` of a browser, passed in as `webgpuDevice({ gpu: navigator.gpu })`.
 *
 * Buffers hold arrays byte for byte as the host does (narrow dtypes packed, `bindings.ts`),
 * so uploads and downloads are plain copies: `writeBuffer`, and a copy to a mappable staging
 * buffer for reading. Compiled programs are cached by their code; a program whose grid
 * must be folded (`limits.ts`) gets a second variant the first time it is launched so.
 * Every WebGPU call that can fail runs inside error scopes, so that a validation error or
 * a lost device becomes a LoomError at the call that caused it, not a crash or a hang.
 */
/// <reference types="@webgpu/types" preserve="true" />
import {
  checkBufferSize, checkProgramLimits, getDefaultCacheSize, LoomError, LruCache, MissingPackageError, perObject,
  type Device, type DeviceBuffer, type DeviceKernel, type DeviceLimits, type DType, type GeneratedCode,
  type LaunchArgument, type Target,
} from '@loom/core';
import { roundUp, type ModuleLayout, type StorageBinding } from './bindings.ts';
import { compilationError, withErrorScopes } from './errors.ts';
import { DEFAULT_LIMITS, LIMIT_NAMES, loomLimits, planDispatch, type WgslLimits } from './limits.ts';
import { wgslTarget, type WgslExtra, type WgslModule } from './target.ts';

// WebGPU's flag values (the GPUBufferUsage, GPUMapMode and GPUShaderStage globals exist in
// browsers, but not in Node unless the `webgpu` package's globals are installed)
const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;
const MAP_MODE_READ = 0x1;
const SHADER_STAGE_COMPUTE = 0x4;

export interface WebGPUDeviceOptions {
  /** The GPU object to use (a browser's `navigator.gpu`); default: Dawn through the `webgpu` package in Node. */
  readonly gpu?: GPU;
  readonly powerPreference?: GPUPowerPreference;
  /** Options for Dawn's instance (e.g. `['backend=vulkan']`); only the first device of a process creates it. */
  readonly dawnOptions?: readonly string[];
  /** How many programs and launch shapes the device keeps (least recently used dropped first); default `getDefaultCacheSize()`. */
  readonly cacheSize?: number;
}

export interface WebGPUDevice extends Device<WgslExtra, WgslProgram> {
  readonly adapterInfo: GPUAdapterInfo;
  /** The WebGPU limits granted: the adapter's own, asked for when the device was created. */
  readonly wgslLimits: WgslLimits;
  /** Whether float16 is available ('shader-f16'). */
  readonly shaderF16: boolean;
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

export function setDefaultGpu(gpu: DefaultGpu): void {
  defaultGpu = gpu;
}

/**
 * A WebGPU device, or `undefined` when there is no WebGPU implementation or adapter here
 * (`webgpuUnavailableReason()` says why; whether that fails a test run is the tests' policy).
 * In Node, without the `webgpu` package installed, it throws a MissingPackageError instead.
 */
export async function webgpuDevice(options: WebGPUDeviceOptions = {}): Promise<WebGPUDevice | undefined> {
  let gpu: GPU | undefined;
  try {
    gpu = options.gpu ?? (await defaultGpu(options));
  } catch (e) {
    if (e instanceof MissingPackageError) throw e;
    unavailable = (e as Error).message;
    return undefined;
  }
  if (!gpu) {
    unavailable = 'this environment has no WebGPU (navigator.gpu is missing)';
    return undefined;
  }
  const adapter = await gpu.requestAdapter(options.powerPreference ? { powerPreference: options.powerPreference } : undefined).catch(() => null);
  if (!adapter) {
    unavailable = 'no WebGPU adapter: no GPU driver that Dawn can use was found ' +
      '(on Debian, `sudo bash scripts/install-drivers.sh` installs Mesa\'s lavapipe, a Vulkan driver running on the CPU)';
    return undefined;
  }
  const limits = adapterLimits(adapter);
  const shaderF16 = adapter.features.has('shader-f16');
  try {
    const device = await adapter.requestDevice({
      requiredLimits: { ...limits },
      requiredFeatures: shaderF16 ? ['shader-f16'] : [],
    });
    return new WgpuDevice(gpu, adapter.info, device, limits, shaderF16, options.cacheSize ?? getDefaultCacheSize());
  } catch (e) {
    unavailable = `the WebGPU adapter refused a device: ${(e as Error).message}`;
    return undefined;
  }
}

/** Why the last `webgpuDevice()` returned undefined. */
export function webgpuUnavailableReason(): string {
  return unavailable;
}

/** The adapter's maxima of the limits Loom cares about: asking for them lifts the defaults (128 MiB bindings, 8 buffers...). */
function adapterLimits(adapter: GPUAdapter): WgslLimits {
  const granted: Record<string, number> = {};
  for (const name of LIMIT_NAMES) granted[name] = (adapter.limits as unknown as Record<string, number>)[name] ?? DEFAULT_LIMITS[name];
  return granted as unknown as WgslLimits;
}

class GpuBuffer implements DeviceBuffer {
  #buffer: GPUBuffer | undefined;

  constructor(
    buffer: GPUBuffer,
    readonly byteLength: number,
    /** Resolves to an error message if the allocation failed (WebGPU reports that asynchronously). */
    readonly allocated: Promise<string | undefined>,
  ) {
    this.#buffer = buffer;
  }

  /** The GPUBuffer, once its allocation is known to have succeeded. */
  async ready(): Promise<GPUBuffer> {
    const error = await this.allocated;
    if (error) throw new LoomError(`a WebGPU buffer of ${this.byteLength} bytes could not be allocated: ${error}`);
    return this.gpuBuffer;
  }

  get gpuBuffer(): GPUBuffer {
    if (!this.#buffer) throw new LoomError('a WebGPU buffer was used after it was released');
    return this.#buffer;
  }

  release(): void {
    this.#buffer?.destroy();
    this.#buffer = undefined;
  }
}

/** One kernel's pipeline and which bindings it uses. */
interface KernelPipeline {
  /**
   * Unique per pipeline, to key what launches keep (`launchCache`): kernels of different
   * programs share names (every `pointwise` variant's kernel is the op's name) but not
   * their uniform struct or bindings.
   */
  readonly id: number;
  readonly pipeline: GPUComputePipeline;
  readonly storage: readonly StorageBinding[];
  readonly usesUniform: boolean;
}

interface Variant {
  readonly module: WgslModule;
  readonly kernels: ReadonlyMap<string, KernelPipeline>;
}

/** A compiled program: its plain variant, and the folded-grid one when a launch needs it. */
export class WgslProgram {
  private readonly variants = new Map<boolean, Promise<Variant>>();

  constructor(
    private readonly device: WgpuDevice,
    readonly code: GeneratedCode<WgslExtra>,
  ) {}

  variant(foldedGrid: boolean): Promise<Variant> {
    let v = this.variants.get(foldedGrid);
    if (!v) {
      v = this.device.build(this.code, foldedGrid);
      this.variants.set(foldedGrid, v);
      v.catch(() => this.variants.delete(foldedGrid));
    }
    return v;
  }
}

class WgpuDevice implements WebGPUDevice {
  readonly name: string;
  readonly target: Target<WgslExtra>;
  readonly limits: DeviceLimits;
  private lostReason: string | undefined;
  private disposed = false;
  /** Compiled programs by their code; a dropped one's pipelines go with the last reference to it. */
  private readonly programs: LruCache<string, Promise<WgslProgram>>;
  /** A launch shape (kernel, variant, binding sizes, pools) whose commands WebGPU has validated once. */
  private readonly validatedLaunches: LruCache<string, true>;
  /** What a launch shape keeps between launches; a dropped one's uniform buffer is destroyed. */
  private readonly launches: LruCache<string, LaunchCache>;

  constructor(
    /** Held so that Dawn's instance outlives the device (see dawn.ts). */
    private readonly gpu: GPU,
    readonly adapterInfo: GPUAdapterInfo,
    readonly gpuDevice: GPUDevice,
    readonly wgslLimits: WgslLimits,
    readonly shaderF16: boolean,
    cacheSize: number,
  ) {
    this.limits = loomLimits(wgslLimits);
    this.programs = new LruCache(cacheSize);
    this.validatedLaunches = new LruCache(cacheSize);
    // WebGPU keeps a destroyed buffer alive for the work already submitted with it
    this.launches = new LruCache(cacheSize, (evicted) => evicted.uniform?.destroy());
    // e.g. 'WebGPU: nvidia-h100-80gb-hbm3 (NVIDIA: 580.159.04)', 'WebGPU: llvmpipe-... (llvmpipe: Mesa 25.0.7 ...)'
    const { device, vendor, description } = adapterInfo;
    const what = device || vendor || 'unknown adapter';
    this.name = `WebGPU: ${description && description !== what ? `${what} (${description})` : what}`;
    this.target = wgslTarget({ shaderF16, limits: wgslLimits });
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
      checkProgramLimits(code.program, this.limits, this.name);
      const program = new WgslProgram(this, code);
      entry = program.variant(false).then(() => program);
      this.programs.set(code.code, entry);
      entry.catch(() => this.programs.delete(code.code));
    }
    return entry;
  }

  /** Compiles one variant of a program and makes its pipelines, bound as its module's layout says. */
  async build(code: GeneratedCode<WgslExtra>, foldedGrid: boolean): Promise<Variant> {
    const module = foldedGrid ? code.extra.folded() : code.extra.module;
    const kernelNames = code.kernels.map((k) => `'${k.name}'`).join(', ');
    const device = this.gpuDevice;
    const shader = await withErrorScopes(device, `compiling the WGSL of ${kernelNames}`, async () => {
      const shader = device.createShaderModule({ code: module.code });
      const info = await shader.getCompilationInfo();
      if (info.messages.some((m) => m.type === 'error')) throw compilationError(`kernel ${kernelNames}`, module.code, info.messages);
      return shader;
    });
    const kernels = new Map<string, KernelPipeline>();
    for (const k of code.kernels) {
      const storage = module.layout.storage.filter((s) => s.arrays.some((a) => k.parameters.some((p) => p.name === a)));
      const usesUniform = module.layout.uniform !== undefined && (k.parameters.some((p) => p.kind === 'value') || storage.some((s) => s.pool) || foldedGrid);
      const entries: GPUBindGroupLayoutEntry[] = storage.map((s) => ({
        binding: s.binding,
        visibility: SHADER_STAGE_COMPUTE,
        buffer: { type: s.access === 'read' ? 'read-only-storage' : 'storage' },
      }));
      if (usesUniform) entries.push({ binding: module.layout.uniform!.binding, visibility: SHADER_STAGE_COMPUTE, buffer: { type: 'uniform' } });
      const pipeline = await withErrorScopes(device, `creating the pipeline of kernel '${k.name}'`, async () => {
        const layout = device.createPipelineLayout({ bindGroupLayouts: [device.createBindGroupLayout({ entries })] });
        try {
          return await device.createComputePipelineAsync({ layout, compute: { module: shader, entryPoint: module.entryPoints.get(k.name)! } });
        } catch (e) {
          throw new LoomError(`WebGPU could not create the pipeline of kernel '${k.name}': ${(e as Error).message}`);
        }
      });
      kernels.set(k.name, { id: nextPipelineId++, pipeline, storage, usesUniform });
    }
    return { module, kernels };
  }

  allocate(byteLength: number): DeviceBuffer {
    this.checkAlive();
    if (!Number.isInteger(byteLength) || byteLength < 0) throw new LoomError(`cannot allocate ${byteLength} bytes`);
    checkBufferSize(byteLength, this.limits, `${this.name} (maxBufferSize)`);
    const device = this.gpuDevice;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const buffer = device.createBuffer({ size: Math.max(4, roundUp(byteLength, 4)), usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST });
    const allocated = Promise.all([device.popErrorScope(), device.popErrorScope()]).then(
      (errors) => errors.find((e) => e !== null)?.message,
      (e: Error) => e.message,
    );
    return new GpuBuffer(buffer, byteLength, allocated);
  }

  async write(buffer: DeviceBuffer, data: ArrayBufferView): Promise<void> {
    this.checkAlive();
    const target = await gpuBufferOf(buffer).ready();
    if (data.byteLength > buffer.byteLength) throw new LoomError(`cannot write ${data.byteLength} bytes into a WebGPU buffer of ${buffer.byteLength}`);
    let bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.byteLength % 4 !== 0) {
      // writeBuffer moves whole words; the buffer itself is rounded up to them (allocate)
      const padded = new Uint8Array(roundUp(bytes.byteLength, 4));
      padded.set(bytes);
      bytes = padded;
    }
    if (bytes.byteLength === 0) return;
    await withErrorScopes(this.gpuDevice, 'writing a buffer', () => this.gpuDevice.queue.writeBuffer(target, 0, bytes));
  }

  async read(buffer: DeviceBuffer, into: ArrayBufferView): Promise<void> {
    this.checkAlive();
    const source = await gpuBufferOf(buffer).ready();
    if (into.byteLength > buffer.byteLength) throw new LoomError(`cannot read ${into.byteLength} bytes from a WebGPU buffer of ${buffer.byteLength}`);
    if (into.byteLength === 0) return;
    const size = roundUp(into.byteLength, 4);
    const device = this.gpuDevice;
    const staging = await withErrorScopes(device, 'reading a buffer back', () => {
      const staging = device.createBuffer({ size, usage: USAGE.MAP_READ | USAGE.COPY_DST });
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(source, 0, staging, 0, size);
      device.queue.submit([encoder.finish()]);
      return staging;
    });
    try {
      await staging.mapAsync(MAP_MODE_READ).catch((e: Error) => {
        throw new LoomError(`reading a WebGPU buffer failed: ${this.lostReason ? `the device was lost (${this.lostReason})` : e.message}`);
      });
      const mapped = new Uint8Array(staging.getMappedRange(0, size), 0, into.byteLength);
      new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(mapped);
      staging.unmap();
    } finally {
      staging.destroy();
    }
  }

  async launch(
    compiled: WgslProgram,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
  ): Promise<void> {
    this.checkAlive();
    const dispatch = planDispatch(kernel.name, groupCount, kernel.grid.localSize, this.wgslLimits);
    const variant = await compiled.variant(dispatch.folded);
    const entry = variant.kernels.get(kernel.name);
    if (!entry) throw new LoomError(`the compiled program has no kernel '${kernel.name}'`);

    const buffers = new Map<string, GPUBuffer>();
    const values = new Map<string, { dtype: DType; value: number | bigint }>();
    for (const [k, p] of kernel.parameters.entries()) {
      const a = args[k];
      if (a === undefined) throw new LoomError(`kernel '${kernel.name}' was launched without its argument '${p.name}'`);
      if (a.kind === 'value') values.set(p.name, { dtype: a.dtype, value: a.value });
      else buffers.set(p.name, await gpuBufferOf(a.buffer).ready());
    }

    const device = this.gpuDevice;
    const temporaries: GPUBuffer[] = [];
    // validating a launch costs a round trip to the GPU process; the same shape of launch
    // (pipeline, binding sizes) validates the same way, so only its first run pays for it.
    // The pipeline, not the kernel's name: programs compiled for other layouts reuse names.
    const shape = `${entry.id}|${[...buffers].map(([n, b]) => `${n}:${b.size}`).join(',')}`;
    const checked = this.validatedLaunches.has(shape);
    const scoped = <T>(what: string, body: () => T): Promise<T> | T => (checked ? body() : withErrorScopes(device, what, body));
    try {
      await scoped(`running kernel '${kernel.name}'`, () => {
        const encoder = device.createCommandEncoder();
        const entries: GPUBindGroupEntry[] = [];
        const poolOffsets = new Map<string, number>();
        const copiesBack: (() => void)[] = [];
        for (const s of entry.storage) {
          if (!s.pool) {
            const buffer = buffers.get(s.arrays[0])!;
            this.checkBindingSize(buffer.size, `argument '${s.arrays[0]}'`);
            entries.push({ binding: s.binding, resource: { buffer } });
            continue;
          }
          // pooled arrays are copied in at word offsets, and the written ones back after the dispatch
          const members = s.arrays.filter((a) => buffers.has(a));
          let size = 0;
          for (const a of members) {
            poolOffsets.set(a, size / 4);
            size += buffers.get(a)!.size;
          }
          this.checkBindingSize(size, `the shared buffer of ${members.map((a) => `'${a}'`).join(', ')}`);
          const pool = device.createBuffer({ size: Math.max(size, 4), usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST });
          temporaries.push(pool);
          for (const a of members) {
            const buffer = buffers.get(a)!;
            const offset = poolOffsets.get(a)! * 4;
            encoder.copyBufferToBuffer(buffer, 0, pool, offset, buffer.size);
            if (s.access === 'read_write') copiesBack.push(() => encoder.copyBufferToBuffer(pool, offset, buffer, 0, buffer.size));
          }
          entries.push({ binding: s.binding, resource: { buffer: pool } });
        }
        // without pools, a launch shape keeps one uniform buffer (writeBuffer is ordered with the
        // submissions, so earlier dispatches still read their own values) and its bind groups
        const reusable = poolOffsets.size === 0 ? this.launchCache(shape) : undefined;
        let uniform: GPUBuffer | undefined;
        if (entry.usesUniform) {
          const bytes = this.uniformBytes(variant.module.layout, values, poolOffsets, groupCount);
          if (reusable) {
            reusable.uniform ??= device.createBuffer({ size: bytes.byteLength, usage: USAGE.UNIFORM | USAGE.COPY_DST });
            uniform = reusable.uniform;
            // the queue applies writes in order: unchanged values are already in the buffer
            const fresh = new Uint8Array(bytes);
            if (!reusable.lastUniform || !sameBytes(reusable.lastUniform, fresh)) {
              device.queue.writeBuffer(uniform, 0, bytes);
              reusable.lastUniform = fresh;
            }
          } else {
            uniform = device.createBuffer({ size: bytes.byteLength, usage: USAGE.UNIFORM | USAGE.COPY_DST });
            temporaries.push(uniform);
            device.queue.writeBuffer(uniform, 0, bytes);
          }
          entries.push({ binding: variant.module.layout.uniform!.binding, resource: { buffer: uniform } });
        }
        const groupKey = entries.map((e) => bufferId((e.resource as GPUBufferBinding).buffer)).join(',');
        let bindGroup = reusable?.bindGroups.get(groupKey);
        if (!bindGroup) {
          bindGroup = device.createBindGroup({ layout: entry.pipeline.getBindGroupLayout(0), entries });
          reusable?.bindGroups.set(groupKey, bindGroup);
        }
        const pass = encoder.beginComputePass();
        pass.setPipeline(entry.pipeline);
        pass.setBindGroup(0, bindGroup);
        pass.dispatchWorkgroups(...dispatch.size);
        pass.end();
        for (const copy of copiesBack) copy();
        device.queue.submit([encoder.finish()]);
      });
      if (!checked) this.validatedLaunches.set(shape, true);
    } finally {
      // WebGPU keeps them alive for the work already submitted
      for (const t of temporaries) t.destroy();
    }
  }

  release(buffer: DeviceBuffer): void {
    gpuBufferOf(buffer).release();
  }

  cacheStats(): Readonly<Record<string, number>> {
    return { programs: this.programs.size, launches: this.launches.size, validatedLaunches: this.validatedLaunches.size };
  }

  /** Drops the programs and pipelines, destroys the uniform buffers, then the GPUDevice (which destroys every buffer). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.programs.clear();
    for (const c of this.launches.values()) c.uniform?.destroy();
    this.launches.clear();
    this.validatedLaunches.clear();
    this.gpuDevice.destroy();
  }

  destroy(): void {
    this.dispose();
  }

  /** The uniform buffer and bind groups kept for one launch shape. */
  private launchCache(shape: string): LaunchCache {
    let cached = this.launches.get(shape);
    if (!cached) this.launches.set(shape, (cached = { bindGroups: new LruCache(BIND_GROUPS_PER_SHAPE) }));
    return cached;
  }

  /** The uniform struct's bytes: value arguments, pool offsets, the folded grid's size. */
  private uniformBytes(
    layout: ModuleLayout, values: ReadonlyMap<string, { dtype: DType; value: number | bigint }>,
    poolOffsets: ReadonlyMap<string, number>, groupCount: readonly number[],
  ): ArrayBuffer {
    const uniform = layout.uniform!;
    const bytes = new ArrayBuffer(uniform.size);
    const view = new DataView(bytes);
    for (const m of uniform.members) {
      const source = m.source;
      switch (source.kind) {
        case 'value': {
          const v = Number(values.get(source.param)?.value ?? 0);
          if (m.type === 'f32') view.setFloat32(m.offset, v, true);
          else if (m.type === 'u32') view.setUint32(m.offset, source.dtype === 'bool' ? (v !== 0 ? 1 : 0) : v >>> 0, true);
          else view.setInt32(m.offset, v | 0, true);
          break;
        }
        case 'pool-offset':
          view.setUint32(m.offset, poolOffsets.get(source.array) ?? 0, true);
          break;
        case 'group-count':
          for (let axis = 0; axis < 3; axis++) view.setUint32(m.offset + 4 * axis, groupCount[axis] ?? 1, true);
          break;
      }
    }
    return bytes;
  }

  private checkBindingSize(bytes: number, what: string): void {
    if (bytes > this.wgslLimits.maxStorageBufferBindingSize) {
      throw new LoomError(
        `${what} has ${bytes} bytes, more than this WebGPU device can bind (maxStorageBufferBindingSize ${this.wgslLimits.maxStorageBufferBindingSize})`,
      );
    }
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

/** What a launch shape keeps between launches. */
interface LaunchCache {
  uniform?: GPUBuffer;
  lastUniform?: Uint8Array;
  /** By the buffers bound: a launch shape is usually run on a few sets of arrays. */
  readonly bindGroups: LruCache<string, GPUBindGroup>;
}

const BIND_GROUPS_PER_SHAPE = 32;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** A stable number per GPU buffer (kept while the buffer lives), to key the bind groups that use it. */
const bufferId = perObject((_: GPUBuffer) => nextBufferId++);
let nextBufferId = 0;
let nextPipelineId = 0;

function gpuBufferOf(buffer: DeviceBuffer): GpuBuffer {
  if (!(buffer instanceof GpuBuffer)) throw new LoomError('this buffer does not belong to a WebGPU device');
  return buffer;
}
