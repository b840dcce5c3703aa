/**
 * Timing WGSL kernels on the GPU, not the host.
 *
 * The Loom device's `launch` submits one dispatch per call and waits for its error scopes:
 * right for correctness, but a benchmark of a 0.3 ms kernel would then measure the host.
 * Here a kernel's pipeline and bind group are made once, and one command buffer carries
 * many dispatches back to back (one compute pass each, so each sees the last one's writes
 * as a real sequence of launches would); the wall time from submit to
 * `onSubmittedWorkDone`, divided by the count, is the kernel's time. The Loom device asks
 * for no `timestamp-query`, so wall time it is; with dozens of dispatches per submit the
 * submit's own cost is a small part.
 *
 * `wgslKernel` takes hand-written WGSL; `loomKernels` takes what `prepareLaunch` prepared,
 * generating the same WGSL the device runs (`generateWgsl`, as the device does).
 */
/// <reference types="@webgpu/types" />
import { LoomError, type LaunchArgument, type PreparedLaunch } from '@loom/core';
import { foldedSize, generateWgsl, type WebGPUDevice } from '@loom/codegen-wgsl';

const USAGE_UNIFORM_COPY_DST = 0x40 | 0x8;
const STAGE_COMPUTE = 0x4;

/** A kernel ready to be dispatched: pipeline, bind group and grid, made once. */
export interface DirectKernel {
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  readonly dispatch: readonly [number, number, number];
}

/** The GPUBuffer behind a Loom WebGPU buffer (the device's buffer class keeps it as `gpuBuffer`). */
export function gpuBufferOf(buffer: unknown): GPUBuffer {
  const inner = (buffer as { gpuBuffer?: GPUBuffer }).gpuBuffer;
  if (!inner) throw new LoomError('not a buffer of a Loom WebGPU device');
  return inner;
}

/**
 * A hand-written kernel: `buffers[k]` is bound at `@binding(k)`, and `uniform` (bytes), when given,
 * at the next binding.
 */
export async function wgslKernel(
  device: WebGPUDevice,
  code: string,
  entryPoint: string,
  buffers: readonly { buffer: GPUBuffer; readOnly: boolean }[],
  dispatch: readonly [number, number, number],
  uniform?: ArrayBuffer,
): Promise<DirectKernel> {
  const gpu = device.gpuDevice;
  return checked(gpu, `building '${entryPoint}'`, async () => {
    const module = gpu.createShaderModule({ code });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length)
      throw new LoomError(
        `WGSL of '${entryPoint}' does not compile: ${errors.map((e) => `${e.lineNum}: ${e.message}`).join('; ')}`,
      );
    const layoutEntries: GPUBindGroupLayoutEntry[] = buffers.map((b, k) => ({
      binding: k,
      visibility: STAGE_COMPUTE,
      buffer: { type: b.readOnly ? 'read-only-storage' : 'storage' },
    }));
    const entries: GPUBindGroupEntry[] = buffers.map((b, k) => ({ binding: k, resource: { buffer: b.buffer } }));
    if (uniform) {
      const u = gpu.createBuffer({ size: Math.max(16, uniform.byteLength), usage: USAGE_UNIFORM_COPY_DST });
      gpu.queue.writeBuffer(u, 0, uniform);
      layoutEntries.push({ binding: buffers.length, visibility: STAGE_COMPUTE, buffer: { type: 'uniform' } });
      entries.push({ binding: buffers.length, resource: { buffer: u } });
    }
    const bindGroupLayout = gpu.createBindGroupLayout({ entries: layoutEntries });
    const pipeline = await gpu.createComputePipelineAsync({
      layout: gpu.createPipelineLayout({ bindGroupLayouts: [bindGroupLayout] }),
      compute: { module, entryPoint },
    });
    return { pipeline, bindGroup: gpu.createBindGroup({ layout: bindGroupLayout, entries }), dispatch };
  });
}

/**
 * The kernels of a prepared Loom launch, for dispatching directly. Arrays pooled into shared
 * buffers (more arrays than the device binds) are not handled: such a launch throws, and the
 * caller times it through `launch()` instead.
 */
