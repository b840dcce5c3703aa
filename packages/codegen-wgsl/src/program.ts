/**
 * A compiled WGSL program: its shader module and one compute pipeline per kernel, bound as
 * the module's layout says. A program whose grid must be folded (`limits.ts`) gets a second
 * variant the first time it is launched so. A kernel whose work-group size is known only at
 * launch gets a pipeline per size, its `override` constants set to it (kept, a few per kernel).
 */
/// <reference types="@webgpu/types" preserve="true" />
import { LoomError, LruCache, type DeviceKernel, type GeneratedCode } from '@loom/core';
import type { StorageBinding, TextureBinding } from './bindings.ts';
import { compilationError, withErrorScopes } from './errors.ts';
import type { WgslExtra, WgslModule } from './target.ts';

const SHADER_STAGE_COMPUTE = 0x4;

/** One kernel's pipeline and which bindings it uses. */
export interface KernelPipeline {
  /**
   * Unique per pipeline, to key what launches keep (`launches.ts`): kernels of different
   * programs share names (every `pointwise` variant's kernel is the op's name) but not
   * their uniform struct or bindings.
   */
  readonly id: number;
  readonly pipeline: GPUComputePipeline;
  readonly storage: readonly StorageBinding[];
  /** The image arguments it reads, bound as textures (made from their buffers at each launch). */
  readonly textures: readonly TextureBinding[];
  readonly usesUniform: boolean;
}

export interface Variant {
  readonly module: WgslModule;
  /** The pipelines of the kernels whose work-group size the code fixes. */
  readonly kernels: ReadonlyMap<string, KernelPipeline>;
  /**
   * The pipeline of a kernel whose work-group size or local arrays are known only at launch, for
   * the launch's size and its local arrays' element counts (in order).
   */
  sized(kernel: string, localSize: readonly number[], lengths: readonly number[]): Promise<KernelPipeline>;
  /** That pipeline, if it is made already. */
  sizedNow(kernel: string, localSize: readonly number[], lengths: readonly number[]): KernelPipeline | undefined;
}

/** Pipelines kept per variant for work-group sizes known only at launch (a few sizes per kernel are usual). */
const SIZED_PIPELINES = 16;

/** A compiled program: its plain variant, and the folded-grid one when a launch needs it. */
export class WgslProgram {
  private readonly variants = new Map<boolean, Promise<Variant>>();
  /** The variants built already, for launches that need not wait for a promise. */
  private readonly built = new Map<boolean, Variant>();

  constructor(
    private readonly device: GPUDevice,
    /** The generated code it was compiled from. */
    readonly code: GeneratedCode<WgslExtra>,
  ) {}

  /**
   * The plain variant, or (`foldedGrid`) the one whose grid is folded into y and z for more
   * work-groups than a dispatch dimension holds: built on first request, then shared (a build
   * that failed is tried again next time).
   */
  variant(foldedGrid: boolean): Promise<Variant> {
    let v = this.variants.get(foldedGrid);
    if (!v) {
      v = buildVariant(this.device, this.code, foldedGrid);
      this.variants.set(foldedGrid, v);
      v.then(
        (built) => this.built.set(foldedGrid, built),
        () => this.variants.delete(foldedGrid),
      );
    }
    return v;
  }

  /** The variant, if it is built already. */
  variantNow(foldedGrid: boolean): Variant | undefined {
    return this.built.get(foldedGrid);
  }
}

let nextPipelineId = 0;

