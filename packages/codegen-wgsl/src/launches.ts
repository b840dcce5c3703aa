/**
 * Launching a kernel on WebGPU: one compute pass, one dispatch, one submit (a timed stream of
 * launches: many passes, one submit, `launchRounds`). What a launch
 * needs besides (its bind group, the uniform buffer of its value arguments) is made once
 * and kept, so that a repeated launch costs what a hand-written dispatch costs:
 *
 *   - a launch shape (pipeline, binding sizes) is validated inside error scopes the first
 *     time only: those cost a round trip to Dawn, and the same shape validates alike;
 *   - each shape keeps one uniform buffer, written only when its values change (the queue
 *     orders writes with submissions, so earlier dispatches still read their own values),
 *     and its bind groups by the buffers they bind;
 *   - each kernel keeps its last few launches as encoded (pipeline, bind group, grid): a
 *     launch with the same native buffers, values and grid as one of them (a loop of
 *     identical calls; a new output taken from the pool) is replayed, after a comparison
 *     of its arguments, with no look-up by text and no new object.
 *
 * Nothing is awaited on the way to the submit unless something is not known yet (a
 * buffer whose allocation WebGPU has not confirmed, a shape never validated).
 */
/// <reference types="@webgpu/types" preserve="true" />
import {
  byteSize,
  imageExtents,
  LoomError,
  LruCache,
  perObject,
  roundToBfloat16,
  type DeviceKernel,
  type DeviceLimits,
  type DType,
  type LaunchArgument,
  type QueuedLaunch,
} from '@loom/core';
import { elementBytes, type ModuleLayout, type StorageBinding } from './bindings.ts';
import { GpuBuffer } from './buffers.ts';
import { withErrorScopes } from './errors.ts';
import { loomLimits, planDispatch, type WgslLimits } from './limits.ts';
import { textureFromBuffer } from './textures.ts';
import type { KernelPipeline, Variant, WgslProgram } from './program.ts';

