// An app as a user writes it in TypeScript, type-checked with plain tsc against Loom's published
// declarations (skipLibCheck off, so they are checked too), under node16 and bundler resolution,
// without @types/node or the DOM's types. (@loom/codegen-wgsl is left out: its WebGPU types come
// from @webgpu/types, which needs the DOM library.)
import { cpuDevice } from '@loom/codegen-js';
import type { OpenCLDevice } from '@loom/codegen-opencl';
import { f32, kernel } from '@loom/dsl';

const affine = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1').args({ a: f32('n'), out: f32.out('n') });

export async function affineOnCpu(a: Float32Array): Promise<Float32Array> {
  const { out } = await affine.run(cpuDevice(), { a });
  return out;
}

export async function refused(): Promise<void> {
  // @ts-expect-error a is declared f32: a Float64Array is not an argument run accepts
  await affine.run(cpuDevice(), { a: new Float64Array(4) });
}

export type Devices = OpenCLDevice;