export async function loomKernels(device: WebGPUDevice, prepared: PreparedLaunch): Promise<DirectKernel[]> {
  const max = device.wgslLimits.maxComputeWorkgroupsPerDimension;
  const folded = prepared.kernels.some((k) => k.groupCount.some((g) => g > max));
  const module = generateWgsl(prepared.code.program, {
    shaderF16: device.shaderF16,
    limits: device.wgslLimits,
    foldedGrid: folded,
  });
  if (module.layout.storage.some((s) => s.pool))
    throw new LoomError('pooled arrays: time this kernel through launch()');
  const gpu = device.gpuDevice;
  return checked(gpu, 'building the generated WGSL', async () => {
    const shader = gpu.createShaderModule({ code: module.code });
    const kernels: DirectKernel[] = [];
    for (const k of prepared.kernels) {
      const argOf = new Map(k.kernel.function.params.map((p, index) => [p.name, k.args[index]]));
      const storage = module.layout.storage.filter((s) => argOf.has(s.arrays[0]));
      const uniform = module.layout.uniform;
      const usesUniform = uniform !== undefined && (k.kernel.function.params.some((p) => p.kind === 'value') || folded);
      const layoutEntries: GPUBindGroupLayoutEntry[] = storage.map((s) => ({
        binding: s.binding,
        visibility: STAGE_COMPUTE,
        buffer: { type: s.access === 'read' ? 'read-only-storage' : 'storage' },
      }));
      const entries: GPUBindGroupEntry[] = storage.map((s) => {
        const a = argOf.get(s.arrays[0]) as Extract<LaunchArgument, { kind: 'buffer' }>;
        return { binding: s.binding, resource: { buffer: gpuBufferOf(a.buffer) } };
      });
      if (usesUniform) {
        const bytes = new ArrayBuffer(uniform.size);
        const view = new DataView(bytes);
        for (const m of uniform.members) {
          if (m.source.kind === 'group-count') {
            for (let axis = 0; axis < 3; axis++) view.setUint32(m.offset + 4 * axis, k.groupCount[axis] ?? 1, true);
          } else if (m.source.kind === 'value') {
            const a = argOf.get(m.source.param);
            const v = a?.kind === 'value' ? Number(a.value) : 0;
            if (m.type === 'f32') view.setFloat32(m.offset, v, true);
            else if (m.type === 'u32') view.setUint32(m.offset, v >>> 0, true);
            else view.setInt32(m.offset, v | 0, true);
          }
        }
        const buffer = gpu.createBuffer({ size: uniform.size, usage: USAGE_UNIFORM_COPY_DST });
        gpu.queue.writeBuffer(buffer, 0, bytes);
        layoutEntries.push({ binding: uniform.binding, visibility: STAGE_COMPUTE, buffer: { type: 'uniform' } });
        entries.push({ binding: uniform.binding, resource: { buffer } });
      }
      const bindGroupLayout = gpu.createBindGroupLayout({ entries: layoutEntries });
      const pipeline = await gpu.createComputePipelineAsync({
        layout: gpu.createPipelineLayout({ bindGroupLayouts: [bindGroupLayout] }),
        compute: { module: shader, entryPoint: module.entryPoints.get(k.kernel.name)! },
      });
      kernels.push({
        pipeline,
        bindGroup: gpu.createBindGroup({ layout: bindGroupLayout, entries }),
        dispatch: gridOf(k.groupCount, folded, max),
      });
    }
    return kernels;
  });
}

/** The dispatch size: the group counts, or, folded, a grid at least as large (the kernel skips the extra groups). */
function gridOf(groups: readonly number[], folded: boolean, max: number): [number, number, number] {
  const counts = [0, 1, 2].map((axis) => groups[axis] ?? 1);
  if (!folded) return [counts[0], counts[1], counts[2]];
  // the device's own folding (limits.ts), so that this times the launch the device makes
  return foldedSize(counts[0] * counts[1] * counts[2], max);
}

/** Seconds for `count` rounds of `kernels` (each kernel once per round), all in one submit. */
export async function timeDispatches(
  device: WebGPUDevice,
  kernels: readonly DirectKernel[],
  count: number,
): Promise<number> {
  const gpu = device.gpuDevice;
  return checked(gpu, 'dispatching', async () => {
    const encoder = gpu.createCommandEncoder();
    for (let r = 0; r < count; r++) {
      for (const k of kernels) {
        const pass = encoder.beginComputePass();
        pass.setPipeline(k.pipeline);
        pass.setBindGroup(0, k.bindGroup);
        pass.dispatchWorkgroups(...k.dispatch);
        pass.end();
      }
    }
    const commands = encoder.finish();
    await gpu.queue.onSubmittedWorkDone(); // start from an idle queue
    const start = performance.now();
    gpu.queue.submit([commands]);
    await gpu.queue.onSubmittedWorkDone();
    return (performance.now() - start) / 1000;
  });
}

/** Runs `body` in a validation scope: a WebGPU mistake becomes an exception here, not silence. */
async function checked<T>(gpu: GPUDevice, what: string, body: () => Promise<T>): Promise<T> {
  gpu.pushErrorScope('validation');
  let result: T;
  try {
    result = await body();
  } finally {
    const error = await gpu.popErrorScope();
    // biome-ignore lint/correctness/noUnsafeFinally: the error scope is popped in any case, and its error is the one to report
    if (error) throw new LoomError(`WebGPU validation error while ${what}: ${error.message}`);
  }
  return result;
}