const USAGE = { COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;

/** What a launch shape keeps between launches. */
interface ShapeCache {
  uniform?: GPUBuffer;
  /** The bytes last written into `uniform` (compared by identity first, then by content). */
  lastUniform?: Uint8Array;
  /** By the buffers bound: a launch shape is usually run on a few sets of arrays. */
  readonly bindGroups: LruCache<string, GPUBindGroup>;
  /** Set when the shape is dropped from the cache (its uniform buffer destroyed). */
  dropped?: boolean;
}

/**
 * A launch as it was encoded: a later launch of the same kernel with the same buffers
 * (the same native buffers, bound at the same sizes), values and grid replays it.
 */
interface Recorded {
  readonly compiled: WgslProgram;
  readonly groupCount: readonly number[];
  /** The work-group size (a pipeline's, for a kernel sized at launch). */
  readonly localSize: readonly number[];
  /** Per parameter: the native buffer and binding size, or the value. */
  readonly args: readonly (
    | { readonly native: GPUBuffer; readonly size: number }
    | { readonly value: number | bigint }
  )[];
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  readonly dispatch: readonly [number, number, number];
  readonly shape: ShapeCache;
  readonly uniformBytes?: Uint8Array;
}

/** Launches kept per kernel: a few, as a pooled output alternates between buffers. */
const RECORDED_PER_KERNEL = 4;
const BIND_GROUPS_PER_SHAPE = 32;

export class Launcher {
  /** A launch shape (kernel, variant, binding sizes, pools) whose commands WebGPU has validated once. */
  private readonly validated: LruCache<string, true>;
  /** What a launch shape keeps between launches; a dropped one's uniform buffer is destroyed. */
  private readonly shapes: LruCache<string, ShapeCache>;
  /** Per kernel (weakly), its recent launches, the most recent first. */
  private readonly recorded = perObject((_: DeviceKernel): Recorded[] => []);
  /** The limits images are checked against (maxTextureDimension2D, 3D). */
  private readonly imageLimits: DeviceLimits;

  constructor(
    private readonly device: GPUDevice,
    private readonly limits: WgslLimits,
    cacheSize: number,
  ) {
    this.validated = new LruCache(cacheSize);
    this.imageLimits = loomLimits(limits);
    // WebGPU keeps a destroyed buffer alive for the work already submitted with it
    this.shapes = new LruCache(cacheSize, (dropped) => {
      dropped.dropped = true;
      dropped.uniform?.destroy();
    });
  }

  async launch(
    compiled: WgslProgram,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<void> {
    const recent = this.recorded(kernel);
    const known = recent.find((r) => replays(r, compiled, args, groupCount, localSize));
    if (known) {
      this.replay(known);
      return;
    }
    const recorded = await this.encode(compiled, kernel, args, groupCount, localSize);
    if (!recorded) return;
    recent.unshift(recorded);
    if (recent.length > RECORDED_PER_KERNEL) recent.pop();
  }

  /**
   * `rounds` rounds of `launches` with one submit for all but the first: the first round is
   * launched as usual (which records each launch and validates a new shape), the others are
   * replayed from the records into one command buffer, a compute pass a launch, as a stream of
   * submits would run them. Where a launch is not recorded (pooled arrays, textures) or two
   * launches of one shape differ in their values (a shape's one uniform buffer holds one set
   * for the whole submit), every round is launched as usual.
   */
  async launchRounds(compiled: WgslProgram, launches: readonly QueuedLaunch[], rounds: number): Promise<void> {
    const launchAll = async () => {
      for (const l of launches) await this.launch(compiled, l.kernel, l.args, l.groupCount, l.localSize);
    };
    if (rounds < 1) return;
    await launchAll();
    if (rounds === 1) return;
    const records = launches.map((l) =>
      this.recorded(l.kernel).find((r) => replays(r, compiled, l.args, l.groupCount, l.localSize)),
    );
    const values = new Map<ShapeCache, Uint8Array>();
    const replayable = records.every((r) => {
      if (!r) return false;
      const bytes = r.uniformBytes;
      if (!bytes) return true;
      const other = values.get(r.shape);
      values.set(r.shape, bytes);
      return !other || sameBytes(other, bytes);
    });
    if (!replayable) {
      for (let k = 1; k < rounds; k++) await launchAll();
      return;
    }
    const encoder = this.device.createCommandEncoder();
    for (const r of records as Recorded[]) this.writeUniform(r);
    for (let k = 1; k < rounds; k++) for (const r of records as Recorded[]) encodePass(encoder, r);
    this.device.queue.submit([encoder.finish()]);
  }

  /** Encodes and submits a recorded launch again, rewriting the uniform buffer if another launch changed it. */
  private replay(r: Recorded): void {
    this.writeUniform(r);
    this.submit(r.pipeline, r.bindGroup, r.dispatch, undefined);
  }

  /** Puts a recorded launch's values back into its shape's uniform buffer if another launch changed them. */
  private writeUniform(r: Recorded): void {
    const bytes = r.uniformBytes;
    if (bytes && r.shape.lastUniform !== bytes) {
      if (!r.shape.lastUniform || !sameBytes(r.shape.lastUniform, bytes))
        this.device.queue.writeBuffer(r.shape.uniform!, 0, bytes);
      r.shape.lastUniform = bytes;
    }
  }

  private submit(
    pipeline: GPUComputePipeline,
    bindGroup: GPUBindGroup,
    dispatch: readonly [number, number, number],
    encoder: GPUCommandEncoder | undefined,
    after?: () => void,
  ): void {
    const commands = encoder ?? this.device.createCommandEncoder();
    encodePass(commands, { pipeline, bindGroup, dispatch });
    after?.();
    this.device.queue.submit([commands.finish()]);
  }

  /** The full launch: binds, validates a new shape, submits; returns what a replay needs (nothing for pooled arrays). */
  private async encode(
    compiled: WgslProgram,
    kernel: DeviceKernel,
    args: readonly LaunchArgument[],
    groupCount: readonly number[],
    localSize: readonly number[],
  ): Promise<Recorded | undefined> {
    const dispatch = planDispatch(kernel.name, groupCount, localSize, this.limits);
    const variant = compiled.variantNow(dispatch.folded) ?? (await compiled.variant(dispatch.folded));
    // a kernel sized at launch has a pipeline per work-group size and local arrays' lengths (program.ts)
    const lengths = kernel.parameters.flatMap((p, k) => {
      const a = args[k];
      return a?.kind === 'local' ? [a.byteLength / byteSize(p.dtype)] : [];
    });
    const entry =
      variant.module.localSizeOverrides.has(kernel.name) || variant.module.localArrayOverrides.has(kernel.name)
        ? (variant.sizedNow(kernel.name, localSize, lengths) ?? (await variant.sized(kernel.name, localSize, lengths)))
        : variant.kernels.get(kernel.name);
    if (!entry) throw new LoomError(`the compiled program has no kernel '${kernel.name}'`);

    const buffers = new Map<string, { wrapper: GpuBuffer; native: GPUBuffer }>();
    const values = new Map<string, { dtype: DType; value: number | bigint }>();
    // image arguments: the extents of the texture each becomes (width first)
    const images = new Map<string, readonly number[]>();
    for (const [k, p] of kernel.parameters.entries()) {
      if (p.image) images.set(p.name, imageExtents(kernel, args, k, this.imageLimits, 'this WebGPU device'));
      const a = args[k];
      if (a === undefined) throw new LoomError(`kernel '${kernel.name}' was launched without its argument '${p.name}'`);
      if (a.kind === 'value') {
        values.set(p.name, { dtype: a.dtype, value: a.value });
        continue;
      }
      // a local array sized at launch is no binding: the pipeline's override sizes it (above)
      if (a.kind === 'local') continue;
      const wrapper = a.buffer;
      if (!(wrapper instanceof GpuBuffer)) throw new LoomError('this buffer does not belong to a WebGPU device');
      buffers.set(p.name, { wrapper, native: wrapper.readyNow() ?? (await wrapper.ready()) });
    }

    const device = this.device;
    // the pipeline, not the kernel's name: programs compiled for other layouts reuse names
    const shape = `${entry.id}|${[...buffers].map(([n, b]) => `${n}:${b.wrapper.bindingSize}`).join(',')}`;
    const body = () => this.encodeChecked(variant, entry, buffers, values, images, groupCount, dispatch.size, shape);
    let recorded: ReturnType<typeof body>;
    if (this.validated.has(shape)) recorded = body();
    else {
      recorded = await withErrorScopes(device, `running kernel '${kernel.name}'`, body);
      this.validated.set(shape, true);
    }
    if (!recorded) return undefined;
    const kept = kernel.parameters.map((p, k) => {
      const a = args[k];
      if (a.kind === 'value') return { value: a.value };
      if (a.kind === 'local') return { value: a.byteLength };
      return { native: buffers.get(p.name)!.native, size: buffers.get(p.name)!.wrapper.bindingSize };
    });
    return { ...recorded, compiled, groupCount: [...groupCount], localSize: [...localSize], args: kept };
  }

  private encodeChecked(
    variant: Variant,
    entry: KernelPipeline,
    buffers: ReadonlyMap<string, { wrapper: GpuBuffer; native: GPUBuffer }>,
    values: ReadonlyMap<string, { dtype: DType; value: number | bigint }>,
    images: ReadonlyMap<string, readonly number[]>,
    groupCount: readonly number[],
    dispatch: readonly [number, number, number],
    shape: string,
  ): Omit<Recorded, 'compiled' | 'groupCount' | 'localSize' | 'args'> | undefined {
    const device = this.device;
    const encoder = device.createCommandEncoder();
    const entries: GPUBindGroupEntry[] = [];
    const poolOffsets = new Map<string, number>();
    const copiesBack: (() => void)[] = [];
    const temporaries: (GPUBuffer | GPUTexture)[] = [];
    try {
      for (const s of entry.storage) {
        if (!s.pool) {
          const b = buffers.get(s.arrays[0])!;
          this.checkBindingSize(b.wrapper.bindingSize, `argument '${s.arrays[0]}'`);
          entries.push({ binding: s.binding, resource: { buffer: b.native, size: vectorBindingSize(s, b.wrapper) } });
          continue;
        }
        // pooled arrays are copied in at word offsets, and the written ones back after the dispatch
        const members = s.arrays.filter((a) => buffers.has(a));
        let size = 0;
        for (const a of members) {
          poolOffsets.set(a, size / 4);
          size += buffers.get(a)!.wrapper.bindingSize;
        }
        this.checkBindingSize(size, `the shared buffer of ${members.map((a) => `'${a}'`).join(', ')}`);
        const pool = device.createBuffer({
          size: Math.max(size, 4),
          usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST,
        });
        temporaries.push(pool);
        for (const a of members) {
          const b = buffers.get(a)!;
          const offset = poolOffsets.get(a)! * 4;
          encoder.copyBufferToBuffer(b.native, 0, pool, offset, b.wrapper.bindingSize);
          if (s.access === 'read_write')
            copiesBack.push(() => encoder.copyBufferToBuffer(pool, offset, b.native, 0, b.wrapper.bindingSize));
        }
        entries.push({ binding: s.binding, resource: { buffer: pool } });
      }
      // each image becomes a texture of this launch, filled from its buffer before the dispatch
      for (const t of entry.textures) {
        const texture = textureFromBuffer(device, encoder, t, buffers.get(t.array)!.native, images.get(t.array)!);
        temporaries.push(texture);
        entries.push({ binding: t.binding, resource: texture.createView() });
      }
      // a shape with pooled arrays or textures makes its uniform buffer and bind group afresh, and is not recorded
      const cache = poolOffsets.size === 0 && entry.textures.length === 0 ? this.shapeCache(shape) : undefined;
      let uniformBytes: Uint8Array | undefined;
      if (entry.usesUniform) {
        const bytes = new Uint8Array(uniformBytesOf(variant.module.layout, values, poolOffsets, groupCount));
        let uniform: GPUBuffer;
        if (cache) {
          uniform = cache.uniform ??= device.createBuffer({
            size: bytes.byteLength,
            usage: USAGE.UNIFORM | USAGE.COPY_DST,
          });
          // the queue applies writes in order: unchanged values are already in the buffer
          if (!cache.lastUniform || !sameBytes(cache.lastUniform, bytes)) device.queue.writeBuffer(uniform, 0, bytes);
          cache.lastUniform = bytes;
          uniformBytes = bytes;
        } else {
          uniform = device.createBuffer({ size: bytes.byteLength, usage: USAGE.UNIFORM | USAGE.COPY_DST });
          temporaries.push(uniform);
          device.queue.writeBuffer(uniform, 0, bytes);
        }
        entries.push({ binding: variant.module.layout.uniform!.binding, resource: { buffer: uniform } });
      }
      const groupKey = cache
        ? entries
            .map(
              (e) =>
                `${bufferId((e.resource as GPUBufferBinding).buffer)}:${(e.resource as GPUBufferBinding).size ?? ''}`,
            )
            .join(',')
        : '';
      let bindGroup = cache?.bindGroups.get(groupKey);
      if (!bindGroup) {
        bindGroup = device.createBindGroup({ layout: entry.pipeline.getBindGroupLayout(0), entries });
        cache?.bindGroups.set(groupKey, bindGroup);
      }
      this.submit(entry.pipeline, bindGroup, dispatch, encoder, () => {
        for (const copy of copiesBack) copy();
      });
      if (!cache) return undefined;
      return { pipeline: entry.pipeline, bindGroup, dispatch, shape: cache, ...(uniformBytes ? { uniformBytes } : {}) };
    } finally {
      // WebGPU keeps them alive for the work already submitted
      for (const t of temporaries) t.destroy();
    }
  }

  cacheStats(): { launches: number; validatedLaunches: number } {
    return { launches: this.shapes.size, validatedLaunches: this.validated.size };
  }

  /** Destroys the uniform buffers and forgets every shape. */
  dispose(): void {
    for (const c of this.shapes.values()) {
      c.dropped = true;
      c.uniform?.destroy();
    }
    this.shapes.clear();
    this.validated.clear();
  }

  /** The uniform buffer and bind groups kept for one launch shape. */
  private shapeCache(shape: string): ShapeCache {
    return this.shapes.memo(shape, () => ({ bindGroups: new LruCache(BIND_GROUPS_PER_SHAPE) }));
  }

  private checkBindingSize(bytes: number, what: string): void {
    if (bytes > this.limits.maxStorageBufferBindingSize) {
      throw new LoomError(
        `${what} has ${bytes} bytes, more than this WebGPU device can bind (maxStorageBufferBindingSize ${this.limits.maxStorageBufferBindingSize})`,
      );
    }
  }
}

/**
 * An array held as vectors (`array<vec4<f32>>`) is bound whole, at offset 0 (so WebGPU's
 * 256-byte offset alignment holds), and covers whole vectors only: a buffer whose size is
 * not a multiple of the vector's would leave its last elements out of the binding.
 */
function vectorBindingSize(s: StorageBinding, buffer: GpuBuffer): number {
  const vector = elementBytes(s);
  // an empty array binds one vector of the native buffer (at least 256 bytes): WebGPU binds no fewer
  if (buffer.byteLength === 0) return vector;
  if (buffer.bindingSize % vector !== 0) {
    throw new LoomError(
      `argument '${s.arrays[0]}' is held as ${s.element} vectors (its 'vec' axis), but its buffer has ${buffer.byteLength} bytes, not a multiple of ${vector}: ` +
        'pass whole vectors, or drop the vec tag of its axis',
    );
  }
  return buffer.bindingSize;
}

/** The uniform struct's bytes: value arguments, pool offsets, the folded grid's size. */
function uniformBytesOf(
  layout: ModuleLayout,
  values: ReadonlyMap<string, { dtype: DType; value: number | bigint }>,
  poolOffsets: ReadonlyMap<string, number>,
  groupCount: readonly number[],
): ArrayBuffer {
  const uniform = layout.uniform!;
  const bytes = new ArrayBuffer(uniform.size);
  const view = new DataView(bytes);
  for (const m of uniform.members) {
    const source = m.source;
    switch (source.kind) {
      case 'value': {
        const v = Number(values.get(source.param)?.value ?? 0);
        // a bfloat16 is computed as the f32 of its value: rounded to bfloat16 once, here, from the double
        if (m.type === 'f32') view.setFloat32(m.offset, source.dtype === 'bfloat16' ? roundToBfloat16(v) : v, true);
        else if (m.type === 'u32')
          view.setUint32(m.offset, source.dtype === 'bool' ? (v !== 0 ? 1 : 0) : v >>> 0, true);
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

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** One launch as a compute pass of its own (so that it sees the writes of the passes before it). */
function encodePass(
  encoder: GPUCommandEncoder,
  {
    pipeline,
    bindGroup,
    dispatch,
  }: { pipeline: GPUComputePipeline; bindGroup: GPUBindGroup; dispatch: readonly [number, number, number] },
): void {
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(dispatch[0], dispatch[1], dispatch[2]);
  pass.end();
}

/**
 * Whether a launch is `r` again: same program, grid, values, and buffers whose native
 * buffers and binding sizes are those recorded (a released buffer fails here).
 */
function replays(
  r: Recorded,
  compiled: WgslProgram,
  args: readonly LaunchArgument[],
  groupCount: readonly number[],
  localSize: readonly number[],
): boolean {
  if (
    r.compiled !== compiled ||
    r.shape.dropped ||
    !sameNumbers(r.groupCount, groupCount) ||
    !sameNumbers(r.localSize, localSize) ||
    r.args.length !== args.length
  )
    return false;
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    const kept = r.args[k];
    if (a.kind === 'value') {
      if (!('value' in kept) || !Object.is(kept.value, a.value)) return false;
      continue;
    }
    if (a.kind === 'local') {
      if (!('value' in kept) || kept.value !== a.byteLength) return false;
      continue;
    }
    const wrapper = a.buffer;
    if (
      !(wrapper instanceof GpuBuffer) ||
      !('native' in kept) ||
      wrapper.readyNow() !== kept.native ||
      wrapper.bindingSize !== kept.size
    )
      return false;
  }
  return true;
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** A stable number per GPU buffer (kept while the buffer lives), to key the bind groups that use it. */
const bufferId = perObject((_: GPUBuffer) => nextBufferId++);
let nextBufferId = 0;
