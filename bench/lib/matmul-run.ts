/**
 * Running one SGEMM configuration on a device: matrices made once per size, the kernel
 * prepared, timed and checked. Shared by the autotuner and the matmul benchmark.
 */
import {
  addPrefetch,
  DeviceArray,
  fixParameters,
  prepareLaunch,
  prioritizeLoops,
  splitIname,
  type LoopKernel,
} from '@loom/core';
import {
  matmulArgumentShapes,
  matmulFlops,
  plainMatmul,
  pseudoRandom,
  sampledMatmulError,
  shapeOf,
  type MatmulShape,
} from '../../examples/matmul.ts';
import { preparePaddedMatmul, type PaddedMatmulPlan } from '../../examples/matmul-padded.ts';
import type { BenchDevice } from './devices.ts';
import { kernelSeconds, sequenceSeconds, type TimingOptions } from './timing.ts';

/** a, b (and c, written) of order n, or of a shape, on one device, with the host copies of a and b for checking. */
export interface MatmulData {
  readonly shape: MatmulShape;
  readonly hostA: Float32Array;
  readonly hostB: Float32Array;
  readonly a: DeviceArray;
  readonly b: DeviceArray;
  readonly c: DeviceArray;
  release(): void;
}

export async function matmulData(d: BenchDevice, size: number | MatmulShape): Promise<MatmulData> {
  const shape = shapeOf(size);
  // the plain shapes (m x k, k x n, m x n after the batch): any configuration's kernel sees them as it declares them
  const shapes = matmulArgumentShapes(
    { tileM: 1, tileN: 1, tileK: 1, regM: 1, regN: 1, layout: 'strided', prefetch: false, unrollK: false },
    shape,
  );
  const count = (s: readonly number[]) => s.reduce((x, y) => x * y, 1);
  const hostA = pseudoRandom(count(shapes.a), 1);
  const hostB = pseudoRandom(count(shapes.b), 2);
  const a = await DeviceArray.from(d.device, hostA, 'float32', shapes.a);
  const b = await DeviceArray.from(d.device, hostB, 'float32', shapes.b);
  const c = await DeviceArray.from(d.device, new Float32Array(count(shapes.c)), 'float32', shapes.c);
  return { shape, hostA, hostB, a, b, c, release: () => [a, b, c].forEach((x) => x.release()) };
}

/** FLOP of one product: 2n^3, or 2*batch*m*n*k. */
export const flops = (size: number | MatmulShape): number => matmulFlops(size);

/** Seconds per launch of `knl` on `data`, after checking its result; throws when it is wrong. */
export async function timeMatmul(
  d: BenchDevice,
  knl: LoopKernel,
  data: MatmulData,
  timing: TimingOptions,
): Promise<number> {
  const prepared = await prepareLaunch(knl, d.device, {
    a: asKernelSees(knl, 'a', data.a),
    b: asKernelSees(knl, 'b', data.b),
    c: asKernelSees(knl, 'c', data.c),
  });
  try {
    await d.device.write(data.c.buffer, new Float32Array(data.c.shape.reduce((x, y) => x * y, 1)));
    const seconds = await kernelSeconds(d, prepared, timing);
    await checkMatmul(data);
    return seconds;
  } finally {
    prepared.release();
  }
}

/**
 * Seconds per product by a padded plan (examples/matmul-padded.ts) on `data`, the copies
 * included: on OpenCL from its first kernel's start to its last one's end (event profiling), on WebGPU all its
 * dispatches of one call by wall time (lib/timing.ts's sequenceSeconds); after checking the
 * result, throws when it is wrong.
 */
export async function timePaddedMatmul(
  d: BenchDevice,
  plan: PaddedMatmulPlan,
  data: MatmulData,
  timing: TimingOptions,
): Promise<number> {
  const prepared = await preparePaddedMatmul(plan, d.device, { a: data.a, b: data.b, c: data.c });
  try {
    await d.device.write(data.c.buffer, new Float32Array(data.c.shape.reduce((x, y) => x * y, 1)));
    const seconds = await sequenceSeconds(d, prepared.launches, timing);
    await checkMatmul(data);
    return seconds;
  } finally {
    prepared.release();
  }
}

/**
 * `array` with the shape the kernel declares for it, when that is another shape of as many
 * elements (a kernel that views the rows of a, b and c as float4s: n x n/4 x 4).
 */
function asKernelSees(knl: LoopKernel, name: string, array: DeviceArray): DeviceArray {
  const shape = knl.arg(name)?.shape?.map((e) => (e.kind === 'int' ? e.value : Number.NaN));
  const same =
    shape !== undefined && shape.length === array.shape.length && shape.every((s, k) => s === array.shape[k]);
  return shape === undefined || same || shape.some(Number.isNaN) ? array : array.reshape(shape);
}

/** Compares 64 entries of c with float64 dot products (examples/matmul.ts); throws when one is off. */
export async function checkMatmul(data: MatmulData): Promise<void> {
  const wrong = sampledMatmulError((await data.c.toHost()) as Float32Array, data.hostA, data.hostB, data.shape);
  if (wrong) throw new Error(wrong);
}

/** loopy's tutorial matmul (examples/transformations.ts): 16x16 tiles in local memory, one result per work-item, n fixed. */
export function classicMatmul(n: number): LoopKernel {
  let mm = fixParameters(plainMatmul(), { n });
  mm = splitIname(mm, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
  mm = splitIname(mm, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  mm = splitIname(mm, 'k', 16);
  mm = addPrefetch(mm, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
  mm = addPrefetch(mm, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
  return prioritizeLoops(mm, 'k_outer,k_inner');
}