/** Compiles one variant of a program and makes its pipelines, bound as its module's layout says. */
async function buildVariant(device: GPUDevice, code: GeneratedCode<WgslExtra>, foldedGrid: boolean): Promise<Variant> {
  const module = foldedGrid ? code.extra.folded() : code.extra.module;
  const kernelNames = code.kernels.map((k) => `'${k.name}'`).join(', ');
  const shader = await withErrorScopes(device, `compiling the WGSL of ${kernelNames}`, async () => {
    const shader = device.createShaderModule({ code: module.code });
    const info = await shader.getCompilationInfo();
    if (info.messages.some((m) => m.type === 'error'))
      throw compilationError(`kernel ${kernelNames}`, module.code, info.messages);
    return shader;
  });
  const make = (k: DeviceKernel, constants?: Record<string, number>) =>
    makePipeline(device, shader, module, k, foldedGrid, constants);
  const kernels = new Map<string, KernelPipeline>();
  for (const k of code.kernels)
    if (!module.localSizeOverrides.has(k.name) && !module.localArrayOverrides.has(k.name))
      kernels.set(k.name, await make(k));

  const sized = new LruCache<string, Promise<KernelPipeline>>(SIZED_PIPELINES);
  const made = new LruCache<string, KernelPipeline>(SIZED_PIPELINES);
  const key = (kernel: string, localSize: readonly number[], lengths: readonly number[]) =>
    `${kernel}|${localSize.join(',')}|${lengths.join(',')}`;
  return {
    module,
    kernels,
    sizedNow: (kernel, localSize, lengths) => made.get(key(kernel, localSize, lengths)),
    sized(kernel, localSize, lengths) {
      const at = key(kernel, localSize, lengths);
      let p = sized.get(at);
      if (!p) {
        const k = code.kernels.find((x) => x.name === kernel);
        const overrides = module.localSizeOverrides.get(kernel);
        const arrays = module.localArrayOverrides.get(kernel);
        if (!k || (!overrides && !arrays))
          throw new LoomError(`the compiled program has no kernel '${kernel}' sized at launch`);
        const constants: Record<string, number> = {};
        overrides?.forEach((name, axis) => {
          if (name !== undefined) constants[name] = localSize[axis] ?? 1;
        });
        arrays?.forEach((name, i) => {
          constants[name] = lengths[i];
        });
        p = make(k, constants);
        sized.set(at, p);
        p.then(
          (pipeline) => made.set(at, pipeline),
          () => sized.delete(at),
        );
      }
      return p;
    },
  };
}

/** The compute pipeline of kernel `k`, with its `override` constants set where it has some. */
async function makePipeline(
  device: GPUDevice,
  shader: GPUShaderModule,
  module: WgslModule,
  k: DeviceKernel,
  foldedGrid: boolean,
  constants?: Record<string, number>,
): Promise<KernelPipeline> {
  const storage = module.layout.storage.filter((s) => s.arrays.some((a) => k.parameters.some((p) => p.name === a)));
  const usesUniform =
    module.layout.uniform !== undefined &&
    (k.parameters.some((p) => p.kind === 'value' || p.kind === 'host-loop') ||
      storage.some((s) => s.pool) ||
      foldedGrid);
  const entries: GPUBindGroupLayoutEntry[] = storage.map((s) => ({
    binding: s.binding,
    visibility: SHADER_STAGE_COMPUTE,
    buffer: { type: s.access === 'read' ? 'read-only-storage' : 'storage' },
  }));
  const textures = [...module.layout.textures.values()].filter((t) => k.parameters.some((p) => p.name === t.array));
  for (const t of textures)
    entries.push({
      binding: t.binding,
      visibility: SHADER_STAGE_COMPUTE,
      texture: {
        sampleType: t.texel === 'f32' ? 'unfilterable-float' : t.texel === 'i32' ? 'sint' : 'uint',
        viewDimension: t.dimensions === 2 ? '2d' : '3d',
      },
    });
  if (usesUniform)
    entries.push({
      binding: module.layout.uniform!.binding,
      visibility: SHADER_STAGE_COMPUTE,
      buffer: { type: 'uniform' },
    });
  const pipeline = await withErrorScopes(device, `creating the pipeline of kernel '${k.name}'`, async () => {
    const layout = device.createPipelineLayout({ bindGroupLayouts: [device.createBindGroupLayout({ entries })] });
    try {
      return await device.createComputePipelineAsync({
        layout,
        compute: { module: shader, entryPoint: module.entryPoints.get(k.name)!, ...(constants ? { constants } : {}) },
      });
    } catch (e) {
      throw new LoomError(`WebGPU could not create the pipeline of kernel '${k.name}': ${(e as Error).message}`);
    }
  });
  return { id: nextPipelineId++, pipeline, storage, textures, usesUniform };
}
